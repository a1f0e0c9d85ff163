#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Lost input end to end: sources that drop random packets (the lost bytes
replaced by garbage and announced by gpudsp.missing tags, valued as a long,
a uint64 or, once, malformed) through F-engine -> X-engine and through the
DDC, cut into random call sizes. Every output whose window touches a lost
sample is flagged and no other is; the flags' counts add up (runs never
overlap, spectra used + flagged = spectra dumped); every unflagged output
equals the output of a clean run. CPU and emulated device; the flags are
computed here from the windows' definitions, not from the blocks' code."""

import os

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qa_xengine_kernels import reference as xengine_reference

EXAMPLES = int(os.environ.get("GPUDSP_FUZZ_EXAMPLES", "0"))
fuzz = settings(max_examples=EXAMPLES or 6, deadline=None, derandomize=EXAMPLES == 0,
                database=None, suppress_health_check=[HealthCheck.too_slow])


def missing_value(k):
    """The producers' ways of writing a count (k-th tag): long, uint64."""
    return pmt.from_long if k % 2 else pmt.from_uint64


def drop_packets(clean, packet, p, rng, garbage):
    """A copy of clean with each packet lost with probability p: its items
    replaced by garbage(n) and a gpudsp.missing tag put on its first item.
    Returns (data, tags, lost item ranges)."""
    data = clean.copy()
    tags, lost = [], []
    for k, start in enumerate(range(0, len(clean) - packet + 1, packet)):
        if rng.random() < p:
            data[start:start + packet] = garbage(packet)
            tags.append(gr.tag_utils.python_to_tag(
                (start, pmt.intern("gpudsp.missing"), missing_value(k)(packet))))
            lost.append((start, start + packet))
    return data, tags, lost


def flagged_runs(tags):
    """[(offset, count)] of the gpudsp.missing tags among tags."""
    return [(t.offset, pmt.to_uint64(t.value) if pmt.is_uint64(t.value) else
             pmt.to_long(t.value)) for t in tags
            if pmt.symbol_to_string(t.key) == "gpudsp.missing"]


def touched(first, last_exclusive, windows, lost):
    """Indices m in [first, last) whose window [lo, hi) = windows(m) overlaps
    any lost range."""
    out = set()
    for m in range(first, last_exclusive):
        lo, hi = windows(m)
        if any(a < hi and lo < b for a, b in lost):
            out.add(m)
    return out


