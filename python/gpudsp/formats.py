#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Numpy helpers for gr-gpudsp's data formats (see docs/formats.md).

Packed 10-bit: sample i occupies bits [10i, 10i+10) of the byte stream,
most significant bit first, two's complement (-512..511); 4 samples fill
5 bytes.
"""

import numpy as np

__all__ = ["pack10", "unpack10", "packed10_bytes"]


def finite_number(value):
    """True for a finite int, float or numpy number (parameter checks)."""
    return isinstance(value, (int, float, np.number)) and bool(np.isfinite(value))


def packed10_bytes(n_samples):
    """Bytes that hold ``n_samples`` packed samples: ceil(10 n / 8)."""
    return (10 * int(n_samples) + 7) // 8


def pack10(values):
    """Packs integers in -512..511 to packed 10-bit bytes (uint8 array).

    A length that is not a multiple of 4 leaves the unused low bits of the
    last byte zero. Values outside -512..511 raise ValueError.
    """
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError("pack10: values must be 1-D")
    if v.size and (v.min() < -512 or v.max() > 511):
        raise ValueError("pack10: values must lie in -512..511")
    if v.size and not np.all(v == np.round(v)):
        raise ValueError("pack10: values must be integers")
    n = v.size
    raw = (v.astype(np.int64) & 0x3FF).astype(np.uint16)
    # Each sample as its 10 bits, MSB first, then 8 bits to a byte.
    bits = ((raw[:, None] >> np.arange(9, -1, -1, dtype=np.uint16)) & 1).astype(np.uint8)
    bits = bits.reshape(-1)
    pad = packed10_bytes(n) * 8 - bits.size
    bits = np.concatenate([bits, np.zeros(pad, dtype=np.uint8)])
    return np.packbits(bits)


def unpack10(data):
    """Unpacks packed 10-bit bytes to int16; a trailing partial sample is ignored."""
    b = np.asarray(data, dtype=np.uint8)
    if b.ndim != 1:
        raise ValueError("unpack10: data must be 1-D")
    n = b.size * 8 // 10
    bits = np.unpackbits(b)[: 10 * n].reshape(n, 10).astype(np.int32)
    raw = bits @ (1 << np.arange(9, -1, -1, dtype=np.int32))
    return (raw - ((raw & 0x200) << 1)).astype(np.int16)
