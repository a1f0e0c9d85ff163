#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""SPEAD blocks (docs/spead.md), on loopback only (127.0.0.1, bounded in
count and time). The reference senders and receivers here use spead2's
own API, independently of the blocks, and build heaps as katgpucbf's
digitiser simulator and F-engine define them."""

import itertools
import os
import socket
import subprocess
import sys
import threading
import time
import unittest
import unittest.mock

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats
from gnuradio.gpudsp import spead as S
from gnuradio.gpudsp.spead_xengine import katgpucbf_baseline_order
from gnuradio.gpudsp.gpudsp_python import _spead

try:
    spead2 = S.import_spead2()
except ImportError as e:
    spead2, NO_SPEAD2 = None, str(e)

needs_spead2 = unittest.skipIf(spead2 is None, "SKIPPED: spead2 is not installed "
                               "(scripts/quickstart.sh installs it)")
_ports = itertools.count(7200 + os.getpid() % 200 * 50)


def port():
    return next(_ports)


# ---- reference senders (spead2's API, katgpucbf's heap layouts) ---------------
def immediate(ig, item_id, value):
    ig.add_item(item_id, f"i{item_id:x}", "", (), format=[("u", 48)], value=value)


def dig_heaps(flavour, samples, t0, heap_samples, pol, status=0):
    """(timestamp, heap) of each heap of packed 10-bit `samples`."""
    packed = formats.pack10(samples)
    hb = formats.packed10_bytes(heap_samples)
    out = []
    for h in range(len(samples) // heap_samples):
        ig = spead2.send.ItemGroup(flavour=flavour)
        ts = t0 + h * heap_samples
        immediate(ig, S.TIMESTAMP_ID, ts)
        immediate(ig, S.DIGITISER_ID_ID, pol)
        immediate(ig, S.DIGITISER_STATUS_ID, status(h) if callable(status) else status)
        ig.add_item(S.ADC_SAMPLES_ID, "adc_samples", "", (hb,), dtype=np.uint8,
                    value=packed[h * hb:(h + 1) * hb])
        heap = ig.get_heap(descriptors="none", data="all")
        heap.repeat_pointers = True
        out.append((ts, heap))
    return out


def dig_descriptor_heap(flavour, heap_samples):
    """The descriptor heap katgpucbf's digitiser simulator sends every 5 s:
    its items' descriptors, no values, no timestamp."""
    ig = spead2.send.ItemGroup(flavour=flavour)
    for item_id, name in ((S.TIMESTAMP_ID, "timestamp"), (S.DIGITISER_ID_ID, "digitiser_id"),
                          (S.DIGITISER_STATUS_ID, "digitiser_status")):
        ig.add_item(item_id, name, "", (), format=[("u", 48)])
    ig.add_item(S.ADC_SAMPLES_ID, "adc_samples", "", (heap_samples,), format=[("i", 10)])
    return ig.get_heap(descriptors="all", data="none")


class sender:
    def __init__(self, dests, packet=9000, rate=200e6):
        self.stream = spead2.send.UdpStream(
            spead2.ThreadPool(), dests,
            spead2.send.StreamConfig(max_packet_size=packet, rate=rate, max_heaps=4))
        self.cnt = 1

    def send(self, heap, substream=0):
        self.stream.send_heap(heap, cnt=self.cnt, substream_index=substream)
        self.cnt += 1

    def stop(self, substreams=(0,)):
        for s in substreams:
            self.stream.send_heap(spead2.send.ItemGroup().get_end(), substream_index=s)


def run_until_done(tb, sender_fn, timeout=60):
    """Run tb while sender_fn sends from a thread, until its sources end (by
    stop heaps) and every block has drained; a watchdog stops a stalled run
    (which then fails the test)."""
    tb.start()
    t = threading.Thread(target=sender_fn)
    t.start()
    fired = []
    watchdog = threading.Timer(timeout, lambda: (fired.append(True), tb.stop()))
    watchdog.start()
    # wait(), not stop(): stopping as soon as a source has ended would drop
    # what is still on its way to the sinks.
    tb.wait()
    watchdog.cancel()
    t.join()
    if fired:
        raise AssertionError(f"the flowgraph did not end within {timeout} s")


def tags_of(sink, key):
    return [(t.offset, t.value) for t in sink.tags() if pmt.symbol_to_string(t.key) == key]


