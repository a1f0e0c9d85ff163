#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The wipeoff_correlator block tests on CUDA device 0 (ctest label "gpu");
skipped, with exit code 77, where there is none."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_wipeoff_correlator import wipeoff_block_tests


class qa_wipeoff_correlator_cuda(wipeoff_block_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
