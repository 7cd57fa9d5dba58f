/* Peak kernels of `clb bench` (cli/peaks/peaks_cl.c), clpeak/BabelStream-style and
 * outside the library: what "the device's copy, read, write bandwidth", "its
 * FMA throughput" and "an empty launch" mean in the report.
 *
 * Defines (each with a default):
 *   PEAK_T      the FMA type: float, half (needs cl_khr_fp16), double (cl_khr_fp64)
 *   PEAK_FP16, PEAK_FP64   1 to enable the extension PEAK_T needs
 *   PEAK_BLOCK  float4s per work item of the read and write kernels
 *   PEAK_ITERS  loop trips of the FMA kernels (each trip: 16 chains, one mad each)
 *
 * The bandwidth kernels come in two layouts, and the report takes the faster:
 * "blocked" (each work item a contiguous run of PEAK_BLOCK float4s, what a CPU
 * implementation looping over work items streams best) and "strided"
 * (neighbouring work items on neighbouring float4s, what a GPU coalesces).
 * Neither is assumed; both are measured. Loops stay far below llvmpipe's
 * 65535-trip budget per work item (quirk loop-limit). */
#ifndef PEAK_T
#define PEAK_T float
#endif
#ifndef PEAK_BLOCK
#define PEAK_BLOCK 16
#endif
#ifndef PEAK_ITERS
#define PEAK_ITERS 512
#endif
#if defined(PEAK_FP16) && PEAK_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif
#if defined(PEAK_FP64) && PEAK_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define PEAK_CAT2(a, b) a##b
#define PEAK_CAT(a, b) PEAK_CAT2(a, b)
#define PEAK_T4 PEAK_CAT(PEAK_T, 4)
#define PEAK_T8 PEAK_CAT(PEAK_T, 8)
#define PEAK_T16 PEAK_CAT(PEAK_T, 16)

/* ---- bandwidth (float32) ----------------------------------------------------- */

/* A plain copy, one float4 per work item. */
__kernel void peak_copy(__global const float4 *src, __global float4 *dst)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

/* Read-only: sums PEAK_BLOCK float4s, writes one float (1/64 of the bytes read). */
__kernel void peak_read_blocked(__global const float4 *src, __global float *out)
{
    size_t i = get_global_id(0);
    __global const float4 *p = src + i * PEAK_BLOCK;
    float4 s = (float4)(0.0f);
    for (int k = 0; k < PEAK_BLOCK; k++) s += p[k];
    out[i] = s.x + s.y + s.z + s.w;
}

__kernel void peak_read_strided(__global const float4 *src, __global float *out)
{
    size_t i = get_global_id(0), g = get_global_size(0);
    float4 s = (float4)(0.0f);
    for (int k = 0; k < PEAK_BLOCK; k++) s += src[i + (size_t)k * g];
    out[i] = s.x + s.y + s.z + s.w;
}

/* Write-only values: a multiplicative hash of the element index as the
   mantissa of a float in [1, 2), so what is written does not compress. */
inline float4 peak_value(uint e, uint seed)
{
    uint4 h = ((uint4)(e * 4u) + (uint4)(0u, 1u, 2u, 3u) + (uint4)(seed)) * 2654435761u;
    return as_float4((h >> 9) | (uint4)(0x3f800000u));
}

__kernel void peak_write_blocked(__global float4 *dst, uint seed)
{
    size_t i = get_global_id(0);
    for (int k = 0; k < PEAK_BLOCK; k++) {
        size_t e = i * PEAK_BLOCK + (size_t)k;
        dst[e] = peak_value((uint)e, seed);
    }
}

__kernel void peak_write_strided(__global float4 *dst, uint seed)
{
    size_t i = get_global_id(0), g = get_global_size(0);
    for (int k = 0; k < PEAK_BLOCK; k++) {
        size_t e = i + (size_t)k * g;
        dst[e] = peak_value((uint)e, seed);
    }
}

/* ---- launch --------------------------------------------------------------------- */

/* Does nothing: its enqueue and completion are the floor of any launch. */
__kernel void peak_empty(void)
{
}

/* ---- FMA throughput --------------------------------------------------------------- */

/* Independent chains of x = mad(x, y, c) per work item (latency hidden by
   independence), PEAK_ITERS trips, in three widths, because implementations
   differ in where they find SIMD lanes: scalar (16 chains: 32 * PEAK_ITERS
   flops per work item; for those that vectorise across work items, GPUs and
   llvmpipe), vector4 (16 chains, 4x that) and vector16 (8 chains, 8x that; for
   those that map vector types onto wide registers, PoCL on AVX-512). y < 1 keeps every chain
   bounded and away from denormals; the sum is written so nothing is dead. */
#define PEAK_MAD16(x, y, c)                                                                      \
    x##0 = mad(x##0, y, c); x##1 = mad(x##1, y, c); x##2 = mad(x##2, y, c);                      \
    x##3 = mad(x##3, y, c); x##4 = mad(x##4, y, c); x##5 = mad(x##5, y, c);                      \
    x##6 = mad(x##6, y, c); x##7 = mad(x##7, y, c); x##8 = mad(x##8, y, c);                      \
    x##9 = mad(x##9, y, c); x##a = mad(x##a, y, c); x##b = mad(x##b, y, c);                      \
    x##c = mad(x##c, y, c); x##d = mad(x##d, y, c); x##e = mad(x##e, y, c);                      \
    x##f = mad(x##f, y, c)
