#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The X side of a distributed FX correlator (see docs/scaling.md): one
channel range arrives on a ZeroMQ PULL socket from the F side ->
gpudsp.xengine -> visibilities (a .npy file of the dumps)."""

import argparse
import time

import numpy as np
from gnuradio import blocks, gr, zeromq
from gnuradio import gpudsp


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--antennas", type=int, default=3)
    p.add_argument("--channels", type=int, default=64, help="channels of the whole band")
    p.add_argument("--ranges", type=int, default=2)
    p.add_argument("--range", type=int, default=0, help="which channel range this host owns")
    p.add_argument("--integration", type=int, default=512)
    p.add_argument("--dumps", type=int, default=3, help="stop after this many dumps")
    p.add_argument("--address", default="tcp://127.0.0.1:5600", help="range 0's address")
    p.add_argument("--backend", default="auto")
    p.add_argument("--output", required=True, help=".npy file for the dumps")
    p.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    a = p.parse_args()

    n_inputs = 2 * a.antennas
    channels = a.channels // a.ranges
    range_bytes = channels * n_inputs * 2
    host, port = a.address.rsplit(":", 1)
    # pass_tags: the F side's gpudsp.missing tags travel with the spectra.
    src = zeromq.pull_source(range_bytes, 1, f"{host}:{int(port) + a.range}", 100, True, -1)
    xe = gpudsp.xengine(a.antennas, 2, channels, a.integration, "ci8", backend=a.backend)
    n_baselines = a.antennas * (a.antennas + 1) // 2
    dump_bytes = channels * n_baselines * 4 * 8
    sink = blocks.vector_sink_b(dump_bytes)
    tb = gr.top_block("fx_x_side")
    tb.connect(src, xe, sink)
    # A ZeroMQ source never ends by itself: stop once the dumps are in.
    tb.start()
    deadline = time.monotonic() + a.timeout
    while len(sink.data()) < a.dumps * dump_bytes and time.monotonic() < deadline:
        time.sleep(0.1)
    tb.stop()
    tb.wait()
    V = np.frombuffer(bytes(sink.data()), np.int32).reshape(-1, channels, n_baselines, 2, 2, 2)
    V = V[: a.dumps]
    if V.shape[0] < a.dumps:
        raise SystemExit(f"X side: only {V.shape[0]} of {a.dumps} dumps arrived")
    np.save(a.output, V)
    print(f"X side, channels [{a.range * channels}, {(a.range + 1) * channels}): "
          f"{V.shape[0]} dumps -> {a.output}")


if __name__ == "__main__":
    main()
