#!/usr/bin/env python3
"""bench_first's peers: the same first programs in NumPy and PyTorch (2 threads).

usage: first_ref.py PROGRAM   prints "numpy_seconds torch_seconds" (best of 5; -1: n/a)"""
import sys
import time


def best(fn, reps=5):
    fn()
    t = 1e30
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def programs(np, rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    x4 = f(32, 3, 64, 64)
    kx, ky = f(2000, 1, 64), f(1, 3000, 64)
    q, k, v = f(4, 8, 128, 64), f(4, 8, 128, 64), f(4, 8, 128, 64)
    sm = f(1000, 1000)
    big = f(4 << 20)

    def softmax(a):
        e = np.exp(a - a.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    return {
        "bn": lambda: (x4 - x4.mean((0, 2, 3), keepdims=True)) / np.sqrt(x4.var((0, 2, 3), keepdims=True) + 1e-5),
        "knn": lambda: ((kx - ky) ** 2).sum(-1).argmin(1),
        "knn_mul": lambda: ((kx - ky) * (kx - ky)).sum(-1).argmin(1),
        "attn": lambda: softmax(q @ np.swapaxes(k, -1, -2) * 0.125) @ v,
        "qk": lambda: q @ np.swapaxes(k, -1, -2),
        "softmax": lambda: softmax(sm),
        "pow4m": lambda: big ** 2,
        "mul4m": lambda: big * big,
    }


def torch_programs(torch):
    g = torch.Generator().manual_seed(0)
    f = lambda *s: torch.randn(*s, generator=g)
    x4 = f(32, 3, 64, 64)
    kx, ky = f(2000, 64), f(3000, 64)
    q, k, v = f(4, 8, 128, 64), f(4, 8, 128, 64), f(4, 8, 128, 64)
    sm = f(1000, 1000)
    big = f(4 << 20)
    return {
        "bn": lambda: (x4 - x4.mean((0, 2, 3), keepdim=True)) / torch.sqrt(x4.var((0, 2, 3), unbiased=False, keepdim=True) + 1e-5),
        "knn": lambda: (torch.cdist(kx, ky) ** 2).argmin(1),
        "knn_mul": lambda: (torch.cdist(kx, ky) ** 2).argmin(1),
        "attn": lambda: torch.softmax(q @ k.transpose(-1, -2) * 0.125, -1) @ v,
        "qk": lambda: q @ k.transpose(-1, -2),
        "softmax": lambda: torch.softmax(sm, -1),
        "pow4m": lambda: big ** 2,
        "mul4m": lambda: big * big,
    }


def main():
    prog = sys.argv[1]
    np_s = torch_s = -1.0
    try:
        import numpy as np
        np_s = best(programs(np, np.random.default_rng(0))[prog])
    except Exception:
        pass
    try:
        import torch
        torch.set_num_threads(2)
        with torch.no_grad():
            torch_s = best(torch_programs(torch)[prog])
    except Exception:
        pass
    print("%.6f %.6f" % (np_s, torch_s))


if __name__ == "__main__":
    main()
