#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The steady-state tests on CUDA device 0 (ctest label "gpu"); skipped, with
exit code 77, where there is none."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_steady_state import steady_state_tests


class qa_steady_state_cuda(steady_state_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
