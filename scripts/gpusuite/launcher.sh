#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# gr-gpudsp GPU suite, packed by `scripts/gpu-suite.sh pack`. On the GPU
# machine, from the checkout root:
#
#   DIR/run [--quick] [--focus JOB[,JOB]] [--only PATTERN] [--budget SECONDS]
#
# unpacks the archive beside this script once (into DIR/root), then runs the
# suite with the bundled Python and libraries and this machine's CUDA and
# driver: 6 minutes by default, 3 with --focus. Results go to $OUT when it is
# set, else to DIR/out: summary.md, tuning.json, bench.json, sanitizer.log,
# ncu.csv, logs.tar.xz. Exit status 0 when nothing failed (skipped steps do
# not fail). docs/gpu.md explains it all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
archive=$here/gpusuite.tar.xz
root=$here/root
[ -f "$archive" ] || { echo "run: $archive is missing (pack again)" >&2; exit 2; }

# Built on Debian 12: the bundle's programs need this glibc or newer.
glibc_needed=@GLIBC_NEEDED@
glibc_here=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$glibc_here" ] &&
   [ "$(printf '%s\n%s\n' "$glibc_needed" "$glibc_here" | sort -V | head -1)" != "$glibc_needed" ]; then
    echo "run: this bundle needs glibc >= $glibc_needed; this machine has $glibc_here" >&2
    exit 2
fi

stamp=$(cksum < "$archive")
if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "run: unpacking $(du -h "$archive" | cut -f1) into $root"
    rm -rf "$root" && mkdir -p "$root"
    if ! tar -C "$root" -xJf "$archive" 2>/dev/null; then
        # No xz program: any Python 3 unpacks it.
        python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" \
            "$archive" "$root" || { echo "run: cannot unpack $archive" >&2; exit 2; }
    fi
    echo "$stamp" > "$root/.stamp"
fi

# CUDA libraries (cuFFT, cuBLAS, the runtime for the benchmark) come from
# this machine: its toolkit, or the nvidia-* wheels of its Python.
cuda_libs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib; do
    [ -d "$d" ] && cuda_libs="$cuda_libs:$d"
done
if command -v python3 >/dev/null 2>&1; then
    pip_libs=$(python3 - 2>/dev/null <<'PY'
import glob, os, site
roots = site.getsitepackages()
print(':'.join(sorted({os.path.dirname(p) for r in roots
                       for p in glob.glob(r + '/nvidia/*/lib/lib*.so*')})))
PY
)
    [ -n "$pip_libs" ] && cuda_libs="$cuda_libs:$pip_libs"
fi
export LD_LIBRARY_PATH="$root/lib$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$root/bin:/usr/local/cuda/bin:$PATH"
export PYTHONHOME="$root/python" PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export GPUDSP_DATA_DIR="$root/share/gr-gpudsp"
export GR_DONT_LOAD_PREFS=1 GR_CONF_CONTROLPORT_ON=False
# GNU Radio 3.10 reads its logger settings from /etc/gnuradio/conf.d (even
# with GR_DONT_LOAD_PREFS), which the GPU machine lacks: without these its
# logger writes nothing, and tests that check logged errors fail.
export GR_CONF_LOG_LOG_LEVEL=info GR_CONF_LOG_LOG_FILE=stderr
exec "$root/python/bin/python3.11" "$root/suite/runner.py" --root "$root" \
    --out "${OUT:-$here/out}" "$@"
