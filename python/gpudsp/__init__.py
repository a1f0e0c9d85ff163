#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""
gr-gpudsp: GPU-backed GNU Radio blocks for heavy receivers (CUDA, with CPU
fallbacks).

Blocks take ``backend`` ("auto", "cuda" or "cpu") and ``device`` (a CUDA
device index). Numpy entry points to the same compute cores are in
``gpudsp.kernels``; numpy helpers for the data formats in ``gpudsp.formats``.
"""

from .gpudsp_python import *  # noqa: F401,F403  (blocks and runtime functions)
from . import formats  # noqa: F401
from . import kernels  # noqa: F401
from . import delay_conventions  # noqa: F401
from .xengine_helpers import xengine_baseline_index, xengine_to_matrix  # noqa: F401
from .digitiser import digitiser_source  # noqa: F401
from . import gnss  # noqa: F401
# SPEAD blocks (spead2 needed only when one is constructed)
from .spead_digitiser import spead_digitiser_source  # noqa: F401,E402
from .spead_fengine import spead_fengine_sink, spead_fengine_source  # noqa: F401,E402
from .spead_xengine import spead_xengine_sink  # noqa: F401,E402
