#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The DDC's compute core (gpudsp.kernels.ddc) against a float64 reference of
its definition (docs/ddc.md) and against GNU Radio's freq_xlating_fir_filter
(times exp(+1j pi fc (T-1)/fs)): odd tap/decimation combinations, every input
format, the exact phase at sample 2^40. CPU and emulated device;
qa_ddc_kernels_cuda runs the same tests on CUDA."""

from fractions import Fraction

import numpy as np
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats


def reference(x, D, taps, fc, fs, n0=0, fixed_frequency=False):
    """float64, exact phase: y[m] for every m with mD in [n0, n0 + len(x)).
    fixed_frequency: the documented definition's frequency, round(fc/fs 2^64)
    / 2^64, which it follows exactly at any n (else the double ratio, which
    the block matches to n 2^-65 cycles)."""
    x = np.asarray(x, np.complex128)
    T = len(taps)
    f = Fraction(fc / fs)  # the double ratio, exactly
    if fixed_frequency:
        f = Fraction(round(f * 2**64), 2**64)
    m_first = -(-n0 // D)
    out = []
    m = m_first
    while m * D < n0 + len(x):
        acc = 0j
        for k in range(T):
            n = m * D - k
            if n < n0:
                break
            ph = float((f * n) % 1)
            acc += taps[k] * x[n - n0] * np.exp(-2j * np.pi * ph)
        out.append(acc)
        m += 1
    return np.array(out)


def rel_rms(a, b):
    return np.sqrt(np.mean(np.abs(a - b) ** 2) / np.mean(np.abs(b) ** 2))


class ddc_kernel_tests:
    backend = "cpu"

    def ddc(self, x, D, taps, fc, fs, **kw):
        return gpudsp.kernels.ddc(x, D, taps, fc, fs, backend=self.backend, **kw)

    def test_odd_cases_against_float64(self):
        rng = np.random.default_rng(70)
        fs = 1e6
        # T around the CPU's vector widths (4, 8, 16 float lanes: 2, 4, 8
        # complex samples) and below them, where narrower levels take over.
        for T, D in ((55, 5), (1, 1), (1, 7), (16, 1), (3, 8), (100, 7), (256, 16),
                     (2, 3), (4, 1), (5, 2), (7, 3), (8, 2), (9, 4), (15, 1), (17, 5),
                     (31, 2), (33, 3)):
            for cplx in (True, False):
                x = rng.normal(size=600)
                if cplx:
                    x = x + 1j * rng.normal(size=600)
                taps = rng.uniform(-1, 1, T)
                fc = rng.uniform(-0.5, 0.5) * fs * (1 if cplx else 0.9)
                got = self.ddc(x.astype(np.complex64 if cplx else np.float32), D, taps, fc,
                               fs, input_format="complex" if cplx else "float")
                want = reference(x, D, taps, fc, fs)
                self.assertEqual(len(got), len(want))
                self.assertLess(rel_rms(got, want), 1e-5, f"T={T} D={D} complex={cplx}")

    def test_complex_taps_and_every_input_format(self):
        rng = np.random.default_rng(71)
        fs, D, T = 2e6, 4, 33
        taps = rng.uniform(-1, 1, T) + 1j * rng.uniform(-1, 1, T)
        v = rng.integers(-512, 512, 801)
        for fmt, x in (("float", v.astype(np.float32)), ("short", v.astype(np.int16)),
                       ("packed10", formats.pack10(v)), ("complex", v.astype(np.complex64))):
            got = self.ddc(x, D, taps, 0.3e6, fs, input_format=fmt)
            want = reference(v.astype(float), D, taps, 0.3e6, fs)
            self.assertEqual(len(got), len(want), fmt)
            self.assertLess(rel_rms(got, want), 1e-5, fmt)

    def test_against_gnuradio_freq_xlating(self):
        rng = np.random.default_rng(72)
        fs, D = 1e6, 5
        taps = rng.uniform(-1, 1, 55)
        T = len(taps)
        for cplx in (True, False):
            x = rng.normal(size=5000)
            if cplx:
                x = x + 1j * rng.normal(size=5000)
            fc = 123456.7 if cplx else 234567.8
            tb = gr.top_block()
            if cplx:
                src = blocks.vector_source_c(x.astype(np.complex64).tolist())
                xl = filter.freq_xlating_fir_filter_ccf(D, taps.tolist(), fc, fs)
            else:
                src = blocks.vector_source_f(x.astype(np.float32).tolist())
                xl = filter.freq_xlating_fir_filter_fcf(D, taps.tolist(), fc, fs)
            snk = blocks.vector_sink_c()
            tb.connect(src, xl, snk)
            tb.run()
            theirs = np.array(snk.data()) * np.exp(1j * np.pi * fc * (T - 1) / fs)
            ours = self.ddc(x.astype(np.complex64 if cplx else np.float32), D, taps, fc, fs,
                            input_format="complex" if cplx else "float")
            n = min(len(theirs), len(ours))
            self.assertGreater(n, 900)
            self.assertLess(rel_rms(ours[:n], theirs[:n]), 1e-4, f"complex={cplx}")

    def test_phase_exact_at_sample_2_to_40(self):
        rng = np.random.default_rng(73)
        fs, D = 1.0, 4
        fc = 0.1234567890123 * fs
        taps = rng.uniform(-1, 1, 8)
        x = (rng.normal(size=400) + 1j * rng.normal(size=400)).astype(np.complex64)
        for n0 in (0, 2 ** 40, 2 ** 40 + 3):
            got = self.ddc(x, D, taps, fc, fs, first_sample_index=n0)
            want = reference(x, D, taps, fc, fs, n0)
            err = np.abs(np.angle(got[2:] / want[2:]))  # past the zero-padded start
            self.assertLess(np.max(err), 1e-5, n0)  # float32 data; the phase itself is exact
        # The same data at n0 and at n0 + k/f (a whole number of carrier cycles
        # when fc/fs = 1/8) gives the same output to float precision.
        x8 = self.ddc(x, D, taps, fs / 8, fs, first_sample_index=8)
        y8 = self.ddc(x, D, taps, fs / 8, fs, first_sample_index=2 ** 40 + 8)
        np.testing.assert_allclose(y8, x8, rtol=1e-6, atol=1e-6)

    def test_later_outputs_do_not_depend_on_the_cut(self):
        # Each of the CPU's forms: complex input with real taps (mixed
        # first), with complex taps and real input (premultiplied taps);
        # cuts inside and on the mixer's 512-sample blocks; with D = 2 the
        # mixed form's tiles (2048 outputs) fall at other outputs in each run.
        rng = np.random.default_rng(74)
        fs, T = 1e6, 40
        xc = (rng.normal(size=3000) + 1j * rng.normal(size=3000)).astype(np.complex64)
        xl = (rng.normal(size=12000) + 1j * rng.normal(size=12000)).astype(np.complex64)
        real = rng.uniform(-1, 1, T)
        cases = (("complex", xc, real, 6),
                 ("complex", xc, real + 1j * rng.uniform(-1, 1, T), 6),
                 ("float", xc.real.copy(), real, 6),
                 ("complex", xl, real, 2))
        for fmt, x, taps, D in cases:
            whole = self.ddc(x, D, taps, 1e5, fs, input_format=fmt)
            for cut in (1001, 1063, 1575):
                tail = self.ddc(x[cut - T + 1:], D, taps, 1e5, fs, input_format=fmt,
                                first_sample_index=cut - T + 1)
                m_cut = -(-cut // D)
                m_tail = -(-(cut - T + 1) // D)
                np.testing.assert_array_equal(tail[m_cut - m_tail:], whole[m_cut:],
                                              f"{fmt} complex taps={np.iscomplexobj(taps)}")

    def test_bad_parameters(self):
        x = np.zeros(100, np.complex64)
        with self.assertRaises(ValueError):
            self.ddc(x, 0, [1.0], 0, 1e6)
        with self.assertRaises(ValueError):
            self.ddc(x, 2, [], 0, 1e6)
        with self.assertRaises(ValueError):
            self.ddc(x.real.astype(np.float32), 2, [1.0], 6e5, 1e6, input_format="float")
        with self.assertRaises(ValueError):
            self.ddc(x, 2, [1.0], 0, -1.0)
        with self.assertRaises(ValueError):
            self.ddc(x, 2, [1.0], 0, 1e6, input_format="int8")


class qa_ddc_kernels_cpu(ddc_kernel_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_ddc_kernels_emulated(ddc_kernel_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
