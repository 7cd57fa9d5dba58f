#!/usr/bin/env python3
"""NumPy reference timings for a `clb bench --json` result.

Usage: numpy_ref.py RESULTS.json [--repeat N] [--json OUT]

Rebuilds every pattern of the result file from its recorded kind, operation
and shapes, times the same computation in NumPy on this machine's CPU
(float32 inputs uniform in [0, 1), one warm-up, then the median of N runs,
N defaulting to the file's --repeat), and prints each device's speed-up over
NumPy. --json OUT writes the input document with "numpy_median_s" and
"speedup_vs_numpy" added to every result, plus "numpy_version".

NumPy is optional: without it this prints why and exits 3; `clb bench` itself
never needs Python."""
import argparse
import json
import statistics
import sys
import time

NO_NUMPY = 3


def build(np, rng, r):
    """The inputs and a function computing the pattern, as clb bench does it."""
    def rand(shape):
        return rng.random(tuple(shape), dtype=np.float32)

    kind = r["kind"]
    a = rand(r["a_shape"])
    if kind == "copy":
        return lambda: a.copy()
    if kind == "binary":
        b = rand(r["b_shape"])
        # The names clb_binary_op_name gives are NumPy's ufunc names.
        if r["op"] not in ("add", "subtract", "multiply"):
            raise ValueError(f"unknown operation {r['op']!r}")
        fn = getattr(np, r["op"])
        return lambda: fn(a, b)
    if kind == "normalize":
        mu, rstd = rand(r["b_shape"]), rand(r["b_shape"])
        return lambda: (a - mu) * rstd
    if kind == "sum":
        axes = tuple(r["axes"])
        return lambda: a.sum(axis=axes)
    if kind == "sum_to_shape":
        target = r["target_shape"]
        lead = a.ndim - len(target)
        kept = tuple(lead + i for i, n in enumerate(target) if n == 1 and a.shape[lead + i] != 1)
        return lambda: a.sum(axis=tuple(range(lead)) + kept, keepdims=True).reshape(target)
    if kind == "matmul":
        b = rand(r["b_shape"])
        return lambda: np.matmul(a, b)
    raise ValueError(f"unknown pattern kind {kind!r}")


def median_time(fn, runs):
    fn()  # warm-up: first touch of the output pages
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a file written by clb bench --json")
    ap.add_argument("--repeat", type=int, default=0, help="timed runs (default: the file's)")
    ap.add_argument("--json", metavar="OUT", help="write the results with NumPy columns added")
    args = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("numpy_ref.py: NumPy is not installed for this Python; nothing to compare with",
              file=sys.stderr)
        return NO_NUMPY

    doc = json.load(open(args.results, encoding="utf-8"))
    runs = args.repeat or doc.get("repeat") or 5
    devices = doc["devices"]
    if not devices:
        print("numpy_ref.py: the result file lists no device", file=sys.stderr)
        return 1
    rng = np.random.default_rng(42)
    print(f"NumPy {np.__version__}, float32, median of {runs} runs after 1 warm-up; "
          f"x numpy = NumPy's median / the device's (clb bench {doc['library_version']}, "
          f"{'quick' if doc['quick'] else 'full'} sizes)")
    head = f"{'pattern':26} {'numpy median':>13} {'numpy GB/s':>11}"
    head += "".join(f" {'x numpy ' + d['selector']:>14}" for d in devices)
    print(head)
    for i, r in enumerate(devices[0]["results"]):
        numpy_s = median_time(build(np, rng, r), runs)
        line = f"{r['title']:26} {numpy_s * 1e3:10.3f} ms {r['bytes'] / numpy_s / 1e9:11.2f}"
        for d in devices:
            dr = d["results"][i]
            dr["numpy_median_s"] = numpy_s
            dr["speedup_vs_numpy"] = numpy_s / dr["median_s"] if dr.get("median_s") else None
            sp = dr["speedup_vs_numpy"]
            line += f" {f'{sp:.2f}x' if sp else dr['status']:>14}"
        print(line, flush=True)
    if args.json:
        doc["numpy_version"] = np.__version__
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
