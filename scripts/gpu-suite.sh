#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# gr-gpudsp GPU suite: everything that needs a GPU, packed here (a
# development machine with GNU Radio and the CUDA toolkit, no GPU needed)
# and run on a GPU machine (CUDA 13 and a driver; no GNU Radio needed) in
# one command. docs/gpu.md has the details.
#
#   scripts/gpu-suite.sh pack [DIR] [--arch LIST] [--build-dir BUILD]
#       Builds (or reuses) a Release tree with the CUDA backend and writes DIR
#       (default .gpusuite/, git-ignored): gpusuite.tar.xz and the launcher
#       DIR/run, at most 60 MiB together.
#       --arch LIST      CUDA architectures, e.g. "80;90" (default 90). A tree
#                        is reused when it was built for all of them: the
#                        quick-start build/ (or $GPUDSP_BUILD_DIR), else
#                        build-gpusuite/ is configured.
#       --build-dir B    use this configured tree as it is (only built).
#
# On the GPU machine, from the checkout root (DIR carried along):
#   DIR/run [--quick] [--only PATTERN] [--budget SECONDS]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n 7,24p "$0"; exit 2; }
[[ "${1:-}" == pack ]] || usage
shift
out=$root/.gpusuite
arch=90
build=""
while (($#)); do
    case "$1" in
    --arch) arch=$2; shift 2 ;;
    --build-dir) build=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) usage ;;
    -*) echo "gpu-suite: unknown option $1" >&2; usage ;;
    *) out=$(realpath -m "$1"); shift ;;
    esac
done

nvcc=$(command -v nvcc || true)
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
[[ -n "$nvcc" ]] || { echo "gpu-suite: the CUDA toolkit (nvcc) is needed to pack" >&2; exit 1; }

# A tree fit to reuse: CUDA on, Release, built for every requested architecture.
fits() {
    local cache=$1/CMakeCache.txt have
    [[ -f "$cache" ]] || return 1
    grep -q '^ENABLE_CUDA:BOOL=ON$' "$cache" || return 1
    grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$cache" || return 1
    have=";$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache");"
    local a
    for a in ${arch//;/ }; do
        [[ "$have" == *";$a;"* ]] || return 1
    done
}

if [[ -z "$build" ]]; then
    candidate=${GPUDSP_BUILD_DIR:-$root/build}
    if fits "$candidate"; then
        build=$candidate
    else
        build=$root/build-gpusuite
        if ! fits "$build"; then
            echo "gpu-suite: configuring $build for CUDA architectures $arch"
            cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
                -DPYTHON_EXECUTABLE=/usr/bin/python3 -DENABLE_CUDA=ON \
                -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
        fi
    fi
fi
echo "gpu-suite: building $build"
cmake --build "$build" -j "$(nproc)" > "$build/gpusuite-build.log" 2>&1 \
    || { tail -40 "$build/gpusuite-build.log"; exit 1; }
/usr/bin/python3 "$root/scripts/gpusuite/pack.py" --build "$build" --source "$root" --out "$out"
rel=$(realpath -m --relative-to="$root" "$out")
echo "gpu-suite: on a GPU machine, from the checkout root (with $rel carried): $rel/run"
