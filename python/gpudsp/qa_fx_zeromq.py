#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""examples/fx_over_zeromq: an F-side flowgraph and two X-side flowgraphs,
separate processes joined by gr-zeromq on loopback, give exactly the
visibilities of the same correlator in one flowgraph (CPU, small case)."""

import os
import socket
import subprocess
import sys
import tempfile

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import fx_correlator as fx

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "fx_over_zeromq")


def free_port_pair():
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket() as s2:
            try:
                s2.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    raise RuntimeError("no free pair of ports")


class qa_fx_zeromq(gr_unittest.TestCase):
    def test_two_x_hosts_equal_one_flowgraph(self):
        A, N, T, R, n_int, dumps = 3, 64, 8, 2, 256, 3
        spectra = n_int * dumps + 64
        address = f"tcp://127.0.0.1:{free_port_pair()}"
        common = ["--antennas", str(A), "--channels", str(N), "--ranges", str(R),
                  "--address", address, "--backend", "cpu"]
        with tempfile.TemporaryDirectory() as d:
            xs = [subprocess.Popen([sys.executable, os.path.join(EXAMPLES, "x_side.py"), *common,
                                    "--range", str(r), "--integration", str(n_int),
                                    "--dumps", str(dumps), "--output", os.path.join(d, f"x{r}.npy")])
                  for r in range(R)]
            f = subprocess.run([sys.executable, os.path.join(EXAMPLES, "f_side.py"), *common,
                                "--taps", str(T), "--spectra", str(spectra)], timeout=300)
            self.assertEqual(f.returncode, 0)
            for x in xs:
                self.assertEqual(x.wait(timeout=300), 0)
            got = [np.load(os.path.join(d, f"x{r}.npy")) for r in range(R)]

        # The same correlator in one flowgraph.
        sim = fx.simulation.make(fx.fx_params(antennas=A, channels=N, taps=T, backend="cpu",
                                              rfi_freq=-1))
        src = sim.digitiser(spectra * 2 * N)
        fe = sim.fengine(spectra * 2 * N)
        xe = gpudsp.xengine(A, 2, N, n_int, "ci8", backend="cpu")
        B = A * (A + 1) // 2
        snk = blocks.vector_sink_b(N * B * 32)
        tb = gr.top_block()
        for i in range(2 * A):
            tb.connect((src, i), (fe, i))
        tb.connect(fe, xe, snk)
        tb.run()
        want = np.frombuffer(bytes(snk.data()), np.int32).reshape(-1, N, B, 2, 2, 2)[:dumps]
        for r in range(R):
            self.assertEqual(got[r].shape[0], dumps)
            np.testing.assert_array_equal(got[r], want[:, r * N // R:(r + 1) * N // R])


if __name__ == "__main__":
    gr_unittest.run(qa_fx_zeromq)
