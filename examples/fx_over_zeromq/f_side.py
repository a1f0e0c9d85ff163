#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The F side of a distributed FX correlator (see docs/scaling.md): the
digitiser streams of N dual-pol antennas -> gpudsp.pfb_fengine -> the corner
turn: each spectrum is cut into R channel ranges, and range r goes out on a
ZeroMQ PUSH socket (tcp://HOST:PORT+r) to the X side that owns it."""

import argparse
import time

from gnuradio import blocks, gr, zeromq
from gnuradio import gpudsp
from gnuradio.gpudsp import fx_correlator as fx


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--antennas", type=int, default=3)
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--taps", type=int, default=8)
    p.add_argument("--ranges", type=int, default=2, help="X-side hosts (channel ranges)")
    p.add_argument("--spectra", type=int, default=2048, help="spectra to produce")
    p.add_argument("--address", default="tcp://127.0.0.1:5600",
                   help="first range's address; range r uses port + r")
    p.add_argument("--backend", default="auto")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--linger", type=float, default=2.0,
                   help="seconds to keep the sockets open after the last spectrum")
    a = p.parse_args()
    if a.channels % a.ranges:
        p.error("--channels must be a multiple of --ranges")

    params = fx.fx_params(antennas=a.antennas, channels=a.channels, taps=a.taps, seed=a.seed,
                          backend=a.backend, rfi_freq=-1)
    sim = fx.simulation.make(params)  # the array, the sky, the delay model
    n_inputs = 2 * a.antennas
    src = sim.digitiser(a.spectra * 2 * a.channels)
    fe = sim.fengine(a.spectra * 2 * a.channels)

    # The spectrum is [channel][input]: a channel range is a contiguous slice,
    # so the corner turn is one vector_to_streams.
    range_bytes = a.channels // a.ranges * n_inputs * 2
    split = blocks.vector_to_streams(range_bytes, a.ranges)
    tb = gr.top_block("fx_f_side")
    for i in range(n_inputs):
        tb.connect((src, i), (fe, i))
    tb.connect(fe, split)
    host, port = a.address.rsplit(":", 1)
    # pass_tags: the F-engine's gpudsp.missing tags (spectra before the
    # stream's start, lost input) must reach the X side, which leaves those
    # spectra out of its dumps.
    for r in range(a.ranges):
        tb.connect((split, r), zeromq.push_sink(range_bytes, 1, f"{host}:{int(port) + r}", 100,
                                                True, -1))
    tb.run()
    # gr-zeromq closes its sockets without lingering, dropping what is still
    # queued: keep them (and this process) alive while the queues drain.
    time.sleep(a.linger)
    print(f"F side: {a.spectra} spectra sent in {a.ranges} channel ranges")


if __name__ == "__main__":
    main()