class lost_input_tests:
    backend = "cpu"

    def check_flags(self, runs, want, n_outputs):
        flagged = [m for o, c in runs for m in range(o, o + c)]
        # Runs never overlap: the counts add up to the outputs flagged.
        self.assertEqual(len(flagged), len(set(flagged)), runs)
        self.assertEqual(set(m for m in flagged if m < n_outputs), want)

    @fuzz
    @given(seed=st.integers(0, 2**32 - 1), p=st.sampled_from([0.02, 0.1, 0.3]),
           chop=st.integers(37, 4000))
    def test_fengine_to_xengine(self, seed, p, chop):
        rng = np.random.default_rng(seed)
        S, P, N, T, n_int = 2, 2, 32, 4, 8
        A, step = S * P, 2 * N  # real input: 2N samples per spectrum
        packet = 40  # bytes: 32 samples of packed 10-bit
        n_spectra = 96
        n_bytes = step * n_spectra * 5 // 4
        clean = rng.integers(0, 256, (A, n_bytes), dtype=np.uint8)
        bad, tags, lost = [], [], []
        for a in range(A):
            d, t, l = drop_packets(clean[a], packet, p, rng,
                                   lambda n: rng.integers(0, 256, n, dtype=np.uint8))
            bad.append(d)
            tags.append(t)
            lost.append([(b0 * 4 // 5, b1 * 4 // 5) for b0, b1 in l])  # in samples
        # One malformed count (a symbol) on input 0, byte 4005 (sample 3204):
        # logged, taken as one item, so spectra 50 .. 53 are flagged too.
        tags[0].append(gr.tag_utils.python_to_tag(
            (4005, pmt.intern("gpudsp.missing"), pmt.intern("lots"))))
        lost[0].append((3204, 3205))

        tb = gr.top_block()
        fe = gpudsp.pfb_fengine(A, N, T, "packed10", "ci8", backend=self.backend)
        xe = gpudsp.xengine(S, P, N, n_int, "ci8", backend=self.backend)
        keep = []
        for a in range(A):
            src = blocks.vector_source_b(bad[a].tolist(), False, 1, tags[a])
            cut = blocks.copy(1)
            cut.set_max_noutput_items(chop + 7 * a)
            tb.connect(src, cut, (fe, a))
            keep.append((src, cut))
        f_sink = blocks.vector_sink_b(N * A * 2)
        x_sink = blocks.vector_sink_b(N * 3 * P * P * 8)
        # The host reader of a GPU output gets its own device_copy (formats.md).
        tb.connect(fe, gpudsp.device_copy(N * A * 2, backend=self.backend), f_sink)
        tb.connect(fe, xe, x_sink)
        tb.run()

        f_out = np.frombuffer(bytes(f_sink.data()), np.int8).reshape(-1, N, A, 2)
        self.assertEqual(len(f_out), n_spectra)
        # Spectrum m's window: samples [(m - T + 1) step, (m + 1) step) of every input.
        lost_any = [r for l in lost for r in l]
        want = touched(0, n_spectra, lambda m: ((m - T + 1) * step, (m + 1) * step), lost_any)
        want |= set(range(T - 1))  # these read the zeros before the stream
        self.check_flags(flagged_runs(f_sink.tags()), want, n_spectra)
        # Unflagged spectra equal the clean data's (the kernel drops the last T - 1).
        ref = gpudsp.kernels.fengine(clean, N, T, output_format="ci8",
                                     coarse_delays=[(T - 1) * step] * A, backend="cpu")
        ok = np.array([m not in want for m in range(len(ref))])
        np.testing.assert_array_equal(f_out[:len(ref)][ok], ref[ok])

        x_out = np.frombuffer(bytes(x_sink.data()), np.int32).reshape(-1, N, 3, P, P, 2)
        self.assertEqual(len(x_out), n_spectra // n_int)
        used = {t.offset: pmt.to_uint64(t.value) for t in x_sink.tags()
                if pmt.symbol_to_string(t.key) == "gpudsp.spectra_used"}
        for d in range(len(x_out)):
            sel = [m for m in range(d * n_int, (d + 1) * n_int) if m not in want]
            self.assertEqual(used[d], len(sel))  # used + flagged = n_int
            if all(m < len(ref) for m in sel):
                np.testing.assert_array_equal(x_out[d], xengine_reference(ref[sel], P),
                                              err_msg=f"dump {d}")
        self.assertEqual(sum(used.values()) + len([m for m in want if m < len(x_out) * n_int]),
                         len(x_out) * n_int)

    @fuzz
    @given(seed=st.integers(0, 2**32 - 1), p=st.sampled_from([0.02, 0.1, 0.3]),
           chop=st.integers(13, 3000), D=st.sampled_from([1, 7, 16]),
           T=st.sampled_from([1, 20, 63]))
    def test_ddc(self, seed, p, chop, D, T):
        rng = np.random.default_rng(seed)
        fs, fc, n = 1e6, 123e3, 30000
        clean = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(np.complex64)
        bad, tags, lost = drop_packets(clean, 100, p, rng,
                                       lambda k: np.full(k, 1e6 + 1e6j, np.complex64))
        taps = list(rng.uniform(-1, 1, T))
        tb = gr.top_block()
        src = blocks.vector_source_c(bad.tolist(), False, 1, tags)
        cut = blocks.copy(8)
        cut.set_max_noutput_items(chop)
        d = gpudsp.ddc(D, taps, fc, fs, backend=self.backend)
        sink = blocks.vector_sink_c()
        tb.connect(src, cut, d, sink)
        tb.run()
        y = np.array(sink.data())
        n_out = len(y)
        # Output m's window: samples [mD - T + 1, mD].
        want = touched(0, n_out, lambda m: (m * D - T + 1, m * D + 1), lost)
        self.check_flags(flagged_runs(sink.tags()), want, n_out)
        ref = gpudsp.kernels.ddc(clean, D, taps, fc, fs, backend="cpu")
        self.assertEqual(len(ref), n_out)
        ok = np.array([m not in want for m in range(n_out)])
        np.testing.assert_allclose(y[ok], ref[ok], rtol=0, atol=1e-5 * np.abs(ref).max())


class qa_lost_input(lost_input_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_lost_input_emulated(lost_input_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
