#!/usr/bin/env python3
"""NumPy's time for bench_elementwise's patterns (float32, same sizes), for the
"x faster than NumPy" ratio: a new output per call (a + b) and out= into a
preallocated array. Median of calibrated runs, milliseconds.

usage: numpy_elementwise.py [--quick]"""
import sys
import time

import numpy as np


def median_ms(fn, target_s=1.0):
    fn()
    times, start = [], time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < target_s and len(times) < 100):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def main():
    s = 4 if "--quick" in sys.argv[1:] else 1
    rng = np.random.default_rng(1)
    patterns = [
        ("same shape 2^26 + 2^26", (2**26 // s,), (2**26 // s,)),
        ("row (16384,4096) + (4096,)", (16384 // s, 4096), (4096,)),
        ("column (16384,4096) + (16384,1)", (16384 // s, 4096), (16384 // s, 1)),
        ("images (256,3,224,224) - (3,1,1)", (256 // s, 3, 224, 224), (3, 1, 1)),
        ("outer (8192,1) + (1,8192)", (8192 // s, 1), (1, 8192)),
    ]
    expand = ("expand (1,256,1,1)->(32,256,224,224)", (1, 256, 1, 1), (32 // s, 256, 224, 224))
    print("%-36s %10s %10s" % ("pattern (float32)", "new ms", "out= ms"))
    for name, sa, sb in patterns:
        a = rng.random(sa, dtype=np.float32)
        b = rng.random(sb, dtype=np.float32)
        out = np.empty(np.broadcast_shapes(sa, sb), dtype=np.float32)
        new = median_ms(lambda: a - b)
        into = median_ms(lambda: np.add(a, b, out=out))
        print("%-36s %10.3f %10.3f" % (name, new, into))
    name, sa, shape = expand
    a = rng.random(sa, dtype=np.float32)
    out = np.empty(shape, dtype=np.float32)
    new = median_ms(lambda: np.broadcast_to(a, shape).copy())
    into = median_ms(lambda: np.copyto(out, a))
    print("%-36s %10.3f %10.3f" % (name, new, into))


if __name__ == "__main__":
    main()
