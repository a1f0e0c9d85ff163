#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The wipeoff_correlator block in flowgraphs: every integration starts at
a code epoch of its satellite, continues the previous one exactly and
equals gpudsp.kernels.correlate (itself checked against float64) on the
same samples; records and "corr" messages agree; streams cut anywhere give
identical records; control messages add, correct and remove satellites;
missing samples are flagged; int16 input; bad parameters are refused. CPU
and emulated device; qa_wipeoff_correlator_cuda runs them on CUDA."""

import os
import sys
import tempfile
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import gnss, kernels
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FS = 2.046e6
TAPS = [0.5, 0.0, -0.5]
SATS = [dict(system="gps_l1ca", prn=3, carrier_freq=1234.5, code_freq=1.023e6 + 0.8,
             carrier_phase=0.1, code_phase=300.3),
        dict(system="galileo_e1b", prn=9, carrier_freq=-2100.0, code_freq=1.023e6 - 1.4,
             carrier_phase=-0.2, code_phase=10.2)]


def signal(n, n_antennas=2, seed=20):
    rng = np.random.default_rng(seed)
    x = gnss.synthetic_signal(n, FS, SATS, n_antennas=n_antennas,
                              antenna_phases=[[0.0, 0.0], [0.3, -0.1]][:n_antennas])
    return (x + 0.5 * (rng.standard_normal(x.shape) +
                       1j * rng.standard_normal(x.shape))).astype(np.complex64)


def pmt_dict(**fields):
    d = pmt.make_dict()
    for k, v in fields.items():
        d = pmt.dict_add(d, pmt.intern(k), v if isinstance(v, pmt.pmt_base) else pmt.to_pmt(v))
    return d


# Malformed control messages, by class; each is refused as a whole. They
# name the satellites being correlated (SATS) where that matters, so a
# message applied in part would change their records.
_sat = st.sampled_from(SATS)
_number = st.one_of(st.floats(-1e4, 1e4), st.integers(-1000, 1000))
_not_a_number = st.sampled_from([pmt.intern("fast"), pmt.init_f32vector(2, [1.0, 2.0]),
                                 pmt.PMT_T, pmt.from_complex(1 + 1j), pmt.PMT_NIL])
MALFORMED = {
    "not a dict": st.sampled_from([pmt.from_long(3), pmt.intern("gps_l1ca"),
                                   pmt.list2(pmt.intern("prn"), pmt.from_long(3)),
                                   pmt.cons(pmt.intern("system"), pmt.intern("gps_l1ca")),
                                   pmt.make_vector(2, pmt.PMT_NIL)]),
    "wrong type": st.one_of(
        st.builds(lambda s, f, v: pmt_dict(system=pmt.intern(s["system"]),
                                           prn=pmt.from_long(s["prn"]), **{f: v}),
                  _sat, st.sampled_from(["carrier_freq", "code_freq", "carrier_phase",
                                         "code_phase"]), _not_a_number),
        st.builds(lambda s, v: pmt_dict(system=pmt.intern(s["system"]),
                                        prn=pmt.from_long(s["prn"]), remove=v),
                  _sat, st.sampled_from([pmt.from_long(1), pmt.intern("yes"),
                                         pmt.from_double(1.0)])),
        st.builds(lambda s: pmt_dict(system=pmt.from_long(0), prn=pmt.from_long(s["prn"]),
                                     carrier_freq=0.0), _sat),
        st.builds(lambda s, p: pmt_dict(system=pmt.intern(s["system"]), prn=p,
                                        carrier_freq=0.0),
                  _sat, st.sampled_from([pmt.from_double(3.0), pmt.intern("3"),
                                         pmt.string_to_symbol("G03")])),
        st.builds(lambda v: pmt_dict(system=pmt.intern("gps_l1ca"), prn=pmt.from_long(12),
                                     sample=v),
                  st.sampled_from([pmt.from_double(10.0), pmt.from_long(-1),
                                   pmt.intern("now")]))),
    "unknown key": st.builds(
        lambda s, k, v: pmt_dict(system=pmt.intern(s["system"]), prn=pmt.from_long(s["prn"]),
                                 carrier_freq=v, **{k: 1.0}),
        _sat, st.sampled_from(["carrier_frq", "doppler", "Carrier_freq", "remove_", ""]),
        st.floats(-1e4, 1e4)),
    "secondary code refused": st.builds(
        # L1 C/A and E1-B have none; a bad epoch: the frequency must not
        # change either.
        lambda s, v, extra: pmt_dict(system=pmt.intern(s["system"]),
                                     prn=pmt.from_long(s["prn"]), carrier_freq=v, **extra),
        _sat, st.floats(-1e4, 1e4),
        st.sampled_from([dict(secondary_chip=0), dict(secondary_chip=3, epoch=2),
                         dict(secondary_chip=-1, epoch=-5), dict(epoch=4),
                         dict(secondary_chip=pmt.from_double(1.0))])),
    "unknown PRN": st.builds(
        lambda system, prn: pmt_dict(system=pmt.intern(system), prn=pmt.from_long(prn),
                                     carrier_freq=0.0, sample=0),
        st.sampled_from(["gps_l1ca", "galileo_e1b"]),
        st.one_of(st.integers(-2**40, 0), st.integers(51, 2**40),
                  st.sampled_from([2**32 + 3, 2**32 + 9, -(2**32) + 3]))),
    "unknown system": st.builds(
        lambda s, system: pmt_dict(system=pmt.intern(system), prn=pmt.from_long(s["prn"]),
                                   remove=True),
        _sat, st.sampled_from(["beidou", "GPS_L1CA", "", "glonass"])),
    "missing field": st.builds(
        lambda s, drop: pmt_dict(**{k: v for k, v in dict(
            system=pmt.intern(s["system"]), prn=pmt.from_long(s["prn"]), remove=pmt.PMT_T
        ).items() if k != drop}),
        _sat, st.sampled_from(["system", "prn"])),
    "huge or non-finite value": st.one_of(
        st.builds(lambda s, f, v: pmt_dict(system=pmt.intern(s["system"]),
                                           prn=pmt.from_long(s["prn"]), **{f: v}),
                  _sat, st.sampled_from(["code_freq", "carrier_phase", "code_phase",
                                         "carrier_freq"]),
                  st.sampled_from([float("nan"), float("inf"), -float("inf")])),
        st.builds(lambda s, v: pmt_dict(system=pmt.intern(s["system"]),
                                        prn=pmt.from_long(s["prn"]), code_freq=v),
                  _sat, st.one_of(st.floats(FS * 1.001, 1e300), st.floats(-1e300, 0.0))),
        st.builds(lambda v: pmt_dict(system=pmt.intern("gps_l1ca"), prn=pmt.from_long(12),
                                     sample=pmt.from_uint64(v)),
                  st.integers(2**63, 2**64 - 1)),
        st.builds(lambda s: pmt_dict(system=pmt.intern(s["system"]),
                                     prn=pmt.from_long(s["prn"]), sample=0), _sat)),
}


class log_capture:
    """What the process writes to stdout and stderr (GNU Radio's console
    logger writes to one of them), into a string."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = [os.dup(1), os.dup(2)]
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()


