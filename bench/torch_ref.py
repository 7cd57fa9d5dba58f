#!/usr/bin/env python3
"""PyTorch and NumPy for bench_peers (issue 19), as a server the C bench drives
one call at a time, so that every round times the library, the C streaming
kernel, PyTorch and NumPy side by side.

Protocol (one line each way, on stdin / stdout):
  at start            -> "ready numpy=<version|none> torch=<version|none> threads=<n>"
  setup KEY A B       -> "ok" (arrays of pattern KEY, shapes A and B as 16384x4096 or -)
  run VARIANT         -> seconds of one call, or "na" (VARIANT: torch_new torch_out
                         numpy_new numpy_out)
  setup stats RxC NxD -> "ok pairwise=<n>" (bench_stats, issue 16: x of (R, C);
                         VARIANT: numpy_var_rows numpy_var_cols (x.var(axis)),
                         torch_softmax (torch.softmax(dim=-1), new output) and
                         numpy_pairwise (((x - y) ** 2).sum(-1), x (n,1,D), y (1,n,D),
                         materialised: n is N, or N halved until NumPy holds it))
  setup index RxC SxS -> "ok" (bench_index, issue 29: x of (R, C), s of (S, S);
                         VARIANT: torch_sort_last torch_sort_axis0 (torch.sort(stable=True)),
                         numpy_sort_last numpy_sort_axis0 (np.sort(kind="stable")) of s,
                         torch_topk (torch.topk(x, 16)), torch_cumsum_0 torch_cumsum_1
                         (torch.cumsum(x, dim)))
  setup matmul|matmulT|matmul64 MxK KxN, setup bnmul RxC C
                      -> bench_host's NumPy peers (issue 30): numpy_new (a @ b,
                         (x - mu) * rstd) and, for bnmul, numpy_out (out=)
  quit
PyTorch runs on --threads threads (torch.set_num_threads); NumPy on one, as it
does. Inputs are float32, uniform [0, 1); PyTorch's tensors share NumPy's
memory (torch.from_numpy). Each variant is called once at setup (warm-up).

usage: torch_ref.py --serve [--threads N]"""
import sys
import time

try:
    import numpy as np
except ImportError:  # the C side reports the NumPy and PyTorch columns as missing
    np = None
try:
    import torch
except ImportError:
    torch = None


def shape(text):
    return None if text == "-" else tuple(int(d) for d in text.split("x"))


def stats_variants(sa, sb):
    """bench_stats's peers: the callables, and the pairwise n NumPy held."""
    rng = np.random.default_rng(1)
    a = rng.random(sa, dtype=np.float32)
    out = {"numpy_var_rows": lambda: a.var(axis=1), "numpy_var_cols": lambda: a.var(axis=0)}
    if torch is not None:
        ta = torch.from_numpy(a)
        out["torch_softmax"] = lambda: torch.softmax(ta, dim=-1)
    n, d = sb
    while n >= 1:
        px = rng.random((n, 1, d), dtype=np.float32)
        py = rng.random((1, n, d), dtype=np.float32)
        try:
            ((px - py) ** 2).sum(-1)
            break
        except MemoryError:
            n //= 2
    if n >= 1:
        out["numpy_pairwise"] = lambda: ((px - py) ** 2).sum(-1)
    return out, "pairwise=%d" % n


def index_variants(sa, sb):
    """bench_index's peers: sorts of s, top-k and running sums of x."""
    rng = np.random.default_rng(2)
    a = rng.random(sa, dtype=np.float32)
    b = rng.random(sb, dtype=np.float32)
    out = {"numpy_sort_last": lambda: np.sort(b, axis=-1, kind="stable"),
           "numpy_sort_axis0": lambda: np.sort(b, axis=0, kind="stable")}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        out["torch_sort_last"] = lambda: torch.sort(tb, dim=-1, stable=True)
        out["torch_sort_axis0"] = lambda: torch.sort(tb, dim=0, stable=True)
        out["torch_topk"] = lambda: torch.topk(ta, 16, dim=-1)
        out["torch_cumsum_0"] = lambda: torch.cumsum(ta, dim=0)
        out["torch_cumsum_1"] = lambda: torch.cumsum(ta, dim=1)
    return out


