#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""F-engine spectra over SPEAD in katgpucbf's layout (docs/spead.md):
gpudsp.spead_fengine_sink sends the F-engine's output split by channel
range, one destination per X host (the corner turn); gpudsp.spead_fengine_source
assembles one channel range from every F-engine into the X-engine's item."""

import numpy as np
import pmt
from gnuradio import gr

from . import spead
from .gpudsp_python import _spead
from .spead_source import MISSING, TIMESTAMP, chunk_source, runs

__all__ = ["spead_fengine_sink", "spead_fengine_source"]

MISSING_FENGINES = pmt.intern("gpudsp.missing_fengines")


class spead_fengine_sink(gr.sync_block):
    """Sends F-engine spectra (items [channel][input] ci8, input = antenna x
    2 + pol, n_antennas dual-pol antennas) as katgpucbf F-engine heaps: per
    antenna and channel range, every `spectra_per_heap` spectra, one heap of
    timestamp 0x1600 (ADC sample of its first spectrum: timestamp0 +
    spectrum x samples_between_spectra), feng_id 0x4101 (first_feng_id +
    antenna), frequency 0x4103 (the range's first channel) and feng_raw
    0x4300 = [channel][spectrum][pol][re, im] int8. The channels are cut into
    len(destinations) equal ranges, range r sent to destinations[r].

    As katgpucbf does, a heap time holding a spectrum flagged by
    `gpudsp.missing` is not sent (the receiver flags it); spectra that do
    not fill a last heap are not sent. stop heaps go to every destination
    when the stream ends (send_stop).

    As katgpucbf's F-engines do, descriptor heaps (the four items' ids,
    names, shapes and types, no values) go to every destination at
    start-up, from each F-engine of the block, then every
    `descriptor_interval` seconds from one of them in turn (0: only at
    start-up), so a receiver that knows nothing in advance decodes the
    heaps. Heap cnts are katgpucbf's: F-engine f numbers every heap it sends,
    descriptors included, f, f + array_size, f + 2 array_size, ... (spead2's
    set_cnt_sequence(feng_id, n_ants)), unique across an array of
    array_size F-engines."""

    def __init__(self, destinations=f"127.0.0.1:{spead.DEFAULT_PORT}", n_antennas=1,
                 n_channels=1024, spectra_per_heap=256, samples_between_spectra=0,
                 first_feng_id=0, array_size=65536, timestamp0=0, max_packet_size=8192 + 72,
                 rate=0.0, interface_address="", send_stop=True,
                 descriptor_interval=spead.DESCRIPTOR_INTERVAL):
        who = "spead_fengine_sink"
        spead.check_positive(who, n_antennas=n_antennas, n_channels=n_channels,
               spectra_per_heap=spectra_per_heap, array_size=array_size)
        self.dests = spead.parse_endpoints(destinations)
        R = len(self.dests)
        if n_channels % R:
            raise ValueError(f"{who}: n_channels ({n_channels}) is not a multiple of the "
                             f"{R} destinations")
        if first_feng_id < 0 or first_feng_id + n_antennas > array_size:
            raise ValueError(f"{who}: feng ids {first_feng_id}.. exceed array_size {array_size}")
        self.A, self.N, self.SPH = int(n_antennas), int(n_channels), int(spectra_per_heap)
        self.spacing = int(samples_between_spectra) or 2 * self.N
        self.item = self.N * 2 * self.A * 2
        gr.sync_block.__init__(self, who, in_sig=[(np.int8, self.item)], out_sig=None)
        self.cps = self.N // R
        self.feng0, self.array_size, self.ts0 = int(first_feng_id), int(array_size), \
            int(timestamp0)
        self.send_stop = bool(send_stop)
        self._tx = spead.udp_sender(self.dests, int(max_packet_size), rate=float(rate),
                                    interface_address=interface_address)
        self._descriptors = spead.descriptor_heap(self._tx.flavour, [
            (spead.TIMESTAMP_ID, "timestamp", "ADC sample count of the heap's first spectrum "
             "since the digitisers' sync epoch", (), spead.IMMEDIATE),
            (spead.FENG_ID_ID, "feng_id", "F-engine (antenna) that produced the heap", (),
             spead.IMMEDIATE),
            (spead.FREQUENCY_ID, "frequency", "first channel of the heap", (), spead.IMMEDIATE),
            (spead.FENG_RAW_ID, "feng_raw", "channelised data of both polarisations: "
             "[channel][spectrum][pol][re, im]", (self.cps, self.SPH, 2, 2), np.int8)])
        self._cnts = [spead.cnt_sequence(self.feng0 + a, self.array_size)
                      for a in range(self.A)]
        self._clock = spead.descriptor_clock(spead.check_interval(who, descriptor_interval))
        self._next_describer = 0  # the block's F-engine whose turn it is to send descriptors
        self._batch = np.zeros((self.SPH, self.N, self.A, 2, 2), np.int8)
        self._fill = 0         # spectra in the batch
        self._bad = False      # a flagged spectrum in the batch
        self._flag_runs = []   # [start, end) of flagged input items still ahead
        self.counts = dict(heaps_sent=0, heap_times_skipped=0, spectra_dropped_at_end=0,
                           descriptor_heaps_sent=0)
        self._stopped = False

    def _send_descriptors(self, engines):
        heaps = [(self._descriptors, self._cnts[a].next(), r)
                 for a in engines for r in range(len(self.dests))]
        self._tx.send(heaps, rate=0.0)
        self.counts["descriptor_heaps_sent"] += len(heaps)

    def _send_batch(self, heap_time):
        ts = self.ts0 + heap_time * self.SPH * self.spacing
        heaps = []
        for r in range(len(self.dests)):
            block = self._batch[:, r * self.cps:(r + 1) * self.cps]  # [spectrum][ch][ant][pol][2]
            for a in range(self.A):
                raw = np.ascontiguousarray(block[:, :, a].transpose(1, 0, 2, 3))
                feng = self.feng0 + a
                heaps.append((self._tx.heap({spead.TIMESTAMP_ID: ts, spead.FENG_ID_ID: feng,
                                             spead.FREQUENCY_ID: r * self.cps},
                                            spead.FENG_RAW_ID, raw),
                              self._cnts[a].next(), r))
        self._tx.send(heaps)
        self.counts["heaps_sent"] += len(heaps)

    def work(self, input_items, output_items):
        x = input_items[0]
        n = len(x)
        start = self.nitems_read(0)
        if self._clock.due():
            self._send_descriptors([self._next_describer])
            self._next_describer = (self._next_describer + 1) % self.A
        for tag in self.get_tags_in_window(0, 0, n, MISSING):
            count = pmt.to_uint64(tag.value) if pmt.is_uint64(tag.value) else \
                (pmt.to_long(tag.value) if pmt.is_integer(tag.value) else 1)
            self._flag_runs.append((tag.offset, tag.offset + max(int(count), 1)))
        i = 0
        while i < n:
            k = min(n - i, self.SPH - self._fill)
            self._batch[self._fill:self._fill + k] = x[i:i + k].reshape(k, self.N, self.A, 2, 2)
            first, last = start + i, start + i + k
            if any(s < last and e > first for s, e in self._flag_runs):
                self._bad = True  # a flagged spectrum spoils its heap time
            self._fill += k
            i += k
            if self._fill == self.SPH:
                heap_time = (start + i) // self.SPH - 1
                if self._bad:
                    self.counts["heap_times_skipped"] += 1
                else:
                    self._send_batch(heap_time)
                self._fill, self._bad = 0, False
        self._flag_runs = [(s, e) for s, e in self._flag_runs if e > start + n]
        return n

    def start(self):
        # A run again counts items (and so heap times) from 0: a new batch.
        self._stopped = False
        self._fill, self._bad, self._flag_runs = 0, False, []
        self._send_descriptors(range(self.A))
        self._clock.start()
        return True

    def stop(self):
        if not self._stopped:
            self._stopped = True
            self.counts["spectra_dropped_at_end"] = self._fill
            if self.send_stop:
                self._tx.send_stop(range(len(self.dests)))
        return True


