#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Kernel names as the GPU suite's ncu summary and scripts/kernel-report.sh
print them: the function and its template arguments, without namespaces,
return type or parameters."""

import re


def short_kernel_name(demangled):
    """'void gr::gpudsp::kernels::(anonymous namespace)::xdump<true, false>(...)'
    -> 'xdump<true, false>'."""
    name = demangled.replace("(anonymous namespace)::", "").replace("gr::gpudsp::kernels::", "")
    name = re.sub(r"^void ", "", name)
    depth, start = 0, 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch == "(":
            return name[start:i]
        elif depth == 0 and name.startswith("::", i):
            start = i + 2
    return name[start:]
