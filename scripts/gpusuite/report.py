#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""summary.md of a GPU suite run: what passed, what failed, and every
benchmark row with its ratio to the in-run roofline and to the issues'
targets, in the column layout of docs/performance.md."""

import targets

NO_DEVICE = "no CUDA device"
NO_TIME = "no time left"  # (runner.NO_TIME)
OK = {"passed", "clean"}


def cell(text):
    return str(text if text is not None else "—").replace("|", "\\|").replace("\n", " ")


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def number(v):
    return f"{v:.4g}" if isinstance(v, (int, float)) else cell(v)


def machine_of(env, backend):
    if backend in ("cpu", "gr-cpu") or backend.startswith("volk"):
        return f"{env['cpu']} ({env['simd']})"
    return env["gpu"] or "—"


def bench_table(s):
    rows = []
    for r in s.bench_rows:
        result = f"{number(r['value'])} {r['unit']}" + (f" ({r['note']})" if r["note"] else "")
        roof = (f"{r['roofline_name']}: {number(r['roofline'])} {r['unit']}"
                if r["roofline"] > 0 else "—")
        ratio = f"{100 * r['value'] / r['roofline']:.1f}%" if r["roofline"] > 0 else "—"
        checks = targets.evaluate(r, s.bench_rows)
        target = "; ".join(t for t, _ in checks) or "—"
        met = "; ".join("n/a" if m is None else "yes" if m else "**no**" for _, m in checks)
        rows.append([s.env["date"], machine_of(s.env, r["backend"]), r["job"], r["case"],
                     r["backend"], result, roof, ratio, target, met or "—"])
    return table(["date", "machine", "job", "case", "backend", "result", "roofline (same run)",
                  "ratio", "target (issues)", "met"], rows)


def summary(s):
    e = s.env
    m = e["bundle"]
    failed = [st for st in s.steps if st.status == "failed"]
    verdict = "FAILED" if failed or s.failures else "PASSED"
    lines = [f"# gr-gpudsp GPU suite: {e['gpu'] or NO_DEVICE}, {e['date']}", ""]
    lines.append(
        f"Bundle {m['commit']} (packed {m['packed']}, CUDA architectures "
        f"{m['cuda_architectures']}). Run {e['time']}, "
        f"{'focus ' + ','.join(s.focus) if s.focus else 'quick (no sanitizer, no ncu)' if s.quick else 'full'}, {e['seconds']} s"
        + (f", only `{s.only.pattern}`" if s.only else "") + ".")
    lines.append("")
    lines.append(f"Machine: {e['gpu'] or NO_DEVICE}"
                 + (f", driver CUDA {e.get('driver_cuda', '?')}" if e["gpu"] else "")
                 + (f", nvcc {e['nvcc']}" if e.get("nvcc") else "")
                 + f"; {e['cpu']} ({e['simd']}), {e['cores']} cores; {e['glibc']}; "
                 f"Linux {e['kernel']}.")
    partial = [st.title for st in s.steps if st.status == "incomplete"]
    lines += ["", f"**{verdict}**" + (f": {', '.join(st.title for st in failed)}"
                                      if failed else "")
              + (f" (incomplete for lack of time: {', '.join(partial)})" if partial else ""),
              ""]
    for f in s.failures:
        lines.append(f"- bundle problem: {f}")
    lines.append("## Steps\n")
    lines.append(table(["step", "result", "items", "time", "note"], [
        [st.title, st.status, counts(st), f"{st.seconds:.0f} s", st.note] for st in s.steps]))

    late = [(st.title, i.group, i.name) for st in s.steps for i in st.items
            if i.status == "cut at the step's end" or (i.status == "not run" and i.note == NO_TIME)]
    if late:
        lines.append("## Not run for lack of time\n")
        lines += [f"- {t}: {(g + ' ') if g else ''}{n}" for t, g, n in late] + [""]

    by = {st.key: st for st in s.steps}
    for key in ("cpp", "python"):
        st = by.get(key)
        if st and st.items:
            lines.append(f"## {st.title}\n")
            lines.append(table(["test", "result", "time", "note"], [
                [i.name, i.status, f"{i.seconds:.1f} s", i.note] for i in st.items]))
    results = s.tuning.get("results", []) if s.tuning else []
    if results:
        lines.append("## Tuning (gpudsp_tune; tuning.json is this GPU's table)\n")
        rows = []
        for r in results:
            if "error" in r:
                rows.append([r["kernel"], r["shape"], "failed: " + r["error"], "", "", ""])
                continue
            times = {c["id"]: c.get("median_s") for c in r.get("candidates", [])}
            win, heur = times.get(r["chosen"]), times.get(r["heuristic"])
            gain = f"{heur / win:.2f}x" if win and heur else "—"
            bad = [f"{c['id']}: {c['status']}" for c in r.get("candidates", [])
                   if c["status"].startswith(("rejected", "failed"))]
            rows.append([r["kernel"], r["shape"], r["chosen"], r["heuristic"], gain,
                         ("saved" if r.get("saved") else "not saved") +
                         ("; " + "; ".join(bad) if bad else "")])
        lines.append(table(["job", "shape", "chosen", "heuristic", "heuristic / chosen time",
                            "note"], rows))
    st = by.get("sanitizer")
    if st and st.items:
        lines.append("## compute-sanitizer (C++ GPU tests)\n")
        tools = sorted({i.group for i in st.items}, key=["memcheck", "racecheck", "synccheck",
                                                          "initcheck"].index)
        grid = {}
        for i in st.items:
            grid.setdefault(i.name, {})[i.group] = i.status + (f" ({i.note})" if i.note else "")
        lines.append(table(["test"] + tools,
                           [[n] + [grid[n].get(t, "not run") for t in tools] for n in grid]))
        lines.append("Full reports: sanitizer.log.\n")
    if s.bench_rows:
        lines.append("## Benchmarks (rows for docs/performance.md)\n")
        if not e["cuda"]:
            lines.append(f"CPU rows at small sizes only (smoke test); GPU rows: {NO_DEVICE}.\n")
        lines.append(bench_table(s))
        # The benchmark's skip and note lines name their job already.
        skipped = [f"- skipped: {x}" for d in s.bench.values() for x in d.get("skipped", [])]
        notes = [f"- note: {x}" for d in s.bench.values() for x in d.get("notes", [])]
        if skipped or notes:
            lines.append("\n".join(skipped + notes) + "\n")
    st = by.get("apps")
    if st and st.items:
        lines.append("## Apps\n")
        lines.append(table(["app", "result", "time", "figures"], [
            [i.name, i.status, f"{i.seconds:.1f} s", i.note] for i in st.items]))
    if s.ncu_rows:
        lines.append("## ncu: the hottest kernel of each job\n")
        lines.append(table(
            ["job", "kernel", "launches", "median", "DRAM", "DRAM % of peak", "SM % of peak",
             "occupancy achieved / theoretical", "registers", "block x grid",
             "issue slots busy", "warp instructions", "stalls (warps per issue)"],
            [[r["job"], r["kernel"], r["launches"], f"{r['median_us']} us",
              f"{r['dram_gbps']} GB/s", r["dram_pct_peak"], r["sm_pct_peak"],
              f"{r['achieved_occupancy_pct']}% / {r['theoretical_occupancy_pct']}%",
              r["registers"], f"{r['block']} x {r['grid']}",
              "—" if r.get("issue_pct") is None else f"{r['issue_pct']}%",
              "—" if r.get("warp_inst") is None else r["warp_inst"],
              r.get("stalls") or "—"]
             for r in s.ncu_rows if r["hottest"]]))
        lines.append("Every profiled kernel: ncu.csv. Stalls: ncu's warps stalled on each "
                     "reason per cycle that issues (`smsp__average_warps_issue_stalled_*"
                     "_per_issue_active`), the three largest.\n")
    if e.get("nvidia_smi"):
        lines += ["## nvidia-smi\n", "```", e["nvidia_smi"].strip(), "```", ""]
    return "\n".join(lines)


def counts(st):
    n = {}
    for i in st.items:
        n[i.status] = n.get(i.status, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(n.items())) or "—"


def console_summary(s):
    """The few lines the device tool's reply shows last."""
    out = ["", "== summary"]
    for st in s.steps:
        out.append(f"{st.title:28s} {st.status:18s} {counts(st)}")
    missed = [(r, t) for r in s.bench_rows for t, met in targets.evaluate(r, s.bench_rows) if met is False]
    if missed:
        out.append(f"targets missed: {len(missed)} (see summary.md)")
    for f in s.failures:
        out.append("bundle problem: " + f)
    out.append(f"results in {s.out}: summary.md tuning.json bench.json sanitizer.log ncu.csv "
               "logs.tar.xz")
    return "\n".join(out)
