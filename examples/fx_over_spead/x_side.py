#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The X side of an FX correlator over SPEAD (docs/scaling.md): one channel
range from every F-engine (gpudsp.spead_fengine_source, lost heaps flagged)
-> gpudsp.xengine -> visibilities: a .npy file of the dumps and, with
--visibilities, katgpucbf XB-engine heaps (gpudsp.spead_xengine_sink). The
flowgraph ends when every F host has sent its stop heap."""

import argparse
import threading

import numpy as np
from gnuradio import blocks, gr
from gnuradio import gpudsp


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--antennas", type=int, default=3)
    p.add_argument("--channels", type=int, default=64, help="channels of the whole band")
    p.add_argument("--ranges", type=int, default=2)
    p.add_argument("--range", type=int, default=0, help="which channel range this host owns")
    p.add_argument("--spectra-per-heap", type=int, default=32)
    p.add_argument("--integration", type=int, default=256, help="spectra per dump")
    p.add_argument("--listen", default="127.0.0.1:7250", help="this X-engine's endpoint")
    p.add_argument("--interface", default="", help="interface address for multicast")
    p.add_argument("--f-hosts", type=int, default=1, help="F hosts (stop heaps that end it)")
    p.add_argument("--visibilities", default="", help="HOST:PORT for XB-engine heaps")
    p.add_argument("--backend", default="auto")
    p.add_argument("--output", required=True, help=".npy file for the dumps")
    p.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    a = p.parse_args()

    C = a.channels // a.ranges
    B = a.antennas * (a.antennas + 1) // 2
    src = gpudsp.spead_fengine_source(a.listen, interface_address=a.interface,
                                      n_antennas=a.antennas, n_channels=C,
                                      first_channel=a.range * C,
                                      spectra_per_heap=a.spectra_per_heap,
                                      samples_between_spectra=2 * a.channels,
                                      stop_heaps=a.f_hosts)
    xe = gpudsp.xengine(a.antennas, 2, C, a.integration, "ci8", backend=a.backend)
    sink = blocks.vector_sink_b(C * B * 4 * 8)
    tb = gr.top_block("fx_x_side")
    tb.connect(src, xe, sink)
    if a.visibilities:
        vis = gpudsp.spead_xengine_sink(a.visibilities, n_antennas=a.antennas, n_channels=C,
                                        first_channel=a.range * C,
                                        dump_timestamp_step=a.integration * 2 * a.channels)
        tb.connect(xe, vis)
    tb.start()
    print(f"X side {a.range}: ready", flush=True)  # the source is bound
    done = threading.Event()
    threading.Thread(target=lambda: (tb.wait(), done.set()), daemon=True).start()
    if not done.wait(a.timeout):
        tb.stop()
        tb.wait()
        raise SystemExit(f"X side: no end of stream within {a.timeout} s")
    V = np.frombuffer(bytes(sink.data()), np.int32).reshape(-1, C, B, 2, 2, 2)
    np.save(a.output, V)
    st = src.stats()
    print(f"X side, channels [{a.range * C}, {(a.range + 1) * C}): {V.shape[0]} dumps -> "
          f"{a.output}; F-engine heaps received {st['heaps_received']}, "
          f"missing {st['missing_heaps']}")


if __name__ == "__main__":
    main()
