#!/usr/bin/env python3
"""Runs the clb command and checks what it writes (standard library only).

Usage:
  check_cli.py bench CLB SELECTOR OUTDIR   clb bench --quick on SELECTOR; checks
                                           the JSON fields, the CSV rows and that
                                           the SVG is well-formed XML
  check_cli.py devices CLB                 clb devices --json parses and lists host
  check_cli.py usage CLB                   bad arguments and unknown devices: exit 2
  check_cli.py numpy CLB SCRIPT OUTDIR     bench/numpy_ref.py over a host-backend
                                           bench --quick JSON (skip without NumPy)
  check_cli.py run CLB ARGS...             runs clb ARGS; a selector that matches
                                           no device is a skip (exit 77)

A missing device is a skip, except when $CLB_TEST_REQUIRE names it (as
./dev test does with "pocl"): then the test fails, like the device tests."""
import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
STATUSES = {"ok", "unsupported", "failed", "wrong"}
PATTERNS = {"copy", "scalar_broadcast", "add_same_shape", "row_broadcast", "column_broadcast",
            "images_minus_channel_mean", "outer", "bias_add", "batchnorm_normalize",
            "row_sum", "column_sum", "sum_to_shape", "batched_matmul"}
DEVICE_FIELDS = {"selector", "index", "type", "name", "vendor", "platform", "driver_version",
                 "opencl_c_version", "compute_units", "global_mem_bytes", "max_alloc_bytes",
                 "fp16", "fp64", "host_unified_memory"}
RESULT_NUMBERS = ("median_s", "min_s", "gbps", "gflops", "percent_of_copy", "speedup_vs_host")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(clb, args, timeout=120):
    print("$", clb, " ".join(args), flush=True)
    p = subprocess.run([clb] + args, capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    return p


def missing_device(p, selector):
    """Exit 2 with the selector list means the device is not on this machine."""
    if p.returncode != 2 or "available selectors" not in p.stderr:
        return False
    required = [r for r in os.environ.get("CLB_TEST_REQUIRE", "").lower().split(",") if r]
    if any(r in selector.lower() for r in required):
        fail(f"CLB_TEST_REQUIRE names '{selector}', but no device matches it")
    print(f"SKIP: no device matches '{selector}'")
    sys.exit(SKIP)


def check_json(path, selector):
    doc = json.load(open(path, encoding="utf-8"))
    for key in ("tool", "library_version", "timestamp", "machine", "quick", "repeat", "warmup",
                "peak_method", "devices"):
        if key not in doc:
            fail(f"JSON has no '{key}'")
    if doc["quick"] is not True or not doc["library_version"]:
        fail("JSON: quick must be true and library_version set")
    if len(doc["devices"]) != 1:
        fail(f"JSON: one device expected for --device {selector}, got {len(doc['devices'])}")
    dev = doc["devices"][0]
    if not DEVICE_FIELDS <= dev.keys():
        fail(f"JSON device lacks {sorted(DEVICE_FIELDS - dev.keys())}")
    results = dev["results"]
    if {r["pattern"] for r in results} != PATTERNS or len(results) != len(PATTERNS):
        fail(f"JSON patterns differ: {sorted(r['pattern'] for r in results)}")
    if results[0]["pattern"] != "copy" or results[0]["status"] != "ok":
        fail("the copy (peak) must come first and succeed on every device")
    if not (dev["copy_gbps"] or 0) > 0:
        fail("copy_gbps must be positive")
    peak = [r["gbps"] for r in results if r["pattern"] in ("copy", "scalar_broadcast") and r["gbps"]]
    if dev["copy_gbps"] != max(peak) or dev["copy_pattern"] not in ("copy", "scalar_broadcast"):
        fail("copy_gbps must be the faster of the two copies")
    for r in results:
        if r["status"] not in STATUSES:
            fail(f"{r['pattern']}: unknown status {r['status']!r}")
        if r["status"] in ("failed", "wrong"):
            fail(f"{r['pattern']}: {r['status']}: {r['reason']}")
        if not r["bytes"] > 0:
            fail(f"{r['pattern']}: bytes must be positive")
        if r["status"] == "unsupported":
            if not r["reason"] or "CLB_ERR_UNSUPPORTED" not in r["reason"]:
                fail(f"{r['pattern']}: unsupported without its reason")
            if r["median_s"] is not None:
                fail(f"{r['pattern']}: unsupported but has a time")
            continue
        for key in RESULT_NUMBERS:
            if key == "gflops" and r["pattern"] == "copy":
                if r[key] is not None:
                    fail("a copy does no arithmetic: its gflops must be null")
                continue
            if not isinstance(r[key], (int, float)) or not r[key] > 0:
                fail(f"{r['pattern']}: {key} = {r[key]!r}, expected a positive number")
        if r["runs"] != doc["repeat"]:
            fail(f"{r['pattern']}: {r['runs']} runs, --repeat was {doc['repeat']}")
        if abs(r["gbps"] - r["bytes"] / r["median_s"] / 1e9) > 1e-3 * r["gbps"]:
            fail(f"{r['pattern']}: gbps is not bytes / median / 1e9")
    return doc


def check_csv(path, doc):
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
    results = doc["devices"][0]["results"]
    if len(rows) != len(results):
        fail(f"CSV has {len(rows)} rows, JSON {len(results)} results")
    for row, r in zip(rows, results):
        if row["pattern"] != r["pattern"] or row["status"] != r["status"]:
            fail(f"CSV row {row['pattern']} / {row['status']} differs from the JSON")
        if row["library_version"] != doc["library_version"] or not row["device_name"]:
            fail("CSV rows must carry the library version and the device")


def check_svg(path, doc):
    root = ET.parse(path).getroot()  # raises on malformed XML
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        fail(f"SVG root is {root.tag}")
    bars = [e for e in root.iter(ns + "rect") if e.find(ns + "title") is not None]
    plotted = [r for r in doc["devices"][0]["results"] if r["percent_of_copy"] is not None]
    if len(bars) != len(plotted):
        fail(f"SVG has {len(bars)} bars for {len(plotted)} measured patterns")
    texts = " ".join("".join(e.itertext()) for e in root.iter(ns + "text"))
    if doc["devices"][0]["name"] not in texts:
        fail("SVG does not name the device")


def cmd_bench(clb, selector, outdir):
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, "bench-" + "".join(c if c.isalnum() else "_" for c in selector))
    files = {"json": base + ".json", "csv": base + ".csv", "plot": base + ".svg"}
    for f in files.values():
        if os.path.exists(f):
            os.remove(f)
    p = run(clb, ["bench", "--quick", "--device", selector, "--repeat", "3",
                  "--json", files["json"], "--csv", files["csv"], "--plot", files["plot"]])
    missing_device(p, selector)
    if p.returncode != 0:
        fail(f"clb bench exited {p.returncode}")
    if "copy bandwidth" not in p.stdout or "clb bench: [" not in p.stderr:
        fail("expected the table on stdout and progress lines on stderr")
    doc = check_json(files["json"], selector)
    check_csv(files["csv"], doc)
    check_svg(files["plot"], doc)
    print("OK: table, JSON, CSV and SVG")


