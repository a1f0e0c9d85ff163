#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpudsp.spead_digitiser_source: MeerKAT digitiser heaps over SPEAD (UDP)
to the packed 10-bit byte streams that unpack10 and pfb_fengine take
(docs/spead.md)."""

import math

import numpy as np
import pmt
from gnuradio import gr

from . import spead

__all__ = ["spead_digitiser_source"]

MISSING = pmt.intern("gpudsp.missing")
TIMESTAMP = pmt.intern("gpudsp.timestamp")
SATURATED = pmt.intern("gpudsp.saturated")
RX_TIME = pmt.intern("rx_time")


def _runs(flags):
    """(start, length) of every run of True in a 1-D bool array."""
    d = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    starts = np.flatnonzero(d == 1)
    return zip(starts, np.flatnonzero(d == -1) - starts)


class spead_digitiser_source(gr.sync_block):
    """Receives digitiser heaps (timestamp 0x1600 in ADC samples,
    digitiser_id 0x3101, digitiser_status 0x3102, adc_samples 0x3300: 10-bit
    big-endian packed, `heap_samples` per heap) of one or two polarisations
    and outputs one packed byte stream per polarisation, in timestamp order.

    pol0, pol1: endpoints "ADDRESS[+N]:PORT[,...]" (pol1 empty: one
    polarisation). Multicast groups are joined on `interface_address`. With
    two polarisations, a heap's polarisation is its digitiser_id's low bit
    (MeerKAT's rule), whichever endpoint it came in on.

    The output starts at the first heap received. Lost heaps are zeros with
    a `gpudsp.missing` tag (value: bytes) on their polarisation's stream;
    `gpudsp.timestamp` (uint64, the ADC sample of that byte) and, when
    `adc_sample_rate` > 0, `rx_time` (sync_time + timestamp / rate) tag the
    first byte and the first byte after every gap or discontinuity; heaps
    whose digitiser_status reports saturation get `gpudsp.saturated`
    (value: saturated samples). A forward jump of up to `jump_chunks`
    chunks is a gap (filled, flagged); a larger jump or a jump back (a
    digitiser restart) continues the stream at once, tagged. Heaps with
    wrong sizes or items are dropped and counted (stats(), warnings).
    The stream ends after `stop_heaps` SPEAD stop heaps (0: runs until the
    flowgraph stops)."""

    def __init__(self, pol0=f"127.0.0.1:{spead.DEFAULT_PORT}", pol1="", interface_address="",
                 heap_samples=spead.DIG_HEAP_SAMPLES, heaps_per_chunk=256, max_chunks=4,
                 ring_chunks=4, buffer_size=16 << 20, stop_heaps=0, jump_chunks=64,
                 adc_sample_rate=0.0, sync_time=0.0):
        n_pols = 2 if str(pol1).strip() else 1
        gr.sync_block.__init__(self, "spead_digitiser_source", in_sig=None,
                               out_sig=[np.uint8] * n_pols)
        if heap_samples <= 0 or heap_samples % 4:
            raise ValueError(f"spead_digitiser_source: heap_samples must be a positive multiple "
                             f"of 4 (whole bytes of 10-bit samples), got {heap_samples}")
        if heaps_per_chunk <= 0 or max_chunks < 2 or ring_chunks < 1 or jump_chunks < max_chunks:
            raise ValueError("spead_digitiser_source: need heaps_per_chunk >= 1, max_chunks >= 2, "
                             "ring_chunks >= 1 and jump_chunks >= max_chunks")
        if not (math.isfinite(adc_sample_rate) and adc_sample_rate >= 0):
            raise ValueError("spead_digitiser_source: adc_sample_rate must be >= 0")
        endpoints = spead.parse_endpoints(pol0) + (spead.parse_endpoints(pol1) if n_pols == 2
                                                   else [])
        sp = spead.import_spead2()
        self.n_pols, self.S, self.H = n_pols, int(heap_samples), int(heaps_per_chunk)
        self.hb = self.S * 10 // 8
        self.rate, self.sync_time = float(adc_sample_rate), float(sync_time)
        self._rx_args = dict(
            kind="digitiser",
            params=dict(dig_heap_samples=self.S, dig_heap_bytes=self.hb,
                        dig_heaps_per_chunk=self.H, dig_n_pols=n_pols),
            items=[spead.TIMESTAMP_ID, sp.HEAP_LENGTH_ID, spead.DIGITISER_STATUS_ID,
                   spead.DIGITISER_ID_ID, sp.STREAM_CTRL_ID],
            slots=n_pols * self.H, chunk_bytes=n_pols * self.H * self.hb, extra_words=2,
            endpoints=endpoints, interface_address=interface_address, max_chunks=max_chunks,
            ring_chunks=ring_chunks, buffer_size=buffer_size,
            max_packet_size=self.hb + spead.PREAMBLE_BYTES + 64, stop_heaps=stop_heaps,
            jump_chunks=jump_chunks, logger=self.logger)
        # Bind now, so that a sender started right after construction is heard.
        self._rx = spead.chunk_receiver(**self._rx_args)
        self._zeros = np.zeros(self.H * self.hb, np.uint8)
        self._seg = None      # (arrays per pol, tags, chunk to release), position
        self._pending = None  # a chunk that waits behind a gap's fill
        self._next = None     # (chunk id, heap) of the next output heap
        self._next_ts = None  # its timestamp
        self._done = False
        self.counts = dict(heaps_received=0, missing_heaps=[0] * n_pols, saturated_heaps=0,
                           gap_heaps=0, discontinuities=0)

    # ---- the stream ---------------------------------------------------------
    def _time_tags(self, ts, at):
        tags = [(p, at, TIMESTAMP, pmt.from_uint64(int(ts))) for p in range(self.n_pols)]
        if self.rate > 0:
            t = self.sync_time + ts / self.rate
            secs = math.floor(t)
            value = pmt.make_tuple(pmt.from_uint64(int(secs)), pmt.from_double(t - secs))
            tags += [(p, at, RX_TIME, value) for p in range(self.n_pols)]
        return tags

    def _fill(self, heaps):
        """A segment of `heaps` lost heaps (zeros, flagged) for a gap."""
        n = heaps * self.hb
        arrays = [self._zeros[:n]] * self.n_pols
        tags = [(p, 0, MISSING, pmt.from_uint64(n)) for p in range(self.n_pols)]
        self.counts["gap_heaps"] += heaps
        for p in range(self.n_pols):
            self.counts["missing_heaps"][p] += heaps
        self._next_ts += heaps * self.S
        self._gap = True
        return arrays, tags, None

    def _segment(self, chunk):
        """The output segment of one chunk (None: nothing of it to output)."""
        S, H, hb = self.S, self.H, self.hb
        present = np.asarray(chunk.present).reshape(self.n_pols, H).astype(bool)
        extra = np.asarray(chunk.extra).reshape(self.n_pols, H, 2)
        data = np.asarray(chunk.data).reshape(self.n_pols, H * hb)
        any_present = present.any(axis=0)
        tags = []
        if self._next is None:  # the stream starts at its first heap
            if not any_present.any():
                return None
            first = int(np.argmax(any_present))
            p = int(np.argmax(present[:, first]))
            self._next, self._next_ts = (chunk.chunk_id, first), int(extra[p, first, 1])
            self._gap = True
        c, h0 = self._next
        if chunk.chunk_id < c:
            return None
        if chunk.chunk_id > c:  # chunk c lost: a gap (at most jump_chunks chunks)
            self._pending = chunk
            self._next = (c + 1, 0)
            return self._fill(H - h0)
        # Where the chunk's heaps say the stream is: a digitiser restart or
        # a large jump moved the epoch (spead_place.h) -> a discontinuity.
        got = np.flatnonzero(any_present[h0:])
        if got.size:
            h = h0 + int(got[0])
            p = int(np.argmax(present[:, h]))
            ts = int(extra[p, h, 1]) - (h - h0) * S
            if ts != self._next_ts:
                self.logger.warn(f"spead_digitiser_source: timestamps jump from "
                                    f"{self._next_ts} to {ts} (a restart or a jump): continuing")
                self.counts["discontinuities"] += 1
                self._next_ts, self._gap = ts, True
        missing = ~present[:, h0:]
        for p in range(self.n_pols):
            for start, n in _runs(missing[p]):
                data[p, (h0 + start) * hb:(h0 + start + n) * hb] = 0
                tags.append((p, int(start) * hb, MISSING, pmt.from_uint64(int(n) * hb)))
            self.counts["missing_heaps"][p] += int(missing[p].sum())
        # Time tags at the start and on the first complete heap after a gap.
        complete = ~missing.any(axis=0)
        for h in range(H - h0):
            if self._gap and complete[h]:
                tags += self._time_tags(self._next_ts + h * S, h * hb)
                self._gap = False
            elif not complete[h]:
                self._gap = True
        status = extra[:, h0:, 0].astype(np.int64)  # 48-bit values
        saturated = present[:, h0:] & ((((status >> spead.STATUS_SATURATION_FLAG_BIT) & 1) |
                                        (status >> spead.STATUS_SATURATION_COUNT_SHIFT)) > 0)
        for p, h in zip(*np.nonzero(saturated)):
            count = int(status[p, h] >> spead.STATUS_SATURATION_COUNT_SHIFT) & 0xFFFF
            tags.append((int(p), int(h) * hb, SATURATED, pmt.from_uint64(count)))
        self.counts["saturated_heaps"] += int(saturated.sum())
        self.counts["heaps_received"] += int(present[:, h0:].sum())
        self._next = (c + 1, 0)
        self._next_ts += (H - h0) * S
        return [data[p, h0 * hb:] for p in range(self.n_pols)], tags, chunk

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
            self._rx.warn_bad_heaps("spead_digitiser_source")
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
            for p in range(self.n_pols):
                output_items[p][produced:produced + k] = arrays[p][self._pos:self._pos + k]
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
        """Heaps received, lost (per polarisation), gaps, discontinuities and
        saturated heaps, with the receiver's counters (spead2's and the
        dropped heaps by reason)."""
        return dict(self.counts, **self._rx.stats())

    def stop(self):
        self._rx.stop()
        return True
