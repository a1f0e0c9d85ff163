#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The F side of an FX correlator over SPEAD (docs/scaling.md): MeerKAT
digitiser heaps of N dual-pol antennas (gpudsp.spead_digitiser_source) ->
gpudsp.pfb_fengine with the array's delay model -> the corner turn:
gpudsp.spead_fengine_sink sends channel range r as katgpucbf F-engine heaps
to the r-th X-engine endpoint. The flowgraph ends when every digitiser
stream has sent its stop heap."""

import argparse

from gnuradio import gr
from gnuradio import gpudsp
from gnuradio.gpudsp import fx_correlator as fx
from gnuradio.gpudsp import spead


def digitiser_endpoints(spec, antennas):
    """[(pol0, pol1)] per antenna: HOST:PORT means antenna a's polarisation
    p on PORT + 2a + p (dsim.py's layout); otherwise one "POL0/POL1" spec
    per antenna, ';'-separated (MeerKAT: eight groups per polarisation, e.g.
    239.102.0.0+7:7148/239.102.0.8+7:7148)."""
    if "/" not in spec:
        host, port = spec.rsplit(":", 1)
        return [(f"{host}:{int(port) + 2 * a}", f"{host}:{int(port) + 2 * a + 1}")
                for a in range(antennas)]
    pairs = [tuple(s.split("/")) for s in spec.split(";")]
    if len(pairs) != antennas or any(len(x) != 2 for x in pairs):
        raise SystemExit(f"--digitiser: need {antennas} POL0/POL1 specs, got {spec!r}")
    return pairs


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--antennas", type=int, default=3)
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--taps", type=int, default=8)
    p.add_argument("--spectra-per-heap", type=int, default=32)
    p.add_argument("--heap-samples", type=int, default=spead.DIG_HEAP_SAMPLES)
    p.add_argument("--digitiser", default=f"127.0.0.1:{spead.DEFAULT_PORT}",
                   help="digitiser endpoints (see digitiser_endpoints)")
    p.add_argument("--interface", default="", help="interface address for multicast")
    p.add_argument("--x-engines", default="127.0.0.1:7250,127.0.0.1:7251",
                   help="one endpoint per X-engine (channel range), ','-separated")
    p.add_argument("--rate", type=float, default=0.0, help="send rate, bytes/s (0: max)")
    p.add_argument("--backend", default="auto")
    p.add_argument("--seed", type=int, default=1, help="the simulated array's (dsim.py's) seed")
    p.add_argument("--delay-convention", choices=("katgpucbf", "gpudsp"), default="katgpucbf",
                   help="how the F-engine reads the delay model (docs/fengine.md)")
    a = p.parse_args()

    # The array and its delay model: the same simulation dsim.py samples.
    sim = fx.simulation.make(fx.fx_params(antennas=a.antennas, channels=a.channels, taps=a.taps,
                                          seed=a.seed, backend=a.backend, rfi_freq=-1,
                                          delay_convention=a.delay_convention))
    tb = gr.top_block("fx_f_side")
    fe = sim.fengine()
    digs = []
    for ant, (pol0, pol1) in enumerate(digitiser_endpoints(a.digitiser, a.antennas)):
        dig = gpudsp.spead_digitiser_source(pol0, pol1, interface_address=a.interface,
                                            heap_samples=a.heap_samples, heaps_per_chunk=16,
                                            stop_heaps=1)
        for pol in range(2):
            tb.connect((dig, pol), (fe, 2 * ant + pol))
        digs.append(dig)  # Python blocks must outlive the run
    sink = gpudsp.spead_fengine_sink(a.x_engines, n_antennas=a.antennas, n_channels=a.channels,
                                     spectra_per_heap=a.spectra_per_heap, rate=a.rate,
                                     interface_address=a.interface)
    tb.connect(fe, sink)
    print("F side: ready", flush=True)  # the sources are bound
    tb.run()
    lost = [d.stats()["missing_heaps"] for d in digs]
    print(f"F side: {sink.counts['heaps_sent']} F-engine heaps sent "
          f"({sink.counts['heap_times_skipped']} heap times not sent: flagged spectra); "
          f"digitiser heaps lost per antenna and pol: {lost}")


if __name__ == "__main__":
    main()