class spead_fengine_source(chunk_source):
    """Receives katgpucbf F-engine heaps of one channel range (frequency item
    = first_channel, n_channels channels) from n_antennas F-engines (feng_id
    0 .. n_antennas - 1) and outputs the X-engine's item, one spectrum of
    [channel][input] ci8, input = feng_id x 2 + pol.

    A heap that did not arrive (or came too late) is zeros, as katgpucbf
    does, and every spectrum of its heap time carries a `gpudsp.missing`
    tag (the X-engine leaves such spectra out of its sums) and a
    `gpudsp.missing_fengines` tag (u32vector of the absent feng ids) on
    its first spectrum. `gpudsp.timestamp` (ADC sample of the spectrum)
    tags the first spectrum and the first after every gap or
    discontinuity. Timestamps must be multiples of spectra_per_heap x
    samples_between_spectra (katgpucbf's heap alignment). The output
    starts at the first heap time received; heaps with wrong sizes or items
    are dropped and counted (stats(), warnings). The stream ends after
    `stop_heaps` stop heaps (one per F-engine sender; 0: runs until the
    flowgraph stops)."""

    def __init__(self, endpoints=f"127.0.0.1:{spead.DEFAULT_PORT}", interface_address="",
                 n_antennas=1, n_channels=1024, first_channel=0, spectra_per_heap=256,
                 samples_between_spectra=2048, heaps_per_chunk=4, max_chunks=4, ring_chunks=4,
                 buffer_size=16 << 20, stop_heaps=0, jump_chunks=64, max_packet_size=9200):
        who = "spead_fengine_source"
        spead.check_positive(who, n_antennas=n_antennas, n_channels=n_channels,
               spectra_per_heap=spectra_per_heap, samples_between_spectra=samples_between_spectra,
               heaps_per_chunk=heaps_per_chunk)
        if first_channel < 0:
            raise ValueError(f"{who}: first_channel must be >= 0")
        self.A, self.C, self.SPH, self.T = int(n_antennas), int(n_channels), \
            int(spectra_per_heap), int(heaps_per_chunk)
        self.item = self.C * self.A * 2 * 2
        chunk_source.__init__(self, who, [(np.int8, self.item)])
        self.hb = self.C * self.SPH * 2 * 2
        self.step = self.SPH * int(samples_between_spectra)
        sp = spead.import_spead2()
        self._open(lambda: spead.chunk_receiver(
                "fengine",
                dict(feng_heap_timestamp_step=self.step, feng_heap_bytes=self.hb,
                     feng_heaps_per_chunk=self.T, feng_n_fengines=self.A,
                     feng_first_channel=int(first_channel)),
                [spead.TIMESTAMP_ID, spead.FENG_ID_ID, spead.FREQUENCY_ID, sp.HEAP_LENGTH_ID,
                 sp.STREAM_CTRL_ID],
                slots=self.T * self.A, chunk_bytes=self.T * self.A * self.hb, extra_words=1,
                endpoints=spead.parse_endpoints(endpoints), interface_address=interface_address,
                max_chunks=max_chunks, ring_chunks=ring_chunks, buffer_size=buffer_size,
                max_packet_size=max_packet_size, stop_heaps=stop_heaps, jump_chunks=jump_chunks,
                logger=self.logger))
        self._out = np.zeros((self.T, self.SPH, self.C, self.A, 2, 2), np.int8)
        self._out32 = self._out.reshape(-1).view(np.uint32).reshape(self.T, -1)
        self._zeros = np.zeros((self.T * self.SPH, self.item), np.int8)
        self.slots_per_chunk, self.slot_ticks, self.slot_items = self.T, self.step, self.SPH
        self._chunk_buffers()
        self.counts.update(heaps_received=0, missing_heaps=0, missing_spectra=0)

    def _fill(self, times):
        """`times` lost heap times: zeros, flagged, every F-engine missing."""
        n = times * self.SPH
        self.counts["missing_spectra"] += n
        self.counts["missing_heaps"] += times * self.A
        ids = pmt.init_u32vector(self.A, list(range(self.A)))
        return [self._zeros[:n]], [(0, 0, MISSING, pmt.from_uint64(n)),
                                   (0, 0, MISSING_FENGINES, ids)]

    def _heaps(self, chunk):
        return (np.asarray(chunk.present).reshape(self.T, self.A).astype(bool),
                np.asarray(chunk.extra).reshape(self.T, self.A))

    def _output(self, chunk, t0, present):
        """Heap times t0.. of the chunk as spectra: lost heaps zeroed, every
        spectrum of a heap time with a lost heap flagged."""
        SPH = self.SPH
        # [time][feng][ch][spectrum] -> [time][spectrum][ch][feng] of
        # (pol, re/im) quartets, lost heaps zeroed (C++, without the GIL).
        _spead.fengine_corner_turn(np.asarray(chunk.data).view(np.uint32),
                                   np.asarray(chunk.present), self._out32[t0:].reshape(-1),
                                   t0, self.T, self.A, self.C, SPH)
        self._rx.release(chunk)
        tags = []
        lost = ~present[t0:].all(axis=1)
        for start, n in runs(lost):
            tags.append((0, int(start) * SPH, MISSING, pmt.from_uint64(int(n) * SPH)))
        for t in np.flatnonzero(lost):
            ids = [int(a) for a in np.flatnonzero(~present[t0 + t])]
            tags.append((0, int(t) * SPH, MISSING_FENGINES, pmt.init_u32vector(len(ids), ids)))
        self.counts["heaps_received"] += int(present[t0:].sum())
        self.counts["missing_heaps"] += int((~present[t0:]).sum())
        self.counts["missing_spectra"] += int(lost.sum()) * SPH
        return [self._out[t0:].reshape(-1, self.item)], tags, None

    def _time_tags(self, ts, at):
        return [(0, at, TIMESTAMP, pmt.from_uint64(ts))]
