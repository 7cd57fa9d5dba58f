#!/usr/bin/env python3
"""NumPy (one thread) and PyTorch (two threads) medians for bench_math's functions:
float32, n values in [0.5, 1.5), a new output per call. Prints "lib name ms" lines.

usage: math_peers.py N ROUNDS"""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
import numpy as np  # noqa: E402

NAMES = ["log", "log2", "log10", "log1p", "exp", "expm1", "sin", "cos", "tan", "tanh",
         "sigmoid", "erf"]


def median_ms(fn, rounds):
    fn()
    t = []
    for _ in range(rounds):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    t.sort()
    return 1e3 * t[len(t) // 2]


def main():
    n, rounds = int(sys.argv[1]), int(sys.argv[2])
    x = (np.random.default_rng(1).random(n, dtype=np.float32) + np.float32(0.5))
    npf = {name: getattr(np, name, None) for name in NAMES}
    npf["sigmoid"] = lambda v: 1 / (1 + np.exp(-v))
    try:
        import scipy.special as sp
        npf["erf"] = sp.erf
    except ImportError:
        npf["erf"] = None
    for name in NAMES:
        if npf[name] is not None:
            print("numpy %s %.4f" % (name, median_ms(lambda: npf[name](x), rounds)), flush=True)
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(2)
    tx = torch.from_numpy(x)
    for name in NAMES:
        f = getattr(torch, name)
        print("torch %s %.4f" % (name, median_ms(lambda: f(tx), rounds)), flush=True)


if __name__ == "__main__":
    main()
