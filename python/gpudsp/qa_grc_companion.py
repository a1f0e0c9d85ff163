#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNU Radio Companion with this module, as a user starts it after the
quick start: the GTK introspection data GRC's main imports is installed
(gnuradio-companion exits with "Namespace Gtk not available" without it),
GRC's own platform loads every block of grc/ into the category "GPU DSP",
the examples open there without errors, and, where Xvfb is installed,
gnuradio-companion itself starts on an example and keeps running."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from gnuradio import gr, gr_unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GRC_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "grc"))
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "examples"))


def grc_platform():
    """GRC's platform (the core of the one gnuradio-companion builds, which
    needs a display) with GNU Radio's blocks and this module's from the
    source tree (not an installed copy)."""
    from gnuradio.grc.core.platform import Platform
    platform = Platform(version=gr.version(),
                        version_parts=(gr.major_version(), gr.api_version(),
                                       gr.minor_version()),
                        prefs=gr.prefs())
    platform.build_library(path=[os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks"),
                                 GRC_DIR])
    return platform


class qa_grc_companion(gr_unittest.TestCase):
    def test_gtk_introspection_is_installed(self):
        # What gnuradio.grc.main imports before anything else.
        import gi
        gi.require_version("Gtk", "3.0")
        gi.require_version("PangoCairo", "1.0")
        from gi.repository import Gtk, PangoCairo  # noqa: F401

    def test_block_tree_holds_every_block(self):
        platform = grc_platform()
        ours = sorted(os.path.basename(f)[:-len(".block.yml")]
                      for f in glob.glob(os.path.join(GRC_DIR, "gpudsp_*.block.yml")))
        self.assertGreaterEqual(len(ours), 10)
        for key in ours:
            self.assertIn(key, platform.blocks, f"GRC did not load {key}")
            self.assertEqual(platform.blocks[key].category[0], "GPU DSP", key)

    def test_examples_open_without_errors(self):
        platform = grc_platform()
        examples = sorted(glob.glob(os.path.join(EXAMPLES, "*.grc")))
        self.assertGreaterEqual(len(examples), 5)
        for path in examples:
            fg = platform.make_flow_graph(path)
            fg.rewrite()
            fg.validate()
            errors = fg.get_error_messages()
            self.assertEqual(errors, [], f"{os.path.basename(path)}: {errors}")
            gpudsp = [b for b in fg.blocks if b.key.startswith("gpudsp_")]
            self.assertTrue(gpudsp, os.path.basename(path))
            for b in gpudsp:  # every parameter has a value GRC can show
                for p in b.params.values():
                    self.assertIsNotNone(p.get_value(), f"{b.key}.{p.key}")

    @unittest.skipUnless(shutil.which("xvfb-run") and shutil.which("gnuradio-companion"),
                         "xvfb-run or gnuradio-companion is not installed")
    # The sanitizer build's module needs the ASan runtime preloaded, and GRC
    # (GTK, its docstring loader's subprocesses) does not start under it:
    # what this test checks is GRC's set-up, which that build does not change.
    @unittest.skipIf("asan" in os.environ.get("LD_PRELOAD", ""),
                     "the sanitizer build: GRC does not start with the ASan runtime preloaded")
    def test_companion_starts_on_an_example(self):
        env = dict(os.environ, GRC_BLOCKS_PATH=GRC_DIR, NO_AT_BRIDGE="1")
        example = os.path.join(EXAMPLES, "fengine_demo.grc")
        with tempfile.TemporaryDirectory() as home:
            env["HOME"] = home  # a first start: no preferences, no recent files
            log = os.path.join(home, "grc.log")
            with open(log, "w") as out:
                p = subprocess.Popen(["xvfb-run", "-a", sys.executable,
                                      shutil.which("gnuradio-companion"), example],
                                     stdout=out, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
                try:
                    # Still running after the window has had time to open
                    # (it exits at once when GTK or a block fails to load).
                    exited = p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    exited = None
                finally:
                    if p.poll() is None:
                        os.killpg(p.pid, 15)
                        p.wait()
            with open(log) as f:
                text = f.read()
        self.assertIsNone(exited, f"gnuradio-companion exited ({exited}):\n{text}")
        for bad in ("Failed to initialize GTK", "Namespace Gtk not available", "Traceback"):
            self.assertNotIn(bad, text)


if __name__ == "__main__":
    gr_unittest.run(qa_grc_companion)
