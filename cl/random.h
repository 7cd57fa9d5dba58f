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
typedef uint clb_u32;
typedef ulong clb_u64;
#define CLB_RNG_FN inline
#define CLB_RNG_LOGF(x) log(x)
#define CLB_RNG_COSF(x) cos(x)
#define CLB_RNG_SINF(x) sin(x)
#define CLB_RNG_SQRTF(x) sqrt(x)
#define CLB_RNG_LOG(x) log(x)
#define CLB_RNG_COS(x) cos(x)
#define CLB_RNG_SIN(x) sin(x)
#define CLB_RNG_SQRT(x) sqrt(x)
#else
#include <math.h>
#include <stdint.h>
typedef uint32_t clb_u32;
typedef uint64_t clb_u64;
#define CLB_RNG_FN static inline
#define CLB_RNG_LOGF(x) logf(x)
#define CLB_RNG_COSF(x) cosf(x)
#define CLB_RNG_SINF(x) sinf(x)
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

/* Philox4x32-10 of the counter (counter, 0) under the key `seed`: four words. */
CLB_RNG_FN void clb_philox(clb_u64 counter, clb_u64 seed, clb_u32 *w)
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
    w[0] = c0, w[1] = c1, w[2] = c2, w[3] = c3;
}

/* Which words element j (the absolute index offset + i) takes: one Philox call
   (counter j / CLB_RNG_GROUP) serves CLB_RNG_GROUP consecutive elements, each
   taking 4 / CLB_RNG_GROUP of its words from word (j % CLB_RNG_GROUP) * that.
   uniform float16/32: 1 word, 4 elements a call; uniform float64: 2 words, 2
   elements; normal: Box-Muller gives two values (cos and sin) a pair of
   uniforms, so float16/32 take 4 elements a call (two pairs of words) and
   float64 2 (one pair of 53-bit uniforms). Element j stays a pure function of
   (seed, j), whatever the draw's offset and size. */
CLB_RNG_FN int clb_rng_group(int is_normal, int is_f64)
{
    return is_normal ? (is_f64 ? 2 : 4) : (is_f64 ? 2 : 4);
}

/* Uniform in [0, 1) on the grid of 2^-24 (float32's 24-bit significand) /
   2^-11 (float16's 11) / 2^-53 (float64's 53): every value exact, no rounding. */
CLB_RNG_FN float clb_rng_unit24(clb_u32 w) { return (float)(w >> 8) * 0x1p-24f; }
CLB_RNG_FN float clb_rng_unit11(clb_u32 w) { return (float)(w >> 21) * 0x1p-11f; }

/* A standard normal from two words by Box-Muller, in float: u1 in (0, 1] so the
   log is finite (|z| < 5.8), u2 in [0, 1); `second` picks the pair's sine value. */
CLB_RNG_FN float clb_rng_normalf(clb_u32 w0, clb_u32 w1, int second)
{
    float u1 = (float)((w0 >> 8) + 1u) * 0x1p-24f, t = 6.2831853071795864769f * clb_rng_unit24(w1);
    return CLB_RNG_SQRTF(-2.0f * CLB_RNG_LOGF(u1)) * (second ? CLB_RNG_SINF(t) : CLB_RNG_COSF(t));
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

#endif /* CLB_RANDOM_H */