def variants(key, sa, sb):
    """The four callables of pattern KEY (None where a peer is missing)."""
    rng = np.random.default_rng(1)
    a = rng.random(sa, dtype=np.float32)
    out = {}
    if key in ("same", "row", "col", "images", "outer"):
        b = rng.random(sb, dtype=np.float32)
        o = np.empty(np.broadcast_shapes(sa, sb), dtype=np.float32)
        if key == "images":
            out["numpy_new"] = lambda: a - b
            out["numpy_out"] = lambda: np.subtract(a, b, out=o)
        else:
            out["numpy_new"] = lambda: a + b
            out["numpy_out"] = lambda: np.add(a, b, out=o)
        if torch is not None:
            ta, tb, to = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(o)
            if key == "images":
                out["torch_new"] = lambda: ta - tb
                out["torch_out"] = lambda: torch.sub(ta, tb, out=to)
            else:
                out["torch_new"] = lambda: ta + tb
                out["torch_out"] = lambda: torch.add(ta, tb, out=to)
    elif key == "expand":
        o = np.empty(sb, dtype=np.float32)
        out["numpy_new"] = lambda: np.broadcast_to(a, sb).copy()
        out["numpy_out"] = lambda: np.copyto(o, a)
        if torch is not None:
            ta, to = torch.from_numpy(a), torch.from_numpy(o)
            out["torch_new"] = lambda: ta.expand(sb).contiguous()
            out["torch_out"] = lambda: to.copy_(ta.expand(sb))
    elif key in ("rowsum", "colsum", "chmean"):
        axes, keep = {"rowsum": ((1,), True), "colsum": ((0,), False),
                      "chmean": ((0, 2, 3), True)}[key]
        fn = np.mean if key == "chmean" else np.sum
        o = fn(a, axis=axes, keepdims=keep)
        out["numpy_new"] = lambda: fn(a, axis=axes, keepdims=keep)
        out["numpy_out"] = lambda: fn(a, axis=axes, keepdims=keep, out=o)
        if torch is not None:
            ta, to = torch.from_numpy(a), torch.from_numpy(o)
            tfn = torch.mean if key == "chmean" else torch.sum
            out["torch_new"] = lambda: tfn(ta, dim=axes, keepdim=keep)
            out["torch_out"] = lambda: tfn(ta, dim=axes, keepdim=keep, out=to)
    elif key in ("var0", "var1"):
        axis = 0 if key == "var0" else 1
        o = np.var(a, axis=axis)
        out["numpy_new"] = lambda: np.var(a, axis=axis)
        out["numpy_out"] = lambda: np.var(a, axis=axis, out=o)
        if torch is not None:
            ta, to = torch.from_numpy(a), torch.from_numpy(o)
            out["torch_new"] = lambda: torch.var(ta, dim=axis, unbiased=False)
            out["torch_out"] = lambda: torch.var(ta, dim=axis, unbiased=False, out=to)
    elif key == "softmax":
        def numpy_softmax():
            e = np.exp(a - a.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        out["numpy_new"] = numpy_softmax
        out["numpy_out"] = numpy_softmax  # NumPy has no softmax with out=
        if torch is not None:
            ta = torch.from_numpy(a)
            out["torch_new"] = lambda: torch.softmax(ta, 1)
            out["torch_out"] = lambda: torch.softmax(ta, 1)  # no out= variant
    elif key == "bn":
        mu = rng.random(sb, dtype=np.float32)
        var = rng.random(sb, dtype=np.float32) + np.float32(0.5)
        o = np.empty(sa, dtype=np.float32)
        eps = np.float32(1e-5)

        def numpy_out():
            np.subtract(a, mu, out=o)
            np.divide(o, np.sqrt(var + eps), out=o)

        out["numpy_new"] = lambda: (a - mu) / np.sqrt(var + eps)
        out["numpy_out"] = numpy_out
        if torch is not None:
            ta, tmu, tvar, to = (torch.from_numpy(x) for x in (a, mu, var, o))

            def torch_out():
                torch.sub(ta, tmu, out=to)
                torch.div(to, torch.sqrt(tvar + 1e-5), out=to)

            out["torch_new"] = lambda: (ta - tmu) / torch.sqrt(tvar + 1e-5)
            out["torch_out"] = torch_out
    elif key in ("matmul", "matmulT", "matmul64"):
        # bench_host (issue 30): a @ b, a of shape A (stored transposed for
        # matmulT: a view, as the library's), b of shape B; NumPy's OpenBLAS.
        dt = np.float64 if key == "matmul64" else np.float32
        a = a.astype(dt)
        if key == "matmulT":
            a = np.ascontiguousarray(a.T).T
        b = rng.random(sb, dtype=np.float32).astype(dt)
        out["numpy_new"] = lambda: a @ b
    elif key == "bnmul":
        mu, rstd = rng.random(sb, dtype=np.float32), rng.random(sb, dtype=np.float32)
        o = np.empty(sa, dtype=np.float32)

        def numpy_out():
            np.subtract(a, mu, out=o)
            np.multiply(o, rstd, out=o)

        out["numpy_new"] = lambda: (a - mu) * rstd
        out["numpy_out"] = numpy_out
    else:
        raise ValueError(key)
    return out


def main():
    threads = 2
    args = sys.argv[1:]
    if "--threads" in args:
        threads = int(args[args.index("--threads") + 1])
    if "--serve" not in args:
        print(__doc__, file=sys.stderr)
        return 2
    if torch is not None:
        torch.set_num_threads(threads)
    print("ready numpy=%s torch=%s threads=%d" % (
        np.__version__ if np is not None else "none",
        torch.__version__ if torch is not None else "none", threads), flush=True)
    fns = {}
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        if words[0] == "setup":
            fns, note = {}, ""  # the previous pattern's arrays go first
            if np is not None:
                if words[1] == "stats":
                    fns, note = stats_variants(shape(words[2]), shape(words[3]))
                    note = " " + note
                elif words[1] == "index":
                    fns = index_variants(shape(words[2]), shape(words[3]))
                else:
                    fns = variants(words[1], shape(words[2]), shape(words[3]))
                for fn in fns.values():
                    fn()
            print("ok" + note, flush=True)
        elif words[0] == "run":
            fn = fns.get(words[1])
            if fn is None:
                print("na", flush=True)
                continue
            t0 = time.perf_counter()
            fn()
            print("%.9f" % (time.perf_counter() - t0), flush=True)
        else:
            print("na", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
