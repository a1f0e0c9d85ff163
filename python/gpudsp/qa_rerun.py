#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Blocks run again start over. GNU Radio counts every block's items from 0
on each run (a new block detail), so a flowgraph run a second time, or a
block moved into another flowgraph, must give the same output for the same
input: no state of the previous run (partial dumps, missing-data runs, delay
segments, absolute sample counters) may leak. Each case runs (A) the same
block in two top blocks and (B) one top block twice, sources rewound and
sinks reset, and compares data and tags with the first run. (The ddc block's
case is in qa_ddc.) Settings stay as they are: a run again starts with the
current ones from its first item. Each case failed before its fix: the
X-engine gave an extra dump of the old run's spectra or flagged everything
missing, the F-engine kept the old run's last delay segment and lost its
missing flags, the digitiser sent nothing. qa_rerun_cuda runs the block cases on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import fx_correlator as fx


def tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value))


def tag_list(sink):
    return sorted((int(t.offset), pmt.symbol_to_string(t.key), pmt.write_string(t.value))
                  for t in sink.tags())


def results(sinks):
    return [(np.asarray(s.data(), np.uint8).tobytes(), tag_list(s)) for s in sinks]  # byte sinks


class rerun_tests:
    backend = "cpu"

    def check(self, make, wire, same=None):
        """wire(tb, block) -> (sources, sinks); same(first, again) asserts
        that a run again matches the first run (default: equal)."""
        def same_as_first(got, first, what):
            if same:
                same(first, got)
            else:
                self.assertEqual(got, first, what)
        block = make()
        tb = gr.top_block()
        _, sinks = wire(tb, block)
        tb.run()
        first = results(sinks)
        self.assertTrue(any(len(d) for d, _ in first))
        tb2 = gr.top_block()  # A: the same block in another top block
        tb.disconnect_all()
        _, sinks = wire(tb2, block)
        tb2.run()
        again = results(sinks)
        same_as_first(again, first, "same block, new top block")
        tb2.disconnect_all()
        tb3 = gr.top_block()  # and runs after that are all alike
        _, sinks = wire(tb3, block)
        tb3.run()
        self.assertEqual(results(sinks), again)
        block = make()  # B: one top block run twice
        tb = gr.top_block()
        sources, sinks = wire(tb, block)
        tb.run()
        self.assertEqual(results(sinks), first)
        for s in sources:
            s.rewind()
        for s in sinks:
            s.reset()
        tb.run()
        same_as_first(results(sinks), first, "same top block run again")

    def xengine_case(self, n_spectra, tags):
        S, P, C, n_int = 3, 2, 4, 10
        x = np.random.default_rng(2).integers(-128, 128, n_spectra * C * S * P * 2)
        item = C * S * P * 2

        def wire(tb, xe):
            src = blocks.vector_source_b(x.astype(np.int8).view(np.uint8).tolist(), False,
                                         item, tags)
            snk = blocks.vector_sink_b(C * S * (S + 1) // 2 * P * P * 8)
            tb.connect(src, xe, snk)
            return [src], [snk]
        self.check(lambda: gpudsp.xengine(S, P, C, n_int, "ci8", backend=self.backend), wire)

    def test_xengine_partial_dump_at_the_end(self):
        self.xengine_case(45, [])  # 4 dumps and 5 spectra of a fifth

    def test_xengine_missing_spectra(self):
        self.xengine_case(40, [tag(35, "gpudsp.missing", pmt.from_long(3))])

    def test_pfb_fengine_delay_model_and_missing(self):
        N, T, n_spec = 16, 4, 120

        def make():
            fe = gpudsp.pfb_fengine(2, N, T, "float", "cf32", backend=self.backend,
                                    max_coarse_delay=64)
            fe.set_delay_model([10.2, 5.0], [0.0, 0.0], phases=[0.0, 0.0],
                               phase_rates=[1e-3, 0.0], at_sample=0)
            return fe

        def wire(tb, fe):
            rng = np.random.default_rng(3)
            sources = []
            for i in range(2):
                x = rng.normal(size=2 * N * n_spec).astype(np.float32)
                tags = [tag(2 * N * n_spec - 4, "gpudsp.missing", pmt.from_long(4))] if i else []
                s = blocks.vector_source_f(x.tolist(), False, 1, tags)
                tb.connect(s, (fe, i))
                sources.append(s)
            snk = blocks.vector_sink_b(N * 2 * 8)
            tb.connect(fe, snk)
            return sources, [snk]

        def same(first, again):
            # The model set for sample 0 applies from spectrum T-1 (the first
            # whose window starts there) in the first run; a run again starts
            # with it at spectrum 0, so its first segment (to the first
            # coarse-delay step, spectrum 23) differs. From there on: the same
            # (to float rounding: the drift is evaluated from each segment's
            # start), the flags of the model's clamp and of the missing input
            # exactly.
            (d1, t1), (d2, t2) = first[0], again[0]
            self.assertEqual(t2, t1)
            a = np.frombuffer(d1, np.complex64).reshape(-1, 2 * N)[30:]
            b = np.frombuffer(d2, np.complex64).reshape(-1, 2 * N)[30:]
            self.assertEqual(a.shape, b.shape)
            np.testing.assert_allclose(b, a, rtol=0, atol=1e-5 * np.abs(a).max())
        self.check(make, wire, same)


class qa_rerun(rerun_tests, gr_unittest.TestCase):

    def test_digitiser_source(self):
        p = fx.fx_params(antennas=2, channels=64, taps=4, seconds=0.00002, integration=16,
                         sources=[(0.0, 0.0, 10.0, 0.0)], sefd_jy=0.0, rfi_freq=-1,
                         dither=False, backend="cpu", geometry_engine="simple")
        sim = fx.simulation.make(p)

        def wire(tb, dig):
            sinks = [blocks.vector_sink_b() for _ in range(4)]
            for i, s in enumerate(sinks):
                tb.connect((dig, i), s)
            return [], sinks
        self.check(lambda: sim.digitiser(4000), wire)


if __name__ == "__main__":
    gr_unittest.run(qa_rerun)
