#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Static report of every CUDA kernel of the module, without a GPU.

For each __global__ kernel (each template instance) and each architecture:
registers per thread, spill bytes, stack frame (local memory), static
shared memory (ptxas), the block size (its __launch_bounds__, from the
cubin), the dynamic shared memory of the launches that choose it at run
time at every documented configuration (gpudsp_kernel_launches), the
resulting theoretical occupancy, and from the SASS whether tensor-core
(HMMA/IMMA/GMMA), asynchronous-copy (LDGSTS, TMA, bulk copy) and local-memory
(LDL/STL) instructions are present. Writes a markdown report (docs/kernels.md
by default) and, with --check, fails when a kernel spills, has a stack frame
or asks for more shared memory than an architecture allows, unless
scripts/kernel-report-allow.txt lists it with a reason.

Usage: scripts/kernel-report.sh [--check] [--output FILE] [--arch "75 80 86 89 90"]
                                [--build DIR]
"""

import argparse
import concurrent.futures
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "gpusuite"))
from kernel_names import short_kernel_name  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Per architecture (CUDA C Programming Guide, "Compute capabilities"):
# threads, blocks, shared memory per SM, the most one block may opt in to,
# and what the runtime reserves per block.
ARCH = {
    "75": dict(threads=1024, blocks=16, smem_sm=65536, smem_block=65536, reserved=0),
    "80": dict(threads=2048, blocks=32, smem_sm=167936, smem_block=166912, reserved=1024),
    "86": dict(threads=1536, blocks=16, smem_sm=102400, smem_block=101376, reserved=1024),
    "89": dict(threads=1536, blocks=24, smem_sm=102400, smem_block=101376, reserved=1024),
    "90": dict(threads=2048, blocks=32, smem_sm=233472, smem_block=232448, reserved=1024),
}
REGISTERS_PER_SM = 65536
MAIN_ARCH = "90"
# Sources built only for an architecture-specific target (lib/CMakeLists.txt):
# compiled for it alone and reported under its base architecture.
ARCH_SPECIFIC = {"xengine_wgmma.cu": ("90", "90a"), "xengine_ws.cu": ("90", "90a")}

# cuobjdump and nvdisasm are not in every CUDA install; NVIDIA's wheels
# carry them (13.2 reads the cubins of CUDA 13.0's ptxas).
TOOL_WHEELS = {
    "nvidia-cuda-cuobjdump": ("13.2.51", "95c69d3ddf0c2c1f535ec44c3433a66aeee19f588d9d22f73356e20b25f12b50"),
    "nvidia-cuda-nvdisasm": ("13.2.51", "5a7acf77c55d6d2911ed6155d4d5bc156ffadf9df7a68a89b0c1155f4b13688c"),
}

TENSOR = ("HMMA", "IMMA", "HGMMA", "IGMMA", "QGMMA", "BMMA", "DMMA")
ASYNC = ("LDGSTS", "LDGDEPBAR", "UTMALDG", "UTMASTG", "UTMAPF", "UBLKCP", "UBLKRED")
LOCAL = ("LDL", "STL")


def log(msg):
    print(f"kernel-report: {msg}", file=sys.stderr, flush=True)


def find_nvcc():
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        raise SystemExit("kernel-report: nvcc not found")
    return nvcc


def fetch_tools(cache):
    """cuobjdump and nvdisasm: the toolkit's, else the pinned wheels' (fetched
    once into cache). None when neither can be had (the SASS columns then
    say so; the checks do not need them)."""
    for d in [os.path.dirname(find_nvcc())] + os.environ.get("PATH", "").split(os.pathsep):
        if os.access(os.path.join(d, "cuobjdump"), os.X_OK) and \
                os.access(os.path.join(d, "nvdisasm"), os.X_OK):
            return d
    bin_dir = cache / "nvidia" / "cu13" / "bin"
    if all((bin_dir / t).exists() for t in ("cuobjdump", "nvdisasm")):
        return str(bin_dir)
    cache.mkdir(parents=True, exist_ok=True)
    for name, (version, sha) in TOOL_WHEELS.items():
        index = f"https://pypi.org/simple/{name}/"
        try:
            page = urllib.request.urlopen(index, timeout=60).read().decode()
            url = next(u for u in re.findall(r'href="([^"]+)"', page)
                       if f"-{version}-" in u and "manylinux" in u and "x86_64" in u)
            data = urllib.request.urlopen(url.split("#")[0], timeout=120).read()
        except Exception as e:  # no network: the report goes on without SASS
            log(f"cannot fetch {name} {version} ({e}); SASS columns left out")
            return None
        if hashlib.sha256(data).hexdigest() != sha:
            raise SystemExit(f"kernel-report: {name} {version}: sha256 mismatch")
        zipfile.ZipFile(io.BytesIO(data)).extractall(cache)
    for t in ("cuobjdump", "nvdisasm"):
        os.chmod(bin_dir / t, 0o755)
    log(f"cuobjdump and nvdisasm {TOOL_WHEELS['nvidia-cuda-cuobjdump'][0]} in {bin_dir}")
    return str(bin_dir)


def compile_cubin(nvcc, source, arch, out):
    """Device code only, as the build compiles it; (cubin, ptxas -v text)."""
    cmd = [nvcc, "-cubin", f"-arch=sm_{arch}", "-O3", "-DNDEBUG", "-DGPUDSP_HAVE_CUDA",
           "-std=c++17", "--expt-relaxed-constexpr", "-Xptxas", "-v",
           "-I", str(ROOT / "include"), "-I", str(ROOT / "lib"), "-I", str(source.parent),
           "-o", str(out), str(source)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"kernel-report: {source.name} for sm_{arch} failed:\n{r.stderr}")
    return r.stderr


def parse_ptxas(text):
    """{mangled: {registers, spill_stores, spill_loads, stack, static_shared}}."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            current = out.setdefault(m.group(1), dict(registers=0, spill_stores=0,
                                                       spill_loads=0, stack=0,
                                                       static_shared=0))
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m:
            current["stack"], current["spill_stores"], current["spill_loads"] = map(
                int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            current["static_shared"] = int(s.group(1)) if s else 0
    return out


def parse_sass(text):
    """{mangled: set of opcodes (without modifiers), plus "write:" entries
    naming each kind of global-memory write (global_write)}."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = out.setdefault(m.group(1), set())
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\S*)", line)
        if m and current is not None:
            current.add(m.group(1))
            w = global_write(m.group(1), m.group(2))
            if w:
                current.add("write:" + w)
    return out


def global_write(opcode, modifiers):
    """How an instruction writes global memory, in the words of the report's
    "global writes" column (the epilogue's form: vector stores, atomics, bulk
    reductions, TMA stores), or None."""
    mods = modifiers.split(".")
    if opcode == "STG":
        width = next((m for m in mods if m in ("64", "128", "U8", "S8", "U16", "S16")), "32")
        return "STG." + {"U8": "8", "S8": "8", "U16": "16", "S16": "16"}.get(width, width)
    if opcode in ("RED", "REDG", "ATOMG", "ATOM"):
        return "atomic " + next((m for m in mods if m in ("ADD", "MIN", "MAX", "EXCH", "CAS",
                                                          "AND", "OR", "XOR", "INC", "DEC")),
                                "?").lower()
    if opcode == "UBLKRED":
        return "bulk reduce"
    if opcode in ("UTMASTG", "UTMAREDG"):
        return "TMA store" if opcode == "UTMASTG" else "TMA reduce"
    return None


def parse_max_threads(text):
    """{mangled: threads} from the cubin's EIATTR_MAX_THREADS (__launch_bounds__)."""
    out, current = {}, None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\.nv\.info\.(\S+)", line.strip())
        if m:
            current = m.group(1)
        if "EIATTR_MAX_THREADS" in line and current:
            for nxt in lines[i + 1:i + 4]:
                v = re.search(r"Value:\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)", nxt)
                if v:
                    out[current] = math.prod(int(x, 16) for x in v.groups())
                    break
    return out


def demangle(names):
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                       check=True)
    return dict(zip(names, r.stdout.splitlines()))


