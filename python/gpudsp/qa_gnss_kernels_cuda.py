#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The GNSS correlator kernel tests on CUDA device 0 (ctest label "gpu"),
plus CUDA against the CPU path; skipped, with exit code 77, where there is
no device."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import kernels
from qa_gpu import main_or_skip
from qa_gnss_kernels import gnss_kernel_tests, noise


class qa_gnss_kernels_cuda(gnss_kernel_tests, gr_unittest.TestCase):
    backend = "cuda"

    def test_cuda_matches_cpu_for_many_satellites(self):
        rng = np.random.default_rng(14)
        x = noise(rng, (4, 25000))
        sats = [dict(system=("gps_l1ca", "galileo_e1b")[k % 2], prn=1 + k % 37,
                     carrier_freq=1000.0 + 10 * k, code_phase=10.5 + 0.1 * k)
                for k in range(128)]
        taps = [0.6, 0.15, 0.0, -0.15, -0.6]
        a = kernels.correlate(x, sats, taps, 25e6, backend="cpu")
        b = kernels.correlate(x, sats, taps, 25e6, backend="cuda")
        np.testing.assert_allclose(b, a, atol=2e-5 * np.abs(a).max())


if __name__ == "__main__":
    main_or_skip()
