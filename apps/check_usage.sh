#!/bin/sh
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The command-line tools' refusals (ctest): check_usage.sh STATUS REGEX
# COMMAND [ARGS...] runs COMMAND, prints its output, and passes when it
# exited with STATUS and its output matches REGEX (grep -E).
status=$1
regex=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq "$status" ] || { echo "check_usage: exit status $rc, expected $status"; exit 1; }
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "check_usage: no line matches: $regex"; exit 1; }
