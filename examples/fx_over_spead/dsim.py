#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A digitiser simulator for the FX correlator over SPEAD (docs/scaling.md):
the simulated array and sky of gpudsp_fx_correlator, sent as MeerKAT
digitiser heaps (timestamp, digitiser_id, digitiser_status, adc_samples:
10-bit packed, one packet per heap), one stream per antenna and
polarisation, as katgpucbf's dsim sends them. Antenna a's polarisation p
goes to PORT + 2a + p of --dest: a descriptor heap, the data heaps, then
one stop heap per stream."""

import argparse
import time

import numpy as np
from gnuradio import blocks, gr
from gnuradio.gpudsp import formats
from gnuradio.gpudsp import fx_correlator as fx
from gnuradio.gpudsp import spead


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--antennas", type=int, default=3)
    p.add_argument("--channels", type=int, default=64, help="F-engine channels (sets the band)")
    p.add_argument("--samples", type=int, default=1 << 18, help="samples per polarisation")
    p.add_argument("--heap-samples", type=int, default=spead.DIG_HEAP_SAMPLES)
    p.add_argument("--dest", default=f"127.0.0.1:{spead.DEFAULT_PORT}",
                   help="HOST:PORT of antenna 0's polarisation 0")
    p.add_argument("--rate", type=float, default=50e6, help="bytes/s per antenna (0: max)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.samples % a.heap_samples:
        p.error("--samples must be a multiple of --heap-samples")

    # The sky's samples, as the FX correlator app simulates them.
    sim = fx.simulation.make(fx.fx_params(antennas=a.antennas, channels=a.channels, seed=a.seed,
                                          backend="cpu", rfi_freq=-1))
    src = sim.digitiser(a.samples)
    sinks = [blocks.vector_sink_b() for _ in range(2 * a.antennas)]
    tb = gr.top_block("dsim")
    for i, s in enumerate(sinks):
        tb.connect((src, i), s)
    tb.run()
    packed = [np.array(s.data(), np.uint8) for s in sinks]

    host, port = a.dest.rsplit(":", 1)
    hb = formats.packed10_bytes(a.heap_samples)
    txs = [spead.udp_sender([(host, int(port) + 2 * ant + pol) for pol in range(2)],
                            hb + spead.PREAMBLE_BYTES + 64, rate=a.rate)
           for ant in range(a.antennas)]
    # As katgpucbf's simulator starts: the items' descriptors (10-bit samples), cnt 0.
    descriptors = spead.descriptor_heap(txs[0].flavour, [
        (spead.TIMESTAMP_ID, "timestamp", "ADC sample count of the heap's first sample",
         (), spead.IMMEDIATE),
        (spead.DIGITISER_ID_ID, "digitiser_id", "digitiser (low bit: polarisation)", (),
         spead.IMMEDIATE),
        (spead.DIGITISER_STATUS_ID, "digitiser_status", "saturation flag and count", (),
         spead.IMMEDIATE),
        (spead.ADC_SAMPLES_ID, "adc_samples", "ADC samples", (a.heap_samples,), [("i", 10)])])
    for tx in txs:
        tx.send([(descriptors, 0, pol) for pol in range(2)], rate=0.0)
    start = time.monotonic()
    for h in range(a.samples // a.heap_samples):
        for ant, tx in enumerate(txs):
            tx.send([(tx.heap({spead.TIMESTAMP_ID: h * a.heap_samples,
                               spead.DIGITISER_ID_ID: 2 * ant + pol,  # low bit: polarisation
                               spead.DIGITISER_STATUS_ID: 0},
                              spead.ADC_SAMPLES_ID, packed[2 * ant + pol][h * hb:(h + 1) * hb]),
                      h + 1, pol) for pol in range(2)])
    for tx in txs:
        tx.send_stop([0, 1])
    print(f"dsim: {a.antennas} antennas x 2 pols x {a.samples} samples sent in "
          f"{time.monotonic() - start:.2f} s")


if __name__ == "__main__":
    main()