def occupancy(arch, registers, shared, threads):
    """Theoretical occupancy (fraction of the SM's warps) and what limits it."""
    a = ARCH[arch]
    warps = math.ceil(threads / 32)
    limits = {"threads": a["threads"] // 32 // warps, "blocks": a["blocks"]}
    if registers:
        per_warp = math.ceil(registers * 32 / 256) * 256
        limits["registers"] = (REGISTERS_PER_SM // per_warp) // warps
    per_block = math.ceil((shared + a["reserved"]) / 128) * 128
    if shared:
        limits["shared memory"] = a["smem_sm"] // per_block
    blocks = min(limits.values())
    limiter = min(limits, key=limits.get)
    return blocks * warps / (a["threads"] // 32), limiter, blocks


def load_allow(path):
    """[(kernel regex, check, archs, reason)]: lines 'kernel | check | archs | reason'."""
    rules = []
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4 or not parts[3]:
            raise SystemExit(f"kernel-report: bad allow-list line (kernel | check | archs | "
                             f"reason): {line}")
        rules.append((re.compile(parts[0]), parts[1], parts[2].split(","), parts[3]))
    return rules


def allowed(rules, kernel, check, arch):
    for rx, c, archs, reason in rules:
        if rx.search(kernel) and c == check and ("*" in archs or f"sm_{arch}" in archs):
            return reason
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a spill, stack frame or shared-memory overrun not allowed")
    ap.add_argument("--output", default=str(ROOT / "docs" / "kernels.md"))
    ap.add_argument("--arch", default=" ".join(ARCH), help="architectures (%(default)s)")
    ap.add_argument("--build", default=os.environ.get("GPUDSP_BUILD_DIR", str(ROOT / "build")),
                    help="built tree holding apps/gpudsp_kernel_launches (%(default)s)")
    ap.add_argument("--allow", default=str(ROOT / "scripts" / "kernel-report-allow.txt"))
    a = ap.parse_args()
    archs = a.arch.replace(";", " ").split()
    nvcc = find_nvcc()
    tools = fetch_tools(Path(a.build) / "kernel-report-tools")
    launcher = Path(a.build) / "apps" / "gpudsp_kernel_launches"
    if not launcher.exists():
        raise SystemExit(f"kernel-report: {launcher} not built (a CUDA build of the module "
                         "is needed: cmake --build BUILD)")
    launches = json.loads(subprocess.run([str(launcher)], capture_output=True, text=True,
                                         check=True).stdout)
    rules = load_allow(a.allow)
    sources = sorted((ROOT / "lib" / "kernels").rglob("*.cu"))
    env = dict(os.environ, PATH=f"{tools}:{os.environ.get('PATH', '')}") if tools else None

    kernels = {}  # (short name, file) -> {arch: facts}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []  # (source, arch, target), in the report's order
        for src in sources:
            targets = [(a, a) for a in archs]
            if src.name in ARCH_SPECIFIC:
                base, specific = ARCH_SPECIFIC[src.name]
                targets = [(base, specific)] if base in archs else []
                if not targets:
                    log(f"{src.name}: skipped (sm_{specific} only; sm_{base} not requested)")
                    continue
            jobs += [(src, arch, target) for arch, target in targets]

        def analyse(job):
            """ptxas's facts per mangled kernel, with its SASS opcodes and
            launch bound (one nvcc and two cuobjdump processes)."""
            src, arch, target = job
            cubin = Path(tmp) / f"{src.stem}.sm_{target}.cubin"
            facts = parse_ptxas(compile_cubin(nvcc, src, target, cubin))
            sass, threads = {}, {}
            if tools:
                cuobjdump = os.path.join(tools, "cuobjdump")
                sass = parse_sass(subprocess.run([cuobjdump, "-sass", str(cubin)],
                                                 capture_output=True, text=True, env=env,
                                                 check=True).stdout)
                threads = parse_max_threads(subprocess.run(
                    [cuobjdump, "-elf", str(cubin)], capture_output=True, text=True,
                    env=env, check=True).stdout)
            for mangled, f in facts.items():
                f["opcodes"] = sass.get(mangled)
                f["threads"] = threads.get(mangled)
            return facts

        # The compiles are independent processes: one a core (the report
        # runs inside ctest, whose timeout counts its wall time).
        workers = max(1, min(len(jobs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(analyse, jobs))
        for (src, arch, target), facts in zip(jobs, results):
            names = demangle(list(facts))
            for mangled, f in facts.items():
                short = short_kernel_name(names[mangled])
                kernels.setdefault((short, src.relative_to(ROOT / "lib" / "kernels")),
                                   {})[arch] = f
        for src in dict.fromkeys(job[0] for job in jobs):
            log(f"{src.name}: " + ", ".join(f"sm_{t}" for s_, _, t in jobs if s_ == src))

    rows, problems, explained = [], [], []
    for (name, src), per_arch in sorted(kernels.items(), key=lambda k: (str(k[0][1]), k[0][0])):
        matching = [l for l in launches if re.search(l["kernel"], name)]
        for arch, f in per_arch.items():
            # Launches chosen for another per-block limit are not this one's.
            configs = [l for l in matching
                       if l.get("smem_limit", 0) in (0, ARCH[arch]["smem_block"])]
            worst = max(configs, key=lambda l: l["dynamic_shared"]) if configs else None
            f["dynamic"] = worst["dynamic_shared"] if worst else 0
            f["dynamic_config"] = worst["config"] if worst else ""
            threads = f["threads"] or (worst["threads"] if worst else None)
            if threads:
                f["occupancy"] = occupancy(arch, f["registers"],
                                           f["static_shared"] + f["dynamic"], threads)
            over = [l["config"] for l in configs
                    if f["static_shared"] + l["dynamic_shared"] > ARCH[arch]["smem_block"]]
            found = []
            if matching and not configs:  # launches exist, none for this limit
                found.append(("smem", "no documented launch for this architecture's "
                                      f"{ARCH[arch]['smem_block']} B per block "
                                      "(apps/kernel_launches.cc)"))
            if f["spill_stores"] or f["spill_loads"]:
                found.append(("spill", f"{f['spill_stores']} B spill stores, "
                                       f"{f['spill_loads']} B spill loads"))
            if f["stack"]:
                found.append(("stack", f"{f['stack']} B stack frame (local memory)"))
            if f["static_shared"] > 48 * 1024:
                over.append("static shared memory above 48 KiB")
            if over:
                found.append(("smem", f"{len(over)} configuration(s) above "
                                      f"{ARCH[arch]['smem_block']} B, e.g. {over[-1]}"))
            for check, what in found:
                reason = allowed(rules, name, check, arch)
                (explained if reason else problems).append(
                    (name, f"sm_{arch}", check, what, reason))
        rows.append((name, src, per_arch))

    text = render(rows, archs, problems, explained, tools is not None)
    Path(a.output).parent.mkdir(parents=True, exist_ok=True)
    Path(a.output).write_text(text)
    log(f"{len(rows)} kernels x {len(archs)} architectures -> {a.output}")
    for p in problems:
        log(f"NOT ALLOWED: {p[0]} on {p[1]}: {p[3]}")
    if a.check and problems:
        log(f"{len(problems)} unexplained finding(s): fix them or list them with a reason in "
            f"{os.path.relpath(a.allow, ROOT)}")
        return 1
    return 0


def kib(n):
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def render(rows, archs, problems, explained, have_sass):
    main = MAIN_ARCH if MAIN_ARCH in archs else archs[-1]
    out = ["# CUDA kernels: static report", "",
           "Generated by `scripts/kernel-report.sh` (no GPU needed; CI runs it with `--check`). "
           "Registers, spills, stack frame and static shared memory from `ptxas -v` "
           "(device code compiled as the build compiles it); block size from each kernel's "
           "`__launch_bounds__`; dynamic shared memory at the largest documented "
           "configuration (`gpudsp_kernel_launches`); theoretical occupancy from those "
           "(what limits it in brackets); instructions from the SASS (`cuobjdump -sass`), "
           "\"global writes\" saying how a kernel writes device memory (store widths, "
           "atomics, bulk reductions, TMA stores: an epilogue's form). "
           "Do not edit by hand.", ""]
    out += [f"## sm_{main}", "",
            "| kernel | source | threads | registers | spill (st/ld) | stack | static smem "
            "| dynamic smem (largest documented) | occupancy | tensor | async copy | local "
            "| global writes |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, src, per_arch in rows:
        f = per_arch.get(main)
        if not f:
            continue
        occ = f.get("occupancy")
        ops = f["opcodes"]

        def present(group):
            if ops is None:
                return "n/a"
            hit = sorted(o for o in ops if o in group)
            return ", ".join(hit) if hit else "none"

        def writes():
            if ops is None:
                return "n/a"
            hit = sorted(o[len("write:"):] for o in ops if o.startswith("write:"))
            return ", ".join(hit) if hit else "none"

        out.append("| " + " | ".join([
            f"`{name}`", str(src), str(f["threads"] or "—"), str(f["registers"]),
            f"{f['spill_stores']}/{f['spill_loads']}", kib(f["stack"]) if f["stack"] else "0",
            kib(f["static_shared"]) if f["static_shared"] else "0",
            f"{kib(f['dynamic'])} ({f['dynamic_config']})" if f["dynamic"] else "—",
            f"{100 * occ[0]:.0f}% ({occ[1]})" if occ else "—",
            present(TENSOR), present(ASYNC), present(LOCAL), writes()]) + " |")
    others = [x for x in archs if x != main]
    if others:
        out += ["", "## Other architectures", "",
                "Registers / spill bytes / stack bytes / occupancy, and whether the largest "
                "documented shared memory fits (static + dynamic against the per-block "
                "opt-in limit).", "",
                "| kernel | " + " | ".join(f"sm_{x}" for x in others) + " |",
                "|---|" + "---|" * len(others)]
        for name, src, per_arch in rows:
            cells = []
            for x in others:
                f = per_arch.get(x)
                if not f:
                    cells.append("—")
                    continue
                occ = f.get("occupancy")
                need = f["static_shared"] + f["dynamic"]
                fits = "fits" if need <= ARCH[x]["smem_block"] else \
                    f"**{kib(need)} > {kib(ARCH[x]['smem_block'])}**"
                cells.append(f"{f['registers']} / {f['spill_stores'] + f['spill_loads']} / "
                             f"{f['stack']} / {100 * occ[0]:.0f}% / {fits}" if occ else
                             f"{f['registers']} / {f['spill_stores'] + f['spill_loads']} / "
                             f"{f['stack']} / — / {fits}")
            out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    out += ["", "## Findings", ""]
    if not problems and not explained:
        out.append("None: no spill, no stack frame, every documented configuration fits.")
    for name, arch, check, what, reason in problems:
        out.append(f"- **not explained**: `{name}` on {arch}: {what}")
    grouped = {}
    for name, arch, check, what, reason in explained:
        grouped.setdefault((name, check, reason), []).append((arch, what))
    for (name, check, reason), hits in grouped.items():
        out.append(f"- `{name}`, {check} on {', '.join(h[0] for h in hits)}: {hits[-1][1]}. "
                   f"Allowed: {reason}")
    if not have_sass:
        out += ["", "cuobjdump/nvdisasm were not available: the instruction columns are n/a."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
