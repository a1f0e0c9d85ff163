#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""X-engine output order helpers (see docs/xengine.md)."""

import numpy as np

__all__ = ["xengine_baseline_index", "xengine_complex", "xengine_to_matrix"]


def xengine_baseline_index(i, j):
    """Index of the baseline of stations i >= j in the X-engine output:
    i (i + 1) / 2 + j. Raises ValueError for i < j."""
    i, j = int(i), int(j)
    if i < j or j < 0:
        raise ValueError("xengine_baseline_index: need i >= j >= 0")
    return i * (i + 1) // 2 + j


def xengine_complex(V):
    """X-engine values as complex128: int32 (re, im) pairs [..., 2] are
    converted (exactly), complex values passed through."""
    V = np.asarray(V)
    if V.dtype.kind in "iu":
        return V[..., 0].astype(np.float64) + 1j * V[..., 1].astype(np.float64)
    return V


def xengine_to_matrix(V, n_stations, n_pols):
    """Packed visibilities [n_channels, n_baselines, n_pols, n_pols] (complex,
    or int32 [..., 2]) to full Hermitian matrices [n_channels, n_inputs,
    n_inputs] (complex128), M[c, a, b] = sum_t x_a conj(x_b) with
    a = station * n_pols + pol."""
    V = xengine_complex(V)
    n_channels = V.shape[0]
    P = int(n_pols)
    n_inputs = int(n_stations) * P
    if V.shape[1:] != (n_stations * (n_stations + 1) // 2, P, P):
        raise ValueError("xengine_to_matrix: V has shape %s, expected [n_channels, %d, %d, %d]"
                         % (V.shape, n_stations * (n_stations + 1) // 2, P, P))
    M = np.zeros((n_channels, n_inputs, n_inputs), np.complex128)
    for i in range(n_stations):
        for j in range(i + 1):
            blk = V[:, i * (i + 1) // 2 + j]  # [c, p, q]
            M[:, i * P:(i + 1) * P, j * P:(j + 1) * P] = blk
            M[:, j * P:(j + 1) * P, i * P:(i + 1) * P] = np.conj(np.swapaxes(blk, 1, 2))
    return M
