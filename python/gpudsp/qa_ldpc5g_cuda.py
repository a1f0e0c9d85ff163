#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The LDPC decoder tests on CUDA device 0 (ctest label "gpu"), plus CUDA
against the CPU: identical in fixed point, bits and iterations in float;
skipped, with exit code 77, where there is no device."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import kernels
from qa_gpu import main_or_skip
from qa_ldpc5g import ldpc_decoder_tests, noisy


class qa_ldpc5g_cuda(ldpc_decoder_tests, gr_unittest.TestCase):
    backend = "cuda"

    def test_cuda_matches_cpu(self):
        rng = np.random.default_rng(7)
        for K, E, algorithm in ((8448, 10752, "layered_nms"), (3840, 19200, "layered_nms"),
                                (1000, 2000, "flooding_nms")):
            bits = rng.integers(0, 2, (64, K)).astype(np.uint8)
            llr = noisy(kernels.ldpc5g_encode(bits, E), 0.8, rng)
            for arithmetic in ("fixed", "float"):
                a = kernels.ldpc5g_decode(llr, K, algorithm=algorithm, arithmetic=arithmetic,
                                          backend="cpu")
                b = kernels.ldpc5g_decode(llr, K, algorithm=algorithm, arithmetic=arithmetic,
                                          backend="cuda")
                for x, y in zip(a, b):
                    np.testing.assert_array_equal(x, y)


if __name__ == "__main__":
    main_or_skip()
