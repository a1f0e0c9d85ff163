#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What the SPEAD sources share (docs/spead.md): chunks from a
spead.chunk_receiver, in chunk order, become output segments; a lost chunk
becomes a flagged fill; the heaps' raw timestamps show where an epoch
changed; time tags mark the start and the first complete slot after every
gap. A subclass says what a chunk holds and how its slots become output."""

import numpy as np
import pmt
from gnuradio import gr

MISSING = pmt.intern("gpudsp.missing")
TIMESTAMP = pmt.intern("gpudsp.timestamp")


def runs(flags):
    """(start, length) of every run of True in a 1-D bool array."""
    d = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    starts = np.flatnonzero(d == 1)
    return zip(starts, np.flatnonzero(d == -1) - starts)


class chunk_source(gr.sync_block):
    """A chunk is `slots_per_chunk` time slots (heap times) of several heaps
    each (polarisations, F-engines); a slot is `slot_ticks` ADC samples and
    `slot_items` output items. The subclass sets those and calls
    _open(make_receiver) (a function returning its spead.chunk_receiver:
    called now, so that a sender started right after construction is heard,
    and again when a flowgraph runs the source again, since a stopped
    receiver cannot restart), and implements:

    _heaps(chunk) -> (present [slot][heap] bool, raw timestamps [slot][heap])
    _fill(slots) -> (arrays per port, tags) for `slots` lost slots
    _output(chunk, first_slot, present) -> (arrays per port, tags, chunk to
        release once output, or None)
    _time_tags(timestamp, at) -> tags for the slot starting at item `at`

    Tags are (port, item of the segment, key, value)."""

    def __init__(self, name, out_sig):
        gr.sync_block.__init__(self, name, in_sig=None, out_sig=out_sig)
        self._rx = self._make_rx = None
        self._rx_stopped = False
        self._restart()
        self.counts = dict(discontinuities=0)

    def _restart(self):
        """The stream's state before its first heap."""
        self._seg = None      # (arrays per port, tags, chunk to release)
        self._pos = 0
        self._pending = None  # a chunk that waits behind a gap's fill
        self._next = None     # (chunk id, slot) of the next output slot
        self._next_ts = None  # its timestamp
        self._gap = True      # the next complete slot gets time tags
        self._done = False

    def _open(self, make_receiver):
        self._make_rx = make_receiver
        self._rx = make_receiver()
        self._rx_stopped = False

    def start(self):
        # A run again (GNU Radio counts items from 0): a new receiver on the
        # same endpoints, the stream from its next first heap, counts from 0.
        # A receiver that cannot open (the port taken meanwhile) ends this
        # source's stream with an error: raising here would bring GNU Radio
        # down.
        if self._rx_stopped:
            self._restart()
            self.counts = {k: [0] * len(v) if isinstance(v, list) else 0
                           for k, v in self.counts.items()}
            try:
                self._rx = self._make_rx()
                self._rx_stopped = False
            except Exception as e:  # noqa: BLE001 (spead2 raises OSError, RuntimeError...)
                self.logger.error(f"{self.name()}: cannot receive again: {e}")
                self._done = True
        return True

    def _chunk_buffers(self):
        """Output buffers of two chunks each, set once the subclass knows its
        chunk: GNU Radio's default (tens of KB) would split every chunk over
        dozens of work calls, each costing Python time per call."""
        for p in range(self.output_signature().max_streams()):
            self.set_min_output_buffer(p, 2 * self.slots_per_chunk * self.slot_items)

    def _segment(self, chunk):
        """The output segment of one chunk (None: nothing of it to output)."""
        present, raw_ts = self._heaps(chunk)
        any_present = present.any(axis=1)
        if self._next is None:  # the stream starts at its first heap
            if not any_present.any():
                return None
            s = int(np.argmax(any_present))
            self._next = (chunk.chunk_id, s)
            self._next_ts = int(raw_ts[s, np.argmax(present[s])])
        c, s0 = self._next
        if chunk.chunk_id < c:
            return None
        if chunk.chunk_id > c:  # chunk c lost: a gap (at most jump_chunks chunks)
            self._pending, self._next = chunk, (c + 1, 0)
            n = self.slots_per_chunk - s0
            self._next_ts += n * self.slot_ticks
            self._gap = True
            return self._fill(n) + (None,)
        # Where the heaps say the stream is: a restart or a large jump moved
        # the epoch (spead_place.h) -> a discontinuity.
        got = np.flatnonzero(any_present[s0:])
        if got.size:
            s = s0 + int(got[0])
            ts = int(raw_ts[s, np.argmax(present[s])]) - (s - s0) * self.slot_ticks
            if ts != self._next_ts:
                self.logger.warn(f"{self.name()}: timestamps jump from {self._next_ts} to {ts} "
                                 f"(a restart or a jump): continuing")
                self.counts["discontinuities"] += 1
                self._next_ts, self._gap = ts, True
        arrays, tags, release = self._output(chunk, s0, present)
        for i, complete in enumerate(present[s0:].all(axis=1)):
            if self._gap and complete:
                tags += self._time_tags(self._next_ts + i * self.slot_ticks, i * self.slot_items)
                self._gap = False
            elif not complete:
                self._gap = True
        self._next = (c + 1, 0)
        self._next_ts += (self.slots_per_chunk - s0) * self.slot_ticks
        return arrays, tags, release

    def _next_segment(self, timeout):
        while True:
            chunk, self._pending = self._pending, None
            try:
                if chunk is None:
                    chunk = self._rx.get(timeout)
            except EOFError:
                self._done = True
                return False
            if chunk is None:
                return False
            self._rx.warn_bad_heaps(self.name())
            seg = self._segment(chunk)
            if seg is None:
                self._rx.release(chunk)
                continue
            self._seg, self._pos = seg, 0
            return True

    def work(self, input_items, output_items):
        n = min(len(o) for o in output_items)
        produced = 0
        while produced < n:
            if self._seg is None and not self._next_segment(0.05 if produced == 0 else 0):
                break
            arrays, tags, chunk = self._seg
            k = min(n - produced, len(arrays[0]) - self._pos)
            for p, out in enumerate(output_items):
                out[produced:produced + k] = arrays[p][self._pos:self._pos + k]
            for p, at, key, value in tags:
                if self._pos <= at < self._pos + k:
                    self.add_item_tag(p, self.nitems_written(p) + produced + at - self._pos,
                                      key, value)
            self._pos += k
            produced += k
            if self._pos == len(arrays[0]):
                if chunk is not None:
                    self._rx.release(chunk)
                self._seg = None
        if produced == 0 and self._done:
            return -1
        return produced

    def stats(self):
        """This source's counts with the receiver's (spead2's and the heaps
        dropped by reason)."""
        return dict(self.counts, **self._rx.stats())

    def stop(self):
        if not self._rx_stopped:
            self._rx.stop()
            self._rx_stopped = True
        return True
