#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gr-gpudsp GPU suite runner, started by DIR/run with the bundled Python.

Runs, in order and without stopping at the first failure: (1) the C++ GPU
tests, (2) the Python CUDA qa tests, (3) gpudsp_tune over every job (the
sweep of every plan's candidate configurations; the winners go to a cache
the later steps use), (4) gpudsp_bench for every job, with the tuned
configurations, (5) the apps on the GPU backend, (6) compute-sanitizer:
memcheck, synccheck and initcheck over every C++ GPU test, racecheck over
those whose job changed since the last GPU run and, in rotation, a few
others, (7) ncu over the jobs with a benchmark row that missed its target.
Each step has its own time budget inside the whole run's (6 minutes by
default). --focus JOB[,JOB] runs those jobs' tests, sweep, rows, memcheck
and profile (3 minutes by default), for the re-run after a fix. Without a
CUDA device it runs what needs none (the test programs start and skip, the
benchmark's CPU rows and the apps on the CPU, small) and reports every GPU
step as "no CUDA device", so the bundle itself is tested wherever it is
unpacked.

Writes to --out: summary.md, tuning.json, bench.json, sanitizer.log, ncu.csv
and logs.tar.xz (every log). Exit status 1 when anything failed.
"""

import argparse
import concurrent.futures
import csv
import glob
import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import jobs as gpu_jobs
import report
import targets
from kernel_names import short_kernel_name

NO_DEVICE = "no CUDA device"
NO_TIME = "no time left"
# Killed when its step's time ran out (the steps after the tests share the
# run's minutes; a test program killed so is a "timeout", a failure).
CUT = "cut at the step's end"
# What ctest sets for the module's tests (lib/ and python/ CMakeLists): the
# tuner off, so that the tests run the plans' heuristic configurations.
TEST_ENV = {"VOLK_GENERIC": "1", "GR_DONT_LOAD_PREFS": "1", "GR_CONF_CONTROLPORT_ON": "False",
            "GPUDSP_AUTOTUNE": "off"}
# Under compute-sanitizer, tests that size their work for coverage (many
# tiles a block) take their small sizes: the tools slow kernels 10-1000x.
SANITIZER_ENV = dict(TEST_ENV, GPUDSP_QA_SANITIZER="1")
DEFAULT_BUDGET = 360.0  # seconds: a full run, inside a 15-minute GPU lease
FOCUS_BUDGET = 170.0  # --focus: the re-run after a fix

# gpudsp_bench runs: name -> (job, arguments on a GPU machine: every GPU
# row, CPU rows kept short; without a GPU: the tiny run of ctest's
# bench_*_tiny tests). The long jobs (X-engine, FX) run last, so
# that they cannot starve the others of the step's time (the first H100 run,
# 2026-11-24, never reached the LDPC job). On a GPU the sizes are those the
# targets name (LDPC batches 1 and 1024; X-engine S = 64, 256 and 1024; FX up
# to the whole array): the first H200 run (2026-11-26) spent 38 s on LDPC
# rows with no target and never reached the X-engine or FX.
BENCH = {
    "unpack10": ([], ["--samples", "4096", "--iterations", "1"]),
    "buffer": ([], ["--items", "100000"]),
    "fengine": ([], ["--channels", "64", "--samples", "4096", "--iterations", "1"]),
    "ddc": ([], ["--decimations", "4", "--taps", "16", "--samples", "4096", "--gpu-samples",
                 "65536", "--iterations", "1"]),
    "gnss": (["--no-peer"], ["--samples", "2000", "--iterations", "1", "--no-peer"]),
    "ldpc": (["--no-peer", "--cpu-frames", "8", "--batches", "1,1024"],
             ["--small", "--batches", "2", "--cpu-frames", "2", "--iterations", "1",
              "--no-peer"]),
    "xengine": (["--stations", "64,256,1024", "--iterations", "2"], ["--stations", "4", "--integrate", "32", "--cpu-stations", "3",
                     "--cpu-channels", "2", "--iterations", "1"]),
    "fx": (["--antennas", "16,32,64"], ["--antennas", "1", "--channels", "64", "--spectra", "8", "--cpu-antennas",
                "1", "--iterations", "1"]),
    "fx-flowgraph": (["--flowgraph"], ["--flowgraph", "--channels", "64", "--integrate", "32",
                                       "--dumps", "3", "--iterations", "1"]),
}

# ncu: one representative size per job (device-copy only jobs have no kernel
# of ours), in the order the step profiles them while its time lasts: the
# FX job's kernels are the F- and X-engine's, profiled before it, so it
# comes after the DDC (cut for time on 2026-11-27).
NCU = {
    "unpack10": ["--samples", "16777216", "--iterations", "1", "--launches", "1"],
    "fengine": ["--channels", "4096", "--samples", "4194304", "--iterations", "1",
                "--launches", "1"],
    # S = 64: the FX job's 64 dual-pol antennas, where the X-engine misses
    # its target (the packed kernel met S >= 512's at S = 1024, 2026-11-28)
    # and the direct and channel kernels (the tuner's two candidates there)
    # run.
    "xengine": ["--stations", "64", "--iterations", "1", "--launches", "1", "--cpu-stations", "2",
                "--cpu-channels", "1", "--short", "0"],
    "ddc": ["--decimations", "16", "--taps", "256", "--iterations", "1", "--launches", "1"],
    "fx": ["--antennas", "16", "--spectra", "64", "--cpu-antennas", "1", "--iterations", "1"],
    "gnss": ["--iterations", "1", "--no-peer", "--no-cpu"],
    "ldpc": ["--only", "R=0.79", "--batches", "1024", "--cpu-frames", "1", "--iterations",
             "1", "--no-peer"],
}
NCU_METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__registers_per_thread",
    "launch__block_size",
    "launch__grid_size",
]
# What a kernel's warps wait on, for the rows that miss a target ("latency-
# bound" needs a reason): issue slots used, warp instructions (against the
# job doc's count a sample), and the warps stalled per issue cycle on each
# reason (the WarpStateStats section's metrics). Should this ncu not know
# one of them, the job is profiled again with NCU_METRICS alone.
NCU_STALLS = ["long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle",
              "barrier", "math_pipe_throttle", "wait", "not_selected",
              "membar", "dispatch_stall", "no_instruction", "branch_resolving", "drain",
              "imc_miss", "tex_throttle", "sleeping", "misc"]
NCU_DETAIL = [
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
] + [f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in NCU_STALLS]

# The apps: on a GPU, at sizes of about a minute or less; without one, a
# small CPU run of each (as ctest's app_* tests) so the bundle's Python
# stack is exercised.
LDPC_POINT = ["--K", "500", "--E", "1000", "--ebn0", "2.0", "--arithmetic", "fixed",
              "--min-errors", "100", "--max-blocks", "51200", "--batch", "1024",
              "--no-reference", "--no-plots"]
APPS_GPU = {
    "fx_correlator": ["gpudsp_fx_correlator", "--backend", "cuda", "--antennas", "16",
                      "--seconds", "0.001", "--no-plots", "--no-ms", "--no-image"],
    "gnss_track": ["gpudsp_gnss_track", "--backend", "cuda", "--seconds", "0.8", "--antennas",
                   "4", "--l1", "3,11,19,27", "--e1b", "4,12,19,33", "--no-plots"],
    "gnss_track_l5": ["gpudsp_gnss_track", "--band", "l5", "--backend", "cuda", "--seconds",
                      "0.5", "--antennas", "4", "--no-plots"],
    "ldpc_bler": ["gpudsp_ldpc_bler"] + LDPC_POINT,
}
APPS_CPU = {
    "fx_correlator": ["gpudsp_fx_correlator", "--backend", "cpu", "--antennas", "4",
                      "--seconds", "0.0004", "--channels", "128", "--no-plots", "--no-ms",
                      "--no-image"],
    "gnss_track": ["gpudsp_gnss_track", "--backend", "cpu", "--seconds", "0.8", "--l1", "5",
                   "--e1b", "30", "--no-plots"],
    "gnss_track_l5": ["gpudsp_gnss_track", "--band", "l5", "--backend", "cpu", "--seconds",
                      "0.8", "--l5", "5", "--e5a", "30", "--no-plots"],
    "ldpc_bler": ["gpudsp_ldpc_bler", "--backend", "cpu", "--K", "200", "--E", "400",
                  "--ebn0", "2:3:0.5", "--min-errors", "10", "--max-blocks", "1024",
                  "--no-plots"],
}

# Seconds per step, in the order they run: (budget, the least kept for it
# when earlier steps ran long). Run 6 on an H100 (2026-11-24) took 5 s for
# the C++ tests, 26 s for the Python ones, 79 s for the apps (the L5
# tracking, 1 s of signal, 36 s of it) and ran out of its 150 s for the
# benchmarks and for compute-sanitizer (racecheck). The H200 run of
# 2026-11-27 (359 s): 14 s, 33 s, the sweep cut at 50 s in the X-engine's
# last shape (its five shapes take ~30 s, the other jobs ~20 s with their
# start-up), benchmarks 98 s, apps 68 s (L5 tracking 28 s for 0.8 s of
# signal: now 0.5 s, ~17 s), sanitizer and ncu cut. The C++ tests' 45 s:
# qa_ddc_plan_cuda took 12 s and now also forces each of its ~170 DDC
# configurations over 2^20 outputs (estimated +5-10 s), and a test cut
# there loses every verdict of its binary.
BUDGETS = {"cpp": (45, 10), "python": (60, 20), "tune": (70, 25), "bench": (105, 40),
           "apps": (65, 25), "sanitizer": (60, 15), "ncu": (40, 15)}
STEP_TITLES = {"cpp": "C++ GPU tests", "python": "Python CUDA qa tests",
               "tune": "gpudsp_tune sweep", "sanitizer": "compute-sanitizer",
               "bench": "gpudsp_bench", "apps": "apps on the GPU backend",
               "ncu": "ncu (rows that missed a target)"}
# racecheck, the slowest tool, takes the tests whose job changed since the
# last GPU run and this many of the others, in a rotation by date.
RACECHECK_ROTATION = 2
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
SANITIZER_ERROR_RC = 86


@dataclass
class item:
    name: str
    status: str = "not run"  # passed, failed, timeout, skipped, no CUDA device, ...
    seconds: float = 0.0
    note: str = ""
    group: str = ""  # the sanitizer tool, for example


@dataclass
class step:
    key: str
    status: str = "not run"
    seconds: float = 0.0
    note: str = ""
    items: list = field(default_factory=list)

    @property
    def title(self):
        return STEP_TITLES[self.key]

    def settle(self):
        """The step's status from its items'."""
        states = {i.status for i in self.items}
        if states & {"failed", "timeout", "errors"}:
            self.status = "failed"
        elif states & {CUT, "not run"}:
            self.status = "incomplete"  # the run's time ran out: not a failure
        elif states and states <= {NO_DEVICE, "skipped"}:
            self.status = NO_DEVICE if NO_DEVICE in states else "skipped"
        elif states:
            self.status = "passed"


class suite:
    def __init__(self, a):
        self.root = Path(a.root)
        self.out = Path(a.out)
        self.quick = a.quick
        self.focus = gpu_jobs.parse_focus(a.focus) if a.focus else []
        pattern = a.only or (gpu_jobs.test_pattern(self.focus) if self.focus else None)
        self.only = re.compile(pattern) if pattern else None
        self.t0 = time.monotonic()
        budget = a.budget or (FOCUS_BUDGET if self.focus else DEFAULT_BUDGET)
        self.deadline = self.t0 + budget
        self.total_budget = budget
        # The tuned configurations, for the benchmark and the apps.
        self.tuning_cache = self.root.parent / "tuning-cache"
        self.tuned_env = {}
        self.tuning = {}
        self.logs = self.root.parent / "logs"
        shutil.rmtree(self.logs, ignore_errors=True)
        self.logs.mkdir(parents=True)
        self.out.mkdir(parents=True, exist_ok=True)
        for f in ("summary.md", "tuning.json", "bench.json", "sanitizer.log", "ncu.csv",
                  "logs.tar.xz"):
            (self.out / f).unlink(missing_ok=True)
        self.manifest = json.loads((self.root / "suite" / "manifest.json").read_text())
        self.workers = max(1, min(8, os.cpu_count() or 1))
        self.steps = []
        self.env = {}
        self.bench_rows = []
        self.bench = {}
        self.ncu_rows = []
        self.failures = []  # problems outside the steps (the bundle itself)

    # --- helpers -------------------------------------------------------
    def selected(self, name):
        return self.only is None or bool(self.only.search(name))

    def chosen(self, key, names):
        """Of a step's names (benchmark jobs, tuner jobs, apps: key "bench",
        "tune" or "apps"), those this run takes: the focused jobs' under
        --focus, else those --only matches."""
        if self.focus:
            mine = {x for n in self.focus for x in gpu_jobs.JOBS[n][key]}
            return [n for n in names if n in mine]
        return [n for n in names if self.selected(n)]

    def budget(self, key):
        """Seconds for a step: its own budget and what the steps before it
        left unused, less what the steps after it must keep."""
        keys = list(BUDGETS)
        earlier, later = keys[:keys.index(key)], keys[keys.index(key) + 1:]
        now = time.monotonic()
        # A run given more than the default (--budget) lets every step
        # take its share of the extra.
        scale = max(1.0, self.total_budget / DEFAULT_BUDGET)
        # Time saved before (tests that pass in a third of their step) goes
        # to the next step, and on from there if it does not need it: the
        # H200 run of 2026-11-28 cut the sweep's last X-engine shape and a
        # benchmark while 25 s of the Python tests' step went unused. (The
        # budgets add up to more than a run has: the last steps take what
        # is left, at least their minimums.)
        ahead = sum(BUDGETS[k][0] for k in earlier) * scale - (now - self.t0)
        own = BUDGETS[key][0] * scale + max(0.0, ahead)
        left = self.deadline - now - sum(BUDGETS[k][1] for k in later)
        return max(5.0, min(own, left))

    def run(self, cmd, log, timeout, env=None, cwd=None):
        """Runs cmd with its output in log; (exit code, seconds, timed out)."""
        t = time.monotonic()
        path = self.logs / log
        path.parent.mkdir(parents=True, exist_ok=True)
        full_env = dict(os.environ, **(env or {}))
        with open(path, "w") as f:
            f.write("$ " + " ".join(str(c) for c in cmd) + "\n")
            f.flush()
            try:
                p = subprocess.Popen([str(c) for c in cmd], stdout=f, stderr=subprocess.STDOUT,
                                     env=full_env, cwd=cwd, start_new_session=True)
            except OSError as e:
                f.write(f"cannot start: {e}\n")
                return 127, 0.0, False
            try:
                rc, timed_out = p.wait(timeout=max(1.0, timeout)), False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                rc, timed_out = p.wait(), True
                f.write(f"\n*** killed after {timeout:.0f} s (suite time limit)\n")
        return rc, time.monotonic() - t, timed_out

    def log_text(self, log):
        try:
            return (self.logs / log).read_text(errors="replace")
        except OSError:
            return ""

    def parallel(self, jobs, fn, seconds):
        """fn(job, end) for every job on a pool; end is the step's deadline."""
        end = time.monotonic() + seconds
        with concurrent.futures.ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(lambda j: fn(j, end), jobs))

    # --- environment ---------------------------------------------------
    def probe(self):
        e = self.env
        e["date"] = time.strftime("%Y-%m-%d", time.gmtime())
        e["time"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        e["bundle"] = self.manifest
        py = [sys.executable, "-c",
              "import json; from gnuradio import gpudsp; "
              "print(json.dumps({'devices': gpudsp.devices(), 'cuda_built': "
              "gpudsp.built_with_cuda() if hasattr(gpudsp, 'built_with_cuda') else None}))"]
        rc, _, _ = self.run(py, "environment/import_gpudsp.log", 60)
        text = self.log_text("environment/import_gpudsp.log")
        try:
            info = json.loads(text.strip().splitlines()[-1])
            e["devices"] = info["devices"]
        except (ValueError, IndexError, KeyError):
            e["devices"] = []
            self.failures.append("the bundled Python could not import gnuradio.gpudsp "
                                 "(logs: environment/import_gpudsp.log)")
        smi = shutil.which("nvidia-smi")
        e["nvidia_smi"] = ""
        if smi:
            self.run([smi], "environment/nvidia-smi.log", 30)
            q = [smi, "--query-gpu=name,driver_version,memory.total,clocks.max.sm,"
                 "clocks.sm,clocks.mem,power.limit,temperature.gpu,pstate", "--format=csv"]
            self.run(q, "environment/nvidia-smi-query.log", 30)
            e["nvidia_smi"] = self.log_text("environment/nvidia-smi-query.log")
            m = re.search(r"CUDA Version: ([\d.]+)", self.log_text("environment/nvidia-smi.log"))
            e["driver_cuda"] = m.group(1) if m else ""
        nvcc = shutil.which("nvcc")
        if nvcc:
            self.run([nvcc, "--version"], "environment/nvcc.log", 30)
            m = re.search(r"release ([\d.]+)", self.log_text("environment/nvcc.log"))
            e["nvcc"] = m.group(1) if m else ""
        e["cuda"] = bool(e["devices"])
        e["gpu"] = e["devices"][0]["name"] if e["devices"] else ""
        e["cpu"], e["simd"] = cpu_description()
        e["cores"] = os.cpu_count()
        e["glibc"] = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else ""
        e["kernel"] = os.uname().release
        (self.logs / "environment" / "environment.json").write_text(json.dumps(e, indent=2))

    # --- steps ---------------------------------------------------------
    def test_programs(self, key, names, command, cwd, env):
        s = step(key)
        chosen = [n for n in names if self.selected(n)]
        if not chosen:
            s.status, s.note = "not selected", "--only matched none"
            return s
        t = time.monotonic()

        def one(name, end):
            log = f"{key}/{name}.log"
            rc, secs, timed_out = self.run(command(name), log, end - time.monotonic(),
                                           env=env, cwd=cwd)
            it = item(name, seconds=secs)
            text = self.log_text(log)
            if timed_out:
                it.status = "timeout"
                if key == "cpp":  # (Boost.Test's logs)
                    it.note = boost_progress(text)
            elif rc == 0:
                it.status = "passed"
                it.note = test_counts(text)
            elif rc == 77:
                it.status = NO_DEVICE if "no CUDA device" in text else "skipped"
            else:
                it.status = "failed"
                it.note = f"exit {rc}: " + failure_lines(text)
            return it

        s.items = self.parallel(chosen, one, self.budget(key))
        s.seconds = time.monotonic() - t
        s.settle()
        return s

    def step_cpp(self):
        d = self.root / "tests" / "cpp"
        # Each case's start, end and messages in the log: a binary killed at
        # the step's end still says which case held it and which finished
        # (the H200 run of 2026-11-28 lost all of qa_ddc_plan_cuda's).
        return self.test_programs("cpp", self.manifest["cpp_tests"],
                                  lambda n: [d / n, "--log_level=test_suite"], d, TEST_ENV)

    def step_python(self):
        d = self.root / "tests" / "python"
        env = dict(TEST_ENV, PYTHONPATH=str(d))
        return self.test_programs("python", self.manifest["python_tests"],
                                  lambda n: [sys.executable, "-B", d / (n + ".py")], d, env)

    def step_sanitizer(self):
        s = step("sanitizer")
        tests = [n for n in self.manifest["cpp_tests"] if self.selected(n)]
        if self.quick:
            s.status = "skipped (--quick)"
            return s
        if not self.env["cuda"]:
            s.status = NO_DEVICE
            return s
        if not tests:
            s.status = "not selected"
            return s
        tool = find_tool("compute-sanitizer")
        if not tool:
            s.status, s.note = "failed", "compute-sanitizer not found on this machine"
            return s
        t = time.monotonic()
        end = t + self.budget("sanitizer")
        d = self.root / "tests" / "cpp"
        # racecheck, by far the slowest tool (it ran past the step on three
        # tests in the first H100 run), runs each test's cases one by one, so
        # that the cases that fit the step report; those left when it ends
        # are "not run" (the step then fails as incomplete).
        tools = ["memcheck"] if self.focus else [k for k in SANITIZER_TOOLS if k != "racecheck"]
        jobs = [(k, n, "") for k in tools for n in tests]
        self.racecheck_tests = [] if self.focus else racecheck_choice(
            tests, self.manifest.get("changed_tests", tests), time.time())
        if self.focus:
            s.note = "--focus: memcheck only"
        else:
            s.note = ("racecheck: " + (", ".join(self.racecheck_tests) or "none") +
                      f" (changed since {self.manifest.get('changed_since', '?')}, and "
                      f"{RACECHECK_ROTATION} more in rotation)")
        jobs += [("racecheck", n, c) for n in self.racecheck_tests
                 for c in self.test_cases(d, n) or [""]]

        def one(job, end):
            kind, name, case = job
            label = f"{name}/{case}" if case else name  # (merge_cases splits it)
            if end - time.monotonic() < 5:
                return item(label, group=kind, status="not run", note=NO_TIME)
            log = sanitizer_log(kind, label)
            cmd = [tool, "--tool", kind, "--error-exitcode", str(SANITIZER_ERROR_RC),
                   "--print-limit", "20"]
            if kind == "memcheck":
                cmd += ["--leak-check", "full"]
            cmd += [d / name] + ([f"--run_test={case}"] if case else [])
            rc, secs, timed_out = self.run(cmd, log, end - time.monotonic(),
                                           env=SANITIZER_ENV, cwd=d)
            text = self.log_text(log)
            it = item(label, group=kind, seconds=secs)
            summaries = re.findall(r"ERROR SUMMARY: \d+ errors?", text)
            if timed_out:
                it.status = CUT
            elif rc == SANITIZER_ERROR_RC:
                it.status, it.note = "errors", (summaries[-1] if summaries else "errors reported")
            elif rc == 0:
                it.status = "clean"
            elif rc == 77:
                it.status = "skipped"
            else:
                it.status, it.note = "failed", f"the test failed under {kind} (exit {rc})"
            return it

        cases = self.parallel(jobs, one, end - time.monotonic())
        s.items = merge_cases(cases)
        s.seconds = time.monotonic() - t
        s.settle()
        with open(self.out / "sanitizer.log", "w") as f:
            for it in cases:
                f.write(f"===== {it.group} {it.name}: {it.status} ({it.seconds:.1f} s) "
                        f"{it.note}\n")
                f.write(self.log_text(sanitizer_log(it.group, it.name)))
                f.write("\n")
        return s

    def test_cases(self, d, name):
        """A Boost.Test executable's top-level cases; [] when it cannot list
        them (the test then runs whole)."""
        log = f"sanitizer/list-{name}.log"
        rc, _, timed_out = self.run([d / name, "--list_content"], log, 30, env=TEST_ENV, cwd=d)
        return [] if rc != 0 or timed_out else boost_cases(self.log_text(log))

    def step_tune(self):
        """gpudsp_tune over the chosen jobs' built-in shapes: every candidate
        of every CUDA plan timed on this GPU, its output checked; the table
        (tuning.json) comes back as the shipped table for this GPU, and the
        winners, in a cache of their own, serve the benchmark and the apps."""
        s = step("tune")
        tune = shutil.which("gpudsp_tune") or str(self.root / "bin" / "gpudsp_tune")
        # The X-engine last: its grid takes longest (its checks copy back
        # and compare every candidate's visibilities: ~45 s on an H200).
        names = self.chosen("tune", ["unpack10", "fengine", "ddc", "gnss", "ldpc", "xengine"])
        out = self.out / "tuning.json"
        if not names:
            s.status = "not selected"
            return s
        if not self.env["cuda"]:
            # It must still start (the bundle's libraries) and say so.
            rc, secs, _ = self.run([tune] + names + ["--json", out], "tune/gpudsp_tune.log", 60)
            text = self.log_text("tune/gpudsp_tune.log")
            s.seconds = secs
            s.status = NO_DEVICE if rc == 0 and "nothing to tune" in text else "failed"
            s.note = "" if s.status == NO_DEVICE else f"exit {rc}: " + failure_lines(text)
            return s
        t = time.monotonic()
        seconds = self.budget("tune")
        # Each problem's timing budget from the step's: the grid's problems
        # share it, with room for the plans' set-up and the output checks.
        rc, _, _ = self.run([tune] + names + ["--list"], "tune/list.log", 30)
        problems = max(1, len([l for l in self.log_text("tune/list.log").splitlines()
                               if ":" in l and not l.startswith("$")]))
        per = max(0.1, min(1.0, 0.4 * seconds / problems))
        shutil.rmtree(self.tuning_cache, ignore_errors=True)
        # One process a job, each writing its own table: a job cut at the
        # step's end loses only its own results (the first H200 run,
        # 2026-11-26, lost all six jobs' to one process killed in the
        # X-engine's grid).
        end = t + seconds
        self.tuning = {}
        ran = {}
        for name in names:
            left = end - time.monotonic()
            if left < 3:
                ran[name] = (None, 0.0, False)  # never started
                continue
            js = self.logs / "tune" / f"{name}.json"
            cmd = [tune, name, "--budget", f"{per:.2f}", "--cache-dir", self.tuning_cache,
                   "--json", js]
            ran[name] = self.run(cmd, f"tune/{name}.log", left)
            try:
                part = json.loads(js.read_text())
            except (OSError, ValueError):
                continue
            if not self.tuning:
                self.tuning = {k: v for k, v in part.items() if k != "status"}
                self.tuning.update(results=[], entries=[], seconds=0.0)
            if part.get("status") == "incomplete":
                self.tuning["status"] = "incomplete"
            for key in ("results", "entries"):
                self.tuning[key] += part.get(key, [])
            self.tuning["seconds"] += part.get("seconds", 0.0)
        if self.tuning and any(rc is None or cut for rc, _, cut in ran.values()):
            self.tuning["status"] = "incomplete"  # jobs missing or cut short
        if self.tuning:
            out.write_text(json.dumps(self.tuning, indent=1) + "\n")
        by_kernel = {}
        for r in self.tuning.get("results", []):
            by_kernel.setdefault(r["kernel"], []).append(r)
        timed_out = False
        for name in names:
            rs = by_kernel.get(name, [])
            rc, secs, cut = ran[name]
            timed_out |= cut or rc is None
            text = self.log_text(f"tune/{name}.log") if rc is not None else ""
            it = item(name, seconds=secs)
            errors = [r for r in rs if "error" in r]
            rejected = [f"{r['shape']}: {c['id']} {c['status']}" for r in rs
                        for c in r.get("candidates", [])
                        if c["status"].startswith(("rejected", "failed"))]
            if errors or rejected:
                # A candidate whose output differs from the heuristic's, or
                # that fails, is a defect to fix (correctness first).
                it.status = "failed"
                it.note = "; ".join([f"{r['shape']}: {r['error']}" for r in errors] +
                                    rejected)[:600]
            elif rc is None:
                it.status, it.note = "not run", NO_TIME
            elif cut:
                # gpudsp_tune rewrites its table after every problem: what
                # it finished before the cut is kept (and in tuning.json).
                it.status = CUT
                it.note = f"{len(rs)} shapes tuned before it"
            elif rc != 0 or not rs:
                # A crash part way leaves an incomplete table: never a pass.
                it.status = "failed"
                it.note = (f"exit {rc}: {len(rs)} shapes before it; " + failure_lines(text))
            else:
                moved = [r for r in rs if r.get("chosen") != r.get("heuristic")]
                it.status = "passed"
                it.note = (f"{len(rs)} shapes, {sum(r.get('saved', False) for r in rs)} saved;"
                           f" {len(moved)} choose other than the heuristic")
            s.items.append(it)
        if timed_out:
            s.note = (f"stopped after {time.monotonic() - t:.0f} s (step budget);"
                      " later jobs not tuned")
        # The benchmark and the apps run the tuned configurations (the
        # cache; a shape not tuned runs its heuristic).
        self.tuned_env = {"GPUDSP_AUTOTUNE": "cache", "GPUDSP_AUTOTUNE_DIR": str(self.tuning_cache)}
        s.seconds = time.monotonic() - t
        s.settle()
        return s

    def step_bench(self):
        s = step("bench")
        jobs = self.chosen("bench", list(BENCH))
        if not jobs:
            s.status = "not selected"
            return s
        t = time.monotonic()
        end = t + self.budget("bench")
        bench = shutil.which("gpudsp_bench") or str(self.root / "bin" / "gpudsp_bench")
        cuda = self.env["cuda"]
        for job in jobs:
            js = self.logs / "bench" / f"{job}.json"
            js.parent.mkdir(parents=True, exist_ok=True)
            args = BENCH[job][0] if cuda else BENCH[job][1]
            cmd = [bench, job.split("-")[0]] + args + ["--json", js]
            left = end - time.monotonic()
            if left < 5:
                s.items.append(item(job, status="not run", note=NO_TIME))
                continue
            rc, secs, timed_out = self.run(cmd, f"bench/{job}.log", left, env=self.tuned_env)
            it = item(job, seconds=secs)
            data = {}
            if js.exists():
                try:
                    data = json.loads(js.read_text())
                except ValueError:
                    pass
            if timed_out:
                it.status = CUT
            elif rc != 0 or not data:
                it.status, it.note = "failed", f"exit {rc}: " + failure_lines(
                    self.log_text(f"bench/{job}.log"))
            else:
                it.status = "passed"
                gpu_rows = [r for r in data["rows"] if r["backend"] not in ("cpu", "gr-cpu")
                            and not r["backend"].startswith("volk")]
                it.note = f"{len(data['rows'])} rows ({len(gpu_rows)} GPU)"
                if not cuda:
                    it.note += "; GPU rows: " + NO_DEVICE
            self.bench[job] = {"command": " ".join(str(c) for c in cmd[:-2]), "exit": rc,
                               "seconds": round(secs, 2), **data}
            for r in data.get("rows", []):
                self.bench_rows.append(r)
            s.items.append(it)
        s.seconds = time.monotonic() - t
        s.settle()
        if not cuda and s.status == "passed":
            s.note = "CPU rows only (small sizes): " + NO_DEVICE
        return s

    def step_apps(self):
        s = step("apps")
        cuda = self.env["cuda"]
        apps = APPS_GPU if cuda else APPS_CPU
        if self.focus:
            s.status = "not selected"
            s.note = "--focus runs tests, sweep, rows and profile"
            return s
        chosen = self.chosen("apps", list(apps))
        if not chosen:
            s.status = "not selected"
            return s
        t = time.monotonic()
        end = t + self.budget("apps")
        for name in chosen:
            out = self.logs / "apps" / name
            cmd = [sys.executable, self.root / "bin" / apps[name][0]] + apps[name][1:]
            cmd += ["--output", out]
            if end - time.monotonic() < 5:
                s.items.append(item(name, status="not run", note=NO_TIME))
                continue
            if name == "ldpc_bler" and cuda:
                it = self.ldpc_gpu_vs_cpu(cmd, out, end)
            else:
                rc, secs, timed_out = self.run(cmd, f"apps/{name}.log", end - time.monotonic(),
                                               env=self.tuned_env)
                it = item(name, seconds=secs)
                text = self.log_text(f"apps/{name}.log")
                it.status = CUT if timed_out else "passed" if rc == 0 else "failed"
                it.note = app_figures(name, text) if rc == 0 else f"exit {rc}: " + \
                    failure_lines(text)
                it.note = ("cuda: " if cuda else "cpu (small): ") + it.note
            s.items.append(it)
        s.seconds = time.monotonic() - t
        s.settle()
        if not cuda and s.status == "passed":
            s.note = "CPU backend, small: GPU backend " + NO_DEVICE
        return s

    def ldpc_gpu_vs_cpu(self, cmd, out, end):
        """One BLER point on the GPU and on the CPU, same seed: the fixed-point
        decoders are bit-exact, so the two result files must be identical."""
        it = item("ldpc_bler")
        runs = {}
        for backend in ("cuda", "cpu"):
            c = [str(x) for x in cmd]
            c[c.index("--output") + 1] = str(out / backend)
            c += ["--backend", backend]
            rc, secs, timed_out = self.run(c, f"apps/ldpc_bler_{backend}.log",
                                           end - time.monotonic(), env=self.tuned_env)
            it.seconds += secs
            csv_path = out / backend / "bler.csv"
            runs[backend] = (rc, timed_out, csv_path.read_text() if csv_path.exists() else "")
        if any(r[1] for r in runs.values()):
            it.status = CUT
        elif any(r[0] != 0 for r in runs.values()):
            it.status, it.note = "failed", "exit " + ", ".join(
                f"{b} {r[0]}" for b, r in runs.items())
        elif runs["cuda"][2] != runs["cpu"][2] or not runs["cuda"][2]:
            last = {b: (r[2].strip().splitlines() or ["(no result)"])[-1] for b, r in runs.items()}
            it.status = "failed"
            it.note = f"GPU and CPU differ: cuda {last['cuda']} / cpu {last['cpu']}"
        else:
            last = runs["cuda"][2].strip().splitlines()[-1].split(",")
            it.status = "passed"
            it.note = (f"Eb/N0 {last[0]} dB: {last[1]} blocks, BLER {float(last[2]):.3e}, "
                       f"identical on GPU and CPU (fixed point)")
        return it

    def step_ncu(self):
        s = step("ncu")
        missed = {r["job"] for r in self.bench_rows
                  for _, met in targets.evaluate(r, self.bench_rows) if met is False}
        jobs = ncu_order([j for j in self.chosen("bench", list(NCU)) if j in missed],
                         self.manifest.get("last_profiled", {}),
                         self.manifest.get("changed_kernel_jobs", []))
        if self.quick:
            s.status = "skipped (--quick)"
            return s
        if not self.env["cuda"]:
            s.status = NO_DEVICE
            return s
        if not jobs:
            s.status = "passed" if self.bench_rows else "not selected"
            s.note = ("no row missed its target: nothing to profile" if self.bench_rows
                      else "no benchmark rows")
            return s
        s.note = "jobs with a missed target: " + ", ".join(jobs)
        ncu = find_tool("ncu")
        if not ncu:
            s.status, s.note = "failed", "ncu not found on this machine"
            return s
        t = time.monotonic()
        end = t + self.budget("ncu")
        bench = shutil.which("gpudsp_bench") or str(self.root / "bin" / "gpudsp_bench")
        for job in jobs:
            if end - time.monotonic() < 5:
                s.items.append(item(job, status="not run", note=NO_TIME))
                continue
            rep = self.logs / "ncu" / job
            rep.parent.mkdir(parents=True, exist_ok=True)

            def profile(metrics):
                cmd = [ncu, "--clock-control", "none", "--target-processes", "all",
                       "--kernel-name-base", "demangled", "--kernel-name", "regex:gpudsp",
                       "--launch-count", "40", "--metrics", ",".join(metrics), "--export",
                       rep, "--force-overwrite", bench, job] + NCU[job]
                return self.run(cmd, f"ncu/{job}.log", end - time.monotonic(),
                                env=self.tuned_env)

            rc, secs, timed_out = profile(NCU_METRICS + NCU_DETAIL)
            detail = True
            if not timed_out and unknown_metric(self.log_text(f"ncu/{job}.log")):
                detail = False
                if end - time.monotonic() < 5:
                    timed_out = True  # (no time left to profile it again)
                else:
                    rc, more, timed_out = profile(NCU_METRICS)
                    secs += more
            it = item(job, seconds=secs)
            rows, unreadable = [], ""
            if not timed_out and Path(str(rep) + ".ncu-rep").exists():
                self.run([ncu, "--import", str(rep) + ".ncu-rep", "--csv", "--page", "raw"],
                         f"ncu/{job}.csv", 60)
                try:
                    rows = ncu_rows(job, self.log_text(f"ncu/{job}.csv"))
                except ValueError as e:
                    unreadable = str(e)
            if timed_out:
                it.status = CUT
            elif unreadable:
                it.status, it.note = "failed", unreadable
            elif not rows:
                it.status, it.note = "failed", f"exit {rc}: no kernel profiled; " + \
                    failure_lines(self.log_text(f"ncu/{job}.log"))
            else:
                it.status = "passed"
                hot = next(r for r in rows if r["hottest"])
                it.note = f"hottest: {hot['kernel']}" + (
                    f"; stalls: {hot['stalls']}" if hot.get("stalls") else "")
                if not detail:
                    it.note += "; without stall reasons (this ncu lacks one of NCU_DETAIL)"
            self.ncu_rows += rows
            s.items.append(it)
        s.seconds = time.monotonic() - t
        s.settle()
        return s

    # --- the whole run -------------------------------------------------
    def execute(self):
        self.probe()
        kind = ("focus " + ",".join(self.focus) if self.focus else
                "quick" if self.quick else "full")
        print(f"gr-gpudsp GPU suite: {self.env['gpu'] or NO_DEVICE}; bundle "
              f"{self.manifest['commit']}; {kind} run", flush=True)
        for key, fn in [("cpp", self.step_cpp), ("python", self.step_python),
                        ("tune", self.step_tune), ("bench", self.step_bench),
                        ("apps", self.step_apps), ("sanitizer", self.step_sanitizer),
                        ("ncu", self.step_ncu)]:
            print(f"== {STEP_TITLES[key]} ...", flush=True)
            try:
                s = fn()
            except Exception as e:  # a broken step must not hide the others
                s = step(key, status="failed", note=f"runner error: {e!r}")
            self.steps.append(s)
            print(f"   {s.status} ({s.seconds:.0f} s) {s.note}", flush=True)
            for it in s.items:
                if it.status not in ("passed", "clean", NO_DEVICE, "skipped"):
                    print(f"   - {it.group + ' ' if it.group else ''}{it.name}: {it.status} "
                          f"{it.note[:200]}", flush=True)
        self.env["seconds"] = round(time.monotonic() - self.t0, 1)
        self.write_outputs()
        failed = self.failures or any(s.status == "failed" for s in self.steps)
        print(report.console_summary(self), flush=True)
        return 1 if failed else 0

    def write_outputs(self):
        if not (self.out / "tuning.json").exists():
            status = next((s.status for s in self.steps if s.key == "tune"), "not run")
            (self.out / "tuning.json").write_text(json.dumps(
                {"schema": 1, "device": None, "entries": [], "results": [],
                 "status": status}) + "\n")
        (self.out / "bench.json").write_text(json.dumps(
            {"date": self.env["time"], "gpu": self.env["gpu"], "cpu": self.env["cpu"],
             "simd": self.env["simd"], "commit": self.manifest["commit"],
             "jobs": self.bench}, indent=2) + "\n")
        if not (self.out / "sanitizer.log").exists():
            status = next(s.status for s in self.steps if s.key == "sanitizer")
            (self.out / "sanitizer.log").write_text(f"compute-sanitizer: {status}\n")
        with open(self.out / "ncu.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=NCU_COLUMNS)
            w.writeheader()
            for r in self.ncu_rows:
                w.writerow(r)
        (self.out / "summary.md").write_text(report.summary(self))
        shutil.copy2(self.out / "summary.md", self.logs / "summary.md")
        with tarfile.open(self.out / "logs.tar.xz", "w:xz") as tar:
            for p in sorted(self.logs.rglob("*")):
                if p.is_file():
                    data = p.read_bytes()
                    if len(data) > 4 << 20:  # keep the archive small: head and tail
                        data = data[:2 << 20] + b"\n[... cut ...]\n" + data[-(2 << 20):]
                    info = tarfile.TarInfo("logs/" + str(p.relative_to(self.logs)))
                    info.size = len(data)
                    info.mtime = int(time.time())
                    tar.addfile(info, io.BytesIO(data))


NCU_COLUMNS = ["job", "kernel", "launches", "total_us", "median_us", "dram_gbps",
               "dram_pct_peak", "sm_pct_peak", "achieved_occupancy_pct",
               "theoretical_occupancy_pct", "registers", "block", "grid", "issue_pct",
               "warp_inst", "stalls", "hottest"]

# ncu's raw CSV gives one unit per column, scaled to its values and spelt
# long ("msecond", "Mbyte") or, in newer versions, short ("ms", "MB"):
# microseconds and bytes here. An unknown unit is an error, never a guess
# (the first H100 run read an LDPC column in "ms" as microseconds).
UNITS = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6,
         "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6,
         "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
         "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def racecheck_choice(tests, changed, now):
    """racecheck's tests for a run at time \p now (seconds): those whose job
    changed since the last GPU run, and RACECHECK_ROTATION of the others,
    taken in turn by the day, so that every test comes round."""
    rest = [t for t in tests if t not in changed]
    picked = [t for t in tests if t in changed]
    if rest:
        day = int(now // 86400)
        start = (day * RACECHECK_ROTATION) % len(rest)
        for k in range(min(RACECHECK_ROTATION, len(rest))):
            picked.append(rest[(start + k) % len(rest)])
    return picked


def boost_cases(listing):
    """The enabled top-level entries of a Boost.Test --list_content listing
    ("name*" or "name*: description"; children indented; disabled ones
    without the star), each runnable with --run_test=name."""
    return [m.group(1) for m in re.finditer(r"^(\w+)\*(?::.*)?$", listing, re.M)]


def sanitizer_log(tool, label):
    """The log of one sanitizer run: a whole test or "test/case"."""
    return f"sanitizer/{tool}-{label.replace('/', '-')}.log"


def merge_cases(items):
    """One sanitizer item per tool and test from items of single cases
    ("test/case"): errors or a failure if any case has them, else a timeout
    if any case ran out of time (the note says how many came through clean),
    else clean (or skipped when every case skipped)."""
    merged = {}  # (insertion order: the jobs')
    for it in items:
        name, _, case = it.name.partition("/")
        merged.setdefault((it.group, name), []).append((case, it))
    out = []
    for key, parts in merged.items():
        if len(parts) == 1 and not parts[0][0]:
            out.append(parts[0][1])
            continue
        its = [i for _, i in parts]
        m = item(key[1], group=key[0], seconds=sum(i.seconds for i in its))
        worst = next((st for st in ("errors", "failed", "timeout", CUT, "not run")
                      if any(i.status == st for i in its)), None)
        clean = sum(i.status == "clean" for i in its)
        if worst:
            bad = [c for c, i in parts if i.status == worst]
            m.status = worst
            m.note = (f"{clean} of {len(its)} cases clean; {worst}: " + ", ".join(bad[:4]) +
                      (" ..." if len(bad) > 4 else ""))
        elif clean:
            m.status, m.note = "clean", f"{len(its)} cases one by one"
        else:
            m.status = "skipped"
        out.append(m)
    return out


def ncu_rows(job, text):
    """Per kernel of one job, from ncu's raw CSV page: medians over its
    profiled launches; the kernel with the most total time is the hottest."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if len(lines) < 3:
        return []
    table = list(csv.reader(lines))
    head, units, data = table[0], table[1], table[2:]
    col = {name: i for i, name in enumerate(head)}

    def value(r, metric, scale_to=None):
        i = col.get(metric)
        if i is None or i >= len(r):
            return None
        try:
            v = float(r[i].replace(",", ""))
        except ValueError:
            return None
        if not scale_to:
            return v
        if units[i] not in UNITS:
            raise ValueError(f"ncu reports {metric} in {units[i]!r}, a unit this "
                             "script does not know (UNITS in runner.py)")
        return v * UNITS[units[i]]

    kernels = {}
    for r in data:
        name = r[col["Kernel Name"]] if "Kernel Name" in col else "?"
        kernels.setdefault(short_kernel_name(name), []).append(r)
    rows = []
    for name, rs in kernels.items():
        def med(metric, scaled=False):
            vals = [v for v in (value(r, metric, scaled) for r in rs) if v is not None]
            return statistics.median(vals) if vals else None

        durations = [value(r, "gpu__time_duration.sum", True) or 0 for r in rs]
        byts = [value(r, "dram__bytes.sum", True) or 0 for r in rs]
        total = sum(durations)
        rows.append({
            "job": job, "kernel": name, "launches": len(rs), "total_us": round(total, 2),
            "median_us": round(statistics.median(durations), 2),
            "dram_gbps": round(sum(byts) / total * 1e-3, 1) if total else None,
            "dram_pct_peak": fmt(med("dram__throughput.avg.pct_of_peak_sustained_elapsed")),
            "sm_pct_peak": fmt(med("sm__throughput.avg.pct_of_peak_sustained_elapsed")),
            "achieved_occupancy_pct": fmt(med("sm__warps_active.avg.pct_of_peak_sustained_active")),
            "theoretical_occupancy_pct": fmt(med("sm__maximum_warps_per_active_cycle_pct")),
            "registers": fmt(med("launch__registers_per_thread"), 0),
            "block": fmt(med("launch__block_size"), 0),
            "grid": fmt(med("launch__grid_size"), 0),
            "issue_pct": fmt(med("smsp__issue_active.avg.pct_of_peak_sustained_active")),
            "warp_inst": fmt(med("smsp__inst_executed.sum"), 0),
            "stalls": top_stalls(med),
            "hottest": False,
        })
    if rows:
        max(rows, key=lambda r: r["total_us"])["hottest"] = True
    return sorted(rows, key=lambda r: -r["total_us"])


def top_stalls(med, count=3):
    """The reasons most warps wait on, per issue cycle (ncu's ratio: warps
    stalled on the reason each cycle an instruction issues), e.g.
    "long_scoreboard 4.1, barrier 1.2, mio_throttle 0.8"; empty when the
    profile has none."""
    got = [(r, med(f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"))
           for r in NCU_STALLS]
    got = sorted(((v, r) for r, v in got if v is not None), reverse=True)[:count]
    return ", ".join(f"{r} {v:.2f}" for v, r in got)


def unknown_metric(log):
    """Whether ncu refused a metric name (its versions differ in them)."""
    return bool(re.search(r"failed to find metric|invalid metric|unknown metric"
                          r"|metric \S+ (?:was )?not found", log, re.IGNORECASE))


def fmt(v, digits=1):
    return None if v is None else round(v, digits) if digits else int(v)


def find_tool(name):
    found = shutil.which(name)
    if found:
        return found
    for pattern in (f"/usr/local/cuda/bin/{name}", f"/usr/local/cuda*/bin/{name}",
                    f"/opt/nvidia/nsight-compute/*/{name}", f"/usr/local/cuda/*/{name}"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def cpu_description():
    """CPU model and its widest SIMD level, for every CPU figure."""
    model, flags = "unknown CPU", set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    simd = ("AVX-512" if {"avx512f", "avx512bw", "avx512vl"} <= flags else
            "AVX2" if "avx2" in flags else "SSE4.2" if "sse4_2" in flags else "baseline x86-64")
    return model, simd


# Boost.Test's --log_level=test_suite lines (the case names may hold
# "error" or "fail": never failure lines themselves).
BOOST_PROGRESS = re.compile(r'(Entering|Leaving) test (case|module|suite) "([^"]*)"')


def boost_progress(text):
    """Where a Boost.Test binary killed part way was: the case it was in
    (with its last message) and the cases it had finished."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # (Boost's colours)
    finished, running, last = [], None, ""
    for line in text.splitlines():
        m = BOOST_PROGRESS.search(line)
        if m and m.group(2) == "case":
            if m.group(1) == "Entering":
                running, last = m.group(3), ""
            else:
                finished.append(m.group(3))
                running = None
        elif running and line.strip() and not line.startswith("*** "):
            last = line.strip()
    failed = len(re.findall(r"error: in \"", text))
    note = f"killed in {running}" if running else "killed between cases"
    if running and last:
        note += f" (its last line: {last[:160]})"
    note += f"; {len(finished)} cases finished before it"
    if failed:
        note += f", {failed} errors reported"
    return note


def ncu_order(jobs, last_profiled, changed=()):
    """The jobs to profile: those whose own kernels changed since the last
    GPU run first (a profile checks what the change predicted), then those
    longest without a profile in docs/gpu-runs/ (never: first of all), else
    in their given order: the step rarely reaches past its second job, and
    in name order unpack10 took it three runs in four while the DDC's and
    LDPC's current kernels had never been profiled."""
    return sorted(jobs, key=lambda j: (j not in changed, last_profiled.get(j, "")))


def test_counts(text):
    m = re.search(r"Ran (\d+) tests?", text)
    if m:
        return f"{m.group(1)} tests"
    m = re.search(r"\*\*\* No errors detected", text)
    return "no errors" if m else ""


def failure_lines(text, limit=6):
    """The lines that say what failed (Boost.Test, unittest, exceptions)."""
    keep = [l.strip() for l in text.splitlines()
            if re.search(r"error|fail|Error|FAIL|Traceback|what\(\)|exception|not found", l)
            and not l.startswith("$ ") and not BOOST_PROGRESS.search(l)]
    return " | ".join(keep[:limit])[:600] or text.strip()[-300:]


def app_figures(name, text):
    pats = {"fx_correlator": r"(Ran on .*|real-time factor.*|.*checks? (passed|failed).*)",
            "gnss_track": r"(correlator on .*|.*within the bounds.*)",
            "ldpc_bler": r"(min-sum reaches.*|^ *\d+\.\d+ +\d+ .*)"}
    pats["gnss_track_l5"] = pats["gnss_track"]  # the same app, L5 band
    found = [m.group(0).strip() for m in re.finditer(pats.get(name, "$^"), text, re.M)]
    return "; ".join(found[-4:])[:500]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, help="the unpacked bundle")
    ap.add_argument("--out", required=True, help="folder for the five result files")
    ap.add_argument("--quick", action="store_true", help="skip compute-sanitizer and ncu")
    ap.add_argument("--only", help="regular expression: run only the tests, benchmark jobs "
                    "and apps whose names it matches")
    ap.add_argument("--focus", help="JOB[,JOB]: those jobs' tests, tuning sweep, benchmark "
                    "rows, memcheck and profile, for the re-run after a fix (jobs: " +
                    ", ".join(gpu_jobs.JOBS) + ")")
    ap.add_argument("--budget", type=float, default=None,
                    help=f"seconds for the whole run ({DEFAULT_BUDGET:.0f}; "
                    f"{FOCUS_BUDGET:.0f} with --focus)")
    a = ap.parse_args()
    try:
        s = suite(a)
    except ValueError as e:
        ap.error(str(e))
    sys.exit(s.execute())


if __name__ == "__main__":
    main()
