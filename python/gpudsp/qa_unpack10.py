#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""unpack10: the numpy kernel function and the block, exact against
gpudsp.formats, across call boundaries, with tags. Runs on the CPU and on
the emulated device (CI's stand-in for a GPU); qa_unpack10_cuda runs the
same tests on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats


class unpack10_tests:
    backend = "cpu"

    def run_block(self, data, out_type="float", max_bytes_per_call=None, tags=()):
        tb = gr.top_block()
        src = blocks.vector_source_b(list(map(int, data)), False, 1, list(tags))
        if max_bytes_per_call:
            # A copy hands over a few bytes per call: groups straddle calls.
            # (vector_source itself stalls with tags and a small
            # max_noutput_items in GNU Radio 3.10.5.1.)
            chop = blocks.copy(1)
            chop.set_max_noutput_items(max_bytes_per_call)
            tb.connect(src, chop)
            src = chop
        up = gpudsp.unpack10(out_type, self.backend)
        snk = blocks.vector_sink_f() if out_type == "float" else blocks.vector_sink_s()
        if up.backend() == "cpu":
            tb.connect(src, up, snk)
        else:  # a device output goes back to the host through device_copy
            down = gpudsp.device_copy(4 if out_type == "float" else 2, self.backend)
            tb.connect(src, up, down, snk)
            self.down = down
        tb.run()
        self.up = up
        return np.array(snk.data()), snk.tags()

    def test_kernel_every_length_0_to_64(self):
        rng = np.random.default_rng(10)
        for n_bytes in range(0, 65):
            data = rng.integers(0, 256, n_bytes, dtype=np.uint8)
            want = formats.unpack10(data)
            got = gpudsp.kernels.unpack10(data, backend=self.backend)
            self.assertEqual(got.dtype, np.int16)
            np.testing.assert_array_equal(got, want, err_msg=f"{n_bytes} bytes")
            got_f = gpudsp.kernels.unpack10(data, "float", self.backend)
            self.assertEqual(got_f.dtype, np.float32)
            np.testing.assert_array_equal(got_f, want.astype(np.float32))

    def test_kernel_large_stream(self):
        rng = np.random.default_rng(11)
        data = rng.integers(0, 256, 5 * 200001 + 3, dtype=np.uint8)
        np.testing.assert_array_equal(
            gpudsp.kernels.unpack10(data, backend=self.backend), formats.unpack10(data))

    def test_block_every_length_0_to_64(self):
        rng = np.random.default_rng(12)
        for n_bytes in range(0, 65):
            data = rng.integers(0, 256, n_bytes, dtype=np.uint8)
            got, _ = self.run_block(data, "short")
            # Only whole 4-sample groups leave the block.
            want = formats.unpack10(data)[: (n_bytes // 5) * 4]
            np.testing.assert_array_equal(got, want, err_msg=f"{n_bytes} bytes")

    def test_block_split_across_calls(self):
        rng = np.random.default_rng(13)
        data = rng.integers(0, 256, 5 * 20011, dtype=np.uint8)
        want = formats.unpack10(data).astype(np.float32)
        # The tiny splits on a tenth of the data: 10^4 calls prove the same
        # as 10^5 and keep the asynchronous emulated device's run short.
        for per_call, n_bytes in ((1, 5 * 2011), (3, 5 * 2011), (7, len(data)),
                                  (4099, len(data))):
            got, _ = self.run_block(data[:n_bytes], "float", max_bytes_per_call=per_call)
            np.testing.assert_array_equal(got, want[:n_bytes * 4 // 5],
                                          err_msg=f"{per_call} bytes per call")

    def test_tags_land_on_the_sample_holding_their_byte(self):
        rng = np.random.default_rng(14)
        n_bytes = 5 * 3001
        data = rng.integers(0, 256, n_bytes, dtype=np.uint8)
        offsets = sorted(set(rng.integers(0, n_bytes, 300).tolist()) | {0, 1, 4, 5, n_bytes - 1})
        tags = [gr.tag_utils.python_to_tag((o, pmt.intern("byte"), pmt.from_long(o)))
                for o in offsets]
        _, got = self.run_block(data, "short", max_bytes_per_call=13, tags=tags)
        got = sorted((t.offset, pmt.to_long(t.value)) for t in got)
        want = sorted(((8 * o) // 10, o) for o in offsets)
        self.assertEqual(got, want)

    def test_host_to_device_edge_uploads_once(self):
        if self.backend == "cpu":
            self.skipTest("no device buffer on the cpu backend")
        rng = np.random.default_rng(15)
        data = rng.integers(0, 256, 5 * 50000, dtype=np.uint8)
        got, _ = self.run_block(data, "float")
        self.assertEqual(len(got), 4 * 50000)
        up = gpudsp.buffer_counters(self.up, 0, "input")
        self.assertEqual(up["h2d_bytes"], data.size)
        self.assertEqual(up["d2h_bytes"], 0)
        edge = gpudsp.buffer_counters(self.up, 0, "output")
        self.assertEqual(edge["h2d_bytes"] + edge["d2h_bytes"], 0)
        down = gpudsp.buffer_counters(self.down, 0, "output")
        self.assertEqual(down["d2h_bytes"], 4 * 4 * 50000)


class qa_unpack10_cpu(unpack10_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_unpack10_emulated(unpack10_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
