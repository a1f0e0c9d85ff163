#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Device discovery and the backend convention, from Python."""

import os
import subprocess
import sys

from gnuradio import gr_unittest
from gnuradio import gpudsp


class qa_runtime(gr_unittest.TestCase):
    def test_discovery(self):
        devs = gpudsp.devices()
        self.assertIsInstance(devs, list)
        self.assertEqual(gpudsp.cuda_available(), len(devs) > 0)
        for d in devs:
            self.assertEqual(set(d), {"index", "name", "compute_capability",
                                      "total_memory", "multiprocessors"})
            self.assertGreaterEqual(d["compute_capability"][0], 7)

    def test_auto_and_cpu(self):
        want = "cuda" if gpudsp.cuda_available() else "cpu"
        self.assertEqual(gpudsp.resolve_backend("auto"), want)
        self.assertEqual(gpudsp.unpack10("float", "auto").backend(), want)
        self.assertEqual(gpudsp.unpack10("float", "cpu").backend(), "cpu")

    def test_cuda_without_device_is_a_clear_error(self):
        if gpudsp.cuda_available():
            self.skipTest("a CUDA device is present")
        with self.assertRaises(RuntimeError) as ctx:
            gpudsp.unpack10("float", "cuda")
        self.assertIn("unpack10", str(ctx.exception))
        self.assertIn("CUDA device", str(ctx.exception))

    def test_bad_backend_and_device(self):
        with self.assertRaises(ValueError) as ctx:
            gpudsp.unpack10("float", "gpu")
        self.assertIn("unknown backend", str(ctx.exception))
        with self.assertRaises(ValueError):
            gpudsp.unpack10("float", "cpu", -1)
        with self.assertRaises(ValueError):
            gpudsp.unpack10("double", "cpu")

    def test_cpu_simd_level_and_override(self):
        def simd(value):
            env = dict(os.environ, GPUDSP_CPU_SIMD=value)
            return subprocess.run([sys.executable, "-c", "from gnuradio import gpudsp; "
                                   "print(gpudsp.cpu_simd())"], env=env, text=True,
                                  capture_output=True)
        with open("/proc/cpuinfo") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
        has_avx2 = "avx2" in flags
        has_avx512 = all(f in flags for f in ("avx512f", "avx512bw", "avx512dq", "avx512vl"))
        auto = simd("auto")
        self.assertEqual(auto.returncode, 0, auto.stderr)
        top = "avx512" if has_avx512 else "avx2" if has_avx2 else "scalar"
        self.assertTrue(auto.stdout.startswith(top + " (CPU: "), auto.stdout)
        capped = simd("avx2")
        self.assertTrue(capped.stdout.startswith(("avx2" if has_avx2 else "scalar") + " (CPU: "),
                        capped.stdout)
        self.assertIn("GPUDSP_CPU_SIMD=avx2", capped.stdout)
        scalar = simd("scalar")
        self.assertTrue(scalar.stdout.startswith("scalar (CPU: "), scalar.stdout)
        self.assertIn("GPUDSP_CPU_SIMD=scalar", scalar.stdout)
        bad = simd("avx9")
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("GPUDSP_CPU_SIMD must be", bad.stderr)

    def test_counters(self):
        c = gpudsp.device_counters("emulated")
        for key in ("h2d_calls", "h2d_bytes", "d2h_bytes", "d2d_bytes", "device_bytes"):
            self.assertIn(key, c)
        with self.assertRaises(ValueError):
            gpudsp.device_counters("cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_runtime)
