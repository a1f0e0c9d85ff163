#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Compiles every examples/*.grc with grcc and runs each generated
flowgraph for at most RUN_SECONDS: a flowgraph that fails to compile, or
exits with an error before its time is up, fails the test. GUI flowgraphs
run on Qt's offscreen platform."""

import glob
import os
import subprocess
import sys

RUN_SECONDS = 15


def main(src_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    failures = []
    for grc in sorted(glob.glob(os.path.join(src_dir, "*.grc"))):
        name = os.path.splitext(os.path.basename(grc))[0]
        r = subprocess.run(["grcc", "-o", out_dir, grc], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{name}: grcc failed:\n{r.stdout}{r.stderr}")
            continue
        script = os.path.join(out_dir, name + ".py")
        try:
            r = subprocess.run([sys.executable, "-u", script], capture_output=True, text=True,
                               timeout=RUN_SECONDS, stdin=subprocess.DEVNULL)
            status = f"exited {r.returncode}"
            ok = r.returncode == 0
            log = r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            status, ok = f"still running after {RUN_SECONDS} s (stopped)", True
            log = (e.stdout or b"").decode() + (e.stderr or b"").decode()
        print(f"{name}: compiled, {status}")
        if not ok or "Traceback" in log:
            failures.append(f"{name}: {status}\n{log}")
    for f in failures:
        print("FAILED", f)
    print(f"examples: {len(glob.glob(os.path.join(src_dir, '*.grc'))) - len(failures)} ok, "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
