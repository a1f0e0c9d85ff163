#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The xengine block tests on CUDA device 0, including the F -> X edge with
no host copy (ctest label "gpu"); skipped, with exit code 77, without one."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_xengine import xengine_block_tests


class qa_xengine_cuda(xengine_block_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
