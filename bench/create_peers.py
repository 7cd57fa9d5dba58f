#!/usr/bin/python3
"""PyTorch and NumPy peers of bench_create (issue 28): seconds per call of
torch.rand / torch.randn (torch.set_num_threads(THREADS)) and NumPy's
default_rng().random / standard_normal (dtype=float32), each making a new
array of N elements, as clb_random_* makes a new tensor. Median of RUNS calls
after one warm-up. Prints one "name seconds" line per peer ("name na" when the
package is missing).

usage: create_peers.py N RUNS THREADS"""
import sys
import time


def median_time(fn, runs):
    fn()
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    t.sort()
    return t[len(t) // 2]


def main():
    n, runs, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    try:
        import numpy as np
        rng = np.random.default_rng(0)
        print("numpy_random %.6f" % median_time(lambda: rng.random(n, dtype=np.float32), runs))
        print("numpy_standard_normal %.6f"
              % median_time(lambda: rng.standard_normal(n, dtype=np.float32), runs))
    except ImportError:
        print("numpy_random na\nnumpy_standard_normal na")
    try:
        import torch
        torch.set_num_threads(threads)
        print("torch_rand %.6f" % median_time(lambda: torch.rand(n), runs))
        print("torch_randn %.6f" % median_time(lambda: torch.randn(n), runs))
    except ImportError:
        print("torch_rand na\ntorch_randn na")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
