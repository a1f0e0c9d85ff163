#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The F-engine's compute core (gpudsp.kernels.fengine) against a float64
numpy reference of its definition (docs/fengine.md): every input and output
format, random weights, gains and delays, the delay-compensation property,
call splits, saturation, the -128 rule, rounding, the window formula.
Runs on the CPU and on the emulated device; qa_pfb_fengine_kernels_cuda runs
the same tests on CUDA."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats


def reference(x, n_channels, n_taps, w, gains=None, fine=None, phases=None, coarse=None):
    """float64: x [n_inputs, n] real or complex samples -> [n_spectra, N, n_inputs]."""
    x = np.asarray(x)
    n_inputs, n = x.shape
    cplx = np.iscomplexobj(x)
    N = n_channels
    step = N if cplx else 2 * N
    n_spectra = (n - step * n_taps) // step + 1 if n >= step * n_taps else 0
    out = np.zeros((n_spectra, N, n_inputs), np.complex128)
    k = np.arange(N)
    kk = np.where(k >= N // 2, k - N, k) if cplx else k
    for i in range(n_inputs):
        D = 0 if coarse is None else coarse[i]
        xi = np.concatenate([np.zeros(D, x.dtype), x[i]])[:n].astype(np.complex128 if cplx else np.float64)
        frames = np.lib.stride_tricks.sliding_window_view(xi, step * n_taps)[::step][:n_spectra]
        y = (frames * w).reshape(n_spectra, n_taps, step).sum(axis=1)
        X = np.fft.fft(y, axis=1)[:, :N]
        tau = 0.0 if fine is None else fine[i]
        phi = 0.0 if phases is None else phases[i]
        ph = (-2 * np.pi * tau * kk / N if cplx else -np.pi * tau * k / N) + phi
        g = 1.0 if gains is None else gains[:, i]
        out[:, :, i] = X * g * np.exp(1j * ph)
    return out


def random_input(fmt, n_inputs, n, rng):
    """(what the engine reads, the same samples as numbers)."""
    if fmt == "packed10":
        v = rng.integers(-512, 512, (n_inputs, n))
        return np.stack([formats.pack10(r) for r in v]), v
    if fmt == "short":
        v = rng.integers(-2000, 2000, (n_inputs, n)).astype(np.int16)
        return v, v
    if fmt == "float":
        v = rng.normal(0, 100, (n_inputs, n)).astype(np.float32)
        return v, v
    v = (rng.normal(0, 100, (n_inputs, n)) + 1j * rng.normal(0, 100, (n_inputs, n))).astype(np.complex64)
    return v, v


class fengine_kernel_tests:
    backend = "cpu"

    def fengine(self, x, N, T, **kw):
        return gpudsp.kernels.fengine(x, N, T, backend=self.backend, **kw)

    def check_close(self, got, want, what):
        scale = np.abs(want).max()
        err = np.abs(got - want).max()
        self.assertLessEqual(err, 2e-5 * scale, f"{what}: max error {err} vs scale {scale}")

    def test_window_formula(self):
        for N, T, cutoff, cplx in [(64, 16, 1.0, False), (32, 4, 0.8, True), (8, 1, 1.0, False)]:
            step = N if cplx else 2 * N
            L = step * T
            i = np.arange(L)
            w = np.sin(np.pi * i / (L - 1)) ** 2 * np.sinc(cutoff * ((i + 0.5) / step - T / 2))
            w /= np.sqrt(np.sum(w ** 2))
            got = gpudsp.kernels.pfb_weights(N, T, cutoff, cplx)
            np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-15)
            self.assertAlmostEqual(np.sum(got ** 2), 1.0, places=12)

    def test_every_input_format_with_corrections(self):
        rng = np.random.default_rng(20)
        for fmt in ("packed10", "short", "float", "complex"):
            for N, T, n_inputs, n_spectra in [(64, 4, 3, 11), (96, 20, 2, 5), (32, 1, 1, 7)]:
                step = N if fmt == "complex" else 2 * N
                n = step * (n_spectra + T - 1) + 7  # a partial step at the end
                x, v = random_input(fmt, n_inputs, n, rng)
                w = rng.uniform(-1, 1, step * T)
                gains = (rng.uniform(0.5, 2, (N, n_inputs)) * np.exp(1j * rng.uniform(-3, 3, (N, n_inputs))))
                fine = rng.uniform(-0.5, 0.5, n_inputs)
                phases = rng.uniform(-3, 3, n_inputs)
                coarse = rng.integers(0, 40, n_inputs)
                got = self.fengine(x, N, T, input_format=fmt, weights=w, gains=gains,
                                   fine_delays=fine, phases=phases, coarse_delays=coarse)
                want = reference(v, N, T, w, gains, fine, phases, coarse)
                self.assertEqual(got.shape, (n_spectra, N, n_inputs))
                self.assertEqual(got.dtype, np.complex64)
                self.check_close(got, want, f"{fmt} N={N} T={T}")

    def test_delay_and_phase_rates_apply_per_spectrum(self):
        # Delay tracking: spectrum m (absolute) uses fine delay f + r (m - ref)
        # and phase p + q (m - ref); the reference is evaluated spectrum by
        # spectrum with constant corrections. Odd sizes, complex input with
        # its signed channel index, a reference before and after the start.
        rng = np.random.default_rng(27)
        for fmt, N, T, ref, first in [("float", 48, 4, 990, 1000), ("complex", 7, 3, 5000, 4990),
                                      ("packed10", 64, 2, 0, 0), ("complex", 64, 4, 3, 3)]:
            n_inputs, n_spectra = 3, 9
            step = N if fmt == "complex" else 2 * N
            x, v = random_input(fmt, n_inputs, step * (n_spectra + T - 1), rng)
            w = rng.uniform(-1, 1, step * T)
            fine = rng.uniform(-0.2, 0.2, n_inputs)
            phases = rng.uniform(-3, 3, n_inputs)
            rates = rng.uniform(-0.01, 0.01, n_inputs)
            phase_rates = rng.uniform(-0.5, 0.5, n_inputs)
            got = self.fengine(x, N, T, input_format=fmt, weights=w, fine_delays=fine,
                               phases=phases, delay_rates=rates, phase_rates=phase_rates,
                               reference_spectrum=ref, first_spectrum=first)
            want = np.zeros_like(got, np.complex128)
            for s_ in range(n_spectra):
                d = first + s_ - ref
                want[s_] = reference(v, N, T, w, fine=fine + rates * d,
                                     phases=phases + phase_rates * d)[s_]
            self.check_close(got, want, f"{fmt} N={N} rates")

    def test_centred_channels_are_the_natural_ones_shifted(self):
        # Complex input, centred: channel j holds frequency j - N/2 (the FIR's
        # odd taps negated), so it equals natural channel (j + N/2) mod N,
        # fine-delay slope, phases, rates and ci8 rounding included (the
        # corrections follow the frequency, not the position).
        rng = np.random.default_rng(28)
        for N, T in [(64, 4), (6, 3), (128, 1)]:
            n_inputs, n_spectra = 3, 7
            x, _ = random_input("complex", n_inputs, N * (n_spectra + T - 1), rng)
            kw = dict(input_format="complex", fine_delays=rng.uniform(-0.5, 0.5, n_inputs),
                      phases=rng.uniform(-3, 3, n_inputs), coarse_delays=[0, 3, 17],
                      delay_rates=rng.uniform(-0.01, 0.01, n_inputs),
                      phase_rates=rng.uniform(-0.5, 0.5, n_inputs), reference_spectrum=2)
            natural = self.fengine(x, N, T, **kw)
            centred = self.fengine(x, N, T, centred_channels=True, **kw)
            shift = (np.arange(N) + N // 2) % N
            self.check_close(centred, natural[:, shift], f"centred N={N} T={T}")
        with self.assertRaisesRegex(ValueError, "complex input"):
            self.fengine(np.zeros((1, 64 * 4), np.float32), 16, 4, input_format="float",
                         centred_channels=True)

    def test_default_window_and_power_of_two_sizes(self):
        rng = np.random.default_rng(21)
        for N in (64, 1024):
            x, v = random_input("packed10", 2, 2 * N * 20, rng)
            got = self.fengine(x, N, 16)
            want = reference(v, N, 16, gpudsp.kernels.pfb_weights(N, 16))
            self.check_close(got, want, f"N={N}")

    def test_ci8_rounding_clamp_and_saturation(self):
        rng = np.random.default_rng(22)
        N, T = 64, 4
        x, v = random_input("short", 3, 2 * N * 12, rng)
        w = rng.uniform(-1, 1, 2 * N * T) * 0.01  # many values beyond +-127, many within
        got, sat = self.fengine(x, N, T, input_format="short", output_format="ci8", weights=w,
                                return_saturation=True)
        want = reference(v, N, T, w)
        self.assertEqual(got.dtype, np.int8)
        self.assertEqual(got.shape, want.shape + (2,))
        self.assertGreaterEqual(got.min(), -127)  # never -128
        ref = np.stack([want.real, want.imag], axis=-1)
        self.assertLessEqual(np.abs(got - np.clip(np.round(ref), -127, 127)).max(), 1)
        beyond = lambda lim: np.sum(np.any(np.abs(ref) > lim, axis=-1), axis=1)
        self.assertTrue(np.all(beyond(127.01) <= sat) and np.all(sat <= beyond(126.99)))
        self.assertGreater(sat.sum(), 0)
        self.assertLess(sat.sum(), ref[..., 0].size)

    def test_round_half_to_even_exactly(self):
        # Complex input, one tap of weight 1: a lone sample v gives v in every channel.
        N = 8
        vals = [2.5 + 3.5j, -0.5 - 1.5j, 126.5 - 127.5j, 300 - 300j, -127.4 + 0.49j]
        x = np.zeros((len(vals), N), np.complex64)
        x[:, 0] = vals
        got, sat = self.fengine(x, N, 1, input_format="complex", output_format="ci8",
                                weights=np.ones(N), return_saturation=True)
        want = [(2, 4), (0, -2), (126, -127), (127, -127), (-127, 0)]
        for i, (re, im) in enumerate(want):
            np.testing.assert_array_equal(got[0, :, i, 0], re)
            np.testing.assert_array_equal(got[0, :, i, 1], im)
        np.testing.assert_array_equal(sat[0], [0, 0, N, N, N])

    def test_split_across_calls_is_bit_identical(self):
        rng = np.random.default_rng(23)
        N, T = 64, 8
        x, _ = random_input("packed10", 2, 2 * N * 40, rng)
        for out_fmt, dither in (("cf32", False), ("ci8", True)):
            whole = self.fengine(x, N, T, output_format=out_fmt, dither=dither)
            n_first = 13
            # Spectra [0, 13): samples [0, 2N(13 + T - 1)); the rest start at 2N*13
            # (13 * 2N samples = 13 * 2N * 10/8 bytes, a whole number of groups).
            first = self.fengine(x[:, : (2 * N * (n_first + T - 1)) * 10 // 8], N, T,
                                 output_format=out_fmt, dither=dither)
            rest = self.fengine(x[:, (2 * N * n_first) * 10 // 8:], N, T,
                                output_format=out_fmt, dither=dither, first_spectrum=n_first)
            self.assertEqual(first.shape[0], n_first)
            np.testing.assert_array_equal(np.concatenate([first, rest]), whole)

    def test_dither_is_uniform_half_lsb(self):
        rng = np.random.default_rng(24)
        N, T = 64, 4
        x, v = random_input("float", 1, 2 * N * 40, rng)
        w = rng.uniform(-1, 1, 2 * N * T) * 1e-3
        got = self.fengine(x, N, T, input_format="float", output_format="ci8", weights=w, dither=True)
        ref = reference(v, N, T, w)
        ref = np.stack([ref.real, ref.imag], axis=-1)
        # floor(ref + U(-0.5, 0.5) + 0.5) is ref rounded up with probability frac(ref)
        self.assertLessEqual(np.abs(got - ref).max(), 1.0 + 1e-3)
        self.assertLess(abs(np.mean(got - ref)), 0.02)
        plain = self.fengine(x, N, T, input_format="float", output_format="ci8", weights=w)
        self.assertGreater(np.mean(plain != got), 0.1)

    def test_delay_compensation_aligns_phases(self):
        # A broadband signal reaches input A D + tau samples before input B;
        # delaying A by D + tau makes A's and B's spectra agree in phase.
        rng = np.random.default_rng(25)
        N, T, D, tau = 64, 16, 5, 0.3
        n = 2 * N * 300
        f = np.fft.rfftfreq(n)
        s = rng.normal(0, 50, n)
        S = np.fft.rfft(s)
        a = np.fft.irfft(S * np.exp(2j * np.pi * f * (D + tau)), n)  # A leads B
        x = np.stack([a, s]).astype(np.float32)
        got = self.fengine(x, N, T, input_format="float", fine_delays=[tau, 0.0],
                           coarse_delays=[D, 0])[T:]
        cross = np.sum(got[:, :, 0] * np.conj(got[:, :, 1]), axis=0)
        phase = np.angle(cross[1:])
        self.assertLess(np.abs(phase).max(), 0.01, phase)
        raw = self.fengine(x, N, T, input_format="float")[T:]
        raw_phase = np.angle(np.sum(raw[:, :, 0] * np.conj(raw[:, :, 1]), axis=0))
        self.assertGreater(np.abs(raw_phase).max(), 1.0)  # without correction, far off

    def test_tone_at_channel_centre(self):
        N, T, k, amp = 256, 16, 37, 100.0
        n = 2 * N * 40
        x = (amp * np.cos(2 * np.pi * k / (2 * N) * np.arange(n) + 0.4)).astype(np.float32)
        got = self.fengine(x[None, :], N, T, input_format="float")
        w = gpudsp.kernels.pfb_weights(N, T)
        predicted = amp * np.sum(w) / 2  # docs/fengine.md
        mag = np.abs(got[:, :, 0])
        np.testing.assert_allclose(mag[:, k], predicted, rtol=1e-3)
        self.assertTrue(np.all(np.argmax(mag, axis=1) == k))

    def test_bad_parameters(self):
        x = np.zeros((1, 4096), np.uint8)
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, input_format="int8")
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, output_format="ci4")
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 0)
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, weights=np.ones(10))
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, fine_delays=[0.7])
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, coarse_delays=[-1])
        with self.assertRaises(ValueError):
            self.fengine(x, 64, 4, gains=np.ones((64, 2)))


class qa_pfb_fengine_kernels_cpu(fengine_kernel_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_pfb_fengine_kernels_emulated(fengine_kernel_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
