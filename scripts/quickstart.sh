#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# gr-gpudsp quick start, for a fresh Debian 12 machine:
#
#   scripts/quickstart.sh demo   install dependencies, build, install to
#                                /usr/local, run the demo: the FX correlator
#                                (files in ./fx_output; extra arguments go
#                                to gpudsp_fx_correlator)
#   scripts/quickstart.sh test   the same set-up, then the whole test suite
#
# Idempotent: a second run reuses the installed packages and the build.
# Environment:
#   GPUDSP_BUILD_DIR             build folder (default: build/ in the checkout)
#   GPUDSP_CUDA_ARCHITECTURES    CUDA architectures to build (default: the
#                                GPU present, else 90; CUDA is built when the
#                                toolkit is in /usr/local/cuda or on PATH)
#   GPUDSP_ENABLE_CUDA           ON or OFF (default: ON when nvcc is found)
#   GPUDSP_PYDEPS                where spead2 (PyPI, pinned) is installed for the
#                                SPEAD blocks (default /usr/local/lib/gpudsp/python);
#                                GPUDSP_SPEAD2=0 skips it (those blocks then refuse
#                                to construct, saying how to install it)
#   GPUDSP_SANITIZERS            0 skips the ASan/UBSan build of `test`
#                                (scripts/sanitizers.sh; on by default)
set -euo pipefail

# Each step with the time it starts (CI logs show where the minutes go).
say() { echo "== $(date -u +%H:%M:%S) $*"; }
mode=${1:-}
if [[ "$mode" != demo && "$mode" != test ]]; then
    sed -n 6,23p "$0"
    exit 2
fi
shift

root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUDSP_BUILD_DIR:-$root/build}
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"

# --- 1. Debian packages (GNU Radio 3.10 and the module's build deps) -------
# (GNU Radio Companion needs GTK's introspection data, which GNU Radio only
# recommends; xvfb lets the tests start it without a display.)
packages=(build-essential cmake pkg-config git
          gnuradio-dev libvolk2-dev libfftw3-dev libboost-test-dev libspdlog-dev
          libboost-program-options-dev
          libgmp-dev pybind11-dev python3-numpy python3-yaml python3-h5py
          python3-matplotlib python3-pyqt5 python3-hypothesis
          python3-astropy python3-casacore casacore-data wsclean python3-pip
          gir1.2-gtk-3.0 gir1.2-pango-1.0 python3-gi-cairo xvfb xauth)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    say "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- 1b. spead2 for the SPEAD blocks (docs/spead.md): a pinned wheel from
# PyPI into a folder gr-gpudsp adds to its path (Debian 12 refuses pip
# installs into the system Python; --target is not one).
# The pin and the folder are python/gpudsp/spead.py's (SPEAD2_VERSION, PYDEPS).
spead2_version=$(sed -n 's/^SPEAD2_VERSION = "\([^"]*\)".*/\1/p' "$root/python/gpudsp/spead.py")
pydeps=${GPUDSP_PYDEPS:-/usr/local/lib/gpudsp/python}
if [[ "${GPUDSP_SPEAD2:-1}" != 0 ]] && ! PYTHONPATH="$pydeps" /usr/bin/python3 -c \
        "import spead2, sys; sys.exit(spead2.__version__ != '$spead2_version')" 2>/dev/null; then
    say "installing spead2 $spead2_version into $pydeps"
    $sudo /usr/bin/python3 -m pip install -q --no-deps --upgrade --target "$pydeps" \
        "spead2==$spead2_version"
fi

# --- 2. Configure, build, install ------------------------------------------
cuda_args=()
nvcc=$(command -v nvcc || true)
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -n "$nvcc" && "${GPUDSP_ENABLE_CUDA:-ON}" == ON ]]; then
    arch=${GPUDSP_CUDA_ARCHITECTURES:-}
    if [[ -z "$arch" ]]; then
        if nvidia-smi -L >/dev/null 2>&1; then arch=native; else arch=90; fi
    fi
    cuda_args=(-DENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch")
    say "CUDA backend: $nvcc, architectures $arch"
else
    cuda_args=(-DENABLE_CUDA=OFF)
    say "CUDA backend: off (no nvcc found, or GPUDSP_ENABLE_CUDA=OFF): CPU-only build"
fi

mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DPYTHON_EXECUTABLE=/usr/bin/python3 "${cuda_args[@]}" > "$build/configure.log" \
    || { cat "$build/configure.log"; exit 1; }
say "building in $build"
cmake --build "$build" -j "$(nproc)"
say "installing to /usr/local"
$sudo cmake --install "$build" > "$build/install.log"
$sudo ldconfig

# --- 3. Demo or tests --------------------------------------------------------
if [[ "$mode" == demo ]]; then
    demo=/usr/local/bin/gpudsp_fx_correlator
    say "running $demo --output $PWD/fx_output $*"
    exec /usr/bin/python3 "$demo" --output "$PWD/fx_output" "$@"
else
    say "running the test suite (GPU tests are skipped without a CUDA device)"
    status=0
    # On every core: the tests that cannot share the machine say so
    # (RUN_SERIAL, PROCESSORS in the CMakeLists).
    (cd "$build" && ctest --output-on-failure -j "$(nproc)" "$@") || status=1
    # The same qa tests on a second, CPU-only build with AddressSanitizer and
    # UndefinedBehaviorSanitizer (scripts/sanitizers.sh).
    if [[ "${GPUDSP_SANITIZERS:-1}" != 0 ]]; then
        "$root/scripts/sanitizers.sh" "${build}-sanitizers" || status=1
    fi
    say "tests finished: $( ((status)) && echo FAILED || echo passed)"
    exit $status
fi
