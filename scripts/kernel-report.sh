#!/usr/bin/env bash
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Static report of every CUDA kernel (registers, spills, stack frame, shared
# memory, occupancy, tensor/async/local instructions) for sm_75..sm_90, no GPU
# needed; regenerates docs/kernels.md. scripts/kernel_report.py documents the
# options (--check, --output, --arch, --build).
exec /usr/bin/python3 "$(dirname "$0")/kernel_report.py" "$@"
