#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The issues' GPU targets (H100), matched against gpudsp_bench rows.

One place for them, so that the suite's summary says for every GPU row
which target applies and whether the run met it. A target matches a row by
job, backend (a regular expression: the X-engine rows carry the kernel name
as their backend) and a regular expression on the case; it is either a
fraction of the row's own in-run roofline ("ratio"), a bound on its value
("min" / "max", in the row's unit), or "peer": faster than every row of the
same job and case whose backend matches `peers` (the peers run in the same
run; bound is the factor to beat). Change a target here when an issue
changes it, and say which issue.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class target:
    job: str
    backend: str  # regular expression, full match
    case: str  # regular expression, searched in the case text
    kind: str  # "ratio", "min", "max" or "peer"
    bound: float
    text: str
    peers: str = ""  # "peer": backends to beat (regular expression, full match)


# LDPC: one BG1 Z=384 codeword is K = 8448 information bits, so "<= 20 us"
# per codeword is >= 8448 / 20e-6 = 0.4224 Gb/s at batch 1.
TARGETS = [
    # (Launches back to back, as the copy it is measured against; the "per
    # call" row carries the host's latency.)
    target("unpack10", "cuda", r"device-resident$", "ratio", 0.80, ">= 80% of D2D copy"),
    target("buffer", "cuda", r".", "ratio", 0.80,
           ">= 80% of min(pinned H2D, host part of the chain)"),
    # Back-to-back calls only (issue 52): the "per call" row carries the
    # host's launch and synchronisation latency.
    target("fengine", "cuda", r"N=(1024|2048|4096) .*device-resident$", "min", 300.0,
           ">= 300 GS/s"),
    target("fengine", "cuda", r"N=32768 .*device-resident$", "min", 150.0,
           ">= 150 GS/s at N = 32768 (issue 50)"),
    target("fengine", "cuda", r"device-resident$", "ratio", 0.80, ">= 80% of roofline"),
    target("fengine", "cuda", r"host-fed", "ratio", 0.80, ">= 80% of pinned H2D"),
    target("xengine", "fp32", r"S=(25[6-9]|2[6-9]\d|[3-9]\d\d|\d{4,}) ", "ratio", 0.75,
           ">= 75% of FP32 peak (S >= 256)"),
    target("xengine", "tensor", r"S=([5-9]\d\d|\d{4,}) ", "ratio", 0.50,
           ">= 50% of INT8 peak (S >= 512)"),
    target("xengine", "tensor", r"S=64 ", "ratio", 0.80,
           ">= 80% of the memory roofline where stations are few (S = 64)"),
    # Issue 17: each kernel beats its cuBLAS peer at every size >= 64 stations.
    target("xengine", "tensor", r"S=(6[4-9]|[7-9]\d|\d{3,}) ", "peer", 1.0,
           "faster than cuBLAS and cuBLASLt (S >= 64)", peers="cublas|cublaslt"),
    target("xengine", "fp32", r"S=(6[4-9]|[7-9]\d|\d{3,}) ", "peer", 1.0,
           "faster than cublasCherk3mEx (S >= 64)", peers="cublas"),
    target("fx", "cuda", r"^64 ant .*device-resident", "ratio", 1.00,
           "64 MeerKAT antennas in real time"),
    target("fx", "cuda", r"flowgraph \(device-resident\)", "ratio", 0.80,
           ">= 80% of the kernel chain (issue 16)"),
    # Back-to-back launches only (issue 52): the "per call" rows carry the
    # host's launch and synchronisation latency.
    # (One output: the bank's row has its own target below.)
    target("ddc", r"cuda(/ring)?", r"D=16 T=256 10-bit in, device-resident$",
           "ratio", 0.50, ">= 50% of FP32 peak"),
    target("ddc", "cuda", r"D=16 T=256 10-bit in, 8 outputs from one read against each alone$",
           "min", 2.0, ">= 2x the 8 outputs run alone (a bank from one read)"),
    # The tensor-core form (issue 52): >= 1 TS/s of 10-bit input, i.e. 64
    # TFLOP/s of useful multiply-adds at D = 16, T = 256 (4 T / D a sample).
    target("ddc", "cuda/tensor( ring)?( 8D)?( M=32)?", r"D=16 T=256 10-bit in, device-resident$", "min",
           64.0,
           ">= 1 TS/s of input (tensor form)"),
    # Complex input, any form (issue 52: cuda/mix mixes first, cuda/mix ring
    # on the ring kernel).
    target("ddc", r"cuda(/mix|/mix ring)?", r"complex in, device-resident, memory", "ratio",
           0.80,
           ">= 80% of the min(memory, FP32) roofline (issue 18)"),
    target("gnss", "cuda", r"E1B 16sat/100K .*kernels only", "max", 10.0, "<= 10 us"),
    target("gnss", "cuda", r"E1B 16sat/100K .*end to end", "max", 20.0, "<= 20 us"),
    target("gnss", "cuda", r"64L1\+64E1B x 4 ant/25K .*kernels only", "max", 100.0,
           "<= 100 us (128 sat x 4 ant)"),
    target("ldpc", "cuda", r"BG1 Z=384 R=0\.79.*10 iterations.*batch (\d{4,}).*kernels only",
           "min", 30.0, ">= 30 Gb/s (batch >= 1024)"),
    target("ldpc", "cuda", r"BG1 Z=384 R=0\.79.*10 iterations.*batch 1, kernels only", "min",
           0.4224, "<= 20 us per codeword"),
    target("ldpc", "cuda", r"BG1 Z=384 R=0\.79.*10 iterations.*batch 1, host to host", "min",
           0.2112, "<= 40 us host to host"),
]


def evaluate(row, rows=()):
    """[(text, met)] for the targets that apply to a bench row (a dict with
    job, backend, case, value, roofline), `rows` being the run's other rows
    (for "peer" targets); met is None where it cannot be judged (no
    roofline measured, no peer row)."""
    out = []
    for t in TARGETS:
        if t.job != row.get("job") or not re.fullmatch(t.backend, row.get("backend", "")):
            continue
        if not re.search(t.case, row.get("case", "")):
            continue
        value = float(row.get("value", 0))
        if t.kind == "ratio":
            roof = float(row.get("roofline", 0))
            met = None if roof <= 0 else value / roof >= t.bound
        elif t.kind == "peer":
            best = [float(p.get("value", 0)) for p in rows
                    if p.get("job") == row.get("job") and p.get("case") == row.get("case")
                    and re.fullmatch(t.peers, p.get("backend", ""))]
            met = None if not best else value >= t.bound * max(best)
        elif t.kind == "min":
            met = value >= t.bound
        else:
            met = 0 < value <= t.bound
        out.append((t.text, met))
    return out
