#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Stream offsets beyond 2^32 on the cheapest path: one flowgraph streams
2^32 + 2^20 samples (blocks.tags_strobe, plus a constant) into the DDC and
the GNSS correlator on the CPU backend, with gpudsp.missing tags below and
beyond 2^32 and a satellite that starts 5000 samples before 2^32. Checked
exactly against float64 / rational definitions: the DDC's outputs around
2^32 and around a retune beyond it (their phase), its flags and tags; the GNSS integrations' starts,
carrier and code phases, correlations and flags across 2^32. It takes
about 10 s on one core (34 GB of samples, mostly memset); it is skipped
under AddressSanitizer. The 2^40 (and 2^52) checks of the same arithmetic
are kernel- and schedule-level: qa_fuzz_kernels (DDC first_sample_index)
and the C++ qa_gnss_correlator (tracker at 2^40)."""

import os
import time
import unittest
from fractions import Fraction

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import gnss, kernels

N_TOTAL = int(os.environ.get("GPUDSP_LONG_SAMPLES", 0)) or (1 << 32) + (1 << 20)
STROBE = (1 << 31) + 2000  # missing tags at 2^31 + 2000 and 2^32 + 4000
MISSING = 100
C = 1.0 + 0.5j  # the signal: a constant, so every phase shows in the output
# DDC: 3 taps, decimation 4096
D, TAPS, FS, FC = 4096, [0.5, 0.25, -0.125], 1e6, 123456.789
FC2, RETUNE = -250000.125, (1 << 32) + (1 << 19) + 1000  # retuned at this sample
# GNSS: GPS L1 C/A PRN 7 from 5000 samples before 2^32
G_FS, G_AT = 2.046e6, (1 << 32) - 5000
G_SAT = dict(system="gps_l1ca", prn=7, carrier_freq=1234.5, code_freq=1.023e6 + 0.8,
             carrier_phase=0.3, code_phase=100.25)
G_TAPS = [0.5, 0.0, -0.5]


def ddc_exact(m):
    """Output m for the constant input C, float64 with the exact phase of the
    64-bit fixed-point frequencies (docs/ddc.md), retuned phase-continuously
    at sample RETUNE for the outputs with mD >= RETUNE."""
    fixed = lambda fc: Fraction(round(Fraction(fc / FS) * 2**64), 2**64)
    f1, f2 = fixed(FC), fixed(FC2)
    if m * D < RETUNE:
        phase = lambda n: f1 * n
    else:
        phase = lambda n: f1 * RETUNE + f2 * (n - RETUNE)
    return sum(h * C * np.exp(-2j * np.pi * float(phase(m * D - k) % 1))
               for k, h in enumerate(TAPS))


@unittest.skipIf("asan" in os.environ.get("LD_PRELOAD", ""), "34 GB of samples under ASan")
class qa_long_offsets(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tb = gr.top_block()
        src = blocks.tags_strobe(8, pmt.from_long(MISSING), STROBE,
                                 pmt.intern("gpudsp.missing"))
        add = blocks.add_const_cc(C)
        head = blocks.head(8, N_TOTAL)
        for b in (src, add, head):
            b.set_min_output_buffer(1 << 22)  # fewer, larger work calls
        ddc = gpudsp.ddc(D, TAPS, FC, FS, backend="cpu")
        ddc.set_center_freq(FC2, 0, RETUNE)
        ddc_sink = blocks.vector_sink_c()
        corr = gpudsp.wipeoff_correlator(G_FS, 1, G_TAPS, backend="cpu")
        corr.add_satellite(G_SAT["system"], G_SAT["prn"], G_SAT["carrier_freq"],
                           G_SAT["code_freq"], G_SAT["carrier_phase"], G_SAT["code_phase"],
                           G_AT)
        rec_sink = blocks.vector_sink_b(corr.record_size())
        tb.connect(src, add, head)
        tb.connect(head, ddc, ddc_sink)
        tb.connect(head, corr, rec_sink)
        t0 = time.time()
        tb.run()
        cls.seconds = time.time() - t0
        cls.y = np.array(ddc_sink.data())
        cls.ddc_tags = ddc_sink.tags()
        cls.recs = gnss.parse_records(np.array(rec_sink.data(), np.uint8), 1, len(G_TAPS))
        print(f"{N_TOTAL} samples in {cls.seconds:.1f} s")

    def test_ddc_phase_beyond_2_32(self):
        self.assertEqual(len(self.y), N_TOTAL // D)
        m32, m_new = (1 << 32) // D, -(-RETUNE // D)
        for m in [0, 1, m32 - 1, m32, m32 + 1, m32 + 2, m_new - 1, m_new, m_new + 1,
                  len(self.y) - 1]:
            want = ddc_exact(m) if m > 0 else TAPS[0] * C  # output 0 has no earlier samples
            self.assertLess(abs(self.y[m] - want), 2e-6, f"output {m}")

    def test_ddc_retune_tag_beyond_2_32(self):
        cf = [(t.offset, pmt.to_double(t.value)) for t in self.ddc_tags
              if pmt.symbol_to_string(t.key) == "gpudsp.center_freq"]
        self.assertEqual(cf, [(-(-RETUNE // D), FC2)])

    def test_ddc_missing_flags_beyond_2_32(self):
        # Missing samples [a, a + 100) touch the outputs m with mD in
        # [a, a + 101]: a = 2^31 + 2000 -> none (2^31 is a multiple of D,
        # 2000..2101 holds none); a = 2^32 + 4000 -> m = 2^20 + 1.
        runs = [(t.offset, pmt.to_uint64(t.value)) for t in self.ddc_tags
                if pmt.symbol_to_string(t.key) == "gpudsp.missing"]
        self.assertEqual(runs, [((1 << 20) + 1, 1)])

    def test_gnss_integrations_across_2_32(self):
        r = self.recs
        self.assertGreater(len(r), 400)  # 1 ms each over 2^20 + 5000 samples
        np.testing.assert_array_equal(r["integration"], np.arange(len(r)))
        self.assertGreaterEqual(int(r["start"][0]), G_AT)
        ends = r["start"] + r["length"]
        across = np.flatnonzero((r["start"] < 1 << 32) & (ends > 1 << 32))
        self.assertEqual(len(across), 1)  # one integration straddles 2^32
        L = 1023
        f = Fraction(G_SAT["carrier_freq"]) / Fraction(G_FS)
        # The code rate the fixed point runs at: round(f_code / fs 2^F) / 2^F
        # chips per sample, F = 53 for a 1023-chip code (docs/gnss.md).
        F = 63 - (L - 1).bit_length()
        step = Fraction(round(G_SAT["code_freq"] / G_FS * 2**F), 2**F)
        for a, b in zip(r[:-1], r[1:]):
            self.assertEqual(int(b["start"]), int(a["start"]) + int(a["length"]))
        for k in [0, int(across[0]), int(across[0]) + 1, len(r) // 2, len(r) - 1]:
            rec = r[k]
            elapsed = int(rec["start"]) - G_AT
            cyc = (Fraction(G_SAT["carrier_phase"]) + f * elapsed) % 1
            d = rec["carrier_phase"] - float(cyc)
            self.assertAlmostEqual(d - round(d), 0, places=9, msg=f"integration {k}")
            code = (Fraction(G_SAT["code_phase"]) + step * elapsed) % L
            code = code - L if code > L - 1 else code
            self.assertAlmostEqual(rec["code_phase"], float(code), places=6)
            # The correlations of the constant: the kernel on the same
            # record's phases (itself checked against float64).
            sat = dict(system="gps_l1ca", prn=7, carrier_freq=rec["carrier_freq"],
                       carrier_phase=rec["carrier_phase"], code_freq=rec["code_freq"],
                       code_phase=rec["code_phase"], start=0, length=int(rec["length"]))
            x = np.full((1, int(rec["length"])), C, np.complex64)
            want = kernels.correlate(x, [sat], G_TAPS, G_FS, backend="cpu")[0]
            np.testing.assert_allclose(rec["correlations"], want,
                                       atol=1e-5 * np.abs(want).max())

    def test_gnss_missing_flag_beyond_2_32(self):
        a = 2 * STROBE  # 2^32 + 4000
        hit = (self.recs["start"] < a + MISSING) & \
            (self.recs["start"] + self.recs["length"] > a)
        self.assertEqual(int(hit.sum()), 1)
        np.testing.assert_array_equal(self.recs["flags"] & 1, hit.astype(np.uint32))


if __name__ == "__main__":
    gr_unittest.main()
