#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The compute cores of gr-gpudsp's blocks, callable on numpy arrays.

Each function runs the same plan the block runs, on the backend asked for
("auto", "cuda" or "cpu"), and returns a numpy array.
"""

from .gpudsp_python import _kernels

__all__ = ["unpack10"]


def unpack10(data, out_type="short", backend="auto", device=0):
    """Packed 10-bit bytes (1-D uint8) to int16 samples (float32 with
    ``out_type="float"``): every whole sample the bytes hold."""
    return _kernels.unpack10(data, out_type, backend, device)
