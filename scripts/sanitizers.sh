#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The module built with AddressSanitizer and UndefinedBehaviorSanitizer (CPU
# paths and the emulated device; no CUDA), running the C++ qa tests (leak
# checks on) and the Python qa tests (the sanitizer runtime preloaded into
# the interpreter; leak checks off, as the interpreter's own allocations
# at exit are not ours). Any report fails. scripts/quickstart.sh test runs
# it after the main suite; alone:
#
#   scripts/sanitizers.sh [BUILD_DIR]      (default build-sanitizers/)
set -euo pipefail
# Each step with the time it starts (CI logs show where the minutes go).
say() { echo "== $(date -u +%H:%M:%S) $*"; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-sanitizers}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# -O1 -g1 (ASan's advice: line tables are all a report needs): half the
# compile time of RelWithDebInfo's -O2 -g, whose -g also overrode a -g1 in
# the flags above (CI built for 27 minutes on 2 cores, 2026-11-28).
opt="-O1 -g1 -DNDEBUG"

say "sanitizers: building $build (CPU and emulated device, ASan + UBSan)"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_CUDA=OFF \
    -DPYTHON_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" > "$build/configure.log" 2>&1 \
    || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$build/build.log" 2>&1 \
    || { tail -40 "$build/build.log"; exit 1; }

# Every report is fatal; UBSan prints where.
common="halt_on_error=1:abort_on_error=0:exitcode=66"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=66"
cd "$build"
status=0
say "sanitizers: C++ qa tests"
ASAN_OPTIONS="$common:detect_leaks=1" ctest -j "$(nproc)" -L cpp -LE gpu --output-on-failure || status=1
say "sanitizers: Python qa tests"
# libstdc++ preloaded too: ASan intercepts C++ throws only if it is there
# when the runtime starts (the interpreter itself does not link it).
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
ASAN_OPTIONS="$common:detect_leaks=0" LD_PRELOAD="$preload" \
    ctest -j "$(nproc)" -L python -LE gpu --output-on-failure || status=1
if ((status)); then
    say "sanitizers: FAILED (a test failed or a sanitizer reported)"
else
    say "sanitizers: no reports"
fi
exit $status
