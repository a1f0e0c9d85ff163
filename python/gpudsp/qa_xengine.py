#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The xengine block in flowgraphs, against the int64 reference: dumps spread
over many calls, missing spectra, dump tags, rx_time, and the F-engine ->
X-engine edge. On the CPU and the emulated device; qa_xengine_cuda runs the
same tests on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp

from qa_xengine_kernels import random_ci8, reference


class xengine_block_tests:
    backend = "cpu"

    def run_block(self, x, S, P, n_int, fmt="ci8", chop=None, tags=()):
        T, C, A = x.shape[:3]
        tb = gr.top_block()
        item_in = C * A * (2 if fmt == "ci8" else 8)
        src = blocks.vector_source_b(np.frombuffer(x.tobytes(), np.uint8).tolist(), False,
                                     item_in, list(tags))
        xe = gpudsp.xengine(S, P, C, n_int, fmt, backend=self.backend)
        if chop:
            c = blocks.copy(item_in)
            c.set_max_noutput_items(chop)
            tb.connect(src, c)
            src = c
        B = S * (S + 1) // 2
        snk = blocks.vector_sink_b(C * B * P * P * 8)
        tb.connect(src, xe, snk)
        tb.run()
        raw = np.frombuffer(bytes(snk.data()), np.int32 if fmt == "ci8" else np.complex64)
        shape = (-1, C, B, P, P, 2) if fmt == "ci8" else (-1, C, B, P, P)
        self.xe = xe
        return raw.reshape(shape), snk.tags()

    def test_kernel_and_form(self):
        # The kernel in use and, for the tensor kernel on a GPU, its form.
        for kernel in ("auto", "fp32", "tensor"):
            xe = gpudsp.xengine(4, 2, 3, 10, "ci8", backend=self.backend, kernel=kernel)
            if self.backend != "cuda":
                self.assertEqual((xe.kernel(), xe.kernel_form()), ("cpu", ""))
            elif xe.kernel() == "fp32":
                self.assertEqual(xe.kernel_form(), "")
            else:  # 8 inputs: the direct form from sm_80, WMMA on sm_75
                self.assertEqual(xe.kernel(), "tensor")
                self.assertIn(xe.kernel_form(), ("mma.sync direct", "wmma"))

    def test_dumps_over_many_calls(self):
        rng = np.random.default_rng(60)
        S, P, C, n_int = 5, 2, 3, 17
        x = random_ci8(rng, 17 * 4 + 9, C, S * P)  # 4 dumps and a partial one
        for chop in (None, 1, 5, 40):
            got, tags = self.run_block(x, S, P, n_int, chop=chop)
            self.assertEqual(got.shape[0], 4)
            for d in range(4):
                np.testing.assert_array_equal(got[d], reference(x[d * n_int:(d + 1) * n_int], P),
                                              err_msg=f"dump {d} chop {chop}")

    def test_cf32(self):
        rng = np.random.default_rng(61)
        S, P, C, n_int = 3, 1, 4, 10
        x = (rng.normal(size=(30, C, S * P)) + 1j * rng.normal(size=(30, C, S * P))).astype(np.complex64)
        got, _ = self.run_block(x, S, P, n_int, "cf32", chop=7)
        for d in range(3):
            want = reference(x[d * n_int:(d + 1) * n_int], P)
            np.testing.assert_allclose(got[d], want, rtol=1e-5, atol=1e-5 * np.abs(want).max())

    def test_missing_spectra_left_out_and_tags(self):
        rng = np.random.default_rng(62)
        S, P, C, n_int = 4, 2, 2, 20
        x = random_ci8(rng, 60, C, S * P)
        tag = lambda o, k, v: gr.tag_utils.python_to_tag((o, pmt.intern(k), v))
        tags = [tag(5, "gpudsp.missing", pmt.from_long(3)),    # spectra 5, 6, 7
                tag(18, "gpudsp.missing", pmt.from_long(4)),   # 18..21: spans dumps 0 and 1
                tag(45, "rx_time", pmt.make_tuple(pmt.from_uint64(3), pmt.from_double(0.25)))]
        got, out_tags = self.run_block(x, S, P, n_int, chop=7, tags=tags)
        valid = np.ones(60, bool)
        valid[5:8] = False
        valid[18:22] = False
        by = {}
        for t in out_tags:
            by.setdefault(pmt.symbol_to_string(t.key), {})[t.offset] = t.value
        for d in range(3):
            sel = np.arange(d * n_int, (d + 1) * n_int)
            sel = sel[valid[sel]]
            np.testing.assert_array_equal(got[d], reference(x[sel], P))
            self.assertEqual(pmt.to_uint64(by["gpudsp.dump_start"][d]), d * n_int)
            self.assertEqual(pmt.to_long(by["gpudsp.n_integrate"][d]), n_int)
            self.assertEqual(pmt.to_uint64(by["gpudsp.spectra_used"][d]), len(sel))
            self.assertEqual(pmt.to_uint64(by["gpudsp.saturated"][d]), 0)
        self.assertEqual(list(by["rx_time"]), [2])

    def test_bad_parameters(self):
        with self.assertRaises(ValueError):
            gpudsp.xengine(4, 3, 8, 10, backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.xengine(4, 2, 8, 0, backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.xengine(4, 2, 8, 10, "ci4", backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.xengine(4, 2, 8, 10, "cf32", "ci32", backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.xengine(0, 2, 8, 10, backend=self.backend)

    def check_fengine_to_xengine(self, seed, S, P, N, T, n_int, n_spectra, per_call=None):
        """10-bit bytes -> F-engine -> X-engine (per_call spectra per F-engine
        call, or as the scheduler gives), against the two CPU kernels
        chained, bit for bit; returns the F-engine block."""
        rng = np.random.default_rng(seed)
        A = S * P
        data = rng.integers(0, 256, (A, 2 * N * n_spectra * 10 // 8), dtype=np.uint8)
        tb = gr.top_block()
        fe = gpudsp.pfb_fengine(A, N, T, "packed10", "ci8", backend=self.backend)
        xe = gpudsp.xengine(S, P, N, n_int, "ci8", backend=self.backend)
        keep = []
        for a in range(A):
            src = blocks.vector_source_b(data[a].tolist())
            if per_call:
                chop = blocks.copy(1)
                chop.set_max_noutput_items(2 * N * per_call * 10 // 8)
                keep.append((src, chop))
                tb.connect(src, chop)
                src = chop
            tb.connect(src, (fe, a))
        snk = blocks.vector_sink_b(N * 3 * P * P * 8)
        tb.connect(fe, xe, snk)
        tb.run()
        got = np.frombuffer(bytes(snk.data()), np.int32).reshape(-1, N, 3, P, P, 2)
        spectra = gpudsp.kernels.fengine(data, N, T, output_format="ci8",
                                         coarse_delays=[(T - 1) * 2 * N] * A, backend="cpu")
        self.assertEqual(got.shape[0], n_spectra // n_int)
        for d in range(len(spectra) // n_int):  # the kernel drops the last T - 1
            # The first T - 1 spectra read before the stream: flagged, left out.
            sel = [m for m in range(d * n_int, (d + 1) * n_int) if m >= T - 1]
            np.testing.assert_array_equal(got[d], reference(spectra[sel], P),
                                          err_msg=f"dump {d}")
        return fe

    def test_fengine_to_xengine(self):
        fe = self.check_fengine_to_xengine(63, S=2, P=2, N=32, T=4, n_int=8, n_spectra=40)
        if self.backend != "cpu":  # the F -> X edge stays on the device
            edge = gpudsp.buffer_counters(fe, 0, "output")
            self.assertEqual(edge["h2d_bytes"] + edge["d2h_bytes"], 0)

    def test_fengine_chunks_into_xengine_dumps_across_calls(self):
        # The F-engine given 300 spectra per call (several of its internal
        # chunks), the X-engine dumps that span calls.
        self.check_fengine_to_xengine(64, S=2, P=2, N=16, T=4, n_int=77, n_spectra=640,
                                      per_call=300)

    def test_dump_beyond_int32_with_minus_128(self):
        # One dump of 70000 spectra of (-128, -128): its sums exceed int32,
        # so the partial sums must be promoted inside the dump, on both GPU
        # kernels (the tensor path must not negate an int8); every
        # visibility is exactly 70000 * 32768 + 0j.
        S, P, C, n_int = 1, 2, 1, 70000
        x = np.full((n_int + 10, C, S * P, 2), -128, np.int8)
        for kernel in ("fp32", "tensor"):
            tb = gr.top_block()
            src = blocks.vector_source_b(x.view(np.uint8).ravel().tolist(), False,
                                         C * S * P * 2)
            xe = gpudsp.xengine(S, P, C, n_int, "ci8", "cf32", backend=self.backend,
                                kernel=kernel)
            snk = blocks.vector_sink_c(C * P * P)
            tb.connect(src, xe, snk)
            tb.run()
            got = np.array(snk.data())
            self.assertEqual(len(got), C * P * P)
            np.testing.assert_array_equal(got, np.full(C * P * P, 70000 * 32768 + 0j),
                                          err_msg=kernel)


class qa_xengine_cpu(xengine_block_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_xengine_emulated(xengine_block_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
