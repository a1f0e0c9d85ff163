#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Blocks run again start over (qa_rerun), on CUDA device 0 (ctest label
"gpu"): the X-engine drops an unfinished dump's device sums. Skipped, with
exit code 77, where there is no device."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_rerun import rerun_tests


class qa_rerun_cuda(rerun_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
