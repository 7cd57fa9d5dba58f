/* One random stream for the host backend and every OpenCL device: Philox4x32-10
 * (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
 * SC'11; the generator of Random123, cuRAND, PyTorch's CUDA and JAX), and the
 * maps from its 32-bit words to uniform and normal values.
 *
 * This file is C99 and OpenCL C at once: src/host/host_gen.c includes it, and
 * the OpenCL program of cl/generate.cl has it embedded before the kernel, so
 * the host and the kernels run the same text. Element i of a draw is a pure
 * function of (seed, offset + i): the counter is offset + i, the key the seed.
 * Integer operations only up to the final map; float32 maps use float
 * arithmetic alone (a device without cl_khr_fp64 runs them), float64 maps
 * double. */
#ifndef CLB_RANDOM_H
#define CLB_RANDOM_H

#ifdef __OPENCL_VERSION__
/* OpenCL C contracts a * b + c into an fma unless told not to, and this file
   comes before the kernel file's own pragma: PoCL fused the scalar normal's
   polynomials (float32 up to 3 ulp, float16 now and then a half ulp from the
   host's values). */
#pragma OPENCL FP_CONTRACT OFF
typedef uint clb_u32;
typedef ulong clb_u64;
#define CLB_RNG_FN __attribute__((always_inline)) inline /* PoCL vectorises no loop with a call */
/* sqrt as the compiler's built-in where the driver asks for it
   (CLB_RNG_BUILTIN_SQRT, PoCL's CPU devices): PoCL 3.1's library sqrt keeps
   its work-item loop from vectorising (a draw 6x slower); Oclgrind has no
   llvm.sqrt, so it is not the default. */
#if defined(CLB_RNG_BUILTIN_SQRT) && CLB_RNG_BUILTIN_SQRT
#define CLB_RNG_SQRTF(x) __builtin_sqrtf(x)
#else
#define CLB_RNG_SQRTF(x) sqrt(x)
#endif
#define CLB_RNG_LOG(x) log(x)
#define CLB_RNG_COS(x) cos(x)
#define CLB_RNG_SIN(x) sin(x)
#define CLB_RNG_SQRT(x) sqrt(x)
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
typedef uint32_t clb_u32;
typedef uint64_t clb_u64;
#define CLB_RNG_FN static inline
#define CLB_RNG_SQRTF(x) sqrtf(x)
#define CLB_RNG_LOG(x) log(x)
#define CLB_RNG_COS(x) cos(x)
#define CLB_RNG_SIN(x) sin(x)
#define CLB_RNG_SQRT(x) sqrt(x)
#endif

/* Random123's constants: the multipliers and the Weyl key increments. */
#define CLB_PHILOX_M0 0xD2511F53u
#define CLB_PHILOX_M1 0xCD9E8D57u
#define CLB_PHILOX_W0 0x9E3779B9u
#define CLB_PHILOX_W1 0xBB67AE85u

/* Philox4x32-10 of the counter (counter, 0) under the key `seed`: four words,
   each its own variable (a kernel's array of them can become one vector value,
   which keeps a CPU device from vectorising its work-item loop). */
CLB_RNG_FN void clb_philox4(clb_u64 counter, clb_u64 seed, clb_u32 *w0, clb_u32 *w1, clb_u32 *w2,
                            clb_u32 *w3)
{
    clb_u32 c0 = (clb_u32)counter, c1 = (clb_u32)(counter >> 32), c2 = 0, c3 = 0;
    clb_u32 k0 = (clb_u32)seed, k1 = (clb_u32)(seed >> 32);
#ifdef __OPENCL_VERSION__
#pragma unroll
#endif
    for (int r = 0; r < 10; r++) {
        clb_u64 p0 = (clb_u64)CLB_PHILOX_M0 * c0, p1 = (clb_u64)CLB_PHILOX_M1 * c2;
        clb_u32 n0 = (clb_u32)(p1 >> 32) ^ c1 ^ k0, n2 = (clb_u32)(p0 >> 32) ^ c3 ^ k1;
        c1 = (clb_u32)p1;
        c3 = (clb_u32)p0;
        c0 = n0;
        c2 = n2;
        k0 += CLB_PHILOX_W0;
        k1 += CLB_PHILOX_W1;
    }
    *w0 = c0, *w1 = c1, *w2 = c2, *w3 = c3;
}

