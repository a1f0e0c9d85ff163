#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""examples/fx_over_spead: dsim.py (digitiser heaps) -> f_side.py (F-engine,
corner turn) -> two x_side.py (X-engines, XB-engine heaps out), four
processes joined by SPEAD over loopback UDP, give exactly the visibilities
of the same correlator in one flowgraph (CPU, small case), from the first
heap time the F side sends."""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import fx_correlator as fx
from gnuradio.gpudsp import spead as S
from gnuradio.gpudsp.spead_xengine import katgpucbf_baseline_order
from gnuradio.gpudsp.xengine_helpers import xengine_baseline_index

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "fx_over_spead")
try:
    spead2 = S.import_spead2()
except ImportError:
    spead2 = None


def wait_ready(proc, what):
    """Until the process says its sockets are bound (log lines before it)."""
    seen = []
    for line in proc.stdout:
        if "ready" in line:
            return
        seen.append(line)
    proc.kill()
    raise AssertionError(f"{what} ended before it was ready: {''.join(seen)}")


@unittest.skipIf(spead2 is None, "SKIPPED: spead2 is not installed")
class qa_fx_spead(gr_unittest.TestCase):
    def test_dsim_f_side_two_x_sides_equal_one_flowgraph(self):
        A, N, T, R, SPH, n_int, HS = 3, 64, 8, 2, 32, 256, 4096
        samples = 64 * HS
        base = 20000 + os.getpid() % 500 * 20
        dig, xs_ports, vis_port = base, [base + 8, base + 9], base + 10
        common = ["--antennas", str(A), "--channels", str(N), "--backend", "cpu"]
        run = dict(stdout=subprocess.PIPE, text=True)
        rx = spead2.recv.Stream(spead2.ThreadPool(), spead2.recv.StreamConfig(max_heaps=4),
                                spead2.recv.RingStreamConfig(heaps=64))
        rx.add_udp_reader(vis_port, max_size=9200, buffer_size=4 << 20,
                          bind_hostname="127.0.0.1")
        with tempfile.TemporaryDirectory() as d:
            xs = []
            for r in range(R):
                xs.append(subprocess.Popen(
                    [sys.executable, os.path.join(EXAMPLES, "x_side.py"), *common,
                     "--ranges", str(R), "--range", str(r), "--spectra-per-heap", str(SPH),
                     "--integration", str(n_int), "--listen", f"127.0.0.1:{xs_ports[r]}",
                     "--output", os.path.join(d, f"x{r}.npy"), "--timeout", "240"]
                    + (["--visibilities", f"127.0.0.1:{vis_port}"] if r == 0 else []), **run))
                wait_ready(xs[-1], "x_side.py")
            f = subprocess.Popen([sys.executable, os.path.join(EXAMPLES, "f_side.py"), *common,
                                  "--taps", str(T), "--spectra-per-heap", str(SPH),
                                  "--digitiser", f"127.0.0.1:{dig}", "--x-engines",
                                  ",".join(f"127.0.0.1:{q}" for q in xs_ports)], **run)
            wait_ready(f, "f_side.py")
            dsim = subprocess.run([sys.executable, os.path.join(EXAMPLES, "dsim.py"),
                                   "--antennas", str(A), "--channels", str(N), "--samples",
                                   str(samples), "--dest", f"127.0.0.1:{dig}"],
                                  timeout=240, **run)
            self.assertEqual(dsim.returncode, 0)
            out, _ = f.communicate(timeout=240)
            self.assertEqual(f.returncode, 0, out)
            self.assertIn("lost per antenna and pol: [[0, 0], [0, 0], [0, 0]]", out)
            for x in xs:
                out, _ = x.communicate(timeout=240)
                self.assertEqual(x.returncode, 0, out)
            got = [np.load(os.path.join(d, f"x{r}.npy")) for r in range(R)]

        # The same correlator in one flowgraph; the SPEAD path starts at the
        # first heap time without a flagged spectrum (the F side does not
        # send the others).
        sim = fx.simulation.make(fx.fx_params(antennas=A, channels=N, taps=T, backend="cpu",
                                              rfi_freq=-1))
        src, fe = sim.digitiser(samples), sim.fengine()
        spectra = blocks.vector_sink_b(N * 2 * A * 2)
        tb = gr.top_block()
        for i in range(2 * A):
            tb.connect((src, i), (fe, i))
        tb.connect(fe, spectra)
        tb.run()
        flagged = max(t.offset + pmt.to_uint64(t.value) for t in spectra.tags()
                      if pmt.symbol_to_string(t.key) == "gpudsp.missing")
        k0 = -(-flagged // SPH)  # first heap time sent
        x = np.array(spectra.data(), np.uint8).view(np.int8).reshape(-1, N, A, 2, 2)
        x = x[k0 * SPH:]
        dumps = min(len(x) // n_int, len(got[0]))
        self.assertGreaterEqual(dumps, 2)
        z = x[..., 0].astype(np.int64) + 1j * x[..., 1].astype(np.int64)  # [s][c][a][p]
        B = A * (A + 1) // 2
        C = N // R
        want = np.zeros((dumps, N, B, 2, 2, 2), np.int64)
        for dd in range(dumps):
            zd = z[dd * n_int:(dd + 1) * n_int]
            for i in range(A):
                for j in range(i + 1):
                    v = np.einsum("scp,scq->cpq", zd[:, :, i], np.conj(zd[:, :, j]))
                    k = xengine_baseline_index(i, j)
                    want[dd, :, k, :, :, 0], want[dd, :, k, :, :, 1] = v.real, v.imag
        for r in range(R):
            self.assertEqual(len(got[r]), len(got[0]))
            np.testing.assert_array_equal(got[r][:dumps], want[:, r * C:(r + 1) * C])

        # Range 0's dumps as XB-engine heaps: ADC timestamps of each dump's
        # first spectrum, products in katgpucbf's order and sign.
        order = katgpucbf_baseline_order(A)
        heaps = []
        ig = spead2.ItemGroup()  # decoded from the sink's own descriptors
        for heap in rx:
            if "xeng_raw" in ig.update(heap):
                heaps.append((int(ig["timestamp"].value), int(ig["frequency"].value),
                              ig["xeng_raw"].value.copy()))
        self.assertEqual(len(heaps), len(got[0]))
        for dd, (ts, freq, raw) in enumerate(heaps[:dumps]):
            self.assertEqual((ts, freq), ((k0 * SPH + dd * n_int) * 2 * N, 0))
            for n, (a1, a2, p1, p2) in enumerate(order):
                k = a2 * (a2 + 1) // 2 + a1  # ours: i = a2 >= j = a1, [p][q] = [p2][p1], conj
                np.testing.assert_array_equal(raw[:, n, 0], want[dd, :C, k, p2, p1, 0])
                np.testing.assert_array_equal(raw[:, n, 1], -want[dd, :C, k, p2, p1, 1])


if __name__ == "__main__":
    gr_unittest.run(qa_fx_spead)
