/* Tensors made on the device: full, arange, linspace and the random draws.
 * Every work item writes one element of a fresh C-contiguous output of `total`
 * elements: element base + get_global_id(0), for ids below n (the host launches
 * pieces of at most 2^30 work items); the draws write a group of consecutive
 * elements that share one Philox call (cl/random.h), group base + id. Nothing is read: these kernels run at the device's write
 * bandwidth, and no host buffer of the result's size ever exists.
 *
 * Specialisation:
 *   CLB_GEN        0 full, 1 arange, 2 linspace, 3 uniform, 4 normal
 *   CLB_OUT_DTYPE  the output's clb_dtype (full: the unsigned dtype of its size,
 *                  the value arrives as its bit pattern)
 *   CLB_GEN_F64    linspace: 1 computes in double, 0 in float (devices without
 *                  cl_khr_fp64)
 * Arguments: out, base, n, and six 64-bit parameters a0..a5 whose meaning
 * depends on CLB_GEN (src/opencl/cl_generate.c and src/host/host_gen.c, which
 * computes the same values on the host, say which). Floats travel as their bit
 * patterns, so no double argument reaches a device without fp64. */

#ifndef CLB_GEN
#define CLB_GEN 0
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_GEN_F64
#define CLB_GEN_F64 0
#endif
/* CLB_GEN_VEC4: full (16-byte chunks of its pattern) and float32 arange,
   linspace and uniform draws write 4 elements a work item as one 16-byte
   store; CLB_GEN_NT makes those stores streaming (CPU devices, large outputs:
   src/opencl/cl_launch.c's rule), the difference between a CPU's plain-store
   and its write limit. */
#ifndef CLB_GEN_VEC4
#define CLB_GEN_VEC4 0
#endif
#ifndef CLB_GEN_NT
#define CLB_GEN_NT 0
#endif
/* CLB_GEN_V8: float32 uniform and normal draws whose offset is a multiple of
   4, 32 elements (8 Philox calls on uint8 lanes) a work item. */
#ifndef CLB_GEN_V8
#define CLB_GEN_V8 0
#endif
#define CLB_GEN_NT_OK 0
#if CLB_GEN_NT && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#undef CLB_GEN_NT_OK
#define CLB_GEN_NT_OK 1
#endif
#endif
#if CLB_GEN_NT_OK
#define CLB_GEN_ST4(p, v) __builtin_nontemporal_store((v), (p))
#if __has_builtin(__builtin_ia32_sfence)
#define CLB_GEN_FENCE() __builtin_ia32_sfence()
#else
#define CLB_GEN_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#else
#define CLB_GEN_ST4(p, v) (*(p) = (v))
#define CLB_GEN_FENCE() ((void)0)
#endif

/* No fused multiply-add the host would not do: a*b+c is two roundings. */
#pragma OPENCL FP_CONTRACT OFF

typedef CLB_STORAGE(CLB_OUT_DTYPE) clb_out_t;
typedef CLB_REG(CLB_OUT_DTYPE) clb_reg_t;

/* Rounds a float to the nearest half, kept in a float. */
inline float clb_gen_rh(float x)
{
    ushort bits;
    vstore_half_rte(x, 0, (__private half *)&bits);
    return vload_half(0, (__private const half *)&bits);
}

#if CLB_GEN == 3 || CLB_GEN == 4
/* Elements per Philox call (cl/random.h's clb_rng_group). */
#define CLB_G (CLB_OUT_DTYPE == 11 ? 2 : 4)
/* Element k of a group from its call's words w: a draw. */
#if CLB_OUT_DTYPE == 11
inline double clb_gen_value(const clb_u32 *w, int k, ulong a2, ulong a3, ulong a4, ulong a5)
{
#if CLB_GEN == 3
    double r = as_double(a2) + as_double(a3) * clb_rng_unit53(w[2 * k], w[2 * k + 1]);
    return r < as_double(a4) ? r : as_double(a5);
#else
    return as_double(a2) + as_double(a3) * clb_rng_normal(w, k);
#endif
}
#else /* float32, float16: float arithmetic only */
inline float clb_gen_value(const clb_u32 *w, int k, ulong a2, ulong a3, ulong a4, ulong a5)
{
    float lo = as_float((uint)a2), sc = as_float((uint)a3);
#if CLB_GEN == 3 && CLB_OUT_DTYPE == 9
    float r = clb_gen_rh(lo + sc * clb_rng_unit11(w[k]));
#elif CLB_GEN == 3
    float r = lo + sc * clb_rng_unit24(w[k]);
#elif CLB_OUT_DTYPE == 9
    return clb_gen_rh(lo + sc * clb_rng_normalf(w[k & 2], w[(k & 2) + 1], k & 1));
#else
    return lo + sc * clb_rng_normalf(w[k & 2], w[(k & 2) + 1], k & 1);
#endif
#if CLB_GEN == 3
    return r < as_float((uint)a4) ? r : as_float((uint)a5);
#endif
}
#endif
#endif

