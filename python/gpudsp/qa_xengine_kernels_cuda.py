#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The X-engine kernel tests on CUDA device 0 with both GPU kernels (FP32
and tensor-core), bit-exact against the int64 reference (ctest label "gpu");
skipped, with exit code 77, where there is none."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_xengine_kernels import xengine_kernel_tests


class qa_xengine_kernels_cuda(xengine_kernel_tests, gr_unittest.TestCase):
    backend = "cuda"
    kernels = ("auto", "fp32", "tensor")


if __name__ == "__main__":
    main_or_skip()
