#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The ddc block in flowgraphs, against gpudsp.kernels.ddc (itself checked
against float64 and GNU Radio in qa_ddc_kernels): streams cut anywhere,
several outputs with their own frequency, taps and decimation, a retune at a
stated sample (phase-continuous, tagged), the freq message port, missing and
rx_freq tags. CPU and emulated device; qa_ddc_cuda runs them on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats


class ddc_block_tests:
    backend = "cpu"

    def run_block(self, x, fmt="complex", chop=None, tags=(), setup=None, **kw):
        tb = gr.top_block()
        vs = {"complex": blocks.vector_source_c, "float": blocks.vector_source_f,
              "short": blocks.vector_source_s, "packed10": blocks.vector_source_b}[fmt]
        size = {"complex": 8, "float": 4, "short": 2, "packed10": 1}[fmt]
        src = vs(np.asarray(x).tolist(), False, 1, list(tags))
        d = gpudsp.ddc(input_format=fmt, backend=self.backend, **kw)
        if setup:
            setup(d)
        if chop:
            c = blocks.copy(size)
            c.set_max_noutput_items(chop)
            tb.connect(src, c)
            src = c
        tb.connect(src, d)
        sinks = []
        for j in range(kw.get("n_outputs", 1)):
            s = blocks.vector_sink_c()
            tb.connect((d, j), s)
            sinks.append(s)
        tb.run()
        self.d = d
        return [np.array(s.data()) for s in sinks], [s.tags() for s in sinks]

    def test_matches_kernel_when_cut_anywhere(self):
        rng = np.random.default_rng(80)
        fs = 1e6
        v = rng.integers(-512, 512, 20004)
        for fmt, x in (("complex", (v + 1j * v[::-1]).astype(np.complex64)),
                       ("float", v.astype(np.float32)), ("short", v.astype(np.int16)),
                       ("packed10", formats.pack10(v))):
            for T, D in ((55, 5), (1, 1), (3, 8), (300, 16)):
                taps = rng.uniform(-1, 1, T)
                want = gpudsp.kernels.ddc(x, D, taps, 0.11e6, fs, input_format=fmt, backend="cpu")
                (got,), _ = self.run_block(x, fmt, chop=777, decimation=D, taps=list(taps),
                                           center_freq=0.11e6, samp_rate=fs)
                n = min(len(got), len(want))
                # Every output whose sample arrived (packed10: in whole groups).
                self.assertGreaterEqual(n, len(want) - (1 if fmt == "packed10" else 0),
                                        f"{fmt} T={T} D={D}")
                np.testing.assert_allclose(got[:n], want[:n], rtol=1e-5,
                                           atol=1e-5 * np.abs(want).max(), err_msg=f"{fmt} {T} {D}")

    def test_several_outputs(self):
        rng = np.random.default_rng(81)
        fs = 1e6
        x = (rng.normal(size=30000) + 1j * rng.normal(size=30000)).astype(np.complex64)
        t1, t2 = rng.uniform(-1, 1, 64), rng.uniform(-1, 1, 129)
        outs, _ = self.run_block(x, chop=1000, decimation=8, taps=list(t1), center_freq=0.0,
                                 samp_rate=fs, n_outputs=3, center_freqs=[-2e5, 1e5, 3.3e5],
                                 decimations=[8, 16, 5], output_taps=[list(t1), list(t2), list(t1)])
        for got, (fc, D, t) in zip(outs, [(-2e5, 8, t1), (1e5, 16, t2), (3.3e5, 5, t1)]):
            want = gpudsp.kernels.ddc(x, D, t, fc, fs, backend="cpu")
            n = min(len(got), len(want))
            self.assertGreaterEqual(n, len(want) - 1)
            np.testing.assert_allclose(got[:n], want[:n], rtol=1e-5, atol=1e-5 * np.abs(want).max())

    def test_runs_again_from_the_start(self):
        # GNU Radio counts items from 0 on every run: the same block run again
        # (same top block, or moved to a new one) starts over, at the current
        # frequency with phase 0 at sample 0, and gives the same output. (It
        # produced nothing on its second run before.)
        rng = np.random.default_rng(86)
        x = (rng.normal(size=5000) + 1j * rng.normal(size=5000)).astype(np.complex64)
        taps = rng.uniform(-1, 1, 37)
        d = gpudsp.ddc(6, list(taps), 1.1e5, 1e6, "complex", 2, self.backend,
                       center_freqs=[1.1e5, -3e5])

        def wire(tb):
            src = blocks.vector_source_c(x.tolist())
            sinks = [blocks.vector_sink_c() for _ in range(2)]
            tb.connect(src, d)
            for j, s in enumerate(sinks):
                tb.connect((d, j), s)
            return src, sinks
        tb = gr.top_block()
        src, sinks = wire(tb)
        tb.run()
        first = [np.array(s.data()) for s in sinks]
        self.assertEqual(len(first[0]), 834)
        for s in sinks:
            s.reset()
        src.rewind()
        tb.run()
        for j, s in enumerate(sinks):
            np.testing.assert_array_equal(np.array(s.data()), first[j])
        tb.disconnect_all()
        tb2 = gr.top_block()  # the same block in another flowgraph
        _, sinks2 = wire(tb2)
        tb2.run()
        np.testing.assert_array_equal(np.array(sinks2[0].data()), first[0])
        # Retunes asked for between runs count the next run's samples: output
        # 0 from its start, output 1 from sample 600 (output 100), each
        # tagged there; the outputs equal the kernel's at those frequencies.
        d.set_center_freq(-2e5, 0)
        d.set_center_freq(3e5, 1, 600)
        tb2.disconnect_all()
        tb3 = gr.top_block()
        _, sinks3 = wire(tb3)
        tb3.run()
        y0, y1 = (np.array(s.data()) for s in sinks3)
        self.assertEqual(len(y0), 834)
        want0 = gpudsp.kernels.ddc(x, 6, taps, -2e5, 1e6, backend="cpu")
        np.testing.assert_allclose(y0, want0[:834], rtol=1e-5,
                                   atol=1e-5 * np.abs(want0).max())
        retags = [[t.offset for t in s.tags() if pmt.symbol_to_string(t.key) ==
                   "gpudsp.center_freq"] for s in sinks3]
        self.assertEqual(retags, [[0], [100]])
        np.testing.assert_array_equal(y1[:100], first[1][:100])

    def test_retune_at_a_stated_sample(self):
        fs, D = 1.0, 4
        n = 4000
        x = np.exp(2j * np.pi * 0.1 * np.arange(n)).astype(np.complex64)  # a tone at 0.1 fs
        at = 2001  # first output with mD >= 2001 is m = 501

        def setup(d):
            d.set_center_freq(0.15, 0, at)

        (y,), (tags,) = self.run_block(x, chop=333, setup=setup, decimation=D, taps=[1.0],
                                       center_freq=0.1, samp_rate=fs)
        steps = np.angle(y[1:] / y[:-1])
        m0 = 501
        # Before: the tone at DC (no rotation). From m0 on: -0.05 cycles per
        # sample, i.e. -0.2 cycles per output; and no jump at m0.
        np.testing.assert_allclose(steps[:m0 - 1], 0, atol=1e-4)
        np.testing.assert_allclose(steps[m0:], -2 * np.pi * 0.2, atol=1e-4)
        jump = np.angle(y[m0] / y[m0 - 1])  # the phase advance across the retune sample
        expected = -2 * np.pi * 0.05 * (m0 * D - at)  # only the new-frequency part
        self.assertAlmostEqual(jump, expected, places=3)
        cf = [(t.offset, pmt.to_double(t.value)) for t in tags
              if pmt.symbol_to_string(t.key) == "gpudsp.center_freq"]
        self.assertEqual(cf, [(m0, 0.15)])
        self.assertEqual(self.d.center_freq(0), 0.15)

    def test_freq_message_and_tags(self):
        rng = np.random.default_rng(82)
        fs, D, T = 1e6, 10, 21
        x = (rng.normal(size=20000) + 1j * rng.normal(size=20000)).astype(np.complex64)
        tag = lambda o, k, v: gr.tag_utils.python_to_tag((o, pmt.intern(k), v))
        tags = [tag(0, "rx_freq", pmt.from_double(1.4e9)),
                tag(5005, "gpudsp.missing", pmt.from_long(3)),
                tag(0, "rx_rate", pmt.from_double(fs)),
                tag(7777, "qa", pmt.from_long(1))]
        msg = pmt.make_dict()
        msg = pmt.dict_add(msg, pmt.intern("freq"), pmt.from_double(2e5))
        msg = pmt.dict_add(msg, pmt.intern("at_sample"), pmt.from_long(10000))

        def setup(d):
            d._post(pmt.intern("freq"), msg)

        taps = rng.uniform(-1, 1, T)
        (y,), (out_tags,) = self.run_block(x, chop=512, tags=tags, setup=setup, decimation=D,
                                           taps=list(taps), center_freq=1e5, samp_rate=fs)
        by = {}
        for t in out_tags:
            by.setdefault(pmt.symbol_to_string(t.key), []).append((t.offset, pmt.to_python(t.value)))
        self.assertEqual(by["gpudsp.center_freq"], [(1000, 2e5)])
        self.assertEqual(sorted(by["rx_freq"]), [(0, 1.4e9 + 1e5), (1000, 1.4e9 + 2e5)])
        self.assertEqual(by["rx_rate"], [(0, fs / D)])
        self.assertEqual(by["qa"], [(778, 1)])  # once, on ceil(7777 / D)
        # Samples 5005..5007 touch outputs 501 .. floor((5007 + 20) / 10) = 502.
        flagged = sorted(m for o, v in by["gpudsp.missing"] for m in range(o, o + v))
        self.assertEqual(flagged, [501, 502])  # as one run, or split across calls
        before = gpudsp.kernels.ddc(x, D, taps, 1e5, fs, backend="cpu")
        np.testing.assert_allclose(y[:1000], before[:1000], rtol=1e-5, atol=1e-5 * np.abs(before).max())

    def test_bad_parameters(self):
        with self.assertRaises(ValueError):
            gpudsp.ddc(0, [1.0], 0.0, 1e6, backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.ddc(2, [], 0.0, 1e6, backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.ddc(2, [1.0], 6e5, 1e6, "float", backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.ddc(2, [1.0], 0.0, 1e6, n_outputs=2, center_freqs=[1.0], backend=self.backend)
        d = gpudsp.ddc(2, [1.0], 0.0, 1e6, "float", backend=self.backend)
        with self.assertRaises(ValueError):
            d.set_center_freq(7e5)
        with self.assertRaises(ValueError):
            d.set_center_freq(1e3, 3)


class qa_ddc_cpu(ddc_block_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_ddc_emulated(ddc_block_tests, gr_unittest.TestCase):
    backend = "emulated"

    def test_tuned_when_made(self):
        # The emulated device's configurations are the CPU's vector widths:
        # with the tuner on, the block times them when it is made, runs the
        # winner and says so; its output is the CPU block's (within the
        # tolerance the tuner checks).
        import os
        import tempfile
        rng = np.random.default_rng(83)
        x = (rng.uniform(-1, 1, 30000) + 1j * rng.uniform(-1, 1, 30000)).astype(np.complex64)
        taps = list(rng.uniform(-1, 1, 64))
        kw = dict(decimation=8, taps=taps, center_freq=0.12e6, samp_rate=1e6)
        want = gpudsp.kernels.ddc(x, 8, taps, 0.12e6, 1e6, backend="cpu")
        saved = {k: os.environ.get(k) for k in ("GPUDSP_AUTOTUNE", "GPUDSP_AUTOTUNE_DIR")}
        with tempfile.TemporaryDirectory() as cache:
            os.environ["GPUDSP_AUTOTUNE"] = "force"
            os.environ["GPUDSP_AUTOTUNE_DIR"] = cache
            try:
                (got,), _ = self.run_block(x, chop=1000, **kw)
                config = self.d.configuration()
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        self.assertRegex(config, r"^ddc \[D=8 T=64 complex n_out=4096\]: simd=\w+ \(tuned now in ")
        n = min(len(got), len(want))
        self.assertGreaterEqual(n, len(want) - 1)
        np.testing.assert_allclose(got[:n], want[:n], rtol=1e-5, atol=1e-5 * np.abs(want).max())
        with self.assertRaises(ValueError):
            self.d.configuration(1)


if __name__ == "__main__":
    gr_unittest.main()