#if (CLB_GEN == 3 || CLB_GEN == 4) && CLB_GEN_V8
/* Float32 draws, 8 Philox calls a unit (32 elements): the ten rounds on uint8
   lanes (counters q0 .. q0 + 7), so a CPU device runs them as SIMD whatever its
   work-group vectoriser does; the same words as clb_philox, hence the host's
   values. */
__attribute__((always_inline)) inline void clb_philox8(ulong q0, ulong seed, uint8 *w0, uint8 *w1,
                                                       uint8 *w2, uint8 *w3)
{
    /* the words live zero-extended in ulong lanes, so each product is one
       32 x 32 -> 64 multiply (vpmuludq on x86) with no repacking per round */
    const ulong8 m = (ulong8)0xffffffffUL;
    const ulong8 lo = (ulong8)(q0 & 0xffffffffUL) + (ulong8)(0, 1, 2, 3, 4, 5, 6, 7);
    ulong8 c0 = lo & m, c1 = (ulong8)(q0 >> 32) + (lo >> 32), c2 = (ulong8)0, c3 = (ulong8)0;
    c1 &= m;
    ulong k0 = seed & 0xffffffffUL, k1 = seed >> 32;
#pragma unroll
    for (int r = 0; r < 10; r++) {
        const ulong8 p0 = c0 * (ulong8)CLB_PHILOX_M0, p1 = c2 * (ulong8)CLB_PHILOX_M1;
        c0 = (p1 >> 32) ^ c1 ^ (ulong8)k0;
        c2 = (p0 >> 32) ^ c3 ^ (ulong8)k1;
        c1 = p1 & m;
        c3 = p0 & m;
        k0 = (k0 + CLB_PHILOX_W0) & 0xffffffffUL;
        k1 = (k1 + CLB_PHILOX_W1) & 0xffffffffUL;
    }
    *w0 = convert_uint8(c0), *w1 = convert_uint8(c1), *w2 = convert_uint8(c2), *w3 = convert_uint8(c3);
}

/* Stores lanes' (f0, f1, f2, f3) as 32 consecutive floats: a 4 x 8 transpose. */
inline void clb_gen_store32(__global float *p, float8 f0, float8 f1, float8 f2, float8 f3)
{
    const float8 a = shuffle2(f0, f1, (uint8)(0, 8, 1, 9, 2, 10, 3, 11));
    const float8 b = shuffle2(f2, f3, (uint8)(0, 8, 1, 9, 2, 10, 3, 11));
    const float8 c = shuffle2(f0, f1, (uint8)(4, 12, 5, 13, 6, 14, 7, 15));
    const float8 d = shuffle2(f2, f3, (uint8)(4, 12, 5, 13, 6, 14, 7, 15));
    __global float8 *o = (__global float8 *)p;
    CLB_GEN_ST4(o + 0, shuffle2(a, b, (uint8)(0, 1, 8, 9, 2, 3, 10, 11)));
    CLB_GEN_ST4(o + 1, shuffle2(a, b, (uint8)(4, 5, 12, 13, 6, 7, 14, 15)));
    CLB_GEN_ST4(o + 2, shuffle2(c, d, (uint8)(0, 1, 8, 9, 2, 3, 10, 11)));
    CLB_GEN_ST4(o + 3, shuffle2(c, d, (uint8)(4, 5, 12, 13, 6, 7, 14, 15)));
}

#if CLB_GEN == 3
inline float8 clb_gen_uniform8(uint8 w, float lo, float sc, float hi, float repl)
{
    const float8 r = (float8)lo + (float8)sc * (convert_float8(w >> 8) * 0x1p-24f);
    return select((float8)repl, r, r < (float8)hi);
}
#else
/* Box-Muller on lanes: (cos, sin) values of the pair (wa, wb), as clb_rng_normalf. */
inline void clb_gen_normal8(uint8 wa, uint8 wb, float lo, float sc, float8 *zc, float8 *zs)
{
    const float8 u1 = convert_float8((wa >> 8) + (uint8)1) * 0x1p-24f;
    const float8 t = (float8)6.2831853071795864769f * (convert_float8(wb >> 8) * 0x1p-24f);
    const float8 r = sqrt((float8)-2.0f * log(u1));
    float8 c;
    const float8 s = sincos(t, &c); /* one argument reduction for both */
    *zc = (float8)lo + (float8)sc * (r * c);
    *zs = (float8)lo + (float8)sc * (r * s);
}
#endif

