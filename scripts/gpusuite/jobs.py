#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The GPU suite's jobs: which tests, benchmark jobs, tuner jobs, apps and
source folders belong to each. The runner's --focus runs one job's share;
pack.py marks the tests whose job's sources changed since the last GPU run
(racecheck runs those, and rotates through the others)."""

import re

JOBS = {
    "unpack10": dict(tests=r"unpack10", bench=["unpack10"], tune=["unpack10"], apps=[],
                     sources=["lib/kernels/unpack10/", "lib/unpack10_impl"]),
    "fengine": dict(tests=r"fengine", bench=["fengine"], tune=["fengine"], apps=[],
                    sources=["lib/kernels/fengine/", "lib/pfb_fengine_impl"]),
    "xengine": dict(tests=r"xengine", bench=["xengine"], tune=["xengine"], apps=[],
                    sources=["lib/kernels/xengine/", "lib/xengine_impl"]),
    "fx": dict(tests=r"fx_", bench=["fx", "fx-flowgraph"], tune=["fengine", "xengine"],
               apps=["fx_correlator"], sources=["apps/bench/bench_fx", "python/gpudsp/fx"]),
    "ddc": dict(tests=r"ddc", bench=["ddc"], tune=["ddc"], apps=[],
                sources=["lib/kernels/ddc/", "lib/ddc_impl"]),
    "gnss": dict(tests=r"gnss|wipeoff", bench=["gnss"], tune=["gnss"],
                 apps=["gnss_track", "gnss_track_l5"],
                 sources=["lib/kernels/gnss/", "lib/wipeoff_correlator_impl"]),
    "ldpc": dict(tests=r"ldpc", bench=["ldpc"], tune=["ldpc"], apps=["ldpc_bler"],
                 sources=["lib/kernels/ldpc/", "lib/ldpc5g_impl"]),
    "buffer": dict(tests=r"device_buffer|device_copy|steady_state|teardown|rerun|qa_runtime",
                   bench=["buffer"], tune=[], apps=[],
                   sources=["lib/runtime/", "lib/device_copy_impl",
                            "include/gnuradio/gpudsp/runtime/"]),
}


def parse_focus(text):
    """"xengine,ddc" -> ["xengine", "ddc"]; ValueError naming an unknown job."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in JOBS]
    if unknown or not names:
        raise ValueError(f"--focus: unknown job(s) {', '.join(unknown) or '(none)'}; "
                         f"jobs: {', '.join(JOBS)}")
    return names


def test_pattern(names):
    """A regular expression matching the tests of the named jobs."""
    return "|".join(f"(?:{JOBS[n]['tests']})" for n in names)


def jobs_of_files(paths):
    """The jobs whose sources a list of changed files touches; a change
    outside every job's sources under lib/ or include/ (shared code, the
    build) touches them all."""
    touched = set()
    for p in paths:
        owners = [n for n, j in JOBS.items() if any(p.startswith(s) for s in j["sources"])]
        if owners:
            touched.update(owners)
        elif p.startswith(("lib/", "include/")) or p.endswith("CMakeLists.txt"):
            return set(JOBS)
    return touched


def own_jobs_of_files(paths):
    """The jobs whose own sources (not shared code) a list of changed files
    touches: the kernels a profile should look at first."""
    return {n for n, j in JOBS.items()
            for p in paths if any(p.startswith(s) for s in j["sources"])}


def tests_of_jobs(tests, names):
    """The tests (names) belonging to any of the named jobs."""
    if not names:
        return []
    pattern = re.compile(test_pattern(sorted(names)))
    return [t for t in tests if pattern.search(t)]
