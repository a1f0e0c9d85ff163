#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The numpy helpers of gpudsp.formats against a bit-by-bit reference."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import formats


def reference_pack(values):
    bits = []
    for v in values:
        raw = int(v) & 0x3FF
        bits += [(raw >> (9 - k)) & 1 for k in range(10)]
    bits += [0] * (-len(bits) % 8)
    return bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


class qa_formats(gr_unittest.TestCase):
    def test_pack_matches_bitwise_reference(self):
        rng = np.random.default_rng(1)
        for n in range(0, 41):
            v = rng.integers(-512, 512, n)
            self.assertEqual(formats.pack10(v).tobytes(), reference_pack(v), n)
            self.assertEqual(len(formats.pack10(v)), formats.packed10_bytes(n))

    def test_round_trip_every_length(self):
        rng = np.random.default_rng(2)
        for n in range(0, 200):
            v = rng.integers(-512, 512, n).astype(np.int16)
            back = formats.unpack10(formats.pack10(v))
            np.testing.assert_array_equal(back[:n], v)

    def test_unpack_then_pack_is_identity_on_whole_groups(self):
        rng = np.random.default_rng(3)
        data = rng.integers(0, 256, 5 * 1001, dtype=np.uint8)
        np.testing.assert_array_equal(formats.pack10(formats.unpack10(data)), data)

    def test_extremes(self):
        v = np.array([-512, 511, -1, 0])
        self.assertEqual(formats.pack10(v).tobytes(), bytes([0x80, 0x1F, 0xFF, 0xFC, 0x00]))

    def test_bad_values_refused(self):
        with self.assertRaises(ValueError):
            formats.pack10([512])
        with self.assertRaises(ValueError):
            formats.pack10([-513])
        with self.assertRaises(ValueError):
            formats.pack10([0.5])


if __name__ == "__main__":
    gr_unittest.run(qa_formats)