/* Unit i: groups q0 = offset / 4 + 8 i onwards; whole units in one go, the
   last one group by group. */
__attribute__((always_inline)) inline int clb_gen_unit8(__global float *out, ulong i, ulong a0, ulong a1, ulong a2, ulong a3,
                         ulong a4, ulong a5, ulong total)
{
    const ulong q0 = a1 / 4 + 8 * i, e0 = q0 * 4 - a1;
    if (e0 + 31 >= total) return 0;
    uint8 w0, w1, w2, w3;
    clb_philox8(q0, a0, &w0, &w1, &w2, &w3);
    const float lo = as_float((uint)a2), sc = as_float((uint)a3);
#if CLB_GEN == 3
    const float hi = as_float((uint)a4), repl = as_float((uint)a5);
    clb_gen_store32(out + e0, clb_gen_uniform8(w0, lo, sc, hi, repl),
                    clb_gen_uniform8(w1, lo, sc, hi, repl), clb_gen_uniform8(w2, lo, sc, hi, repl),
                    clb_gen_uniform8(w3, lo, sc, hi, repl));
#else
    float8 z0, z1, z2, z3;
    clb_gen_normal8(w0, w1, lo, sc, &z0, &z1);
    clb_gen_normal8(w2, w3, lo, sc, &z2, &z3);
    clb_gen_store32(out + e0, z0, z1, z2, z3);
#endif
    return 1;
}
#endif

/* Unit i of the output: an element, a 16-byte chunk (full, 4-wide forms) or a
   group of draws sharing a Philox call. */
