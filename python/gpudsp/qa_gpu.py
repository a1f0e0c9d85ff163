#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Shared by the qa_*_cuda tests (ctest label "gpu")."""

import sys

from gnuradio import gr_unittest
from gnuradio import gpudsp


def main_or_skip():
    """Runs the calling module's tests on CUDA, or reports a visible skip
    (exit code 77, ctest's SKIP_RETURN_CODE) where there is no device."""
    if not gpudsp.cuda_available():
        print("SKIPPED: no CUDA device")
        sys.exit(77)
    gr_unittest.main()
