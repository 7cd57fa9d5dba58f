#!/usr/bin/env python3
"""The fits behind cl/scalar_ops.cl's clb_mf_erf (CPU devices' float erf).

Below |x| = 1: erf(t) = t + t Q(t^2), Q of degree 7; from 1 to 4: erf(t) =
1 - exp(R(t)), R of degree 9 fitting log(erfc(t)). Least-squares Chebyshev
fits in double, converted to monomials and rounded to float32; then every
7th float32 bit pattern in (0, 4) is evaluated in float32 arithmetic without
fused operations (the kernel's order; exp modelled as correctly rounded) and
compared with math.erf. Prints the coefficients (highest degree last) and
the largest error in float32 ulps of each part. Needs NumPy.
"""
import math

import numpy as np

F32 = np.float32
ERF = np.vectorize(math.erf)
ERFC = np.vectorize(math.erfc)


def to_monomial(cheb, lo, hi):
    """Chebyshev coefficients on [lo, hi] as a polynomial in the variable itself."""
    p = np.polynomial.Polynomial(np.polynomial.chebyshev.cheb2poly(cheb))
    return p(np.polynomial.Polynomial([-(lo + hi) / (hi - lo), 2 / (hi - lo)])).coef


def fit_small(deg):
    t = np.linspace(0, 1, 20001)
    s = t * t
    y = np.where(t > 0, ERF(t) / np.where(t > 0, t, 1), 2 / math.sqrt(math.pi)) - 1
    return to_monomial(np.polynomial.chebyshev.chebfit(2 * s - 1, y, deg), 0, 1)


def fit_large(deg, hi=4.0):
    t = np.linspace(1, hi, 30001)
    return to_monomial(np.polynomial.chebyshev.chebfit((2 * t - (1 + hi)) / (hi - 1),
                                                       np.log(ERFC(t)), deg), 1, hi)


def horner(coef, x):
    r = np.full_like(x, coef[-1])
    for c in coef[-2::-1]:
        r = ((r * x).astype(F32) + c).astype(F32)
    return r


def ulp(v):
    v = np.abs(v).astype(F32)
    return (np.nextafter(v, F32(np.inf)) - v).astype(np.float64)


def main():
    q = [F32(c) for c in fit_small(7)]
    r = [F32(c) for c in fit_large(9)]
    print("Q", ["%.9e" % c for c in q])
    print("R", ["%.9e" % c for c in r])
    x = np.arange(0, 0x40800000, 7, dtype=np.uint32).view(F32)
    x = x[x > 0]
    want = ERF(x.astype(np.float64))
    small = (x + (x * horner(q, (x * x).astype(F32))).astype(F32)).astype(F32)
    large = (F32(1) - np.exp(horner(r, np.minimum(x, F32(4))).astype(np.float64)).astype(F32))
    got = np.where(x < 1, small, large.astype(F32))
    err = np.abs(got.astype(np.float64) - want) / ulp(want)
    print("max ulp: below 1 %.3f, from 1 %.3f (%d arguments)" %
          (err[x < 1].max(), err[x >= 1].max(), len(x)))


if __name__ == "__main__":
    main()
