#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The F-engine kernel tests on CUDA device 0, and CUDA against the CPU
(ctest label "gpu"); skipped, with exit code 77, where there is none."""

import numpy as np
from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from gnuradio import gpudsp
from qa_pfb_fengine_kernels import fengine_kernel_tests, random_input


class qa_pfb_fengine_kernels_cuda(fengine_kernel_tests, gr_unittest.TestCase):
    backend = "cuda"

    def test_cuda_matches_cpu(self):
        rng = np.random.default_rng(30)
        for fmt, N, T in [("packed10", 1024, 16), ("short", 4096, 16), ("complex", 512, 8),
                          ("float", 160, 24)]:
            step = N if fmt == "complex" else 2 * N
            x, _ = random_input(fmt, 4, step * (T + 50), rng)
            kw = dict(input_format=fmt, fine_delays=rng.uniform(-0.5, 0.5, 4),
                      coarse_delays=rng.integers(0, 9, 4))
            cpu = gpudsp.kernels.fengine(x, N, T, backend="cpu", **kw)
            gpu = gpudsp.kernels.fengine(x, N, T, backend="cuda", **kw)
            self.check_close(gpu, cpu, f"{fmt} N={N}")
            q_cpu = gpudsp.kernels.fengine(x, N, T, output_format="ci8", dither=True,
                                           backend="cpu", **kw)
            q_gpu = gpudsp.kernels.fengine(x, N, T, output_format="ci8", dither=True,
                                           backend="cuda", **kw)
            self.assertLessEqual(np.abs(q_gpu.astype(int) - q_cpu).max(), 1)


if __name__ == "__main__":
    main_or_skip()
