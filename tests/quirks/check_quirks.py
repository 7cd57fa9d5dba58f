#!/usr/bin/env python3
"""Holds the quirks table (src/opencl/cl_quirks.c) against the reproducers.

usage: check_quirks.py LIST_DEVICES REPRODUCER...

For every OpenCL platform on this machine and every reproducer of
tests/quirks/: a reproducer names its quirk on its first line ("quirk: NAME",
or "quirk: none (avoided by design)"). Fails when
  - a quirk's defect shows on a device the table does not give that quirk
    (the library would meet the defect unprotected), or
  - the table gives a device a quirk whose defect does not show there (a
    stale entry: the driver was fixed, or the key is too wide).
Defects that the library's design avoids are reported, never a failure.
Prints one line per (reproducer, platform) and a closing "N passed, N failed".
"""
import os
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    lister, repros = argv[1], argv[2:]
    out = subprocess.run([lister], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        print("list_devices failed:", out.stderr.strip())
        return 1
    devices = {}
    for line in out.stdout.splitlines():
        platform, driver, quirks = (line.split("\t") + ["", ""])[:3]
        devices.setdefault(platform, (driver, set(q for q in quirks.split(",") if q)))
    if not devices:
        print("no OpenCL device: nothing to check")
    passed = failed = 0
    for repro in repros:
        name = os.path.basename(repro)
        for platform, (driver, quirks) in sorted(devices.items()):
            p = subprocess.run([repro, platform], capture_output=True, text=True, timeout=300)
            lines = [l for l in p.stdout.splitlines() if l.strip()]
            quirk = lines[0].split(":", 1)[1].strip() if lines and lines[0].startswith("quirk:") else "?"
            verdict = lines[-1] if lines else "(no output)"
            if p.returncode == 77:
                continue
            if p.returncode not in (0, 1):
                print(f"FAIL {name} on {platform} {driver}: {verdict} (exit {p.returncode})")
                failed += 1
                continue
            present = p.returncode == 1
            if quirk.startswith("none"):
                print(f"ok   {name} on {platform} {driver}: {verdict} [avoided by design]")
                passed += 1
            elif present and quirk not in quirks:
                print(f"FAIL {name} on {platform} {driver}: {verdict}, but the table gives this "
                      f"device no '{quirk}' quirk (src/opencl/cl_quirks.c)")
                failed += 1
            elif not present and quirk in quirks:
                print(f"FAIL {name} on {platform} {driver}: {verdict}, but the table gives this "
                      f"device the '{quirk}' quirk: narrow its driver range (src/opencl/cl_quirks.c)")
                failed += 1
            else:
                print(f"ok   {name} on {platform} {driver}: {verdict} "
                      f"[quirk {'applied' if present else 'not applied'}]")
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