inline void clb_gen_unit(__global void *out_, const ulong i, ulong a0, ulong a1, ulong a2,
                         ulong a3, ulong a4, ulong a5, ulong total)
{
    __global clb_out_t *out = (__global clb_out_t *)out_;
#if CLB_GEN == 0 && CLB_GEN_VEC4 /* full: 16-byte chunks of the pattern (8 bytes twice) */
    const ulong bytes = total * sizeof(clb_out_t), chunks = bytes / 16;
    if (i < chunks) {
        CLB_GEN_ST4((__global uint4 *)out_ + i, as_uint4((ulong2)(a0, a0)));
    } else if (i == chunks) { /* the tail: whole elements of the pattern */
        for (ulong e = chunks * 16 / sizeof(clb_out_t); e < total; e++) out[e] = (clb_out_t)a0;
    }
#elif CLB_GEN == 0 /* full: the bit pattern */
    out[i] = (clb_out_t)a0;
#elif CLB_GEN_VEC4 && (CLB_GEN == 1 || CLB_GEN == 2) /* float32, 4 elements a work item */
    float v[4];
    for (int k = 0; k < 4; k++) {
        const ulong e = 4 * i + (ulong)k;
#if CLB_GEN == 1
        v[k] = e == 1 ? as_float((uint)a2) : as_float((uint)a0) + (float)e * as_float((uint)a1);
#elif CLB_GEN_F64 /* in double, then one rounding: the host's value */
        v[k] = (float)(e == a5     ? as_double(a2)
                       : a4 == 0 ? (double)e * as_double(a1) + as_double(a0)
                       : a4 == 1 ? (double)e / as_double(a1) * as_double(a3) + as_double(a0)
                                 : (double)e * as_double(a3) + as_double(a0));
#else
        v[k] = e == a5     ? as_float((uint)a2)
               : a4 == 0 ? (float)e * as_float((uint)a1) + as_float((uint)a0)
               : a4 == 1 ? (float)e / as_float((uint)a1) * as_float((uint)a3) + as_float((uint)a0)
                         : (float)e * as_float((uint)a3) + as_float((uint)a0);
#endif
    }
    if (4 * i + 3 < total) {
        CLB_GEN_ST4((__global float4 *)out + i, (float4)(v[0], v[1], v[2], v[3]));
    } else {
        for (int k = 0; k < 4; k++)
            if (4 * i + (ulong)k < total) out[4 * i + (ulong)k] = v[k];
    }
#elif CLB_GEN == 1 /* arange: NumPy's fill in the dtype's arithmetic */
#if CLB_OUT_DTYPE == 11
    double v = i == 1 ? as_double(a2) : as_double(a0) + (double)i * as_double(a1);
#elif CLB_OUT_DTYPE == 9 || CLB_OUT_DTYPE == 10
    float v = i == 1 ? as_float((uint)a2) : as_float((uint)a0) + (float)i * as_float((uint)a1);
#else /* integers and bool: first + i * delta, wrapping */
    clb_reg_t v = CLB_CONVERT(CLB_OUT_DTYPE, 8, a0 + i * a1);
#endif
    CLB_STORE(CLB_OUT_DTYPE, out, i, v);
#elif CLB_GEN == 2 /* linspace: NumPy's formula, then floor for integers */
#if CLB_GEN_F64
    typedef double clb_r_t;
#define CLB_R(bits) as_double(bits)
#define CLB_R_DTYPE 11
#else
    typedef float clb_r_t;
#define CLB_R(bits) as_float((uint)(bits))
#define CLB_R_DTYPE 10
#endif
    clb_r_t y;
    if (i == a5) y = CLB_R(a2); /* endpoint: exactly stop */
    else if (a4 == 0) y = (clb_r_t)i * CLB_R(a1) + CLB_R(a0);
    else if (a4 == 1) y = (clb_r_t)i / CLB_R(a1) * CLB_R(a3) + CLB_R(a0);
    else y = (clb_r_t)i * CLB_R(a3) + CLB_R(a0);
#if CLB_OUT_DTYPE >= 1 && CLB_OUT_DTYPE <= 8
    y = floor(y);
#endif
    CLB_STORE(CLB_OUT_DTYPE, out, i, CLB_CONVERT(CLB_OUT_DTYPE, CLB_R_DTYPE, y));
#elif CLB_GEN_V8 /* float32 draws, offset a multiple of 4: 8 groups a unit */
    if (clb_gen_unit8((__global float *)out_, i, a0, a1, a2, a3, a4, a5, total)) return;
    for (ulong g = 0; g < 8; g++) {
        const ulong q = a1 / 4 + 8 * i + g;
        clb_u32 w[4];
        clb_philox(q, a0, w);
        for (int k = 0; k < 4; k++) {
            const ulong e = q * 4 + (ulong)k - a1;
            if (e < total) out[e] = clb_gen_value(w, k, a2, a3, a4, a5);
        }
    }
#else /* random: group q = offset / G + i holds elements q * G .. q * G + G - 1 */
    const ulong q = a1 / CLB_G + i;
    clb_u32 w[4];
    clb_philox(q, a0, w);
#if CLB_GEN_VEC4 /* uniform float32, offset a multiple of 4: one aligned 16-byte store */
    const ulong e0 = q * 4 - a1;
    if (e0 + 3 < total) {
        CLB_GEN_ST4((__global float4 *)(out + e0),
                    (float4)(clb_gen_value(w, 0, a2, a3, a4, a5), clb_gen_value(w, 1, a2, a3, a4, a5),
                             clb_gen_value(w, 2, a2, a3, a4, a5), clb_gen_value(w, 3, a2, a3, a4, a5)));
        return;
    }
#endif
    for (int k = 0; k < CLB_G; k++) {
        const ulong e = q * CLB_G + (ulong)k - a1; /* wraps past total before the offset */
        if (e < total) CLB_STORE(CLB_OUT_DTYPE, out, e, clb_gen_value(w, k, a2, a3, a4, a5));
    }
#endif
}

/* Work item g writes units base + g * CLB_GEN_BLOCK onwards, below base + n: one
   unit each, or with streaming stores a block of them and then one fence (a
   fence per 16-byte store would serialise them). */
#ifndef CLB_GEN_BLOCK
#define CLB_GEN_BLOCK 1
#endif
__kernel void clb_generate(__global void *out_, ulong base, ulong n, ulong a0, ulong a1, ulong a2,
                           ulong a3, ulong a4, ulong a5, ulong total)
{
    const ulong lo = get_global_id(0) * CLB_GEN_BLOCK;
    if (lo >= n) return;
    const ulong hi = lo + CLB_GEN_BLOCK < n ? lo + CLB_GEN_BLOCK : n;
    for (ulong t = lo; t < hi; t++) clb_gen_unit(out_, base + t, a0, a1, a2, a3, a4, a5, total);
    CLB_GEN_FENCE();
}
