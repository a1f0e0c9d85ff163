#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpudsp.spead_xengine_sink: X-engine dumps as SPEAD heaps in katgpucbf's
XB-engine output layout (docs/spead.md)."""

import numpy as np
import pmt
from gnuradio import gr

from . import spead
from .spead_source import TIMESTAMP

__all__ = ["spead_xengine_sink", "katgpucbf_baseline_order"]


def katgpucbf_baseline_order(n_antennas):
    """The (antenna a1, antenna a2, pol p1, pol p2) of each of katgpucbf's
    xeng_raw products, in order: index = (a2 (a2 + 1) / 2 + a1) x 4 + p1 +
    2 p2 for a1 <= a2, value sum x[a1,p1] conj(x[a2,p2])."""
    out = []
    for a2 in range(n_antennas):
        for a1 in range(a2 + 1):
            out += [(a1, a2, p1, p2) for p2 in range(2) for p1 in range(2)]
    return out


class spead_xengine_sink(gr.sync_block):
    """Sends each X-engine dump (item [channel][baseline][p][q] ci32 of
    n_antennas dual-pol antennas) as one SPEAD heap: timestamp 0x1600
    (timestamp0 + dump x dump_timestamp_step, ADC samples; timestamp0 < 0:
    the value of the `gpudsp.timestamp` tag on the first dump, which
    spead_fengine_source puts on its first spectrum and the X-engine moves
    to the dump holding it, else 0), frequency
    0x4103 (first_channel) and xeng_raw 0x1800 = int32 [channel][baseline x
    4][re, im] in katgpucbf's order (katgpucbf_baseline_order). gr-gpudsp's
    baseline k = i(i+1)/2 + j (i >= j) with [p][q] = x_(i,p) conj(x_(j,q)) is
    the same index with a1 = j, a2 = i, p1 = q, p2 = p and the value
    conjugated; the X-engine's saturation at +-(2^31 - 1) makes the negation
    exact.

    As katgpucbf's XB-engines do, a descriptor heap (the three items' ids,
    names, shapes and types, no values) is sent at start-up and then every
    `descriptor_interval` seconds (0: only at start-up), so a receiver that
    knows nothing in advance decodes the dumps; heap cnts are katgpucbf's
    set_cnt_sequence(sender_index, n_senders): the sink's k-th heap,
    descriptors included, has cnt sender_index + k x n_senders."""

    def __init__(self, destination=f"127.0.0.1:{spead.DEFAULT_PORT}", n_antennas=1,
                 n_channels=1024, first_channel=0, dump_timestamp_step=1, timestamp0=-1,
                 sender_index=0, n_senders=1, max_packet_size=8192 + 64, rate=0.0,
                 interface_address="", send_stop=True,
                 descriptor_interval=spead.DESCRIPTOR_INTERVAL):
        who = "spead_xengine_sink"
        spead.check_positive(who, n_antennas=n_antennas, n_channels=n_channels,
               dump_timestamp_step=dump_timestamp_step, n_senders=n_senders)
        self.A, self.C = int(n_antennas), int(n_channels)
        self.nb = self.A * (self.A + 1) // 2
        gr.sync_block.__init__(self, who, in_sig=[(np.int32, self.C * self.nb * 4 * 2)],
                               out_sig=None)
        self.dest = spead.parse_endpoints(destination)
        if len(self.dest) != 1:
            raise ValueError(f"{who}: one destination, got {destination!r}")
        self.freq, self.step, self.ts0 = int(first_channel), int(dump_timestamp_step), \
            int(timestamp0)
        self._ts0_given = self.ts0  # < 0: from the first dump's tag, each run
        self.sender, self.n_senders = int(sender_index), int(n_senders)
        if not 0 <= self.sender < self.n_senders:
            raise ValueError(f"{who}: sender_index must be in [0, n_senders = {n_senders}), "
                             f"got {sender_index}")
        self.send_stop = bool(send_stop)
        self._tx = spead.udp_sender(self.dest, int(max_packet_size), rate=float(rate),
                                    interface_address=interface_address)
        self._descriptors = spead.descriptor_heap(self._tx.flavour, [
            (spead.TIMESTAMP_ID, "timestamp", "ADC sample count of the dump's start since the "
             "digitisers' sync epoch", (), spead.IMMEDIATE),
            (spead.FREQUENCY_ID, "frequency", "first channel of the heap", (), spead.IMMEDIATE),
            (spead.XENG_RAW_ID, "xeng_raw", "integrated correlation products: "
             "[channel][baseline x 4][re, im]", (self.C, self.nb * 4, 2), np.int32)])
        self._cnt = spead.cnt_sequence(self.sender, self.n_senders)
        self._clock = spead.descriptor_clock(spead.check_interval(who, descriptor_interval))
        self._stopped = False
        self.dumps_sent = 0
        self.descriptor_heaps_sent = 0

    def _send_descriptors(self):
        self._tx.send([(self._descriptors, self._cnt.next(), 0)], rate=0.0)
        self.descriptor_heaps_sent += 1

    def work(self, input_items, output_items):
        x = input_items[0]
        first = self.nitems_read(0)
        if self.ts0 < 0:
            tags = self.get_tags_in_window(0, 0, 1, TIMESTAMP) if first == 0 else []
            self.ts0 = pmt.to_uint64(tags[0].value) if tags else 0
        if self._clock.due():
            self._send_descriptors()
        heaps = []
        for i in range(len(x)):
            v = x[i].reshape(self.C, self.nb * 4, 2).copy()
            v[..., 1] = -v[..., 1]  # conj: katgpucbf's a1 <= a2 is our j <= i
            dump = first + i
            heaps.append((self._tx.heap({spead.TIMESTAMP_ID: self.ts0 + dump * self.step,
                                         spead.FREQUENCY_ID: self.freq}, spead.XENG_RAW_ID, v),
                          self._cnt.next(), 0))
        self._tx.send(heaps)
        self.dumps_sent += len(heaps)
        return len(x)

    def start(self):
        # A run again counts dumps from 0 and takes its first timestamp anew.
        self.ts0 = self._ts0_given
        self._stopped = False
        self._send_descriptors()
        self._clock.start()
        return True

    def stop(self):
        if not self._stopped:
            self._stopped = True
            if self.send_stop:
                self._tx.send_stop([0])
        return True
