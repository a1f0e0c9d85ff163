#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Stages everything that runs on a GPU machine into one archive.

Called by scripts/gpu-suite.sh pack, with a configured and built CMake tree.
The GPU machines have CUDA 13, glibc and libstdc++ but no GNU Radio, Boost,
VOLK or Debian Python, so the archive carries, besides our binaries, a
self-contained runtime: Debian's Python 3.11 interpreter with its standard
library, the GNU Radio Python packages the tests and apps import, numpy,
and every shared library all of that links except glibc, libstdc++/libgcc
and the CUDA/driver libraries (which must match the machine's driver).

Layout of the archive (unpacked by DIR/run into DIR/root):
  bin/            gpudsp_bench and the Python apps
  lib/            libgnuradio-gpudsp and every bundled shared library
  python/         the interpreter (bin/python3.11), its standard library
                  (lib/python3.11) and site packages (lib/python3/dist-packages,
                  where Debian's site.py looks relative to PYTHONHOME)
  share/gr-gpudsp the module's data (GPUDSP_DATA_DIR)
  tests/cpp       every C++ test labelled "gpu"
  tests/python    the Python qa files (the *_cuda ones import the others)
  suite/          the runner, its report code and manifest.json
"""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jobs as gpu_jobs  # noqa: E402

# Libraries taken from the GPU machine: glibc's, the C++ runtime, and CUDA's
# and the driver's (a bundled copy could disagree with the machine's driver).
SYSTEM_LIBS = re.compile(
    r"^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|"
    r"libutil\.so|libresolv|libanl|libstdc\+\+|libgcc_s|libcuda\.so|libcudart|libcufft|"
    r"libcublas|libcurand|libcusolver|libcusparse|libnvrtc|libnvJitLink|libnvidia)")

# Parts of the standard library nothing here imports, and the static
# libpython that only embedding builds need.
STDLIB_SKIP = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3",
               "pydoc_data", "config-3.11-x86_64-linux-gnu", "site-packages",
               "dist-packages", "sitecustomize.py", "__pycache__"}
# Extension modules whose libraries (Tk, Berkeley DB, readline) we do not want.
DYNLOAD_SKIP = re.compile(r"^(_tkinter|_dbm|_gdbm|readline|_curses|_test|xxlimited|_ctypes_test"
                          r"|_xxtestfuzz|_xxsubinterpreters)")
# Inside bundled packages: their own tests and build helpers.
PACKAGE_SKIP = {"tests", "__pycache__", "distutils", "f2py"}

# What the runner's Python processes import: the discovery below imports
# these (and every qa file) and bundles the packages they load.
PY_MODULES = ["numpy", "pmt", "gnuradio.gr", "gnuradio.gr_unittest", "gnuradio.gpudsp",
              "gnuradio.gpudsp.fx_correlator", "gnuradio.gpudsp.gnss_tracking",
              "gnuradio.gpudsp.ldpc", "gnuradio.gpudsp.kernels"]

DEBIAN_PYTHON = "/usr/bin/python3.11"
DEBIAN_STDLIB = Path("/usr/lib/python3.11")


def log(msg):
    print(f"gpu-suite pack: {msg}", flush=True)


def copy_tree(src, dst, skip=frozenset(), skip_re=None):
    """Copies files (symlinks resolved; dangling ones dropped), without the
    names in `skip` at any depth."""
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        if entry.name in skip or (skip_re and skip_re.match(entry.name)):
            continue
        target = dst / entry.name
        if entry.is_dir():
            copy_tree(entry, target, skip, skip_re)
        elif entry.exists():
            shutil.copy2(entry, target)


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def gpu_tests(build):
    """The ctest tests labelled gpu, split into C++ executables and Python qa
    files by where ctest runs them."""
    out = subprocess.run(["ctest", "-L", "gpu", "--show-only=json-v1"], cwd=build,
                         check=True, capture_output=True, text=True).stdout
    cpp, py = [], []
    for t in json.loads(out)["tests"]:
        wd = next((p["value"] for p in t.get("properties", [])
                   if p["name"] == "WORKING_DIRECTORY"), "")
        if wd.endswith("/python/gpudsp"):
            py.append(t["name"])
        else:
            cpp.append(t["name"])
    return cpp, py


def discover_python(stage_site, tests_dir, stage_lib):
    """Imports what the runner's processes import, with the staged module and
    library first, and returns the files of every loaded module."""
    code = (
        "import importlib, json, os, sys\n"
        f"sys.path[:0] = [{str(stage_site)!r}, {str(tests_dir)!r}]\n"
        "sys.path.append('/usr/lib/python3/dist-packages')\n"
        f"for m in {PY_MODULES!r}: importlib.import_module(m)\n"
        f"for f in sorted(os.listdir({str(tests_dir)!r})):\n"
        "    if f.startswith('qa_') and f.endswith('.py'): importlib.import_module(f[:-3])\n"
        "files = {n: getattr(m, '__file__', None) for n, m in list(sys.modules.items())}\n"
        "print(json.dumps({n: f for n, f in files.items() if f}))\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GR_DONT_LOAD_PREFS="1",
               LD_LIBRARY_PATH=str(stage_lib))
    # -S: what site.py's .pth files would load is not what we import.
    out = subprocess.run([DEBIAN_PYTHON, "-S", "-c", code], check=True, capture_output=True,
                         text=True, env=env, cwd=tests_dir).stdout
    return json.loads(out.strip().splitlines()[-1])


def installed_site(install):
    """The folder of an installed tree that holds gnuradio/gpudsp: where the
    build put its Python package (lib/python3.11/dist-packages for a prefix
    Debian's Python knows, lib/python3.11/site-packages for any other)."""
    found = sorted(install.glob("lib*/python3*/*-packages/gnuradio/gpudsp/__init__.py"))
    if not found:
        raise SystemExit(f"gpu-suite pack: no gnuradio/gpudsp Python package under {install} "
                         "(was the module built with Python?)")
    return found[0].parent.parent.parent


def last_gpu_run(src):
    """(commit, summary file) of the newest GPU run recorded in
    docs/gpu-runs/, or (None, None)."""
    for f in sorted((src / "docs" / "gpu-runs").glob("*-summary.md"), reverse=True):
        m = re.search(r"Bundle ([0-9a-f]{7,40})", f.read_text(errors="replace"))
        if m:
            return m.group(1), f.name
    return None, None


def changed_tests(src, tests):
    """The tests whose job's sources changed since the last GPU run (all of
    them when that run's commit is unknown here, a shallow clone say), and
    what they were compared with."""
    commit, name = last_gpu_run(src)
    if commit:
        r = subprocess.run(["git", "diff", "--name-only", commit, "--"], cwd=src,
                           capture_output=True, text=True)
        if r.returncode == 0:
            touched = gpu_jobs.jobs_of_files(r.stdout.split())
            return gpu_jobs.tests_of_jobs(tests, touched), f"{commit} ({name})"
    return list(tests), "no earlier GPU run found in this checkout"


def changed_kernel_jobs(src):
    """The jobs whose own sources changed since the last GPU run (none when
    that run's commit is unknown here): ncu profiles them first."""
    commit, _ = last_gpu_run(src)
    if commit:
        r = subprocess.run(["git", "diff", "--name-only", commit, "--"], cwd=src,
                           capture_output=True, text=True)
        if r.returncode == 0:
            return sorted(gpu_jobs.own_jobs_of_files(r.stdout.split()))
    return []


def last_profiled(src):
    """{job: date} of the newest ncu table in docs/gpu-runs/ holding a row of
    that job (files named DATE-...-ncu.csv, first column the job), so that
    the suite profiles first the jobs longest without a profile (on any
    GPU: the tables are few, and a job's kernels change more between runs
    than the GPUs do)."""
    last = {}
    for f in (src / "docs" / "gpu-runs").glob("*-ncu.csv"):  # (max: any order)
        date = f.name[:10]
        for row in csv.reader(f.read_text(errors="replace").splitlines()[1:]):
            if row:
                last[row[0]] = max(last.get(row[0], ""), date)
    return last


def stage_python(root, build_install, tests_dir):
    py = root / "python"
    (py / "bin").mkdir(parents=True)
    shutil.copy2(DEBIAN_PYTHON, py / "bin" / "python3.11")
    os.symlink("python3.11", py / "bin" / "python3")
    stdlib = py / "lib" / "python3.11"
    copy_tree(DEBIAN_STDLIB, stdlib, STDLIB_SKIP)
    shutil.rmtree(stdlib / "lib-dynload")
    copy_tree(DEBIAN_STDLIB / "lib-dynload", stdlib / "lib-dynload", skip_re=DYNLOAD_SKIP)

    site = py / "lib" / "python3" / "dist-packages"
    staged_site = installed_site(build_install)
    files = discover_python(staged_site, tests_dir, root / "lib")
    system_site = Path("/usr/lib/python3/dist-packages")
    # Third-party packages whole (less their tests); of gnuradio, the
    # top-level files and the subpackages actually loaded.
    tops, gr_subs = set(), set()
    for name, f in files.items():
        path = Path(f)
        if system_site not in path.parents:
            continue
        parts = name.split(".")
        if parts[0] == "gnuradio" and len(parts) > 1:
            if (system_site / "gnuradio" / parts[1]).is_dir():
                gr_subs.add(parts[1])
        elif parts[0] != "gnuradio":
            tops.add(parts[0])
    for top in sorted(tops):
        src = system_site / top
        if src.is_dir():
            copy_tree(src, site / top, PACKAGE_SKIP)
        else:
            for f in system_site.glob(top + ".*"):
                shutil.copy2(f, site / f.name)
    gr = site / "gnuradio"
    gr.mkdir(parents=True, exist_ok=True)
    for f in (system_site / "gnuradio").glob("*.py"):
        shutil.copy2(f, gr / f.name)
    for sub in sorted(gr_subs):
        copy_tree(system_site / "gnuradio" / sub, gr / sub, PACKAGE_SKIP)
    copy_tree(staged_site / "gnuradio" / "gpudsp", gr / "gpudsp", PACKAGE_SKIP)
    return sorted(tops), sorted(gr_subs | {"gpudsp"})


def bundle_libraries(root):
    """Copies into root/lib every shared library that an ELF file of the
    bundle needs, resolved as this machine's loader resolves it with the
    bundle's own lib/ first."""
    lib = root / "lib"
    env = dict(os.environ, LD_LIBRARY_PATH=str(lib))
    elves = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p)]
    needed, missing = {}, set()
    for elf in elves:
        r = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env)
        for line in r.stdout.splitlines():
            m = re.match(r"\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
            if not m or SYSTEM_LIBS.match(m.group(1)):
                continue
            if m.group(2) == "not found":
                missing.add(f"{m.group(1)} (needed by {elf.relative_to(root)})")
            else:
                needed[m.group(1)] = Path(m.group(2))
    if missing:
        raise SystemExit("gpu-suite pack: libraries not found on this machine:\n  " +
                         "\n  ".join(sorted(missing)))
    copied = 0
    for name, path in sorted(needed.items()):
        if not (lib / name).exists():
            shutil.copy2(path.resolve(), lib / name)
            copied += 1
    return copied


def glibc_needed(root):
    """The newest glibc symbol version any ELF file of the bundle needs."""
    versions = set()
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and is_elf(p):
            r = subprocess.run(["objdump", "-T", str(p)], capture_output=True, text=True)
            versions.update(re.findall(r"GLIBC_(2\.\d+)", r.stdout))
    return max(versions, key=lambda v: tuple(map(int, v.split("."))), default="2.17")


def size_of(path):
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, type=Path, help="built CMake tree")
    ap.add_argument("--source", required=True, type=Path, help="source checkout")
    ap.add_argument("--out", required=True, type=Path, help="output folder (DIR)")
    ap.add_argument("--max-mib", type=float, default=60.0)
    a = ap.parse_args()
    build, src, out = a.build.resolve(), a.source.resolve(), a.out.resolve()
    work = out / "stage"
    shutil.rmtree(out, ignore_errors=True)
    root = work / "root"
    root.mkdir(parents=True)

    log(f"installing {build} into the stage")
    install = work / "install"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(install)],
                   check=True, stdout=subprocess.DEVNULL)
    (root / "bin").mkdir()
    (root / "lib").mkdir()
    for f in (install / "bin").iterdir():
        shutil.copy2(f, root / "bin" / f.name)
    for f in install.glob("lib*/**/libgnuradio-gpudsp.so*"):
        if not f.is_symlink():
            shutil.copy2(f, root / "lib" / "libgnuradio-gpudsp.so.1.0.0")
    copy_tree(install / "share" / "gr-gpudsp", root / "share" / "gr-gpudsp", {"examples"})

    cpp, py = gpu_tests(build)
    (root / "tests" / "cpp").mkdir(parents=True)
    for name in cpp:
        shutil.copy2(build / "lib" / name, root / "tests" / "cpp" / name)
    tests_py = root / "tests" / "python"
    tests_py.mkdir()
    for f in sorted((src / "python" / "gpudsp").glob("qa_*.py")):
        shutil.copy2(f, tests_py / f.name)

    log("staging the Python runtime")
    tops, gr_subs = stage_python(root, install, tests_py)
    log(f"  packages: {', '.join(tops)}; gnuradio.{{{', '.join(gr_subs)}}}")
    n = bundle_libraries(root)
    log(f"  {n} shared libraries bundled")

    suite = root / "suite"
    suite.mkdir()
    for f in ("runner.py", "report.py", "targets.py", "kernel_names.py", "jobs.py"):
        shutil.copy2(src / "scripts" / "gpusuite" / f, suite / f)
    describe = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=src,
                              capture_output=True, text=True).stdout.strip() or "unknown"
    cache = (build / "CMakeCache.txt").read_text()
    arch = re.search(r"^CMAKE_CUDA_ARCHITECTURES:[A-Z]+=(.*)$", cache, re.M)
    manifest = {
        "commit": describe,
        "packed": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cuda_architectures": arch.group(1) if arch else "unknown",
        "cpp_tests": cpp,
        "python_tests": py,
        "python_packages": tops + ["gnuradio." + s for s in gr_subs],
    }
    manifest["changed_tests"], manifest["changed_since"] = changed_tests(src, cpp)
    manifest["last_profiled"] = last_profiled(src)
    manifest["changed_kernel_jobs"] = changed_kernel_jobs(src)
    manifest["glibc"] = glibc_needed(root)
    (suite / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"staged {size_of(root) / 2**20:.1f} MiB; compressing")

    archive = out / "gpusuite.tar.xz"
    threads = str(max(1, os.cpu_count() or 1))
    with open(archive, "wb") as f:
        tar = subprocess.Popen(["tar", "-C", str(root), "--owner=0", "--group=0", "-cf", "-",
                                "."], stdout=subprocess.PIPE)
        subprocess.run(["xz", "-6", "-T", threads, "-c"], stdin=tar.stdout, stdout=f,
                       check=True)
        if tar.wait() != 0:
            raise SystemExit("gpu-suite pack: tar failed")
    launcher = (src / "scripts" / "gpusuite" / "launcher.sh").read_text()
    (out / "run").write_text(launcher.replace("@GLIBC_NEEDED@", manifest["glibc"]))
    os.chmod(out / "run", 0o755)
    shutil.rmtree(work)
    total = size_of(out) / 2**20
    log(f"{out}: {total:.1f} MiB (archive and launcher; limit {a.max_mib:g} MiB)")
    log(f"  {len(cpp)} C++ and {len(py)} Python GPU tests, commit {describe}, "
        f"CUDA architectures {manifest['cuda_architectures']}, glibc >= {manifest['glibc']}")
    if total > a.max_mib:
        raise SystemExit(f"gpu-suite pack: {total:.1f} MiB is over the {a.max_mib:g} MiB "
                         "limit: trim the bundle")


if __name__ == "__main__":
    main()
