#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The FX correlator on CUDA device 0: self-checks, the same visibilities as
the CPU, zero host copies on the F-engine -> X-engine edge (ctest label
"gpu"); skipped, with exit code 77, where there is no device."""

from gnuradio import gr_unittest
from qa_gpu import main_or_skip
from qa_fx_correlator import fx_tests


class qa_fx_correlator_cuda(fx_tests, gr_unittest.TestCase):
    backend = "cuda"


if __name__ == "__main__":
    main_or_skip()
