#!/usr/bin/env python3
"""Every code example of the documentation, compiled and run.

usage: check_docs.py --src DIR --build DIR --out DIR --cc CC [--cc ARG ...]
                     [--flag FLAG ...] [--opencl] [--mpicc PATH] [--mpirun PATH]
                     [FILES.md...]

The convention (docs/internals.md, "Documentation"): every ```c block of
README.md and docs/*.md is a complete program. This script extracts each one,
compiles it against the library (the source tree's include/, the build tree's
version header and libclbroadcast) with -std=c11 -Wall -Wextra -Werror, runs it
and wants exit status 0 (77: skipped, with the program's reason). A fragment
that is not a program belongs in a ```text block.

  - A block that includes <clbroadcast_cl.h> is compiled with OpenCL
    (-lOpenCL); without --opencl (a build without OpenCL) it is skipped.
  - A block that includes <mpi.h> is compiled with --mpicc and run with
    `--mpirun --allow-run-as-root --oversubscribe -np 2`; skipped when either
    is missing.

Programs run on the default device, or the one CLB_DEVICE selects (the test
suite's CLB_TEST_DEVICES, when set, is taken as CLB_DEVICE), with a time limit
of 300 s each. --flag adds a compiler flag (the build's -fsanitize=..., so
that a sanitized library's programs are sanitized too). Prints one line per block; exits 1 when any failed or when
no block was found at all.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^```c[ \t]*$")


def blocks(path):
    """(first line number, text) of every ```c block of a Markdown file."""
    out, cur, start, indent = [], None, 0, 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if cur is None:
                if FENCE.match(stripped):
                    cur, start = [], n + 1
                    indent = len(line) - len(line.lstrip())
            elif stripped == "```":
                out.append((start, "".join(cur)))
                cur = None
            else:
                cur.append(line[indent:] if line[:indent].strip() == "" else line)
    return out


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           env=env, check=False)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode("utf-8", "replace") + f"\n(killed after {timeout} s)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--opencl", action="store_true")
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    ap.add_argument("--cc", action="append", required=True, help="the C compiler command, one word per --cc")
    ap.add_argument("--flag", action="append", default=[], help="one more compiler flag")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(a.src, "README.md")] + sorted(glob.glob(os.path.join(a.src, "docs", "*.md")))
    os.makedirs(a.out, exist_ok=True)
    libdir = os.path.join(a.build, "src")
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
             "-I" + os.path.join(a.src, "include"), "-I" + a.build] + a.flag
    libs = ["-L" + libdir, "-lclbroadcast", "-Wl,-rpath," + libdir, "-lm"]
    ok = skipped = failed = 0
    for path in files:
        rel = os.path.relpath(path, a.src)
        for line, text in blocks(path):
            name = re.sub(r"[^A-Za-z0-9]+", "_", rel) + f"_{line}"
            where = f"{rel}:{line}"
            cc, extra, launch = list(a.cc), [], []
            if "<clbroadcast_cl.h>" in text:
                if not a.opencl:
                    print(f"skip {where}: uses clbroadcast_cl.h; this build has no OpenCL")
                    skipped += 1
                    continue
                extra = ["-DCL_TARGET_OPENCL_VERSION=120", "-lOpenCL"]
            if "<mpi.h>" in text:
                if not (a.mpicc and a.mpirun):
                    print(f"skip {where}: uses MPI; no mpicc and mpirun found")
                    skipped += 1
                    continue
                cc = [a.mpicc]
                launch = [a.mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
            src = os.path.join(a.out, name + ".c")
            exe = os.path.join(a.out, name)
            with open(src, "w", encoding="utf-8") as f:
                f.write(f"#line {line} \"{rel}\"\n" + text)
            rc, log = run(cc + flags + [src, "-o", exe] + libs + extra, 120)
            if rc != 0:
                print(f"FAIL {where}: does not compile\n{log}")
                failed += 1
                continue
            env = dict(os.environ)
            if env.get("CLB_TEST_DEVICES") and not env.get("CLB_DEVICE"):
                env["CLB_DEVICE"] = env["CLB_TEST_DEVICES"]
            env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
            rc, log = run(launch + [exe], 300, env)
            if rc == 0:
                print(f"ok   {where}")
                ok += 1
            elif rc == 77:
                print(f"skip {where}: {log.strip().splitlines()[-1] if log.strip() else 'exit 77'}")
                skipped += 1
            else:
                print(f"FAIL {where}: exit {rc}\n{log}")
                failed += 1
    print(f"{ok} ran, {skipped} skipped, {failed} failed")
    if ok + skipped + failed == 0:
        print("FAIL: no ```c block found in " + ", ".join(files))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
