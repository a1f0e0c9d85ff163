#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The xengine block tests on CUDA device 0, including the F -> X edge with
no host copy (ctest label "gpu"); skipped, with exit code 77, without one."""

import sys

from gnuradio import gr_unittest
from gnuradio import gpudsp
from qa_xengine import xengine_block_tests


class qa_xengine_cuda(xengine_block_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    if not gpudsp.cuda_available():
        print("SKIPPED: no CUDA device")
        sys.exit(77)
    gr_unittest.main()