class stalling_source(gr.sync_block):
    """Gives its samples, then nothing (without ending) until stopped."""

    def __init__(self, x):
        gr.sync_block.__init__(self, "stalling_source", [], [np.complex64])
        self.x = x

    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        n = min(len(output_items[0]), len(self.x) - start)
        if n <= 0:
            time.sleep(0.005)
            return 0
        output_items[0][:n] = self.x[start:start + n]
        return n


class wipeoff_block_tests:
    backend = "cpu"

    def make(self, n_antennas=2, **kw):
        return gpudsp.wipeoff_correlator(FS, n_antennas, TAPS, backend=self.backend, **kw)

    def run_records(self, x, chop=None, setup=None, tags=(), fmt="complex", **kw):
        tb = gr.top_block()
        d = self.make(n_antennas=x.shape[0], input_format=fmt, **kw)
        for s in SATS:
            d.add_satellite(s["system"], s["prn"], s["carrier_freq"], s["code_freq"],
                            s["carrier_phase"], s["code_phase"], 0)
        if setup:
            setup(d)
        for m in range(x.shape[0]):
            if fmt == "complex":
                src = blocks.vector_source_c(x[m].tolist(), False, 1,
                                             list(tags) if m == 1 else [])
                size = 8
            else:
                src = blocks.vector_source_s(x[m].reshape(-1).tolist(), False, 2)
                size = 4
            if chop:
                c = blocks.copy(size)
                c.set_max_noutput_items(chop + 13 * m)
                tb.connect(src, c)
                src = c
            tb.connect(src, (d, m))
        sink = blocks.vector_sink_b(d.record_size())
        tb.connect(d, sink)
        tb.run()
        self.d = d
        return gnss.parse_records(np.array(sink.data(), np.uint8), x.shape[0], len(TAPS))

    def check_against_kernel(self, x, recs):
        self.assertGreater(len(recs), 0)
        sats = [dict(system=gnss.SYSTEMS[r["system"]], prn=int(r["prn"]),
                     carrier_freq=r["carrier_freq"], carrier_phase=r["carrier_phase"],
                     code_freq=r["code_freq"], code_phase=r["code_phase"],
                     start=int(r["start"]), length=int(r["length"])) for r in recs]
        want = kernels.correlate(x, sats, TAPS, FS, backend="cpu")
        np.testing.assert_allclose(recs["correlations"], want,
                                   atol=1e-5 * np.abs(want).max())

    def test_integrations_at_epochs_continue_and_match_kernel(self):
        n = 50001
        x = signal(n)
        recs = self.run_records(x)
        self.check_against_kernel(x, recs)
        for s in SATS:
            sys_no = gnss.SYSTEMS.index(s["system"])
            mine = recs[(recs["system"] == sys_no) & (recs["prn"] == s["prn"])]
            L = kernels.gnss_signal(s["system"])["code_length"]
            step = s["code_freq"] / FS
            period = L / step
            # Every whole code period the samples hold, none skipped.
            self.assertGreaterEqual(len(mine), int(n / period) - 2)
            np.testing.assert_array_equal(mine["integration"], np.arange(len(mine)))
            for a, b in zip(mine[:-1], mine[1:]):
                self.assertEqual(b["start"], a["start"] + a["length"])
                d = b["carrier_phase"] - a["carrier_phase"] - \
                    s["carrier_freq"] * a["length"] / FS
                self.assertAlmostEqual(d - round(d), 0, places=9)
            for r in mine:
                # Code phase at the start: the model's, and within one step
                # of the epoch.
                model = (s["code_phase"] + s["code_freq"] * r["start"] / FS) % L
                model = model - L if model > L - 1 else model
                self.assertAlmostEqual(r["code_phase"], model, places=5)
                self.assertTrue(0 <= r["code_phase"] < step)
                self.assertAlmostEqual(r["code_phase"] + step * r["length"], L, delta=step)
            # The signal is there: prompt above early/late, antenna 2 turned
            # by its phase offset.
            p = mine["correlations"]
            self.assertTrue(np.all(np.abs(p[:, :, 1]) > np.abs(p[:, :, 0])))
            k = SATS.index(s)
            turn = np.angle(p[:, 1, 1] / p[:, 0, 1]) / (2 * np.pi)
            np.testing.assert_allclose(turn, [[0.3, -0.1][k]] * len(p), atol=0.02)

    def test_runs_again(self):
        # GNU Radio counts samples from 0 on every run. The same block run
        # again with its satellites as they are continues each replica as if
        # the new run followed the old one: records at once, from the first
        # samples, each the kernel's correlation at its stated phases. With
        # the satellites added again at sample 0 it gives the first run's
        # records, missing flags included. (The second run gave no records,
        # or lost the flags, before.)
        n = 30001
        x = signal(n)
        missing = gr.tag_utils.python_to_tag(
            (20000, pmt.intern("gpudsp.missing"), pmt.from_long(50)))
        first = self.run_records(x, tags=[missing])
        d = self.d

        def again():
            tb = gr.top_block()
            for m in range(2):
                tb.connect(blocks.vector_source_c(x[m].tolist(), False, 1,
                                                  [missing] if m == 1 else []), (d, m))
            sink = blocks.vector_sink_b(d.record_size())
            tb.connect(d, sink)
            tb.run()
            return gnss.parse_records(np.array(sink.data(), np.uint8), 2, len(TAPS))
        cont = again()
        self.assertGreaterEqual(len(cont), len(first) - 2 * len(SATS))
        self.assertLess(cont["start"].min(), first["length"].max())
        self.check_against_kernel(x, cont)
        for s in SATS:  # each satellite's integrations continue its count
            sys_no = gnss.SYSTEMS.index(s["system"])
            mine = lambda r: r[(r["system"] == sys_no) & (r["prn"] == s["prn"])]
            self.assertEqual(mine(cont)["integration"][0],
                             mine(first)["integration"][-1] + 1)
        for s in SATS:
            d.add_satellite(s["system"], s["prn"], s["carrier_freq"], s["code_freq"],
                            s["carrier_phase"], s["code_phase"], 0)
        np.testing.assert_array_equal(again(), first)

    def test_pilots_with_secondary_codes_add_up_over_many_periods(self):
        # GPS L5 Q5 (NH20) and Galileo E5a-Q (CS100) pilots, 5 primary
        # periods an integration: with the secondary chip given (the method
        # for the next integration of one, a control message naming period 0
        # of the other, chip 100 = 0 mod 100) every integration adds
        # up coherently (|prompt| = its length, noise-free), the chip
        # follows from one integration to the next, and the records equal
        # the kernel function's with those chips.
        fs = 10.5e6
        sats = [dict(system="gps_l5q", prn=7, carrier_freq=321.0, code_phase=2000.3,
                     code_freq=10.23e6 * (1 + 321.0 / 1176.45e6), secondary=True),
                dict(system="galileo_e5aq", prn=44, carrier_freq=-2222.0, code_phase=9.5,
                     code_freq=10.23e6 * (1 - 2222.0 / 1176.45e6), secondary=True)]
        n = int(0.0215 * fs)
        x = np.vstack([gnss.synthetic_signal(n, fs, sats[:1]),
                       gnss.synthetic_signal(n, fs, sats[1:])]) / 2
        tb = gr.top_block()
        d = gpudsp.wipeoff_correlator(fs, 2, TAPS, "complex", 5, self.backend)
        for s in sats:
            d.add_satellite(s["system"], s["prn"], s["carrier_freq"], s["code_freq"], 0.0,
                            s["code_phase"], 0)
        # Both start in primary period 0 at sample 0; the first integration
        # begins at the next epoch: secondary chip 1.
        d.set_secondary_chip("gps_l5q", 7, 1)
        d._post(pmt.intern("control"), pmt.to_pmt(dict(system="galileo_e5aq", prn=44,
                                                       secondary_chip=100, epoch=0)))
        for m in range(2):
            tb.connect(blocks.vector_source_c(x[m].tolist()), (d, m))
        sink = blocks.vector_sink_b(d.record_size())
        tb.connect(d, sink)
        tb.run()
        recs = gnss.parse_records(np.array(sink.data(), np.uint8), 2, len(TAPS))
        for k, s in enumerate(sats):
            mine = recs[recs["system"] == gnss.SYSTEMS.index(s["system"])]
            self.assertEqual(len(mine), 4, s["system"])
            jobs = [dict(system=s["system"], prn=s["prn"], carrier_freq=r["carrier_freq"],
                         carrier_phase=r["carrier_phase"], code_freq=r["code_freq"],
                         code_phase=r["code_phase"], start=int(r["start"]),
                         length=int(r["length"]), secondary_chip=1 + 5 * i)
                    for i, r in enumerate(mine)]
            want = kernels.correlate(x, jobs, TAPS, fs, backend="cpu")
            np.testing.assert_allclose(mine["correlations"], want,
                                       atol=1e-5 * np.abs(want).max())
            np.testing.assert_allclose(np.abs(mine["correlations"][:, k, 1]),
                                       mine["length"] / 2, rtol=1e-3)
        with self.assertRaisesRegex(ValueError, "no secondary code"):
            d.add_satellite("gps_l1ca", 1, 0.0, 1.023e6)
            d.set_secondary_chip("gps_l1ca", 1, 0)
        with self.assertRaisesRegex(ValueError, "not being correlated"):
            d.set_secondary_chip("gps_l5i", 9, 0)

    def test_split_streams_give_identical_records(self):
        x = signal(30011)
        whole = self.run_records(x)
        cut = self.run_records(x, chop=777)
        self.assertEqual(whole.tobytes(), cut.tobytes())

    def test_cpu_threads_give_identical_records(self):
        # Satellites spread over threads (set while the block exists, applied
        # from its next call): the same bytes as one thread.
        x = signal(30011)
        one = self.run_records(x)
        three = self.run_records(x, setup=lambda d: d.set_cpu_threads(3))
        self.assertEqual(one.tobytes(), three.tobytes())
        with self.assertRaisesRegex(ValueError, "threads"):
            self.make().set_cpu_threads(0)

    def test_messages_equal_records(self):
        n = 30011
        x = signal(n)
        recs = self.run_records(x)
        tb = gr.top_block()
        d = self.make()
        for s in SATS:
            d.add_satellite(s["system"], s["prn"], s["carrier_freq"], s["code_freq"],
                            s["carrier_phase"], s["code_phase"], 0)
        dbg = blocks.message_debug()
        # Repeating sources: the flowgraph stays up until the messages are
        # in (GNU Radio 3.10 may drop messages queued when a flowgraph ends).
        # The records' integrations all end before the first repeat, and
        # messages come in order of their last sample, so they come first.
        for m in range(2):
            tb.connect(blocks.vector_source_c(x[m].tolist(), True), (d, m))
        tb.msg_connect(d, "corr", dbg, "store")
        tb.start()
        deadline = time.time() + 60
        while dbg.num_messages() < len(recs) and time.time() < deadline:
            time.sleep(0.01)
        tb.stop()
        tb.wait()
        self.assertGreaterEqual(dbg.num_messages(), len(recs))
        msgs = [pmt.to_python(dbg.get_message(i)) for i in range(len(recs))]
        for msg, r in zip(msgs, recs):
            self.assertEqual(msg["system"], gnss.SYSTEMS[r["system"]])
            self.assertEqual(msg["prn"], r["prn"])
            self.assertEqual(msg["start"], r["start"])
            self.assertEqual(msg["length"], r["length"])
            self.assertEqual(msg["integration"], r["integration"])
            for key in ("carrier_freq", "carrier_phase", "code_freq", "code_phase"):
                self.assertEqual(msg[key], r[key])
            self.assertEqual(msg["n_antennas"], 2)
            np.testing.assert_array_equal(msg["taps_chips"], TAPS)
            np.testing.assert_array_equal(
                np.asarray(msg["correlations"]).reshape(2, 3), r["correlations"])
            self.assertEqual(msg["missing"], 0)

    def test_control_messages_add_correct_and_remove(self):
        x = signal(30011)
        ref = self.run_records(x)

        def control(d):
            for s in SATS:
                d.remove_satellite(s["system"], s["prn"])
            self.assertEqual(list(d.satellites()), [])
            post = lambda **kw: d._post(pmt.intern("control"), pmt.to_pmt(kw))
            s = SATS[0]
            # Added by message with its phases at sample 0 ...
            post(system=s["system"], prn=s["prn"], carrier_freq=s["carrier_freq"],
                 code_freq=s["code_freq"], carrier_phase=s["carrier_phase"] - 0.25,
                 code_phase=s["code_phase"], sample=0)
            # ... then corrected by a quarter cycle, back to the truth.
            post(system=s["system"], prn=s["prn"], carrier_phase=0.25)
            post(system="galileo_e1b", prn=9, carrier_freq=0.0, sample=0)
            post(system="galileo_e1b", prn=9, remove=True)
            post(system="glonass", prn=1)  # refused in the log, ignored
        recs = self.run_records(x, setup=control)
        l1 = ref[ref["system"] == 0]
        self.assertEqual(len(recs), len(l1))
        np.testing.assert_allclose(recs["correlations"], l1["correlations"],
                                   atol=1e-4 * np.abs(l1["correlations"]).max())
        np.testing.assert_array_equal(recs["start"], l1["start"])

    def test_methods_update_frequencies_and_code_phase(self):
        x = signal(20011)

        def update(d):
            d.update_satellite("gps_l1ca", 3, carrier_freq=1000.0,
                               code_phase_correction=-0.25)
        recs = self.run_records(x, setup=update)
        self.check_against_kernel(x, recs)
        l1 = recs[recs["system"] == 0]
        self.assertTrue(np.all(l1["carrier_freq"] == 1000.0))
        s = SATS[0]
        L, step = 1023, s["code_freq"] / FS
        model = (s["code_phase"] - 0.25 + s["code_freq"] * l1["start"][0] / FS) % L
        model = model - L if model > L - 1 else model
        self.assertAlmostEqual(l1["code_phase"][0], model, places=5)
        with self.assertRaises(ValueError):
            self.make().update_satellite("gps_l1ca", 4, carrier_freq=1.0)

    def test_missing_samples_are_flagged(self):
        x = signal(30011)
        tag = gr.tag_utils.python_to_tag((12000, pmt.intern("gpudsp.missing"),
                                          pmt.from_long(100), pmt.intern("src")))
        recs = self.run_records(x, tags=[tag])
        hit = (recs["start"] < 12100) & (recs["start"] + recs["length"] > 12000)
        self.assertTrue(np.any(hit))
        np.testing.assert_array_equal(recs["flags"] & 1, hit.astype(np.uint32))

    def test_message_only_block_runs_on_less_than_its_longest_integration(self):
        # The block as a sink (messages only) behind a source that has
        # delivered 3.2 ms of samples and then waits, as a live or paced
        # source does: every whole GPS L1 integration in them comes out,
        # though the block's buffers are sized for 4 ms Galileo E1-B
        # integrations. (GNU Radio asks a sink for available x relative
        # rate items: the sizing rate 1/8266 made that 0 and the block never
        # ran, which deadlocked gpudsp_gnss_track with one E1-B satellite.)
        n = int(0.0032 * FS)
        x = signal(n, n_antennas=1)[0]
        l1 = SATS[0]
        tb = gr.top_block()
        d = self.make(n_antennas=1)
        d.add_satellite(l1["system"], l1["prn"], l1["carrier_freq"], l1["code_freq"],
                        l1["carrier_phase"], l1["code_phase"], 0)
        dbg = blocks.message_debug()
        src = stalling_source(x)  # Python blocks must stay referenced while they run
        tb.connect(src, d)
        tb.msg_connect(d, "corr", dbg, "store")
        period = int(FS / 1000)
        first_epoch = (1023 - l1["code_phase"]) / l1["code_freq"] * FS
        whole = int((n - first_epoch) // period)
        tb.start()
        deadline = time.time() + 20
        while dbg.num_messages() < whole and time.time() < deadline:
            time.sleep(0.01)
        tb.stop()
        tb.wait()
        self.assertEqual(dbg.num_messages(), whole)
        starts = [pmt.to_python(dbg.get_message(i))["start"] for i in range(whole)]
        self.assertLessEqual(starts[-1] + period, n)

    def test_host_fed_samples_reach_the_device(self):
        # GNU Radio 3.10 leaves a host buffer between a host source and this
        # block (its replace_buffer() reads the reader's output signature):
        # the block must upload what it reads, not hand host pointers to
        # the device (an illegal address on CUDA).
        if self.backend == "cpu":
            self.skipTest("no device")
        x = signal(20011)
        counts = {}

        def before(d):  # the block exists: its own set-up uploads are done
            counts["before"] = gpudsp.device_counters(self.backend, 0)["h2d_bytes"]
        recs = self.run_records(x, setup=before)
        uploaded = gpudsp.device_counters(self.backend, 0)["h2d_bytes"] - counts["before"]
        # Every sample an integration covered went up at least once.
        covered, end = 0, 0
        for r in sorted(recs, key=lambda r: int(r["start"])):
            a, b = int(r["start"]), int(r["start"]) + int(r["length"])
            covered += max(0, b - max(a, end))
            end = max(end, b)
        self.assertGreater(covered, x.shape[1] // 2)
        self.assertGreaterEqual(uploaded, covered * x.shape[0] * 8)
        self.check_against_kernel(x, recs)

    def test_complex_short_input(self):
        x = signal(20011, n_antennas=1)
        x16 = np.stack([np.round(x.real * 500), np.round(x.imag * 500)], -1).astype(np.int16)
        recs = self.run_records(x16, fmt="complex_short")
        self.check_against_kernel((x16[..., 0] + 1j * x16[..., 1]).astype(np.complex64),
                                  recs)

    @settings(max_examples=int(os.environ.get("GPUDSP_FUZZ_EXAMPLES", "0")) or 12,
              derandomize=not os.environ.get("GPUDSP_FUZZ_EXAMPLES"), deadline=None,
              database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def test_malformed_control_messages_are_logged_and_ignored(self, data):
        # Each example posts 1..12 malformed messages of random classes
        # before the run: every one is logged as an error and ignored, and
        # the records equal those of a run without them, bit for bit.
        x = signal(12011)
        if not hasattr(type(self), "_clean"):
            type(self)._clean = self.run_records(x)
        classes = data.draw(st.lists(st.sampled_from(sorted(MALFORMED)), min_size=1,
                                     max_size=12), label="classes")
        msgs = [data.draw(MALFORMED[c], label=c) for c in classes]

        def post(d):
            for m in msgs:
                d._post(pmt.intern("control"), m)
        with log_capture() as log:
            recs = self.run_records(x, setup=post)
        errors = [l for l in log.text.splitlines() if "ignored a control message" in l]
        self.assertEqual(len(errors), len(msgs), log.text)
        self.assertTrue(all(":error:" in l for l in errors), errors)
        self.assertEqual(sorted(self.d.satellites()), ["galileo_e1b:9", "gps_l1ca:3"])
        np.testing.assert_array_equal(recs, type(self)._clean)

    def test_bad_parameters_are_refused(self):
        with self.assertRaises(ValueError):
            self.make(input_format="float")
        with self.assertRaises(ValueError):
            self.make(integration_periods=0)
        with self.assertRaises(ValueError):
            gpudsp.wipeoff_correlator(FS, 1, [600.0], backend=self.backend)
        with self.assertRaises(ValueError):
            # 4000 E1-B periods at 2 MHz: more than the buffers hold.
            self.make(integration_periods=4000)
        d = self.make()
        with self.assertRaises(ValueError):
            d.add_satellite("gps_l1ca", 38, 0.0, 1.023e6)
        with self.assertRaises(ValueError):
            d.add_satellite("beidou", 1, 0.0, 1.023e6)
        with self.assertRaises(ValueError):
            d.add_satellite("gps_l1ca", 1, 0.0, -5.0)


class qa_wipeoff_correlator(wipeoff_block_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_wipeoff_correlator_emulated(wipeoff_block_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()
