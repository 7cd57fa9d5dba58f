#!/usr/bin/env python3
"""Runs the clb command and checks what it writes (standard library only).

Usage:
  check_cli.py bench CLB SELECTOR OUTDIR   clb bench --quick on SELECTOR; checks
                                           the JSON against docs/bench-schema.md,
                                           the CSV against the JSON and the SVG's
                                           geometry (every text inside the viewBox)
  check_cli.py compare CLB TESTDATA OUTDIR clb bench --compare / --baseline on the
                                           recorded results in tests/cli/testdata: ratios,
                                           verdicts, exit codes, the plot's geometry
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
import math
import os
import re
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
BENCH_DEVICE_FIELDS = DEVICE_FIELDS | {"peaks", "limits", "results"}
TOP_FIELDS = {"schema", "schema_version", "tool", "library_version", "timestamp", "machine", "quick",
              "repeat_mode", "repeat", "repeat_budget_s", "warmup", "host_baseline_repeat",
              "statistic", "gb", "bytes_counted", "noisy_spread", "limit_methods", "devices"}
PEAKS = {"copy": "GB/s", "read": "GB/s", "write": "GB/s", "fma_float32": "GFLOP/s",
         "fma_float16": "GFLOP/s", "fma_float64": "GFLOP/s", "launch_round_trip": "us",
         "launch_pipelined": "us", "host_to_device": "GB/s", "device_to_host": "GB/s",
         "mapped": "GB/s"}
KINDS = {"copy": "GB/s", "read": "GB/s", "fma": "GFLOP/s", "launch": "us"}
# The peak each pattern is measured against (bench/cases.c clbb_case_peak).
PATTERN_PEAK = {"row_sum": "read", "column_sum": "read", "sum_to_shape": "read",
                "batched_matmul": "fma", "bias_add": "launch"}
STAT_FIELDS = ("runs", "median_s", "min_s", "max_s", "spread", "noisy", "stable", "other_load")
RESULT_NUMBERS = ("median_s", "min_s", "max_s", "gbps", "gflops", "percent_of_peak",
                  "speedup_vs_host")
SCHEMA_VERSION = 2
CHAR_EM = 0.62  # cli/report/svg.h SVG_CHAR_EM: estimated advance of one character in font sizes


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


def close(a, b, rel=2e-3):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def check_stats(where, o, timed):
    for key in STAT_FIELDS:
        if key not in o:
            fail(f"{where}: no '{key}'")
    if not timed:
        return
    if not (0 < o["min_s"] <= o["median_s"] <= o["max_s"]):
        fail(f"{where}: min {o['min_s']} <= median {o['median_s']} <= max {o['max_s']} does not hold")
    spread = (o["max_s"] - o["min_s"]) / o["median_s"]
    if not close(o["spread"], spread, 1e-3) and abs(o["spread"] - spread) > 1e-6:
        fail(f"{where}: spread {o['spread']} is not (max - min) / median = {spread}")
    if o["noisy"] != (o["spread"] > 0.10):
        fail(f"{where}: noisy must be spread > 10 %")
    if o["other_load"] is not None and not 0 <= o["other_load"] <= 1:
        fail(f"{where}: other_load {o['other_load']} outside [0, 1]")
    if not isinstance(o["runs"], int) or o["runs"] < 1:
        fail(f"{where}: runs must be a positive count")


def check_peaks(dev):
    peaks = {p["id"]: p for p in dev["peaks"]}
    if set(peaks) != set(PEAKS) or len(dev["peaks"]) != len(PEAKS):
        fail(f"{dev['selector']}: peaks {sorted(peaks)}, expected {sorted(PEAKS)}")
    host = dev["type"] == "host"
    for pid, p in peaks.items():
        where = f"{dev['selector']} peak {pid}"
        if p["unit"] != PEAKS[pid] or p["status"] not in ("ok", "unsupported", "failed"):
            fail(f"{where}: unit {p['unit']!r} / status {p['status']!r}")
        if p["status"] == "failed":
            fail(f"{where}: failed: {p['reason']}")
        check_stats(where, p, p["status"] == "ok")
        if p["status"] != "ok":
            if not p["reason"] or p["value"] is not None:
                fail(f"{where}: not measured, so a reason and no value")
            continue
        if not p["kernel"] or not p["value"] > 0:
            fail(f"{where}: a measured peak states its kernel and a positive value")
        want = p["min_s"] * 1e6 if p["unit"] == "us" else p["work"] / p["min_s"] / 1e9
        if not close(p["value"], want):
            fail(f"{where}: value {p['value']} is not work / the fastest run ({want})")
        if host != ("plain C loop" in p["kernel"]):
            fail(f"{where}: host peaks are plain C loops, OpenCL peaks kernels: {p['kernel']!r}")
    must = ["copy", "read", "write", "fma_float32"] + ([] if host else
            ["launch_round_trip", "launch_pipelined", "host_to_device", "device_to_host", "mapped"])
    for pid in must:
        if peaks[pid]["status"] != "ok":
            fail(f"{dev['selector']}: peak {pid} must be measured here: {peaks[pid]['reason']}")
    if host and any(peaks[p]["status"] != "unsupported" for p in ("launch_round_trip", "mapped")):
        fail("the host backend has no launches and no transfers")
    if not host and (peaks["fma_float64"]["status"] == "ok") != dev["fp64"]:
        fail(f"{dev['selector']}: fma_float64 must be measured exactly where the device has fp64")
    return peaks


def check_limits(dev, peaks, results):
    lim = dev["limits"]
    if set(lim) != set(KINDS):
        fail(f"{dev['selector']}: limits {sorted(lim)}")
    for k, unit in KINDS.items():
        if lim[k]["unit"] != unit:
            fail(f"{dev['selector']}: limit {k} in {lim[k]['unit']}")
    copies = [peaks["copy"]["value"]] + [r["gbps"] for r in results
                                         if r["pattern"] in ("copy", "scalar_broadcast") and r["gbps"]]
    if not close(lim["copy"]["value"], max(copies)):
        fail(f"{dev['selector']}: the copy limit must be the fastest of the copy peak and the copies")
    for k, pid in (("read", "read"), ("fma", "fma_float32"), ("launch", "launch_round_trip")):
        if (lim[k]["value"] or None) != peaks[pid]["value"] and not close(lim[k]["value"] or 0, peaks[pid]["value"] or 0):
            fail(f"{dev['selector']}: limit {k} must be peak {pid}")


def check_json(path, selector):
    doc = json.load(open(path, encoding="utf-8"))
    if not TOP_FIELDS <= doc.keys():
        fail(f"JSON lacks {sorted(TOP_FIELDS - doc.keys())}")
    if doc["schema"] != "clb-bench" or doc["schema_version"] != SCHEMA_VERSION:
        fail(f"JSON schema {doc['schema']!r} version {doc['schema_version']!r}")
    if doc["quick"] is not True or not doc["library_version"]:
        fail("JSON: quick must be true and library_version set")
    if doc["repeat_mode"] not in ("fixed", "auto") or (doc["repeat_mode"] == "fixed") != isinstance(doc["repeat"], int):
        fail("JSON: repeat is a count exactly when repeat_mode is fixed")
    if set(doc["limit_methods"]) != set(KINDS):
        fail("JSON: limit_methods must explain every peak kind")
    if len(doc["devices"]) != 1:
        fail(f"JSON: one device expected for --device {selector}, got {len(doc['devices'])}")
    dev = doc["devices"][0]
    if not BENCH_DEVICE_FIELDS <= dev.keys():
        fail(f"JSON device lacks {sorted(BENCH_DEVICE_FIELDS - dev.keys())}")
    results = dev["results"]
    if {r["pattern"] for r in results} != PATTERNS or len(results) != len(PATTERNS):
        fail(f"JSON patterns differ: {sorted(r['pattern'] for r in results)}")
    if results[0]["pattern"] != "copy" or results[0]["status"] != "ok":
        fail("the copy must come first and succeed on every device")
    peaks = check_peaks(dev)
    check_limits(dev, peaks, results)
    for r in results:
        where = f"{dev['selector']} {r['pattern']}"
        if r["status"] not in STATUSES:
            fail(f"{where}: unknown status {r['status']!r}")
        if r["status"] in ("failed", "wrong"):
            fail(f"{where}: {r['status']}: {r['reason']}")
        if r["peak"] != PATTERN_PEAK.get(r["pattern"], "copy"):
            fail(f"{where}: measured against {r['peak']!r}, expected {PATTERN_PEAK.get(r['pattern'], 'copy')!r}")
        if not r["bytes"] > 0:
            fail(f"{where}: bytes must be positive")
        check_stats(where, r, r["status"] == "ok")
        if r["status"] == "unsupported":
            if not r["reason"] or "CLB_ERR_UNSUPPORTED" not in r["reason"]:
                fail(f"{where}: unsupported without its reason")
            if r["median_s"] is not None:
                fail(f"{where}: unsupported but has a time")
            continue
        for key in RESULT_NUMBERS:
            if key == "gflops" and r["pattern"] == "copy":
                if r[key] is not None:
                    fail("a copy does no arithmetic: its gflops must be null")
                continue
            if key == "percent_of_peak" and r["peak"] == "launch" and dev["type"] == "host":
                if r[key] is not None:
                    fail("the host backend has no launch latency to compare with")
                continue
            if not isinstance(r[key], (int, float)) or not r[key] > 0:
                fail(f"{where}: {key} = {r[key]!r}, expected a positive number")
        if doc["repeat_mode"] == "fixed" and r["runs"] != doc["repeat"]:
            fail(f"{where}: {r['runs']} runs, --repeat was {doc['repeat']}")
        if abs(r["gbps"] - r["bytes"] / r["median_s"] / 1e9) > 1e-3 * r["gbps"]:
            fail(f"{where}: gbps is not bytes / median / 1e9")
        lim = dev["limits"][r["peak"]]["value"]
        if r["percent_of_peak"] is not None:
            want = (100 * lim * 1e-6 / r["median_s"] if r["peak"] == "launch" else
                    100 * (r["gflops"] if r["peak"] == "fma" else r["gbps"]) / lim)
            if not close(r["percent_of_peak"], want, 5e-3):
                fail(f"{where}: percent_of_peak {r['percent_of_peak']} is not {want}")
    return doc


def check_csv(path, doc):
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
    results = doc["devices"][0]["results"]
    if len(rows) != len(results):
        fail(f"CSV has {len(rows)} rows, JSON {len(results)} results")
    for row, r in zip(rows, results):
        if row["pattern"] != r["pattern"] or row["status"] != r["status"] or row["peak"] != r["peak"]:
            fail(f"CSV row {row['pattern']} / {row['status']} / {row['peak']} differs from the JSON")
        if row["library_version"] != doc["library_version"] or not row["device_name"]:
            fail("CSV rows must carry the library version and the device")
        if row["schema_version"] != str(SCHEMA_VERSION):
            fail("CSV rows must carry the schema version")
        if r["median_s"] is not None and not close(float(row["max_s"]), r["max_s"], 1e-5):
            fail(f"CSV {row['pattern']}: max_s differs from the JSON")


def text_extent(e, size):
    """Estimated (left, right) of an SVG text element, from its anchor."""
    x = float(e.get("x"))
    width = len("".join(e.itertext())) * CHAR_EM * size
    anchor = e.get("text-anchor", "start")
    if anchor == "end":
        return x - width, x
    if anchor == "middle":
        return x - width / 2, x + width / 2
    return x, x + width


def check_svg_geometry(path):
    """Well-formed SVG whose every text and rect lies inside the viewBox (text
    extents estimated from font size and character count)."""
    root = ET.parse(path).getroot()  # raises on malformed XML
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        fail(f"SVG root is {root.tag}")
    vx, vy, vw, vh = (float(v) for v in root.get("viewBox").split())
    if (vx, vy) != (0, 0) or float(root.get("width")) != vw or float(root.get("height")) != vh:
        fail("SVG: width and height must match the viewBox")
    default = float(root.get("font-size", "16"))
    texts = list(root.iter(ns + "text"))
    for e in texts:
        size = float(e.get("font-size", default))
        left, right = text_extent(e, size)
        y = float(e.get("y"))
        content = "".join(e.itertext())
        if left < 0 or right > vw or y - size < 0 or y + 0.3 * size > vh:
            fail(f"SVG {path}: text {content!r} at x {left:.0f}..{right:.0f}, y {y:.0f} leaves the "
                 f"viewBox 0 0 {vw:.0f} {vh:.0f}")
    for e in root.iter(ns + "rect"):
        x, y, w, h = (float(e.get(k)) for k in ("x", "y", "width", "height"))
        if x < 0 or y < 0 or w < 0 or h < 0 or x + w > vw + 0.5 or y + h > vh + 0.5:
            fail(f"SVG {path}: rect at {x}, {y} size {w} x {h} leaves the viewBox")
    return root, ns, texts


def check_svg(path, doc):
    root, ns, texts = check_svg_geometry(path)
    bars = [e for e in root.iter(ns + "rect") if e.find(ns + "title") is not None]
    plotted = [r for r in doc["devices"][0]["results"] if r["percent_of_peak"] is not None]
    if len(bars) != len(plotted):
        fail(f"SVG has {len(bars)} bars for {len(plotted)} measured patterns")
    words = " ".join("".join(e.itertext()) for e in texts)
    if doc["devices"][0]["name"][:40] not in words:
        fail("SVG does not name the device (its legend)")
    for title in ("copy bandwidth", "read-only bandwidth", "FMA throughput", "empty-launch"):
        if title not in words:
            fail(f"SVG lacks the panel of '{title}'")


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
    if "limits (the 100 % of each row)" not in p.stdout or "clb bench: [" not in p.stderr:
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
             ["bench", "--repeat", "sometimes"], ["bench", "--repeat", "3", "--budget", "1"],
             ["bench", "--repeat", "auto", "--budget", "0"], ["bench", "--repeat", "auto", "--budget"],
             ["bench", "--json"], ["bench", "--compare"], ["bench", "--compare", "a.json"],
             ["bench", "--compare", "a.json", "b.json", "--quick"],
             ["bench", "--compare", "a.json", "b.json", "--device", "host"],
             ["bench", "--baseline"], ["bench", "--json", "x.json", "--baseline", "x.json"],
             ["demo", "--device"], ["devices", "extra"], ["frobnicate"], []]
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


def table_rows(stdout, selector):
    """The compare table of one reference device: {title: line}."""
    rows, inside = {}, False
    for line in stdout.splitlines():
        if line.startswith("device "):
            inside = line.startswith(f"device {selector}:")
            continue
        if inside and line.startswith("  ") and " | " in line:
            rows[line[2:28].strip()] = line
    return rows


def scaled(src, dst, factor):
    doc = json.load(open(src, encoding="utf-8"))
    for d in doc["devices"]:
        for r in d["results"]:
            for k in ("median_s", "min_s", "max_s"):
                if r[k] is not None:
                    r[k] *= factor
    json.dump(doc, open(dst, "w", encoding="utf-8"))


def cmd_compare(clb, testdata, outdir):
    os.makedirs(outdir, exist_ok=True)
    a, b, c = (os.path.join(testdata, f"run_{x}.json") for x in "abc")
    plot = os.path.join(outdir, "compare.svg")
    p = run(clb, ["bench", "--compare", a, b, "--plot", plot])
    if p.returncode != 0:
        fail(f"--compare without --baseline exits 0 whatever it finds, got {p.returncode}")
    host = table_rows(p.stdout, "host")
    expect = {"copy": ("1.200x", "slower"), "same-shape add": ("1.025x", "within noise"),
              "row broadcast": ("0.500x", "faster"), "scalar broadcast (copy)": ("1.000x", "within noise"),
              "column broadcast": (None, "other shapes"), "outer sum": (None, "unsupported")}
    for title, (ratio, verdict) in expect.items():
        line = host.get(title)
        if not line or verdict not in line or (ratio and ratio not in line):
            fail(f"compare host {title!r}: expected {ratio} {verdict}, got {line!r}")
    if not re.search(r"device 1:0: llvmpipe.*\n  vs B1? device 1:0: Fixture GPU", p.stdout):
        fail("the renamed device must pair with the one left over (by position)")
    if not re.search(r"device 0:0: pthread.*\n  vs B1? device 0:0: pthread", p.stdout):
        fail("devices listed in another order must pair by name and platform")
    m = re.search(r"(\d+) comparisons: (\d+) within noise, (\d+) faster, (\d+) slower", p.stdout)
    if not m or m.groups()[2:] != ("1", "1"):
        fail(f"expected 1 faster and 1 slower in the summary, got {m and m.group(0)}")
    root, ns, _ = check_svg_geometry(plot)
    bars = [e for e in root.iter(ns + "rect") if e.find(ns + "title") is not None]
    if len(bars) != int(m.group(1)):
        fail(f"the compare plot has {len(bars)} bars for {m.group(1)} comparisons")

    checks = [(["--compare", b, "--baseline", a], 1, "slower than the baseline"),
              (["--compare", c, "--baseline", a], 0, "0 slower beyond noise"),
              (["--compare", a, b, c], 0, "B2"),
              (["--compare", a, os.path.join(testdata, "not_json.json")], 2, "not readable as JSON"),
              (["--compare", a, os.path.join(testdata, "schema_v1.json")], 2, "schema version 1"),
              (["--compare", a, os.path.join(outdir, "no-such-file.json")], 2, "no-such-file"),
              (["--compare", a, "--baseline", a], 2, "two different"),
              (["--quick", "--device", "host", "--baseline", os.path.join(testdata, "not_json.json")], 2,
               "not readable as JSON")]
    for args, rc, text in checks:
        p = run(clb, ["bench"] + args)
        if p.returncode != rc or text not in p.stdout + p.stderr:
            fail(f"clb bench {' '.join(args)}: expected exit {rc} and {text!r}, got {p.returncode}")

    # --baseline after a run: against a baseline 1000 times slower (exit 0) and
    # the same run against one 1000 times faster (exit 1).
    fresh, slow, fast = (os.path.join(outdir, n) for n in ("fresh.json", "slow.json", "fast.json"))
    scaled(a, fast, 1e-6)
    p = run(clb, ["bench", "--quick", "--device", "host", "--repeat", "1", "--json", fresh,
                  "--baseline", fast])
    if p.returncode != 1 or "slower than the baseline" not in p.stdout:
        fail(f"a run slower than its baseline exits 1, got {p.returncode}")
    scaled(fresh, slow, 1e3)
    p = run(clb, ["bench", "--compare", fresh, "--baseline", slow])
    if p.returncode != 0 or " 0 slower" not in p.stdout:
        fail(f"a run faster than its baseline exits 0, got {p.returncode}")
    print("OK: ratios, verdicts, pairing, exit codes and the plot")


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
    elif len(argv) == 5 and argv[1] == "compare":
        cmd_compare(argv[2], argv[3], argv[4])
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
