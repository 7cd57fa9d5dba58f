#!/usr/bin/env python3
"""Arrays of inputs compile clean (API contract, "Arrays of inputs").

User code passing a plain `clb_tensor *in[]` and a `const clb_tensor *in[]` to every
array-of-inputs function must compile without a cast or a warning with gcc and clang
in C11, C17 and C23 (-Werror, -Werror=incompatible-pointer-types) and as C++, while
an array of any other pointer type must still fail to compile.

usage: check_arrays.py INCLUDE_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

GOOD = r"""
#include "clbroadcast.h"
#include <stddef.h>
clb_status user(clb_context *ctx, clb_tensor *a, clb_tensor *b)
{
    clb_tensor *in[] = {a, b};
    const clb_tensor *cin[] = {a, b};
    const char *names[] = {"x", "y"};
    clb_tensor *out[2], *c = NULL;
    const int axis[1] = {-1};
    clb_status s = clb_concat(2, in, 0, &c);
    s = clb_concat(2, cin, 0, &c);
    s = clb_stack(2, in, 0, &c);
    s = clb_stack(2, cin, 0, &c);
    s = clb_broadcast_tensors(2, in, out);
    s = clb_broadcast_tensors(2, cin, out);
    s = clb_eval(ctx, "x * y", 2, names, in, &c);
    s = clb_eval(ctx, "x * y", 2, names, cin, &c);
    s = clb_eval(ctx, "3.5", 0, NULL, NULL, &c);
    s = clb_eval_into(ctx, "x * y", 2, names, in, c);
    s = clb_eval_reduce(ctx, "(x - y) ** 2", 2, names, in, CLB_SUM, 1, axis, 0, &c);
    s = clb_eval_reduce(ctx, "(x - y) ** 2", 2, names, cin, CLB_SUM, 1, axis, 0, &c);
    s = clb_einsum("ij,jk->ik", 2, in, &c);
    s = clb_einsum("ij,jk->ik", 2, cin, &c);
#ifndef __cplusplus
    s = clb_concat(2, (const clb_tensor *[]){a, b}, 0, &c); /* a compound literal */
#endif
    clb_status (*fp)(int, const clb_tensor *const *, int, clb_tensor **) = clb_concat;
    (void)fp;
    return s;
}
"""

BAD = r"""
#include "clbroadcast.h"
clb_status user(clb_tensor *c)
{
    double *in[2] = {0, 0};
    return clb_concat(2, in, 0, &c);
}
"""


def compile_ok(cmd, src, suffix):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "user" + suffix)
        with open(path, "w") as f:
            f.write(src)
        r = subprocess.run(cmd + ["-fsyntax-only", path], capture_output=True, text=True)
        return r.returncode == 0, r.stderr


def main():
    inc = sys.argv[1]
    flags = ["-I", inc, "-Wall", "-Wextra", "-Werror", "-Werror=incompatible-pointer-types"]
    runs = []
    for cc in ("gcc", "clang"):
        if shutil.which(cc):
            for std in ("c11", "c17", "c2x"):
                runs.append(([cc, "-std=" + std] + flags, ".c"))
    for cxx in ("g++", "clang++"):
        if shutil.which(cxx):
            runs.append(([cxx, "-std=c++17", "-I", inc, "-Wall", "-Wextra", "-Werror"], ".cpp"))
    if not runs:
        print("no C compiler found")
        return 77
    failed = False
    for cmd, suffix in runs:
        ok, err = compile_ok(cmd, GOOD, suffix)
        if not ok:
            print("FAIL: plain arrays do not compile clean with %s:\n%s" % (" ".join(cmd[:2]), err))
            failed = True
        ok, _ = compile_ok(cmd, BAD, suffix)
        if ok:
            print("FAIL: an array of double * compiles with %s" % " ".join(cmd[:2]))
            failed = True
        if not failed:
            print("ok: %s" % " ".join(cmd[:2]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
