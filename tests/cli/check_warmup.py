#!/usr/bin/env python3
"""Checks `clb warmup` (standard library only).

Usage: check_warmup.py CLB SELECTOR

With an empty CLB_CACHE_DIR, `clb warmup --device SELECTOR --set minimal`
fills the cache (it says how many programs are new), a second run finds them
all there (0 new), the host backend has nothing to build, and bad arguments
exit 2. A missing device is a skip, except when $CLB_TEST_REQUIRE names it."""
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(clb, args, env):
    print("$", clb, " ".join(args), flush=True)
    p = subprocess.run([clb] + args, capture_output=True, text=True, timeout=600, env=env)
    sys.stdout.write(p.stdout + p.stderr)
    return p


def new_programs(p):
    m = re.search(r"(\d+) programs in the cache \((\d+) new\)", p.stdout)
    if p.returncode != 0 or not m:
        fail(f"expected exit 0 and a programs line, got exit {p.returncode}")
    return int(m.group(1)), int(m.group(2))


def main(clb, selector):
    with tempfile.TemporaryDirectory(prefix="clb-warmup-") as cache:
        env = dict(os.environ, CLB_CACHE_DIR=cache)
        for args in (["warmup", "--set", "everything"], ["warmup", "--device"],
                     ["warmup", "--bogus"], ["warmup", "--device", ""]):
            p = run(clb, args, env)
            if p.returncode != 2 or "usage: clb" not in p.stderr:
                fail(f"clb {' '.join(args)}: expected the usage and exit 2, got {p.returncode}")
        p = run(clb, ["warmup", "--device", "no-such-device-xyz"], env)
        if p.returncode != 2 or "available selectors" not in p.stderr:
            fail("an unknown device must list the selectors and exit 2")
        p = run(clb, ["warmup", "--device", "host"], env)
        if p.returncode != 0 or "nothing to build" not in p.stdout:
            fail("the host backend has nothing to build")

        p = run(clb, ["warmup", "--device", selector, "--set", "minimal"], env)
        if p.returncode == 2 and "available selectors" in p.stderr:
            required = [r for r in os.environ.get("CLB_TEST_REQUIRE", "").lower().split(",") if r]
            if any(r in selector.lower() for r in required):
                fail(f"CLB_TEST_REQUIRE names '{selector}', but no device matches it")
            print(f"SKIP: no device matches '{selector}'")
            sys.exit(SKIP)
        total, new = new_programs(p)
        # The minimal set is an add, an exp and a row sum: at least three programs.
        if total < 3 or new != total:
            fail(f"an empty cache must gain every program of the set: {total} in it, {new} new")
        total2, new2 = new_programs(run(clb, ["warmup", "--device", selector, "--set", "minimal"], env))
        if total2 != total or new2 != 0:
            fail(f"a second warmup must find every program: {total2} in the cache, {new2} new")
    print("OK")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
