#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The pfb_fengine block tests (and the katgpucbf convention's) on CUDA device 0 (ctest label "gpu"); skipped,
with exit code 77, where there is none."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_pfb_fengine import fengine_block_tests
from qa_pfb_fengine_katgpucbf import katgpucbf_convention_tests


class qa_pfb_fengine_cuda(fengine_block_tests, gr_unittest.TestCase):
    backend = "cuda"


class qa_pfb_fengine_katgpucbf_cuda(katgpucbf_convention_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