/* The same words into w[0..3]. */
CLB_RNG_FN void clb_philox(clb_u64 counter, clb_u64 seed, clb_u32 *w)
{
    clb_philox4(counter, seed, &w[0], &w[1], &w[2], &w[3]);
}

/* Which words element j (the absolute index offset + i) takes. One Philox call
   serves G = clb_rng_group(...) elements, each taking 4 / G of its words (slot
   k takes words k * 4 / G onwards): uniform float16/32: 1 word, 4 elements a
   call; uniform float64: 2 words, 2 elements; normal: Box-Muller gives two
   values (cos and sin) a pair of uniforms, so float16/32 take 4 elements a call
   (two pairs of words) and float64 2 (one pair of 53-bit uniforms).
   The calls lie in lanes: block b of G * CLB_RNG_LANES elements holds calls
   b * LANES .. b * LANES + LANES - 1, slot k of lane l at element
   b * G * LANES + k * LANES + l. So every slot of a block is LANES consecutive
   elements of LANES consecutive calls: a device runs one call a work item and
   stores each slot with one contiguous (vector, coalesced) store, and element j
   stays a pure function of (seed, j), whatever the draw's offset and size. */
#define CLB_RNG_LANES 16
CLB_RNG_FN int clb_rng_group(int is_normal, int is_f64)
{
    return is_normal ? (is_f64 ? 2 : 4) : (is_f64 ? 2 : 4);
}

/* Element j's Philox counter (*counter) and its slot (the return value). */
CLB_RNG_FN int clb_rng_locate(clb_u64 j, int g, clb_u64 *counter)
{
    const clb_u64 per = (clb_u64)g * CLB_RNG_LANES, r = j % per;
    *counter = j / per * CLB_RNG_LANES + r % CLB_RNG_LANES;
    return (int)(r / CLB_RNG_LANES);
}

/* Uniform in [0, 1) on the grid of 2^-24 (float32's 24-bit significand) /
   2^-11 (float16's 11) / 2^-53 (float64's 53): every value exact, no rounding. */
CLB_RNG_FN float clb_rng_unit24(clb_u32 w) { return (float)(w >> 8) * 0x1p-24f; }
CLB_RNG_FN float clb_rng_unit11(clb_u32 w) { return (float)(w >> 21) * 0x1p-11f; }

/* The float32 normal's log and sine/cosine are written here, not taken from the
   host's libm or the device's built-ins: float additions and multiplications
   (each correctly rounded in IEEE 754 and OpenCL alike, none fused:
   FP_CONTRACT off here and in cl/generate.cl) and integer operations, so the
   host and every device compute the same bits up to the one sqrt (correctly
   rounded on the host and on CPU devices, within 3 ulp on others), and a
   device runs them as straight-line code it can vectorise. Cephes' logf and
   sinf/cosf minimax polynomials (S. Moshier), about 1 ulp. No fma here: it
   would make llvmpipe's (rusticl's) draw ten times slower; only PoCL's vector
   lanes (cl/generate.cl's CLB_V_FMA) fuse them, ~11 % of a normal draw, at
   most 3 ulp from these values. */