class qa_spead_placement(gr_unittest.TestCase):
    """The placement arithmetic, exhaustively on small sizes (no spead2)."""

    def dig_params(self, S_=8, H=3, pols=2, stop=0, window=2, jump=3, confirm=2):
        return S.new_params("digitiser", dig_heap_samples=S_,
                            dig_heap_bytes=formats.packed10_bytes(S_), dig_heaps_per_chunk=H,
                            dig_n_pols=pols, c_stop_target=stop, c_window=window,
                            c_jump_chunks=jump, c_confirm_heaps=confirm,
                            **{k: 100 + i for i, k in enumerate(S._STAT_NAMES)})

    def test_digitiser_slots(self):
        for S_, H in itertools.product([4, 8, 4096], [1, 2, 3, 7]):
            p = self.dig_params(S_, H, jump=10**9)
            hb = formats.packed10_bytes(S_)
            for heap, pol in itertools.product(range(4 * H), range(2)):
                c, idx, off, stat = _spead.place_digitiser_heap(p, [heap * S_, hb, 0, pol + 6, -1])
                self.assertEqual((c, idx, off, stat),
                                 (heap // H, pol * H + heap % H, (pol * H + heap % H) * hb, -1))

    def test_digitiser_drops(self):
        p = self.dig_params()
        slot = lambda k: S.SLOTS[k]  # noqa: E731
        self.assertEqual(_spead.place_digitiser_heap(p, [9, 10, 0, 0, -1])[::3],
                         (-1, slot("c_stat_bad_timestamp")))
        self.assertEqual(_spead.place_digitiser_heap(p, [8, 11, 0, 0, -1])[::3],
                         (-1, slot("c_stat_bad_size")))
        self.assertEqual(_spead.place_digitiser_heap(p, [-1, 10, 0, 0, -1])[::3],
                         (-1, slot("c_stat_missing_items")))
        self.assertEqual(_spead.place_digitiser_heap(p, [8, 10, 0, -1, -1])[::3],
                         (-1, slot("c_stat_missing_items")))
        self.assertEqual(p[slot("s_newest")], -1)  # nothing placed

    def test_epochs_and_stop(self):
        p = self.dig_params(S_=4, H=2, stop=2, window=2, jump=3)
        place = lambda heap: _spead.place_digitiser_heap(p, [heap * 4, 5, 0, 0, -1])  # noqa
        self.assertEqual(place(1000)[0], 500)           # first heap: raw chunk id
        self.assertEqual(place(1007)[0], 503)           # a jump of 3 chunks: a gap
        self.assertEqual(place(1001)[0], 500)           # late but in range: spead2's business
        out = S.SLOTS["c_stat_out_of_window"]
        self.assertEqual(place(0)[::3], (-1, out))      # one far heap: dropped...
        self.assertEqual(place(1002)[0], 501)           # ...and forgotten
        self.assertEqual(place(0)[::3], (-1, out))      # a restart: after 2 heaps agree,
        c, _, _, stat = place(3)                        # its earliest chunk follows the newest
        self.assertEqual((c, stat), (505, S.SLOTS["c_stat_epochs"]))
        self.assertEqual(place(1)[0], 504)
        self.assertEqual(place(1006)[::3], (-1, out))   # a straggler of the old epoch
        self.assertEqual(place(4)[0], 506)
        self.assertEqual(_spead.place_digitiser_heap(p, [-1, 0, 0, -1, 2])[0], -1)  # stop 1 of 2
        c = _spead.place_digitiser_heap(p, [-1, 0, 0, -1, 2])[0]
        self.assertEqual(c, 506 + 2)                    # terminal: newest + window
        self.assertEqual(p[S.SLOTS["s_terminal"]], 508)

    def test_fengine_slots_and_drops(self):
        p = S.new_params("fengine", feng_heap_timestamp_step=64, feng_heap_bytes=40,
                         feng_heaps_per_chunk=3, feng_n_fengines=5, feng_first_channel=16,
                         c_window=2, c_jump_chunks=10**9)
        for t, f in itertools.product(range(9), range(5)):
            self.assertEqual(_spead.place_fengine_heap(p, [t * 64, f, 16, 40, -1]),
                             (t // 3, t % 3 * 5 + f, (t % 3 * 5 + f) * 40, -1))
        for items, stat in [([65, 0, 16, 40, -1], "c_stat_bad_timestamp"),
                            ([64, 5, 16, 40, -1], "c_stat_bad_id"),
                            ([64, 0, 0, 40, -1], "c_stat_bad_frequency"),
                            ([64, 0, 16, 39, -1], "c_stat_bad_size"),
                            ([64, -1, 16, 40, -1], "c_stat_missing_items")]:
            self.assertEqual(_spead.place_fengine_heap(p, items)[::3], (-1, S.SLOTS[stat]))


class qa_spead_corner_turn(gr_unittest.TestCase):
    """_spead.fengine_corner_turn against numpy's transpose, odd sizes
    around its 16 x 64 blocks, every start time, lost heaps zero, the
    output poisoned first; wrong sizes refused."""

    def test_against_numpy(self):
        rng = np.random.default_rng(3)
        for T, F, C, SPH in [(1, 1, 1, 1), (2, 3, 5, 7), (3, 4, 17, 65), (2, 2, 33, 130)]:
            chunk = rng.integers(0, 2**32, (T, F, C, SPH), dtype=np.uint32)
            present = (rng.random((T, F)) < 0.7).astype(np.uint8)
            want = chunk * present[:, :, None, None]
            want = want.transpose(0, 3, 2, 1)  # [t][s][c][f]
            for t0 in range(T + 1):
                out = np.full((T - t0) * SPH * C * F + 5, 0xDEADBEEF, np.uint32)
                _spead.fengine_corner_turn(chunk.reshape(-1), present.reshape(-1), out, t0, T,
                                           F, C, SPH)
                np.testing.assert_array_equal(out[:out.size - 5], want[t0:].reshape(-1))
                self.assertTrue((out[out.size - 5:] == 0xDEADBEEF).all())

    def test_refuses_wrong_sizes(self):
        chunk = np.zeros(2 * 3 * 4 * 5, np.uint32)
        with self.assertRaises(ValueError):
            _spead.fengine_corner_turn(chunk, np.zeros(5, np.uint8),
                                       np.zeros(chunk.size, np.uint32), 0, 2, 3, 4, 5)
        with self.assertRaises(ValueError):
            _spead.fengine_corner_turn(chunk, np.zeros(6, np.uint8),
                                       np.zeros(chunk.size - 1, np.uint32), 0, 2, 3, 4, 5)
        with self.assertRaises(TypeError):  # never a converted copy of the output
            _spead.fengine_corner_turn(chunk, np.zeros(6, np.uint8),
                                       np.zeros(chunk.size, np.int64), 0, 2, 3, 4, 5)


class qa_spead_without_spead2(gr_unittest.TestCase):
    def test_blocks_refuse_with_advice(self):
        code = ("import sys; sys.modules['spead2'] = None\n"
                "from gnuradio import gpudsp\n"
                "try:\n    gpudsp.spead_digitiser_source()\nexcept ImportError as e:\n"
                "    print('REFUSED', e)\n")
        env = dict(os.environ, GPUDSP_PYDEPS="/nonexistent")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=120).stdout
        self.assertIn("REFUSED", out)
        self.assertIn("pip install --no-deps --target", out)


@needs_spead2
class qa_spead_digitiser(gr_unittest.TestCase):
    HS = 64  # samples per heap (small: many heaps, few bytes)

    def setUp(self):
        self.flavour = spead2.Flavour(*S.FLAVOUR)
        self.rng = np.random.default_rng(7)

    def receive(self, heaps_by_port, ports, n_pols, H=4, src=None, **kw):
        """Send [(heap, port index)] in order, then a stop heap; return the
        sinks' bytes, the sinks and the source (src: one made before)."""
        src = src or gpudsp.spead_digitiser_source(
            pol0=f"127.0.0.1:{ports[0]}", pol1=f"127.0.0.1:{ports[1]}" if n_pols == 2 else "",
            heap_samples=self.HS, heaps_per_chunk=H, stop_heaps=1, **kw)
        sinks = [blocks.vector_sink_b() for _ in range(n_pols)]
        tb = gr.top_block()
        for p in range(n_pols):
            tb.connect((src, p), sinks[p])
        tx = sender([("127.0.0.1", q) for q in ports], packet=formats.packed10_bytes(self.HS) + 200, rate=50e6)

        def send():
            for heap, s in heaps_by_port:
                if heap is None:
                    time.sleep(0.05)
                elif isinstance(heap, bytes):  # a garbage datagram
                    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as g:
                        g.sendto(heap, ("127.0.0.1", ports[s]))
                else:
                    tx.send(heap, s)
            time.sleep(0.2)
            tx.stop()
        run_until_done(tb, send)
        return [np.array(s.data(), np.uint8) for s in sinks], sinks, src

    def test_bit_exact_two_pols(self):
        n = 40 * self.HS
        samples = [self.rng.integers(-512, 512, n) for _ in range(2)]
        t0 = 12345 * self.HS
        heaps = [dig_heaps(self.flavour, samples[p], t0, self.HS, p) for p in range(2)]
        order = [(heaps[p][h][1], p) for h in range(40) for p in range(2)]
        ports = [port(), port()]
        H = 8
        out, sinks, src = self.receive(order, ports, 2, H=H, max_chunks=8)
        hb = formats.packed10_bytes(self.HS)
        tail = -(12345 + 40) % H  # the last chunk is output whole, its heaps
        for p in range(2):        # after the end of the stream flagged
            self.assertEqual(len(out[p]), (40 + tail) * hb)
            np.testing.assert_array_equal(formats.unpack10(out[p][:40 * hb]), samples[p])
            self.assertEqual([(o, pmt.to_uint64(v)) for o, v in tags_of(sinks[p], "gpudsp.missing")],
                             [(40 * hb, tail * hb)])
            ts = tags_of(sinks[p], "gpudsp.timestamp")
            self.assertEqual([(o, pmt.to_uint64(v)) for o, v in ts], [(0, t0)])
        self.assertEqual(src.stats()["heaps_received"], 80)

    def test_runs_again(self):
        # The same source in a second flowgraph (GNU Radio counts items from
        # 0 again): a new receiver on the same ports, the same output for
        # the same heaps. (It ended at once, with nothing, before.)
        n = 16 * self.HS
        samples = self.rng.integers(-512, 512, n)
        heaps = dig_heaps(self.flavour, samples, 777 * self.HS, self.HS, 0)
        order = [(h[1], 0) for h in heaps]
        ports = [port(), port()]
        first, sinks1, src = self.receive(order, ports, 1, H=4)
        again, sinks2, _ = self.receive(order, ports, 1, H=4, src=src)
        self.assertGreater(len(first[0]), 0)
        np.testing.assert_array_equal(again[0], first[0])
        self.assertEqual([(o, pmt.to_uint64(v)) for o, v in tags_of(sinks2[0], "gpudsp.timestamp")],
                         [(o, pmt.to_uint64(v)) for o, v in tags_of(sinks1[0], "gpudsp.timestamp")])

    def test_loss_disorder_duplicates_late_jumps_restart(self):
        """Heaps dropped, reordered within the window, duplicated, late beyond
        it, a forward jump (a gap) and a restart from timestamp 0: every lost
        heap flagged, no other, the rest bit-exact."""
        H, hb, HS = 4, formats.packed10_bytes(self.HS), self.HS
        n1 = 64  # heaps of the first epoch, at t0; then 16 after a restart at 0
        t0 = 1000 * H * HS
        s1 = self.rng.integers(-512, 512, n1 * HS)
        s2 = self.rng.integers(-512, 512, 16 * HS)
        e1 = dig_heaps(self.flavour, s1, t0, HS, 0)
        e2 = dig_heaps(self.flavour, s2, 0, HS, 0)
        dropped = set(self.rng.choice(np.arange(4, 40), 8, replace=False).tolist())
        gap = set(range(44, 52))  # two whole chunks never sent: a jump forward
        order = [h for h in range(n1) if h not in dropped and h not in gap]
        # disorder within a chunk, and duplicates
        for i in range(0, len(order) - 3, 5):
            if order[i] // H == order[i + 2] // H:
                order[i], order[i + 2] = order[i + 2], order[i]
        order = order[:20] + [order[3], order[7]] + order[20:]
        late = 10  # sent again long after its window: too old, dropped
        order.insert(len(order) - 2, late)
        dropped_late = {late} if late in dropped else set()
        seq = [(e1[h][1], 0) for h in order] + [(None, 0)] + [(h[1], 0) for h in e2]
        out, sinks, src = self.receive(seq, [port()], 1, H=H, max_chunks=2, jump_chunks=3)
        out = out[0]
        # The stream: epoch 1 from heap 0 through its last chunk, then epoch 2.
        self.assertEqual(len(out), (n1 + 16) * hb)
        missing = np.zeros(n1 + 16, bool)
        for o, v in tags_of(sinks[0], "gpudsp.missing"):
            self.assertEqual(o % hb, 0)
            missing[o // hb:o // hb + pmt.to_uint64(v) // hb] = True
        lost = (dropped | gap) - (set(order) - dropped_late)
        expect = np.zeros(n1 + 16, bool)
        expect[sorted(lost)] = True
        expect[n1:n1 + 3] = True  # a restart is believed on its 4th heap (confirm_heaps)
        np.testing.assert_array_equal(np.flatnonzero(missing), np.flatnonzero(expect))
        got = formats.unpack10(out).reshape(-1, HS)
        want = np.concatenate([s1, s2]).reshape(-1, HS)
        np.testing.assert_array_equal(got[~expect], want[~expect])
        self.assertFalse(got[expect].any())  # lost heaps are zeros
        ts = [(o // hb, pmt.to_uint64(v)) for o, v in tags_of(sinks[0], "gpudsp.timestamp")]
        self.assertEqual(ts[0], (0, t0))
        self.assertIn((n1 + 3, 3 * HS), ts)  # the restart, tagged where its data starts
        for h, t in ts:  # every time tag is right, on the first heap after a gap
            self.assertEqual(t, t0 + h * HS if h < n1 else (h - n1) * HS)
            self.assertTrue(h == 0 or missing[h - 1])
        st = src.stats()
        self.assertEqual(st["discontinuities"], 1)
        self.assertEqual(st["missing_heaps"][0], int(expect.sum()))
        self.assertGreaterEqual(st["gpudsp_out_of_window"], 4)  # the late heap, 3 of epoch 2

    def test_bad_input_counted_and_dropped(self):
        n = 16 * self.HS
        samples = self.rng.integers(-512, 512, n)
        good = dig_heaps(self.flavour, samples, 0, self.HS, 0,
                         status=lambda h: (3 << 32) | 2 if h == 5 else 0)
        hb = formats.packed10_bytes(self.HS)
        bad = []
        ig = spead2.send.ItemGroup(flavour=self.flavour)  # wrong size
        immediate(ig, S.TIMESTAMP_ID, 99 * self.HS)
        ig.add_item(S.ADC_SAMPLES_ID, "a", "", (hb - 5,), dtype=np.uint8, value=np.zeros(hb - 5,
                                                                                        np.uint8))
        bad.append(ig.get_heap(descriptors="none", data="all"))
        ig = spead2.send.ItemGroup(flavour=self.flavour)  # no timestamp
        ig.add_item(S.ADC_SAMPLES_ID, "a", "", (hb,), dtype=np.uint8, value=np.zeros(hb, np.uint8))
        bad.append(ig.get_heap(descriptors="none", data="all"))
        ig = spead2.send.ItemGroup(flavour=self.flavour)  # timestamp of the wrong type
        ig.add_item(S.TIMESTAMP_ID, "t", "", (2,), dtype=np.uint64, value=np.array([1, 2],
                                                                                   np.uint64))
        ig.add_item(S.ADC_SAMPLES_ID, "a", "", (hb,), dtype=np.uint8, value=np.zeros(hb, np.uint8))
        bad.append(ig.get_heap(descriptors="none", data="all"))
        ig = spead2.send.ItemGroup(flavour=self.flavour)  # timestamp off the heap grid
        immediate(ig, S.TIMESTAMP_ID, 3 * self.HS + 1)
        ig.add_item(S.ADC_SAMPLES_ID, "a", "", (hb,), dtype=np.uint8, value=np.zeros(hb, np.uint8))
        bad.append(ig.get_heap(descriptors="none", data="all"))
        rejected0 = S.rejected_packets()
        seq = []
        for h, (ts, heap) in enumerate(good):
            seq.append((heap, 0))
            if h < len(bad):
                seq.append((bad[h], 0))
            if h < 5:
                seq.append((bytes(self.rng.integers(0, 256, 7 + 13 * h, dtype=np.uint8)), 0))
            if h == 6:  # longer than any packet the source takes: truncated, dropped
                seq.append((bytes(20000), 0))
        out, sinks, src = self.receive(seq, [port()], 1)
        np.testing.assert_array_equal(formats.unpack10(out[0]), samples)
        self.assertEqual(tags_of(sinks[0], "gpudsp.missing"), [])
        sat = tags_of(sinks[0], "gpudsp.saturated")
        self.assertEqual([(o, pmt.to_uint64(v)) for o, v in sat], [(5 * hb, 3)])
        st = src.stats()
        self.assertEqual(st["gpudsp_bad_size"], 1)
        self.assertEqual(st["gpudsp_missing_items"], 2)  # absent, and not an immediate
        self.assertEqual(st["gpudsp_bad_timestamp"], 1)
        time.sleep(0.2)  # spead2 logs from its own thread
        self.assertGreaterEqual(S.rejected_packets() - rejected0, 1)


    def test_descriptor_heaps_are_metadata(self):
        """Descriptor heaps (katgpucbf's digitiser simulator sends one every
        5 s) between data heaps: counted as gpudsp_descriptor_heaps, never
        as malformed, no warning, and the data is unchanged."""
        n = 12 * self.HS
        samples = self.rng.integers(-512, 512, n)
        good = dig_heaps(self.flavour, samples, 0, self.HS, 0)
        desc = dig_descriptor_heap(self.flavour, self.HS)
        seq = [(desc, 0)]
        for h, (ts, heap) in enumerate(good):
            seq.append((heap, 0))
            if h % 5 == 4:
                seq.append((desc, 0))
        with unittest.mock.patch.object(S, "warn") as warned:
            out, sinks, src = self.receive(seq, [port()], 1)
        np.testing.assert_array_equal(formats.unpack10(out[0]), samples)
        self.assertEqual(tags_of(sinks[0], "gpudsp.missing"), [])
        st = src.stats()
        self.assertEqual(st["gpudsp_descriptor_heaps"], 3)
        self.assertEqual((st["gpudsp_missing_items"], st["gpudsp_bad_size"],
                          st["gpudsp_bad_timestamp"]), (0, 0, 0))
        warned.assert_not_called()

    def test_descriptor_detection(self):
        """heap_has_descriptors reads a first packet's item pointers: a
        descriptor heap's first packet says yes, a data heap's and junk say
        no."""
        tx_port = port()
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.bind(("127.0.0.1", tx_port))
        rx.settimeout(5)
        try:
            tx = sender([("127.0.0.1", tx_port)], packet=9000)
            tx.send(dig_descriptor_heap(self.flavour, self.HS))
            tx.send(dig_heaps(self.flavour, np.zeros(self.HS, int), 0, self.HS, 0)[0][1])
            descriptor_packet, data_packet = rx.recv(9000), rx.recv(9000)
        finally:
            rx.close()
        self.assertTrue(_spead.heap_has_descriptors(descriptor_packet))
        self.assertFalse(_spead.heap_has_descriptors(data_packet))
        for junk in (b"", b"\x53\x04\x02\x06", descriptor_packet[:7],
                     b"\x53\x05" + descriptor_packet[2:], bytes(64)):
            self.assertFalse(_spead.heap_has_descriptors(junk))
        # a pointer list cut short is read only as far as it goes (spead2
        # puts the heap cnt, size, offset and payload length pointers first)
        self.assertFalse(_spead.heap_has_descriptors(descriptor_packet[:8 + 4 * 8]))


def feng_heap(flavour, ts, feng, freq, raw):
    ig = spead2.send.ItemGroup(flavour=flavour)
    immediate(ig, S.TIMESTAMP_ID, ts)
    immediate(ig, S.FENG_ID_ID, feng)
    immediate(ig, S.FREQUENCY_ID, freq)
    ig.add_item(S.FENG_RAW_ID, "feng_raw", "", raw.shape, dtype=np.int8, value=raw)
    heap = ig.get_heap(descriptors="none", data="all")
    heap.repeat_pointers = True
    return heap


@needs_spead2
class qa_spead_fengine(gr_unittest.TestCase):
    A, C, SPH, SPACING = 3, 8, 4, 64

    def setUp(self):
        self.flavour = spead2.Flavour(*S.FLAVOUR)
        self.rng = np.random.default_rng(3)

    def test_source_assembles_and_flags(self):
        """Reference F-engine heaps -> spead_fengine_source = the spectra, -128
        included, with lost heaps zeroed and their heap times flagged."""
        A, C, SPH = self.A, self.C, self.SPH
        n_t = 12  # heap times
        raw = self.rng.integers(-128, 128, (n_t, A, C, SPH, 2, 2), dtype=np.int8)
        raw[0, 0, 0, 0] = -128  # the whole int8 range
        first = 16
        step = SPH * self.SPACING
        t0 = 77 * step
        lost = {(2, 1), (7, 0), (7, 2)}
        p = port()
        src = gpudsp.spead_fengine_source(f"127.0.0.1:{p}", n_antennas=A, n_channels=C,
                                          first_channel=first, spectra_per_heap=SPH,
                                          samples_between_spectra=self.SPACING,
                                          heaps_per_chunk=2, stop_heaps=A)
        sink = blocks.vector_sink_b(C * A * 4)
        tb = gr.top_block()
        tb.connect(src, sink)
        txs = [sender([("127.0.0.1", p)], packet=600) for _ in range(A)]

        def send():
            for t in range(n_t):
                for a in range(A):
                    if (t, a) not in lost:
                        txs[a].send(feng_heap(self.flavour, t0 + t * step, a, first, raw[t, a]))
            # wrong channel range and unknown feng id: dropped, counted
            txs[0].send(feng_heap(self.flavour, t0, 0, first + C, raw[0, 0]))
            txs[0].send(feng_heap(self.flavour, t0, A, first, raw[0, 0]))
            time.sleep(0.2)
            for tx in txs:
                tx.stop()
        run_until_done(tb, send)
        got = np.array(sink.data(), np.int8).reshape(-1, C, A, 2, 2)
        # t0 is heap time 1 of a 2-heap chunk: the last chunk is output whole,
        # its heap time after the end of the stream flagged
        self.assertEqual(len(got), (n_t + 1) * SPH)
        want = np.concatenate([raw, np.zeros_like(raw[:1])])
        want = want.transpose(0, 3, 2, 1, 4, 5).reshape(-1, C, A, 2, 2).copy()
        lost |= {(n_t, a) for a in range(A)}
        flagged = np.zeros((n_t + 1) * SPH, bool)
        for o, v in tags_of(sink, "gpudsp.missing"):
            flagged[o:o + pmt.to_uint64(v)] = True
        bad_t = {t for t, _ in lost}
        np.testing.assert_array_equal(flagged, np.repeat([t in bad_t for t in range(n_t + 1)], SPH))
        for t, a in lost:
            want[t * SPH:(t + 1) * SPH, :, a] = 0
        np.testing.assert_array_equal(got, want)
        ids = {o // SPH: list(pmt.u32vector_elements(v))
               for o, v in tags_of(sink, "gpudsp.missing_fengines")}
        self.assertEqual(ids, {2: [1], 7: [0, 2], n_t: list(range(A))})
        ts = [(o, pmt.to_uint64(v)) for o, v in tags_of(sink, "gpudsp.timestamp")]
        self.assertEqual(ts, [(0, t0), (3 * SPH, t0 + 3 * step), (8 * SPH, t0 + 8 * step)])
        st = src.stats()
        self.assertEqual((st["gpudsp_bad_frequency"], st["gpudsp_bad_id"]), (1, 1))

    def test_sink_heaps_decode_to_the_spectra(self):
        """spead_fengine_sink -> a plain spead2 ItemGroup receiver per
        destination that knows nothing in advance: the descriptor heaps
        (katgpucbf's four items, shapes and types) come first, every data
        heap decodes to the spectra exactly, and heap cnts follow
        katgpucbf's set_cnt_sequence(feng_id, array_size) per F-engine,
        counting the descriptor heaps."""
        A, C, SPH, R, F0 = 2, 8, 4, 2, 4
        n = 5 * SPH + 3  # 3 spectra short of a heap at the end: not sent
        x = self.rng.integers(-128, 128, (n, C, A, 2, 2), dtype=np.int8)
        ports = [port(), port()]
        rxs = []
        for q in ports:
            st = spead2.recv.Stream(spead2.ThreadPool(), spead2.recv.StreamConfig(max_heaps=8),
                                    spead2.recv.RingStreamConfig(heaps=256))
            st.add_udp_reader(q, max_size=9200, buffer_size=8 << 20, bind_hostname="127.0.0.1")
            rxs.append(st)
        src = blocks.vector_source_b(x.reshape(-1).view(np.uint8).tolist(), False, C * A * 4)
        flagged = [(SPH * 2 + 1, 2)]  # spectra 9-10 flagged: heap time 2 is not sent
        src.set_data(x.reshape(-1).view(np.uint8).tolist(),
                     [gr.tag_utils.python_to_tag((o, pmt.intern("gpudsp.missing"),
                                                  pmt.from_uint64(c))) for o, c in flagged])
        array_size = 10
        sink = gpudsp.spead_fengine_sink(",".join(f"127.0.0.1:{q}" for q in ports), n_antennas=A,
                                         n_channels=C, spectra_per_heap=SPH, first_feng_id=F0,
                                         array_size=array_size, timestamp0=1000 * SPH * 2 * C,
                                         max_packet_size=300, descriptor_interval=0)
        tb = gr.top_block()
        tb.connect(src, sink)
        tb.run()
        cps = C // R
        for r, st in enumerate(rxs):
            ig = spead2.ItemGroup()  # no descriptors known in advance
            got, descriptor_cnts = {}, []
            for heap in st:  # ends at the sink's stop heap
                updated = ig.update(heap)
                if heap.get_descriptors():
                    self.assertEqual(updated, {})  # descriptors only, no values
                    descriptor_cnts.append(heap.cnt)
                    continue
                self.assertEqual(set(updated), {"timestamp", "feng_id", "frequency", "feng_raw"})
                raw = ig["feng_raw"].value
                self.assertEqual((raw.dtype, raw.shape), (np.dtype(np.int8), (cps, SPH, 2, 2)))
                key = (int(ig["timestamp"].value), int(ig["feng_id"].value))
                got[key] = (int(ig["frequency"].value), raw.copy(), heap.cnt)
            st.stop()
            self.assertEqual(ig[S.FENG_RAW_ID].name, "feng_raw")
            # each F-engine's first heaps are its descriptors, one per destination
            self.assertEqual(sorted(descriptor_cnts), [F0 + a + r * array_size for a in range(A)])
            want = {}
            for b, t in enumerate([0, 1, 3, 4]):  # b: the heap times sent so far
                for a in range(A):
                    ts = 1000 * SPH * 2 * C + t * SPH * 2 * C
                    k = R + b * R + r  # descriptors, then each heap time's R heaps
                    want[(ts, F0 + a)] = (r * cps, x[t * SPH:(t + 1) * SPH,
                                                     r * cps:(r + 1) * cps, a]
                                          .transpose(1, 0, 2, 3), F0 + a + k * array_size)
            self.assertEqual(sorted(got), sorted(want))
            for k in want:
                self.assertEqual(got[k][0], want[k][0])
                np.testing.assert_array_equal(got[k][1], want[k][1])
                self.assertEqual(got[k][2], want[k][2])
        self.assertEqual(sink.counts["heap_times_skipped"], 1)
        self.assertEqual(sink.counts["spectra_dropped_at_end"], 3)
        self.assertEqual(sink.counts["descriptor_heaps_sent"], A * R)

    def test_sink_refuses_bad_descriptor_interval(self):
        for bad in (-1, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "descriptor_interval"):
                gpudsp.spead_fengine_sink(f"127.0.0.1:{port()}", descriptor_interval=bad)


class slow_dumps(gr.sync_block):
    """`n` int32 vectors of length `item`, one per work call, `pause` s apart."""

    def __init__(self, item, n, pause):
        gr.sync_block.__init__(self, "slow_dumps", in_sig=None, out_sig=[(np.int32, item)])
        self.n, self.pause, self.sent = n, pause, 0

    def work(self, input_items, output_items):
        if self.sent == self.n:
            return -1
        time.sleep(self.pause)
        output_items[0][0] = self.sent
        self.sent += 1
        return 1


@needs_spead2
class qa_spead_xengine(gr_unittest.TestCase):
    def test_sink_heaps_are_katgpucbf_products(self):
        """F-engine spectra -> xengine -> spead_xengine_sink -> a plain spead2
        ItemGroup receiver that knows nothing in advance: a descriptor heap
        first, then every dump one heap (timestamp, frequency, xeng_raw)
        whose products, in katgpucbf's order and sign, equal sum x[a1,p1]
        conj(x[a2,p2]) computed here from the spectra in int64 (-128
        included); heap cnts sender_index + k x n_senders, k counting the
        descriptor heap."""
        A, C, n_int, dumps, f0 = 3, 5, 8, 3, 40
        rng = np.random.default_rng(5)
        x = rng.integers(-128, 128, (dumps * n_int, C, A, 2, 2), dtype=np.int8)
        x[0, 0, 0, 0] = (-128, -128)
        q = port()
        rx = spead2.recv.Stream(spead2.ThreadPool(), spead2.recv.StreamConfig(max_heaps=4),
                                spead2.recv.RingStreamConfig(heaps=64))
        rx.add_udp_reader(q, max_size=9200, buffer_size=4 << 20, bind_hostname="127.0.0.1")
        step, ts0 = n_int * 2 * 1024, 7 * n_int * 2 * 1024
        sink = gpudsp.spead_xengine_sink(f"127.0.0.1:{q}", n_antennas=A, n_channels=C,
                                         first_channel=f0, dump_timestamp_step=step,
                                         timestamp0=ts0, max_packet_size=512, sender_index=2,
                                         n_senders=5, descriptor_interval=0)
        tb = gr.top_block()
        tb.connect(blocks.vector_source_b(x.reshape(-1).view(np.uint8).tolist(), False,
                                          C * A * 4),
                   gpudsp.xengine(A, 2, C, n_int, "ci8", backend="cpu"), sink)
        tb.run()
        got, cnts, ig = [], [], spead2.ItemGroup()
        nb4 = A * (A + 1) // 2 * 4
        for heap in rx:  # ends at the sink's stop heap
            updated = ig.update(heap)
            cnts.append(heap.cnt)
            if heap.get_descriptors():
                self.assertEqual((len(got), updated), (0, {}))  # first, and no values
                continue
            self.assertEqual(set(updated), {"timestamp", "frequency", "xeng_raw"})
            raw = ig["xeng_raw"].value
            self.assertEqual((raw.dtype, raw.shape), (np.dtype(np.int32), (C, nb4, 2)))
            got.append((int(ig["timestamp"].value), int(ig["frequency"].value), raw.copy()))
        self.assertEqual(len(got), dumps)
        self.assertEqual(cnts, [2 + 5 * k for k in range(dumps + 1)])
        z = x[..., 0].astype(np.int64) + 1j * x[..., 1].astype(np.int64)  # [s][c][a][p]
        order = katgpucbf_baseline_order(A)
        self.assertEqual(len(order), nb4)
        for d, (ts, freq, raw) in enumerate(got):
            self.assertEqual((ts, freq), (ts0 + d * step, f0))
            zd = z[d * n_int:(d + 1) * n_int]
            want = np.zeros((C, len(order), 2), np.int64)
            for k, (a1, a2, p1, p2) in enumerate(order):
                v = (zd[:, :, a1, p1] * np.conj(zd[:, :, a2, p2])).sum(axis=0)
                want[:, k, 0], want[:, k, 1] = v.real, v.imag
            np.testing.assert_array_equal(raw, want)
        self.assertEqual(sink.dumps_sent, dumps)

    def test_sink_repeats_descriptors(self):
        """With descriptor_interval = 20 ms and dumps spread over ~0.5 s, the
        sink sends descriptors at start-up and again every interval, each
        taking the next cnt of the sequence: no cnt repeats or is skipped."""
        A, C, dumps = 1, 2, 50
        q = port()
        rx = spead2.recv.Stream(spead2.ThreadPool(), spead2.recv.StreamConfig(max_heaps=4),
                                spead2.recv.RingStreamConfig(heaps=256))
        rx.add_udp_reader(q, max_size=9200, buffer_size=4 << 20, bind_hostname="127.0.0.1")
        item = C * 1 * 4 * 2  # one baseline
        sink = gpudsp.spead_xengine_sink(f"127.0.0.1:{q}", n_antennas=A, n_channels=C,
                                         timestamp0=0, sender_index=1, n_senders=3,
                                         descriptor_interval=0.02)
        tb = gr.top_block()
        src = slow_dumps(item, dumps, 0.01)  # 100 dumps/s, each its own work call
        tb.connect(src, sink)
        tb.run()
        cnts, kinds = [], []
        for heap in rx:
            cnts.append(heap.cnt)
            kinds.append("d" if heap.get_descriptors() else "x")
        self.assertEqual(sorted(cnts), [1 + 3 * k for k in range(len(cnts))])
        self.assertEqual(kinds.count("x"), dumps)
        self.assertEqual(kinds[0], "d")
        self.assertGreaterEqual(kinds.count("d"), 5)  # ~0.5 s / 20 ms
        self.assertEqual(kinds.count("d"), sink.descriptor_heaps_sent)

    def test_descriptor_clock(self):
        clock = S.descriptor_clock(0.2)
        self.assertFalse(clock.due())  # not started
        t0 = time.monotonic()
        clock.start()
        self.assertFalse(clock.due())
        time.sleep(0.3)
        self.assertTrue(clock.due())   # due once at 0.3 s...
        self.assertFalse(clock.due())  # ...and next at 0.4 s on the grid, not 0.5 s
        time.sleep(max(0.0, t0 + 0.45 - time.monotonic()))
        self.assertTrue(clock.due())
        never = S.descriptor_clock(0)
        never.start()
        self.assertFalse(never.due())

    def test_sink_refuses_bad_sender_index(self):
        for idx, n in ((3, 3), (-1, 2)):
            with self.assertRaisesRegex(ValueError, "sender_index"):
                gpudsp.spead_xengine_sink(f"127.0.0.1:{port()}", sender_index=idx, n_senders=n)


@needs_spead2
class qa_spead_end_to_end(gr_unittest.TestCase):
    def test_fx_over_spead_equals_direct(self):
        """digitiser heaps -> spead_digitiser_source -> pfb_fengine ->
        spead_fengine_sink -> spead_fengine_source (2 channel ranges) ->
        xengine = the same correlator connected directly, bit for bit (the
        SPEAD path starts one heap of spectra later: the F-engine sink does
        not send the heap holding the F-engine's start-up spectra)."""
        A, N, T, SPH, HS = 2, 32, 4, 8, 256
        n_int = 4 * SPH
        dumps = 3
        n_spectra = (dumps + 1) * n_int  # one more: the stream's end is not compared
        n_samples = n_spectra * 2 * N
        rng = np.random.default_rng(11)
        samples = rng.integers(-200, 200, (A, 2, n_samples))
        t0 = 4096 * HS
        R = 2
        dig_ports = [port() for _ in range(A)]
        x_ports = [port() for _ in range(R)]
        flavour = spead2.Flavour(*S.FLAVOUR)
        tb = gr.top_block()
        fengs, xsinks, xsrcs, digs = [], [], [], []
        for r in range(R):
            xsrc = gpudsp.spead_fengine_source(f"127.0.0.1:{x_ports[r]}", n_antennas=A,
                                               n_channels=N // R, first_channel=r * N // R,
                                               spectra_per_heap=SPH, samples_between_spectra=2 * N,
                                               heaps_per_chunk=2, stop_heaps=A,
                                               # a window over the whole stream: the two
                                               # F-engines run independently, and on a loaded
                                               # machine one can lag the other by more than
                                               # the default 4 chunks (its heaps would then
                                               # be "too old", flagged missing: a real loss,
                                               # but not what this test compares)
                                               max_chunks=32)
            xe = gpudsp.xengine(A, 2, N // R, n_int, "ci8", backend="cpu")
            xsink = blocks.vector_sink_b(N // R * A * (A + 1) // 2 * 4 * 8)
            tb.connect(xsrc, xe, xsink)
            xsrcs.append(xsrc)  # Python blocks must outlive the run
            xsinks.append(xsink)
        for a in range(A):
            dig = gpudsp.spead_digitiser_source(f"127.0.0.1:{dig_ports[a]}",
                                                f"127.0.0.1:{dig_ports[a]}", heap_samples=HS,
                                                heaps_per_chunk=8, stop_heaps=1)
            fe = gpudsp.pfb_fengine(2, N, T, backend="cpu")
            fs = gpudsp.spead_fengine_sink(",".join(f"127.0.0.1:{q}" for q in x_ports),
                                           n_antennas=1, n_channels=N, spectra_per_heap=SPH,
                                           first_feng_id=a, timestamp0=t0, max_packet_size=1100)
            for p in range(2):
                tb.connect((dig, p), (fe, p))
            tb.connect(fe, fs)
            digs.append(dig)
            fengs.append(fs)  # a Python block must outlive the flowgraph's run

        def send():
            txs = [sender([("127.0.0.1", dig_ports[a])], packet=formats.packed10_bytes(HS) + 200, rate=100e6)
                   for a in range(A)]
            heaps = [[dig_heaps(flavour, samples[a, p], t0, HS, p) for p in range(2)]
                     for a in range(A)]
            for a in range(A):  # as katgpucbf's digitiser simulator starts
                txs[a].send(dig_descriptor_heap(flavour, HS))
            for h in range(n_samples // HS):
                for a in range(A):
                    for p in range(2):
                        txs[a].send(heaps[a][p][h][1])
            time.sleep(0.3)
            for tx in txs:
                tx.stop()
        run_until_done(tb, send, timeout=120)
        # Direct: the same bytes, one F-engine per antenna, one X-engine.
        tb2 = gr.top_block()
        direct = blocks.vector_sink_b(N * A * (A + 1) // 2 * 4 * 8)
        xe = gpudsp.xengine(A, 2, N, n_int, "ci8", backend="cpu")
        fes = []
        for a in range(A):
            fe = gpudsp.pfb_fengine(2, N, T, backend="cpu")
            for p in range(2):
                tb2.connect(blocks.vector_source_b(formats.pack10(samples[a, p]).tolist()),
                            (fe, p))
            fes.append(fe)
        # [channel][input] of the whole array from per-antenna [channel][2 pols]
        merge = blocks.interleave(4 * 1, 1)  # channel by channel: antenna 0's pols, antenna 1's
        for a, fe in enumerate(fes):
            tb2.connect(fe, blocks.vector_to_stream(4, N), (merge, a))
        # The SPEAD path starts at heap time 1: the F-engine sink does not
        # send heap time 0, which holds the F-engine's start-up spectra.
        tb2.connect(merge, blocks.stream_to_vector(4, N * A),
                    blocks.skiphead(4 * N * A, SPH), xe, direct)
        tb2.run()
        Vd = np.frombuffer(bytes(direct.data()), np.int32).reshape(-1, N, A * (A + 1) // 2, 8)
        self.assertGreaterEqual(len(Vd), dumps)
        for r in range(R):
            Vs = np.frombuffer(bytes(xsinks[r].data()), np.int32).reshape(
                -1, N // R, A * (A + 1) // 2, 8)
            self.assertGreaterEqual(len(Vs), dumps)
            np.testing.assert_array_equal(Vs[:dumps], Vd[:dumps, r * N // R:(r + 1) * N // R])
            self.assertTrue(np.abs(Vs[0]).sum() > 0)
        for d in digs:
            self.assertEqual(d.stats()["missing_heaps"], [0, 0])
            st = d.stats()
            self.assertEqual((st["gpudsp_descriptor_heaps"], st["gpudsp_missing_items"]), (1, 0))
        for x in xsrcs:  # every F-engine sink's descriptors, at start-up at least
            st = x.stats()
            self.assertGreaterEqual(st["gpudsp_descriptor_heaps"], A)
            self.assertEqual(st["gpudsp_missing_items"], 0)


if __name__ == "__main__":
    unittest.main()
