#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The X-engine's compute core (gpudsp.kernels.xengine) against an exact
int64 numpy reference (ci8) and a float64 one (cf32): station counts that are
not multiples of any tile, one and two polarisations, saturation, the output
helpers. On the CPU and the emulated device; qa_xengine_kernels_cuda runs the
same tests on CUDA with both GPU kernels."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpudsp


def reference(x, n_pols):
    """x: int8 [T, C, A, 2] or complex [T, C, A] -> exact sums packed as
    [C, B, P, P] (int64 pairs, or complex128)."""
    if x.dtype == np.int8:
        xr = x[..., 0].astype(np.int64)
        xi = x[..., 1].astype(np.int64)
        re = np.einsum("tca,tcb->cab", xr, xr) + np.einsum("tca,tcb->cab", xi, xi)
        im = np.einsum("tca,tcb->cab", xi, xr) - np.einsum("tca,tcb->cab", xr, xi)
        M = np.stack([re, im], axis=-1)
    else:
        x = x.astype(np.complex128)
        M = np.einsum("tca,tcb->cab", x, np.conj(x))
    C, A = M.shape[0], M.shape[1]
    S = A // n_pols
    out = []
    for i in range(S):
        for j in range(i + 1):
            out.append(M[:, i * n_pols:(i + 1) * n_pols, j * n_pols:(j + 1) * n_pols])
    return np.stack(out, axis=1)


def random_ci8(rng, T, C, A):
    x = rng.integers(-128, 128, (T, C, A, 2)).astype(np.int8)  # the whole int8 range
    x[x == 0] = 1  # random and never zero
    return x


class xengine_kernel_tests:
    backend = "cpu"
    kernels = ("auto",)

    def xengine(self, x, n_pols, **kw):
        return gpudsp.kernels.xengine(x, n_pols, backend=self.backend, **kw)

    def test_ci8_exact_for_many_sizes(self):
        rng = np.random.default_rng(50)
        for S in (1, 3, 4, 19, 33, 64, 80, 257):
            for P in (1, 2):
                T, C = (5, 3) if S < 100 else (2, 1)
                x = random_ci8(rng, T, C, S * P)
                want = reference(x, P)
                for k in self.kernels:
                    got = self.xengine(x, P, kernel=k)
                    self.assertEqual(got.dtype, np.int32)
                    self.assertEqual(got.shape, (C, S * (S + 1) // 2, P, P, 2))
                    np.testing.assert_array_equal(got, want, err_msg=f"S={S} P={P} {k}")

    def test_ci8_long_integration_is_exact(self):
        # Sums far beyond 2^24 (the FP32 kernel's exact range per flush).
        rng = np.random.default_rng(51)
        x = random_ci8(rng, 3000, 2, 6)
        x[:, :, :, :] = np.where(rng.random(x.shape) < 0.8, 127, -127).astype(np.int8)
        for k in self.kernels:
            np.testing.assert_array_equal(self.xengine(x, 2, kernel=k), reference(x, 2))

    def test_ci8_as_float_output(self):
        rng = np.random.default_rng(52)
        x = random_ci8(rng, 7, 2, 8)
        got = self.xengine(x, 2, output_format="cf32")
        want = reference(x, 2)
        self.assertEqual(got.dtype, np.complex64)
        np.testing.assert_array_equal(got, (want[..., 0] + 1j * want[..., 1]).astype(np.complex64))

    def test_cf32(self):
        rng = np.random.default_rng(53)
        for S, P in ((1, 1), (5, 2), (40, 2), (33, 1)):
            x = (rng.normal(size=(9, 3, S * P)) + 1j * rng.normal(size=(9, 3, S * P))).astype(np.complex64)
            got = self.xengine(x, P)
            want = reference(x, P)
            self.assertEqual(got.dtype, np.complex64)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())

    def test_saturation(self):
        # 1 station, 2 pols, full scale: each re sum grows by 2 * 127^2 per
        # spectrum and passes 2^31 - 1 after 66573 spectra.
        n = 70000
        x = np.full((n, 1, 2, 2), 127, np.int8)
        x[:, :, 1, 1] = -127  # pol 1 = 127 - 127j
        V, saturated = self.xengine(x, 2, return_saturation=True)
        lim = 2 ** 31 - 1
        want = reference(x, 2)
        np.testing.assert_array_equal(V, np.clip(want, -lim, lim))
        self.assertEqual(saturated, int(np.sum(np.any(np.abs(want) > lim, axis=-1))))
        self.assertGreater(saturated, 0)
        self.assertTrue(np.all(np.abs(V) <= lim))

    def test_helpers(self):
        self.assertEqual(gpudsp.xengine_baseline_index(0, 0), 0)
        self.assertEqual(gpudsp.xengine_baseline_index(3, 1), 7)
        with self.assertRaises(ValueError):
            gpudsp.xengine_baseline_index(1, 2)
        rng = np.random.default_rng(54)
        x = random_ci8(rng, 4, 2, 10)
        M = gpudsp.xengine_to_matrix(self.xengine(x, 2), 5, 2)
        xc = x[..., 0].astype(np.float64) + 1j * x[..., 1]
        np.testing.assert_array_equal(M, np.einsum("tca,tcb->cab", xc, np.conj(xc)))
        np.testing.assert_array_equal(M, np.conj(np.swapaxes(M, 1, 2)))

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            self.xengine(np.zeros((2, 2, 3, 2), np.int8), 2)
        with self.assertRaises(ValueError):
            self.xengine(np.zeros((2, 2, 4, 3), np.int8), 2)
        with self.assertRaises(ValueError):
            self.xengine(np.zeros((2, 2, 4), np.complex64), 3)
        with self.assertRaises(ValueError):
            self.xengine(np.zeros((2, 2, 4), np.complex64), 2, kernel="tensor")


class qa_xengine_kernels_cpu(xengine_kernel_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_xengine_kernels_emulated(xengine_kernel_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