def cmd_devices(clb):
    p = run(clb, ["devices", "--json"])
    if p.returncode != 0:
        fail(f"clb devices --json exited {p.returncode}")
    doc = json.loads(p.stdout)
    devs = doc["devices"]
    if devs[0]["selector"] != "host" or devs[0]["cached_programs"] is not None:
        fail("the host backend must come first, without a program cache")
    for d in devs[1:]:
        if not DEVICE_FIELDS <= d.keys() or not isinstance(d["cached_programs"], int):
            fail(f"device {d.get('selector')} lacks fields or cached_programs")
    p = run(clb, ["devices"])
    if p.returncode != 0 or "KERNELS CACHED" not in p.stdout:
        fail("the devices table must have the KERNELS CACHED column")
    print("OK")


def cmd_usage(clb):
    cases = [["bench", "--bogus"], ["bench", "--repeat", "0"], ["bench", "--repeat"],
             ["bench", "--json"], ["demo", "--device"], ["devices", "extra"], ["frobnicate"], []]
    for args in cases:
        p = run(clb, args)
        if p.returncode != 2 or "usage: clb" not in p.stderr:
            fail(f"clb {' '.join(args)}: expected the usage and exit 2, got {p.returncode}")
    for args in (["bench", "--device", "no-such-device-xyz"], ["demo", "--device", "no-such-device-xyz"]):
        p = run(clb, args)
        if p.returncode != 2 or "available selectors" not in p.stderr or "host" not in p.stderr:
            fail(f"clb {' '.join(args)}: expected the selector list and exit 2, got {p.returncode}")
    print("OK")


def python_with_numpy():
    """This Python, else the system's (NumPy usually comes from Debian's python3-numpy)."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(exe) and subprocess.run([exe, "-c", "import numpy"],
                                                  capture_output=True).returncode == 0:
            return exe
    return None


def cmd_numpy(clb, script, outdir):
    exe = python_with_numpy()
    if not exe:
        print("SKIP: NumPy is not installed")
        sys.exit(SKIP)
    os.makedirs(outdir, exist_ok=True)
    src, merged = os.path.join(outdir, "numpy-in.json"), os.path.join(outdir, "numpy-out.json")
    p = run(clb, ["bench", "--quick", "--device", "host", "--repeat", "1", "--json", src])
    if p.returncode != 0:
        fail(f"clb bench exited {p.returncode}")
    print("$", exe, script, src, "--repeat 1 --json", merged, flush=True)
    q = subprocess.run([exe, script, src, "--repeat", "1", "--json", merged],
                       capture_output=True, text=True, timeout=300)
    sys.stdout.write(q.stdout + q.stderr)
    if q.returncode != 0:
        fail(f"numpy_ref.py exited {q.returncode}")
    doc = json.load(open(merged, encoding="utf-8"))
    for r in doc["devices"][0]["results"]:
        if not r["numpy_median_s"] > 0 or not r["speedup_vs_numpy"] > 0:
            fail(f"{r['pattern']}: no NumPy time or speed-up")
    print("OK")


def cmd_run(clb, args):
    p = run(clb, args, timeout=300)
    if "--device" in args:
        missing_device(p, args[args.index("--device") + 1])
    if p.returncode != 0:
        fail(f"clb {' '.join(args)} exited {p.returncode}")


def main(argv):
    if len(argv) >= 5 and argv[1] == "bench":
        cmd_bench(argv[2], argv[3], argv[4])
    elif len(argv) == 3 and argv[1] == "devices":
        cmd_devices(argv[2])
    elif len(argv) == 3 and argv[1] == "usage":
        cmd_usage(argv[2])
    elif len(argv) == 5 and argv[1] == "numpy":
        cmd_numpy(argv[2], argv[3], argv[4])
    elif len(argv) >= 3 and argv[1] == "run":
        cmd_run(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
