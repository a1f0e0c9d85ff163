#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The teardown cycles on CUDA device 0, with cudaMemGetInfo (ctest label
"gpu"; part of the GPU suite); skipped, with exit code 77, where there is
none."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_teardown import teardown_tests


class qa_teardown_cuda(teardown_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
