#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The pfb_fengine block in flowgraphs, against gpudsp.kernels.fengine (which
qa_pfb_fengine_kernels checks against the float64 reference): streams cut
into calls at arbitrary points, several inputs, scheduled corrections through
setters and the "delays" message port, missing-data, saturation and rate
tags. On the CPU and the emulated device; qa_pfb_fengine_cuda runs the same
tests on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp

from qa_pfb_fengine_kernels import random_input


class fengine_block_tests:
    backend = "cpu"

    def run_block(self, xs, N, T, fmt="packed10", out="cf32", chops=None, tags=None,
                  setup=None, **kw):
        """Runs the block on inputs xs (one array per input); returns (items, tags)."""
        tb = gr.top_block()
        n_inputs = len(xs)
        fe = gpudsp.pfb_fengine(n_inputs, N, T, fmt, out, backend=self.backend, **kw)
        if setup:
            setup(fe)
        vs = {"packed10": blocks.vector_source_b, "short": blocks.vector_source_s,
              "float": blocks.vector_source_f, "complex": blocks.vector_source_c}[fmt]
        itemsize = {"packed10": 1, "short": 2, "float": 4, "complex": 8}[fmt]
        for i, x in enumerate(xs):
            src = vs(x.tolist(), False, 1, (tags or {}).get(i, []))
            if chops:  # each input reaches the block in pieces of its own size
                chop = blocks.copy(itemsize)
                chop.set_max_noutput_items(chops[i % len(chops)])
                tb.connect(src, chop)
                src = chop
            tb.connect(src, (fe, i))
        item = N * n_inputs * (8 if out == "cf32" else 2)
        snk = blocks.vector_sink_b(item)
        tb.connect(fe, snk)
        tb.run()
        raw = np.frombuffer(bytes(snk.data()), np.complex64 if out == "cf32" else np.int8)
        shape = (-1, N, n_inputs) if out == "cf32" else (-1, N, n_inputs, 2)
        self.fe = fe
        return raw.reshape(shape), snk.tags()

    def expected(self, x, N, T, fmt="packed10", coarse=None, **kw):
        """Block output m covers samples [(m - T + 1) step, (m + 1) step)."""
        step = N if fmt == "complex" else 2 * N
        lead = (T - 1) * step
        coarse = np.zeros(len(x), int) if coarse is None else np.asarray(coarse)
        return gpudsp.kernels.fengine(np.stack(x), N, T, input_format=fmt,
                                      coarse_delays=lead + coarse, backend="cpu", **kw)

    def test_matches_kernel_with_calls_cut_anywhere(self):
        rng = np.random.default_rng(40)
        for fmt in ("packed10", "short", "complex"):
            N, T = 64, 4
            step = N if fmt == "complex" else 2 * N
            x, _ = random_input(fmt, 3, step * 30, rng)
            got, _ = self.run_block(list(x), N, T, fmt, chops=[7, 1000, 333])
            want = self.expected(list(x), N, T, fmt)
            self.assertEqual(got.shape[0], 30)
            np.testing.assert_allclose(got[: len(want)], want, rtol=1e-5,
                                       atol=1e-5 * np.abs(want).max(), err_msg=fmt)

    def test_delay_model_tracks_per_spectrum(self):
        # A delay model with rates fast enough that the coarse delays change
        # several times during the run (up and down), sent as a message:
        # every spectrum equals the kernel run with that spectrum's coarse,
        # fine and phase values taken from the model at its window centre.
        rng = np.random.default_rng(46)
        N, T, n_spec = 16, 4, 200
        step = 2 * N
        x, _ = random_input("float", 3, step * n_spec, rng)
        delay = np.array([10.3, 8.7, 20.0])
        rate = np.array([0.001, -0.0008, 0.0])     # samples per sample
        phase = np.array([0.5, -1.0, 2.0])
        phase_rate = np.array([0.01, -0.02, 0.0])  # rad per sample
        at = 5 * step + 3
        msg = pmt.make_dict()
        for k, v in (("delay", delay), ("delay_rate", rate), ("phase", phase),
                     ("phase_rate", phase_rate)):
            msg = pmt.dict_add(msg, pmt.intern(k), pmt.init_f64vector(3, list(v)))
        msg = pmt.dict_add(msg, pmt.intern("at_sample"), pmt.from_long(at))
        got, _ = self.run_block(list(x), N, T, "float", chops=[101, 64, 77],
                                setup=lambda fe: fe._post(pmt.intern("delays"), msg),
                                max_coarse_delay=64)
        first = -(-at // step) + T - 1  # the first spectrum the model reaches
        coarse_seen = set()
        for m in range(n_spec - T + 1):
            if m < first:
                kw = {}
            else:
                centre = (m - T + 1) * step + T * step / 2
                tau = delay + rate * (centre - at)
                D = np.floor(tau + 0.5).astype(int)
                coarse_seen.update(zip(range(3), D))
                kw = dict(coarse=D, fine_delays=tau - D, phases=phase + phase_rate * (centre - at))
            want = self.expected(list(x), N, T, "float", **kw)[m]
            np.testing.assert_allclose(got[m], want, rtol=1e-5, atol=2e-5 * np.abs(want).max(),
                                       err_msg=f"spectrum {m}")
        self.assertEqual(self.fe.coarse_delays(), [10, 9, 20])  # the model at at_sample
        self.assertEqual(len(coarse_seen), 7 + 6 + 1)  # 6 and 5 changes, input 2 fixed

    def test_delay_model_leaving_its_range_is_flagged(self):
        # A model whose delay drifts below 0: the spectra from the segment
        # where it leaves 0..max_coarse_delay are clamped and flagged.
        rng = np.random.default_rng(47)
        N, T, n_spec = 16, 4, 120
        step = 2 * N
        x, _ = random_input("float", 2, step * n_spec, rng)
        got, tags = self.run_block(
            list(x), N, T, "float",
            setup=lambda fe: fe.set_delay_model([2.2, 5.0], [-0.001, 0.0], at_sample=0),
            max_coarse_delay=64)
        startup = -(-5 // step) + T - 1  # spectra reading before the stream (coarse 5)
        flagged = sorted(m for t in tags if pmt.symbol_to_string(t.key) == "gpudsp.missing"
                         for m in range(t.offset, t.offset + pmt.to_uint64(t.value)))
        self.assertEqual(flagged[:startup], list(range(startup)))
        flagged = [m for m in flagged if m >= startup]
        # tau = 2.2 - 0.001 (centre) < -0.5 from centre 2700: spectrum 84 on.
        first_bad = next(m for m in range(n_spec)
                         if 2.2 - 0.001 * ((m - T + 1) * step + T * step / 2) < -0.5)
        self.assertTrue(flagged and flagged[0] <= first_bad and flagged[-1] == n_spec - 1,
                        flagged[:3])
        self.assertGreaterEqual(flagged[0], first_bad - 2048 // step)  # within a segment

    def test_delay_model_refused(self):
        fe = gpudsp.pfb_fengine(2, 16, 4, "float", "cf32", backend=self.backend,
                                max_coarse_delay=100)
        for kw, named in [(dict(delays=[1.0]), "delays"),
                          (dict(delays=[1.0, -2.0]), "delays"),
                          (dict(delays=[1.0, 200.0]), "delays"),
                          (dict(delays=[1.0, 2.0], delay_rates=[0.0, 0.1]), "delay_rates"),
                          (dict(delays=[1.0, 2.0], phases=[0.0, float("nan")]), "phases"),
                          (dict(delays=[1.0, 2.0], at_sample=-1), "at_sample")]:
            with self.assertRaises(ValueError, msg=str(kw)) as cm:
                fe.set_delay_model(**kw)
            self.assertIn(named, str(cm.exception))

    def test_ci8_dither_and_saturation_tags(self):
        rng = np.random.default_rng(41)
        N, T = 32, 4
        x, _ = random_input("short", 2, 2 * N * 40, rng)
        w = rng.uniform(-1, 1, 2 * N * T) * 0.005
        got, tags = self.run_block(list(x), N, T, "short", "ci8", chops=[100, 77],
                                   weights=list(w), dither=True)
        want, sat = gpudsp.kernels.fengine(
            np.stack(list(x)), N, T, input_format="short", output_format="ci8", weights=w,
            dither=True, coarse_delays=[(T - 1) * 2 * N] * 2, backend="cpu",
            return_saturation=True)
        np.testing.assert_array_equal(got[: len(want)], want)
        self.assertGreaterEqual(got.min(), -127)
        sat_tags = {t.offset: list(pmt.u32vector_elements(t.value)) for t in tags
                    if pmt.symbol_to_string(t.key) == "gpudsp.saturated"}
        for m in range(len(want)):
            if sat[m].any():
                self.assertEqual(sat_tags.get(m), list(sat[m]), f"spectrum {m}")
            else:
                self.assertNotIn(m, sat_tags)
        self.assertGreater(len(sat_tags), 0)

    def test_corrections_land_on_the_stated_spectrum(self):
        rng = np.random.default_rng(42)
        N, T = 64, 4
        step = 2 * N
        x, _ = random_input("packed10", 2, step * 40, rng)
        at = 17 * step + 5  # first spectrum starting at or after: ceil(at/step) + T - 1 = 21
        gains = np.exp(1j * rng.uniform(-3, 3, (N, 2))).astype(np.complex64)

        def setup(fe):
            fe.set_coarse_delays([3, 0], at)
            fe.set_fine_delays([0.25, -0.1], at)
            fe.set_gains(list(gains.reshape(-1)), at)

        got, _ = self.run_block(list(x), N, T, setup=setup, chops=[501, 64])
        before = self.expected(list(x), N, T)
        after = self.expected(list(x), N, T, coarse=[3, 0], fine_delays=[0.25, -0.1],
                              gains=gains)
        m0 = 21
        tol = dict(rtol=1e-5, atol=1e-5 * np.abs(before).max())
        np.testing.assert_allclose(got[:m0], before[:m0], **tol)
        np.testing.assert_allclose(got[m0:len(after)], after[m0:], **tol)
        self.assertEqual(list(self.fe.coarse_delays()), [3, 0])

    def test_delays_message(self):
        rng = np.random.default_rng(43)
        N, T = 32, 2
        x, _ = random_input("float", 2, 2 * N * 30, rng)
        msg = pmt.make_dict()
        msg = pmt.dict_add(msg, pmt.intern("fine_delays"), pmt.init_f64vector(2, [0.0, 0.5]))
        msg = pmt.dict_add(msg, pmt.intern("phases"), pmt.init_f64vector(2, [1.0, 0.0]))
        msg = pmt.dict_add(msg, pmt.intern("coarse_delays"), pmt.init_s32vector(2, [0, 9]))
        msg = pmt.dict_add(msg, pmt.intern("at_sample"), pmt.from_long(2 * N * 10))

        def setup(fe):
            fe._post(pmt.intern("delays"), msg)  # handled before the first work()

        got, _ = self.run_block(list(x), N, T, "float", setup=setup)
        before = self.expected(list(x), N, T, "float")
        after = self.expected(list(x), N, T, "float", coarse=[0, 9], fine_delays=[0, 0.5],
                              phases=[1.0, 0])
        m0 = 10 + T - 1
        tol = dict(rtol=1e-5, atol=1e-5 * np.abs(before).max())
        np.testing.assert_allclose(got[:m0], before[:m0], **tol)
        np.testing.assert_allclose(got[m0:len(after)], after[m0:], **tol)

    def test_missing_and_rate_tags(self):
        rng = np.random.default_rng(44)
        N, T = 64, 4
        step = 2 * N  # 160 bytes of packed10 per spectrum
        x, _ = random_input("packed10", 2, step * 50, rng)
        tag = lambda o, k, v: gr.tag_utils.python_to_tag((o, pmt.intern(k), v))
        # Input 1: bytes [1000, 1010) bad -> samples [800, 808) -> the windows
        # of spectra 6 .. 6 + T - 1; input 0: bytes [4000, 4001) -> sample 3200
        # -> spectra 25 .. 28.
        tags = {1: [tag(1000, "gpudsp.missing", pmt.from_long(10))],
                0: [tag(4000, "gpudsp.missing", pmt.from_long(1)),
                    tag(1600, "rx_rate", pmt.from_double(1.28e6)),
                    tag(2405, "rx_time", pmt.make_tuple(pmt.from_uint64(7), pmt.from_double(0.5)))]}
        _, out_tags = self.run_block(list(x), N, T, tags=tags, chops=[333, 160])
        by_key = {}
        for t in out_tags:
            by_key.setdefault(pmt.symbol_to_string(t.key), []).append((t.offset, t.value))
        # A run may come as several tags when it spans work calls.
        flagged = sorted(m for o, v in by_key["gpudsp.missing"]
                         for m in range(o, o + pmt.to_uint64(v)))
        # Spectra 0..T-2 read the zeros before the stream: flagged too.
        self.assertEqual(flagged, [0, 1, 2, 6, 7, 8, 9, 25, 26, 27, 28])
        (rate_at, rate), = by_key["rx_rate"]
        self.assertEqual(rate_at, (1600 * 4 // 5) // step)
        self.assertAlmostEqual(pmt.to_double(rate), 1.28e6 / step)
        (time_at, _), = by_key["rx_time"]
        self.assertEqual(time_at, (2405 * 4 // 5) // step)

    def test_bad_parameters(self):
        with self.assertRaises(ValueError):
            gpudsp.pfb_fengine(2, 63, 4, "packed10", backend=self.backend)
        with self.assertRaises(ValueError):
            gpudsp.pfb_fengine(2, 64, 4, "int8", backend=self.backend)
        fe = gpudsp.pfb_fengine(2, 64, 4, "float", "cf32", backend=self.backend,
                                max_coarse_delay=100)
        with self.assertRaises(ValueError):
            fe.set_coarse_delays([0, 101])
        with self.assertRaises(ValueError):
            fe.set_fine_delays([0.6, 0])
        with self.assertRaises(ValueError):
            fe.set_gains([1.0] * 10)
        self.assertEqual(len(fe.weights()), 2 * 64 * 4)


class qa_pfb_fengine_cpu(fengine_block_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_pfb_fengine_emulated(fengine_block_tests, gr_unittest.TestCase):
    backend = "emulated"

    def test_device_edges_copy_once(self):
        rng = np.random.default_rng(45)
        N, T = 64, 4
        x, _ = random_input("packed10", 2, 2 * N * 40, rng)
        self.run_block(list(x), N, T)
        for i in range(2):
            c = gpudsp.buffer_counters(self.fe, i, "input")
            self.assertEqual(c["h2d_bytes"], x[i].size)
        out = gpudsp.buffer_counters(self.fe, 0, "output")
        self.assertEqual(out["d2h_bytes"], 40 * N * 2 * 8)


if __name__ == "__main__":
    gr_unittest.main()
