#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The SPEAD blocks' GRC definitions (grc/gpudsp_spead_*.block.yml): a
flowgraph using all four, wired to the blocks around them, compiles with
grcc (ports, vector lengths and asserts checked by GRC) and its generated
top block constructs (every make template matches its constructor). It
binds loopback ports only; nothing is sent."""

import glob
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

import yaml
from gnuradio import gr_unittest
from gnuradio.gpudsp import spead as S

GRC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
try:
    S.import_spead2()
    HAVE_SPEAD2 = True
except ImportError:
    HAVE_SPEAD2 = False


def block(name, block_id, **params):
    return dict(name=name, id=block_id, parameters={k: str(v) for k, v in params.items()},
                states=dict(coordinate=[0, 0], rotation=0, state="enabled"))


class qa_grc_spead(gr_unittest.TestCase):
    def flowgraph(self, port):
        A, C = 2, 8
        blocks = [
            block("dig", "gpudsp_spead_digitiser_source", pol0=f"127.0.0.1:{port}",
                  pol1=f"127.0.0.1:{port + 1}", heap_samples=256, stop_heaps=1),
            block("null0", "blocks_null_sink", type="byte"),
            block("null1", "blocks_null_sink", type="byte"),
            block("fsrc", "gpudsp_spead_fengine_source", endpoints=f"127.0.0.1:{port + 2}",
                  n_antennas=A, n_channels=C, first_channel=C, spectra_per_heap=16,
                  samples_between_spectra=4 * C),
            block("xe", "gpudsp_xengine", n_stations=A, n_pols=2, n_channels=C,
                  n_integrate=32, input_format="ci8", output_format="ci32", backend="cpu"),
            block("xsink", "gpudsp_spead_xengine_sink", destination=f"127.0.0.1:{port + 3}",
                  n_antennas=A, n_channels=C, first_channel=C, dump_timestamp_step=32 * 4 * C),
            block("vsrc", "blocks_vector_source_x", type="byte", vector=[0] * (2 * C * A * 4),
                  vlen=2 * C * A * 4, repeat="False"),
            block("fsink", "gpudsp_spead_fengine_sink",
                  destinations=f"127.0.0.1:{port + 4},127.0.0.1:{port + 5}", n_antennas=A,
                  n_channels=2 * C, spectra_per_heap=16),
        ]
        connections = [["dig", "0", "null0", "0"], ["dig", "1", "null1", "0"],
                       ["fsrc", "0", "xe", "0"], ["xe", "0", "xsink", "0"],
                       ["vsrc", "0", "fsink", "0"]]
        return dict(options=dict(parameters=dict(id="spead_grc", generate_options="no_gui",
                                                 output_language="python", run_options="run",
                                                 title="SPEAD blocks"),
                                 states=dict(coordinate=[0, 0], rotation=0, state="enabled")),
                    blocks=blocks, connections=connections, metadata=dict(file_format=1))

    def test_yml_files_exist(self):
        names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(GRC_DIR, "*spead*")))
        self.assertEqual(names, [f"gpudsp_spead_{n}.block.yml" for n in
                                 ("digitiser_source", "fengine_sink", "fengine_source",
                                  "xengine_sink")])

    @unittest.skipIf(not HAVE_SPEAD2, "SKIPPED: spead2 is not installed")
    def test_grcc_compiles_and_the_flowgraph_constructs(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "spead_grc.grc")
            with open(path, "w") as f:
                yaml.safe_dump(self.flowgraph(30000 + os.getpid() % 500 * 8), f)
            env = dict(os.environ, GRC_BLOCKS_PATH=os.path.abspath(GRC_DIR))
            r = subprocess.run(["grcc", "-o", d, path], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            spec = importlib.util.spec_from_file_location("spead_grc",
                                                          os.path.join(d, "spead_grc.py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            tb = mod.spead_grc()
            self.assertEqual(tb.dig.n_pols, 2)
            self.assertEqual((tb.fsrc.A, tb.fsrc.C), (2, 8))
            self.assertEqual((tb.xsink.A, tb.xsink.C, tb.xsink.freq), (2, 8, 8))
            self.assertEqual(len(tb.fsink.dests), 2)
            tb.dig.stop()
            tb.fsrc.stop()


if __name__ == "__main__":
    gr_unittest.run(qa_grc_spead)
