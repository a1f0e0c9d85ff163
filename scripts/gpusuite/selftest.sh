#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The GPU suite's own test (ctest gpu_suite_bundle), so the bundle cannot rot
# between GPU runs: packs BUILD into BUILD/gpusuite-selftest, then runs it
# --quick as on a GPU machine without a GPU: a clean environment (env -i),
# CUDA devices hidden (CUDA_VISIBLE_DEVICES=""), and, where this runs as root
# with unshare(1), the system's GNU Radio, Boost, VOLK, FFTW, spdlog and
# Python 3.11 hidden behind empty files, as they are absent there. Passes when
# the bundled interpreter imports gnuradio.gpudsp, every test program starts
# and reports "no CUDA device", and the benchmark's CPU rows and the apps'
# small CPU runs succeed.
#
#   scripts/gpusuite/selftest.sh BUILD
set -euo pipefail
build=$(cd "${1:?usage: selftest.sh BUILD}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$build/gpusuite-selftest
results=$dir/results

"$root/scripts/gpu-suite.sh" pack "$dir" --build-dir "$build"

# What a GPU machine lacks (the same list as the project's as-gpu-machine).
hide='
empty=$(mktemp -d)
for d in /usr/lib/python3/dist-packages /usr/lib/python3.11 /usr/local/lib/python3.11 \
         /usr/share/gnuradio /usr/include/gnuradio /usr/include/boost /usr/include/volk; do
  [ -d "$d" ] && mount --bind "$empty" "$d"
done
for f in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/lib{gnuradio-,volk,boost_,fftw3,spdlog,fmt,log4cpp,gmp,python3.11,zmq,uhd,thrift}*.so*; do
  [ -f "$f" ] && mount --bind /dev/null "$f"
done
exec "$@"'
clean=(env -i HOME="${HOME:-/root}" PATH=/usr/bin:/bin OUT="$results" CUDA_VISIBLE_DEVICES=)
if [[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null; then
    echo "selftest: GNU Radio, Boost, VOLK and the system Python hidden (mount namespace)"
    cmd=(unshare -m bash -c "$hide" hide "${clean[@]}" "$dir/run" --quick)
else
    echo "selftest: not root or no unshare: clean environment only (env -i)"
    cmd=("${clean[@]}" "$dir/run" --quick)
fi
status=0
"${cmd[@]}" || status=$?

summary=$results/summary.md
fail() { echo "selftest FAILED: $*"; [[ -f "$summary" ]] && cat "$summary"; exit 1; }
[[ -f "$summary" ]] || fail "no summary.md"
for f in tuning.json bench.json sanitizer.log ncu.csv logs.tar.xz; do
    [[ -f "$results/$f" ]] || fail "no $f"
done
((status == 0)) || fail "run exited $status"
grep -q '^\*\*PASSED\*\*' "$summary" || fail "the summary does not say PASSED"
grep -q '^| C++ GPU tests | no CUDA device |' "$summary" || fail "C++ tests not run as skipped"
grep -q '^| Python CUDA qa tests | no CUDA device |' "$summary" || fail "Python tests not run as skipped"
grep -q '^| gpudsp_tune sweep | no CUDA device |' "$summary" || fail "gpudsp_tune did not start"
grep -q '^| gpudsp_bench | passed |' "$summary" || fail "the benchmark's CPU rows failed"
grep -q '^| apps on the GPU backend | passed |' "$summary" || fail "the apps' CPU runs failed"
size=$(du -sm "$dir/gpusuite.tar.xz" | cut -f1)
echo "selftest passed: bundle $size MiB, $(grep -c '^| qa_' "$summary") test programs started"