#ifdef __OPENCL_VERSION__
#define CLB_RNG_AS_F32(u) as_float(u)
#define CLB_RNG_AS_U32(f) as_uint(f)
#else
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
CLB_RNG_FN float clb_rng_as_f32(clb_u32 u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
CLB_RNG_FN clb_u32 clb_rng_as_u32(float f)
{
    clb_u32 u;
    memcpy(&u, &f, sizeof u);
    return u;
}
#define CLB_RNG_AS_F32(u) clb_rng_as_f32(u)
#define CLB_RNG_AS_U32(f) clb_rng_as_u32(f)
#endif

/* The polynomials, written once for the scalar forms here and the lanes of
   cl/generate.cl (T float or float16): the same operations in the same order,
   so both give the same bits. */

/* Cephes' logf polynomial, x in [sqrt(1/2) - 1, sqrt(2) - 1): statements that
   declare z_ = x * x and y_ = P(x) x z_ (ln(1 + x) = x - z_ / 2 + y_). Written
   once for the random normals below and cl/scalar_ops.cl's own float log, log2,
   log10 and log1p (its CLB_OWN_MATH, CPU devices), as CLB_RNG_SINCOS_POLY
   is for its sin, cos and tan. */
#define CLB_RNG_LOGP_STMTS(T, x)                                                                   \
    const T z_ = (x) * (x);                                                                        \
    T y_ = 7.0376836292e-2f * (x) - 1.1514610310e-1f;                                              \
    y_ = y_ * (x) + 1.1676998740e-1f;                                                              \
    y_ = y_ * (x) - 1.2420140846e-1f;                                                              \
    y_ = y_ * (x) + 1.4249322787e-1f;                                                              \
    y_ = y_ * (x) - 1.6668057665e-1f;                                                              \
    y_ = y_ * (x) + 2.0000714765e-1f;                                                              \
    y_ = y_ * (x) - 2.4999993993e-1f;                                                              \
    y_ = y_ * (x) + 3.3333331174e-1f;                                                              \
    y_ = y_ * (x) * z_

/* Statements declaring r_ = ln(1 + x) + e ln 2 (Cephes' logf: ln 2 in two parts). */
#define CLB_RNG_LN_STMTS(T, x, e)                                                                  \
    CLB_RNG_LOGP_STMTS(T, x);                                                                      \
    y_ = y_ + -2.12194440e-4f * (e);                                                               \
    y_ = y_ + -0.5f * z_;                                                                          \
    const T r_ = (x) + y_ + 0.693359375f * (e)

/* -2 (ln(1 + x) + e ln 2), x in [sqrt(1/2) - 1, sqrt(2) - 1), as the last
   statement of a function returning T. */
#define CLB_RNG_M2LOG_RETURN(T, x, e)                                                              \
    do {                                                                                           \
        CLB_RNG_LN_STMTS(T, x, e);                                                                 \
        return -2.0f * r_;                                                                         \
    } while (0)

/* Declares const T sx and cx: sin and cos of x in [-pi/4, pi/4]. */
#define CLB_RNG_SINCOS_POLY(T, x, sx, cx)                                                          \
    const T sx##_z = (x) * (x);                                                                    \
    T sx##_p = -1.9515295891e-4f * sx##_z + 8.3321608736e-3f;                                      \
    sx##_p = sx##_p * sx##_z - 1.6666654611e-1f;                                                   \
    const T sx = sx##_p * sx##_z * (x) + (x);                                                      \
    T cx##_p = 2.443315711809948e-5f * sx##_z - 1.388731625493765e-3f;                             \
    cx##_p = cx##_p * sx##_z + 4.166664568298827e-2f;                                              \
    const T cx = cx##_p * sx##_z * sx##_z - 0.5f * sx##_z + 1.0f

/* -2 ln(m 2^-24) for an integer m in [1, 2^24]: in [0, 33.3]. m = (1 + x)
   2^(e + 24) with 1 + x in [sqrt(1/2), sqrt(2)): m's significand under the
   exponent of sqrt(1/2) (its bits 0x3f3504f3) where that is at least sqrt(1/2),
   else under 1's, the borrow from the significand lowering e by one. */
CLB_RNG_FN float clb_rng_m2log(clb_u32 m)
{
    const clb_u32 d = CLB_RNG_AS_U32((float)m) - 0x3f3504f3u; /* (float)m exact: m <= 2^24 */
    const float e = (float)((int)(d >> 23) - 24);
    const float x = CLB_RNG_AS_F32((d & 0x007fffffu) + 0x3f3504f3u) - 1.0f; /* exact */
    CLB_RNG_M2LOG_RETURN(float, x, e);
}

/* cos and sin of 2 pi t 2^-24 for a 24-bit t: the quadrant from t's integer
   bits (exact), the rest within [-pi/4, pi/4). */
CLB_RNG_FN void clb_rng_sincos(clb_u32 t, float *c, float *s)
{
    const clb_u32 q = (t + 0x200000u) >> 22; /* nearest quarter turn, 0 .. 4 */
    const float x = (float)((int)t - (int)(q << 22)) * 0x1.921fb6p-22f; /* 2 pi 2^-24 */
    CLB_RNG_SINCOS_POLY(float, x, sx, cx);
    const clb_u32 k = q & 3u;
    *c = k == 0 ? cx : k == 1 ? -sx : k == 2 ? -cx : sx;
    *s = k == 0 ? sx : k == 1 ? cx : k == 2 ? -sx : -cx;
}

/* Both standard normals of the pair (w0, w1) by Box-Muller: u1 = ((w0 >> 8) + 1)
   2^-24 in (0, 1], so the log is finite (|z| < 5.8), the angle 2 pi (w1 >> 8)
   2^-24; *zc takes the cosine, *zs the sine. */
CLB_RNG_FN void clb_rng_normal2f(clb_u32 w0, clb_u32 w1, float *zc, float *zs)
{
    const float r = CLB_RNG_SQRTF(clb_rng_m2log((w0 >> 8) + 1u));
    float c, s;
    clb_rng_sincos(w1 >> 8, &c, &s);
    *zc = r * c;
    *zs = r * s;
}

/* One of them: `second` picks the sine value. */
CLB_RNG_FN float clb_rng_normalf(clb_u32 w0, clb_u32 w1, int second)
{
    float zc, zs;
    clb_rng_normal2f(w0, w1, &zc, &zs);
    return second ? zs : zc;
}

#if !defined(__OPENCL_VERSION__) || CLB_HAVE_FP64
CLB_RNG_FN double clb_rng_unit53(clb_u32 hi, clb_u32 lo)
{
    return (double)(((clb_u64)(hi >> 11) << 32) | lo) * 0x1p-53;
}

CLB_RNG_FN double clb_rng_normal(const clb_u32 *w, int second)
{
    double u1 = (double)((((clb_u64)(w[0] >> 11) << 32) | w[1]) + 1u) * 0x1p-53;
    double t = 6.283185307179586476925 * clb_rng_unit53(w[2], w[3]);
    return CLB_RNG_SQRT(-2.0 * CLB_RNG_LOG(u1)) * (second ? CLB_RNG_SIN(t) : CLB_RNG_COS(t));
}
#endif

#ifndef __OPENCL_VERSION__
/* The host's form of clb_rng_normal: the radius r (the return value) and the
   angle *t of the pair, the same operations on the same words, computed once
   for both values: clb_rng_normal(w, 0) is r * cos(*t), (w, 1) r * sin(*t)
   (src/host/host_gen.c's draws). */
CLB_RNG_FN double clb_rng_polar(const clb_u32 *w, double *t)
{
    double u1 = (double)((((clb_u64)(w[0] >> 11) << 32) | w[1]) + 1u) * 0x1p-53;
    *t = 6.283185307179586476925 * clb_rng_unit53(w[2], w[3]);
    return CLB_RNG_SQRT(-2.0 * CLB_RNG_LOG(u1));
}
#endif

#endif /* CLB_RANDOM_H */