#define PEAK_MAD8(x, y, c)                                                                       \
    x##0 = mad(x##0, y, c); x##1 = mad(x##1, y, c); x##2 = mad(x##2, y, c);                      \
    x##3 = mad(x##3, y, c); x##4 = mad(x##4, y, c); x##5 = mad(x##5, y, c);                      \
    x##6 = mad(x##6, y, c); x##7 = mad(x##7, y, c)
/* The same with fma(): a compiler that keeps mad as a multiply and an add
   (PoCL 3.1 on x86: vmulps + vaddps) reaches the fused rate only this way. */
#define PEAK_FMA8(x, y, c)                                                                       \
    x##0 = fma(x##0, y, c); x##1 = fma(x##1, y, c); x##2 = fma(x##2, y, c);                      \
    x##3 = fma(x##3, y, c); x##4 = fma(x##4, y, c); x##5 = fma(x##5, y, c);                      \
    x##6 = fma(x##6, y, c); x##7 = fma(x##7, y, c)
#define PEAK_SUM16(x)                                                                            \
    (((x##0 + x##1) + (x##2 + x##3)) + ((x##4 + x##5) + (x##6 + x##7))) +                        \
        (((x##8 + x##9) + (x##a + x##b)) + ((x##c + x##d) + (x##e + x##f)))
#define PEAK_INIT16(T, x, v)                                                                     \
    T x##0 = v, x##1 = v + (T)(1), x##2 = v + (T)(2), x##3 = v + (T)(3), x##4 = v + (T)(4),      \
      x##5 = v + (T)(5), x##6 = v + (T)(6), x##7 = v + (T)(7), x##8 = v - (T)(1),                \
      x##9 = v - (T)(2), x##a = v - (T)(3), x##b = v - (T)(4), x##c = v - (T)(5),                \
      x##d = v - (T)(6), x##e = v - (T)(7), x##f = v + (T)(0.5)

__kernel void peak_fma(__global PEAK_T *out, float a, float b)
{
    size_t i = get_global_id(0);
    PEAK_T y = (PEAK_T)(a), c = (PEAK_T)(b), v = (PEAK_T)((float)(i & 7u));
    PEAK_INIT16(PEAK_T, x, v);
    for (int k = 0; k < PEAK_ITERS; k++) {
        PEAK_MAD16(x, y, c);
    }
    out[i] = PEAK_SUM16(x);
}

__kernel void peak_fma4(__global PEAK_T *out, float a, float b)
{
    size_t i = get_global_id(0);
    PEAK_T4 y = (PEAK_T4)((PEAK_T)(a)), c = (PEAK_T4)((PEAK_T)(b));
    PEAK_T4 v = (PEAK_T4)((PEAK_T)(0), (PEAK_T)(1), (PEAK_T)(2), (PEAK_T)(3)) + (PEAK_T)((float)(i & 7u));
    PEAK_INIT16(PEAK_T4, x, v);
    for (int k = 0; k < PEAK_ITERS; k++) {
        PEAK_MAD16(x, y, c);
    }
    PEAK_T4 s = PEAK_SUM16(x);
    out[i] = (s.x + s.y) + (s.z + s.w);
}

/* vector16: 8 chains of 16 lanes; STEP is PEAK_MAD8 (peak_fma16) or PEAK_FMA8
   (peak_fma16_fused). */
#define PEAK_FMA16_KERNEL(NAME, STEP)                                                            \
    __kernel void NAME(__global PEAK_T *out, float a, float b)                                   \
    {                                                                                            \
        size_t i = get_global_id(0);                                                             \
        PEAK_T16 y = (PEAK_T16)((PEAK_T)(a)), c = (PEAK_T16)((PEAK_T)(b));                       \
        PEAK_T16 v = (PEAK_T16)((PEAK_T)((float)(i & 7u)));                                      \
        PEAK_T16 x0 = v, x1 = v + (PEAK_T)(1), x2 = v + (PEAK_T)(2), x3 = v + (PEAK_T)(3),       \
                 x4 = v - (PEAK_T)(1), x5 = v - (PEAK_T)(2), x6 = v - (PEAK_T)(3),               \
                 x7 = v + (PEAK_T)(0.5);                                                         \
        for (int k = 0; k < PEAK_ITERS; k++) {                                                   \
            STEP(x, y, c);                                                                       \
        }                                                                                        \
        PEAK_T16 s16 = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));                        \
        PEAK_T8 s8 = s16.lo + s16.hi;                                                            \
        PEAK_T4 s4 = s8.lo + s8.hi;                                                              \
        out[i] = (s4.x + s4.y) + (s4.z + s4.w);                                                  \
    }
PEAK_FMA16_KERNEL(peak_fma16, PEAK_MAD8)
PEAK_FMA16_KERNEL(peak_fma16_fused, PEAK_FMA8)
