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

from . import formats, spead
from .spead_source import MISSING, TIMESTAMP, chunk_source, runs

__all__ = ["spead_digitiser_source"]

SATURATED = pmt.intern("gpudsp.saturated")
RX_TIME = pmt.intern("rx_time")


class spead_digitiser_source(chunk_source):
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
        chunk_source.__init__(self, "spead_digitiser_source", [np.uint8] * n_pols)
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
        self.hb = formats.packed10_bytes(self.S)
        self.rate, self.sync_time = float(adc_sample_rate), float(sync_time)
        # Bind now, so that a sender started right after construction is heard.
        self._open(lambda: spead.chunk_receiver(
                kind="digitiser",
                params=dict(dig_heap_samples=self.S, dig_heap_bytes=self.hb,
                            dig_heaps_per_chunk=self.H, dig_n_pols=n_pols),
                items=[spead.TIMESTAMP_ID, sp.HEAP_LENGTH_ID, spead.DIGITISER_STATUS_ID,
                       spead.DIGITISER_ID_ID, sp.STREAM_CTRL_ID],
                slots=n_pols * self.H, chunk_bytes=n_pols * self.H * self.hb, extra_words=2,
                endpoints=endpoints, interface_address=interface_address, max_chunks=max_chunks,
                ring_chunks=ring_chunks, buffer_size=buffer_size,
                # room for descriptor heaps too (katgpucbf's simulator sends
                # them in packets of up to 8872 bytes)
                max_packet_size=max(self.hb + spead.PREAMBLE_BYTES + 64, 9200), stop_heaps=stop_heaps,
                jump_chunks=jump_chunks, logger=self.logger))
        self._zeros = np.zeros(self.H * self.hb, np.uint8)
        self.slots_per_chunk, self.slot_ticks, self.slot_items = self.H, self.S, self.hb
        self._chunk_buffers()
        self.counts.update(heaps_received=0, missing_heaps=[0] * n_pols, saturated_heaps=0,
                           gap_heaps=0)

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
        """`heaps` lost heap times: zeros, flagged."""
        n = heaps * self.hb
        self.counts["gap_heaps"] += heaps
        for p in range(self.n_pols):
            self.counts["missing_heaps"][p] += heaps
        return [self._zeros[:n]] * self.n_pols, \
            [(p, 0, MISSING, pmt.from_uint64(n)) for p in range(self.n_pols)]

    def _heaps(self, chunk):
        present = np.asarray(chunk.present).reshape(self.n_pols, self.H).astype(bool)
        extra = np.asarray(chunk.extra).reshape(self.n_pols, self.H, 2)
        return present.T, extra[:, :, 1].T

    def _output(self, chunk, h0, present):
        """Heaps h0.. of the chunk: lost ones zeroed and flagged per
        polarisation, saturated ones tagged."""
        hb = self.hb
        data = np.asarray(chunk.data).reshape(self.n_pols, self.H * hb)
        tags = []
        missing = ~present[h0:].T
        for p in range(self.n_pols):
            for start, n in runs(missing[p]):
                data[p, (h0 + start) * hb:(h0 + start + n) * hb] = 0
                tags.append((p, int(start) * hb, MISSING, pmt.from_uint64(int(n) * hb)))
            self.counts["missing_heaps"][p] += int(missing[p].sum())
        status = np.asarray(chunk.extra).reshape(self.n_pols, self.H, 2)[:, h0:, 0] \
            .astype(np.int64)  # 48-bit values
        saturated = ~missing & ((((status >> spead.STATUS_SATURATION_FLAG_BIT) & 1) |
                                 (status >> spead.STATUS_SATURATION_COUNT_SHIFT)) > 0)
        for p, h in zip(*np.nonzero(saturated)):
            count = int(status[p, h] >> spead.STATUS_SATURATION_COUNT_SHIFT) & 0xFFFF
            tags.append((int(p), int(h) * hb, SATURATED, pmt.from_uint64(count)))
        self.counts["saturated_heaps"] += int(saturated.sum())
        self.counts["heaps_received"] += int((~missing).sum())
        return [data[p, h0 * hb:] for p in range(self.n_pols)], tags, chunk
