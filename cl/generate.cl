/* Tensors made on the device: full, arange, linspace and the random draws.
 * clb_generate (full, arange, linspace): every work item writes one unit (an
 * element; full: 64 bytes; float32 arange/linspace with streaming stores: 16
 * elements) of a fresh C-contiguous output of `total` elements: unit base +
 * get_global_id(0), for ids below n (the host launches pieces of at most 2^30
 * work items). The draws, in cl/random.h's lanes: clb_random a Philox call a
 * work item, clb_random_v (float32 on PoCL's CPU devices) a block of 16 calls
 * on vector lanes; both below.
 * Nothing is read: these kernels run at the device's write bandwidth, and no
 * host buffer of the result's size ever exists.
 *
 * Specialisation:
 *   CLB_GEN        0 full, 1 arange, 2 linspace, 3 uniform, 4 normal
 *   CLB_OUT_DTYPE  the output's clb_dtype (full: the unsigned dtype of its size,
 *                  the value arrives as its bit pattern)
 *   CLB_GEN_F64    linspace: 1 computes in double, 0 in float (devices without
 *                  cl_khr_fp64)
 *   CLB_RNG_BUILTIN_SQRT  the normal's sqrt as __builtin_sqrtf (cl/random.h)
 * Arguments: out, base, n, six 64-bit parameters a0..a5 whose meaning
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
/* CLB_GEN_VEC4: full writes 64-byte chunks of its pattern, float32 arange
   and linspace 16 elements a work item, each as one 64-byte store (a cache line
   when aligned; CLB_GEN_IDX32 where clb__cl_index64 keeps indices 32-bit); CLB_GEN_NT
   makes those stores streaming (CPU devices, large outputs:
   src/opencl/cl_launch.c's rule), the difference between a CPU's plain-store
   and its write limit. */
#ifndef CLB_GEN_VEC4
#define CLB_GEN_VEC4 0
#endif
#ifndef CLB_GEN_NT
#define CLB_GEN_NT 0
#endif
#ifndef CLB_GEN_IDX32
#define CLB_GEN_IDX32 0
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

/* linspace in double on 16 lanes takes the elements' indices as doubles (de)
   from the work item's loop, which advances them by 16 a unit (exact below
   2^53) instead of converting each unit's: a third of a unit's arithmetic. */
#define CLB_GEN_DE (CLB_GEN == 2 && CLB_GEN_VEC4 && CLB_GEN_F64)
#if CLB_GEN_DE
typedef double16 clb_gen_de_t;
#else
typedef uint clb_gen_de_t; /* unused */
#endif

#if CLB_GEN_VEC4 && (CLB_GEN == 1 || CLB_GEN == 2)
/* float32 arange and linspace element e (the forms below on one element). */
inline float clb_gen_f32(ulong e, ulong a0, ulong a1, ulong a2, ulong a3, ulong a4, ulong a5)
{
#if CLB_GEN == 1
    return e == 1 ? as_float((uint)a2) : as_float((uint)a0) + (float)e * as_float((uint)a1);
#elif CLB_GEN_F64 /* in double, then one rounding: the host's value */
    return (float)(e == a5     ? as_double(a2)
                   : a4 == 0 ? (double)e * as_double(a1) + as_double(a0)
                   : a4 == 1 ? (double)e / as_double(a1) * as_double(a3) + as_double(a0)
                             : (double)e * as_double(a3) + as_double(a0));
#else
    return e == a5     ? as_float((uint)a2)
           : a4 == 0 ? (float)e * as_float((uint)a1) + as_float((uint)a0)
           : a4 == 1 ? (float)e / as_float((uint)a1) * as_float((uint)a3) + as_float((uint)a0)
                     : (float)e * as_float((uint)a3) + as_float((uint)a0);
#endif
}

/* Elements e0 .. e0 + 15 of them in one vector: the same operations lane by
   lane (conversions round to nearest like the scalar casts), the special
   element (arange's element 1, linspace's endpoint a5) patched by a select. */
inline float16 clb_gen_f32x16(ulong e0, clb_gen_de_t de, ulong a0, ulong a1, ulong a2, ulong a3,
                              ulong a4, ulong a5)
{
    const uint16 iota = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#if CLB_GEN_IDX32 /* every index below 2^32 */
    const float16 fe = convert_float16((uint16)(uint)e0 + iota);
#else
    const float16 fe = convert_float16(convert_ulong16(iota) + (ulong16)e0);
#endif
#if CLB_GEN == 1
    const float16 r = (float16)as_float((uint)a0) + fe * (float16)as_float((uint)a1);
    const ulong special = 1;
    const float sv = as_float((uint)a2);
#else
#if CLB_GEN_F64
    const double16 y = a4 == 0 ? de * (double16)as_double(a1) + (double16)as_double(a0)
                       : a4 == 1 ? de / (double16)as_double(a1) * (double16)as_double(a3) +
                                       (double16)as_double(a0)
                                 : de * (double16)as_double(a3) + (double16)as_double(a0);
    const float16 r = convert_float16(y);
    const float sv = (float)as_double(a2);
#else
    const float16 r = a4 == 0 ? fe * (float16)as_float((uint)a1) + (float16)as_float((uint)a0)
                      : a4 == 1 ? fe / (float16)as_float((uint)a1) * (float16)as_float((uint)a3) +
                                      (float16)as_float((uint)a0)
                                : fe * (float16)as_float((uint)a3) + (float16)as_float((uint)a0);
    const float sv = as_float((uint)a2);
#endif
    const ulong special = a5;
#endif
    if (special - e0 >= 16) return r;
    return select(r, (float16)sv, convert_uint16(iota) == (uint16)(uint)(special - e0));
}
#endif

/* Unit i of the output: an element, a 64-byte chunk (full) or 16 elements
   (float32 arange and linspace where stores stream). */
inline void clb_gen_unit(__global void *out_, const ulong i, clb_gen_de_t de, ulong a0, ulong a1,
                         ulong a2, ulong a3, ulong a4, ulong a5, ulong total)
{
    __global clb_out_t *out = (__global clb_out_t *)out_;
#if CLB_GEN == 0 && CLB_GEN_VEC4 /* full: 64-byte chunks of the pattern (8 bytes 8 times) */
    const ulong bytes = total * sizeof(clb_out_t), chunks = bytes / 64;
    if (i < chunks) {
        CLB_GEN_ST4((__global uint16 *)out_ + i, as_uint16((ulong8)a0));
    } else if (i == chunks) { /* the tail: whole elements of the pattern */
        for (ulong e = chunks * 64 / sizeof(clb_out_t); e < total; e++) out[e] = (clb_out_t)a0;
    }
#elif CLB_GEN == 0 /* full: the bit pattern */
    out[i] = (clb_out_t)a0;
#elif CLB_GEN_VEC4 && (CLB_GEN == 1 || CLB_GEN == 2) /* float32, 16 elements a work item */
    const ulong e0 = 16 * i;
    if (e0 + 15 < total) {
        CLB_GEN_ST4((__global float16 *)out + i, clb_gen_f32x16(e0, de, a0, a1, a2, a3, a4, a5));
    } else {
        for (ulong e = e0; e < total; e++) out[e] = clb_gen_f32(e, a0, a1, a2, a3, a4, a5);
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
#endif
}

/* The launch description's values (cl/launch_args.h's CLB_GEN_*): a0..a5 the
   parameters as bit patterns, every kernel the same description. */
#define CLB_GEN_UNPACK()                                                                           \
    CLB_ARGS_UNPACK(CLB_GEN_ARGS_VECS, args);                                                      \
    const ulong base = (ulong)args[CLB_GEN_BASE], n = (ulong)args[CLB_GEN_N];                      \
    const ulong a0 = (ulong)args[CLB_GEN_A(0)], a1 = (ulong)args[CLB_GEN_A(1)];                    \
    const ulong a2 = (ulong)args[CLB_GEN_A(2)], a3 = (ulong)args[CLB_GEN_A(3)];                    \
    const ulong a4 = (ulong)args[CLB_GEN_A(4)], a5 = (ulong)args[CLB_GEN_A(5)];                    \
    const ulong total = (ulong)args[CLB_GEN_TOTAL];                                                \
    (void)base, (void)n, (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)total

CLB_ARGS_PROBE(CLB_GEN_ARGS_VECS)

/* Work item g writes units base + g * CLB_GEN_BLOCK onwards, below base + n: one
   unit each, or with streaming stores a block of them and then one fence (a
   fence per store would serialise them). */
#ifndef CLB_GEN_BLOCK
#define CLB_GEN_BLOCK 1
#endif
#if CLB_GEN < 3
__kernel void clb_generate(__global void *out_, CLB_ARGS_PARAMS(CLB_GEN_ARGS_VECS))
{
    CLB_GEN_UNPACK();
    const ulong lo = get_global_id(0) * CLB_GEN_BLOCK;
    if (lo >= n) return;
    const ulong hi = lo + CLB_GEN_BLOCK < n ? lo + CLB_GEN_BLOCK : n;
#if CLB_GEN_DE
    const uint16 iota = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    clb_gen_de_t de = convert_double16(convert_ulong16(iota) + (ulong16)(16 * (base + lo)));
#else
    clb_gen_de_t de = 0;
#endif
    for (ulong t = lo; t < hi; t++) {
        clb_gen_unit(out_, base + t, de, a0, a1, a2, a3, a4, a5, total);
#if CLB_GEN_DE
        de += 16.0;
#endif
    }
    CLB_GEN_FENCE();
}
#endif

#if CLB_GEN == 3 || CLB_GEN == 4
/* The draws: work item (l, t) runs Philox call l of block a1 / (G * LANES) +
   base + t (cl/random.h's lanes) and writes its G values to their elements,
   slot k at the block's element k * LANES + l: for a slot, consecutive work
   items write consecutive elements, so a CPU device's vectorised work-item loop
   stores each slot as whole vectors and a GPU's stores coalesce. Blocks of the
   draw's interior take no per-element checks; its two ends keep the elements
   in [0, total). a0 the seed, a1 the offset, a2 and a3 the map's low/mean and
   scale/std, a4 and a5 the uniform's bound and the value that replaces one
   that rounds up to it. */
#define CLB_G (CLB_OUT_DTYPE == 11 ? 2 : 4)
#define CLB_L CLB_RNG_LANES

/* Slot k's value from words (w0, w1, w2, w3). Scalars, no arrays: see clb_philox4. */
#if CLB_OUT_DTYPE == 11 && CLB_GEN == 3
#define CLB_DRAW_2(A, B) clb_draw_u53(A, B, a2, a3, a4, a5)
inline double clb_draw_u53(clb_u32 hi, clb_u32 lo, ulong a2, ulong a3, ulong a4, ulong a5)
{
    const double r = as_double(a2) + as_double(a3) * clb_rng_unit53(hi, lo);
    return r < as_double(a4) ? r : as_double(a5);
}
#elif CLB_GEN == 3
#define CLB_DRAW_1(A) clb_draw_u24(A, a2, a3, a4, a5)
__attribute__((always_inline)) inline float clb_draw_u24(clb_u32 w, ulong a2, ulong a3, ulong a4, ulong a5)
{
#if CLB_OUT_DTYPE == 9
    const float r = clb_rh(as_float((uint)a2) + as_float((uint)a3) * clb_rng_unit11(w));
#else
    const float r = as_float((uint)a2) + as_float((uint)a3) * clb_rng_unit24(w);
#endif
    return r < as_float((uint)a4) ? r : as_float((uint)a5);
}
#elif CLB_OUT_DTYPE != 11
__attribute__((always_inline)) inline float clb_draw_scale(float z, ulong a2, ulong a3)
{
#if CLB_OUT_DTYPE == 9
    return clb_rh(as_float((uint)a2) + as_float((uint)a3) * z);
#else
    return as_float((uint)a2) + as_float((uint)a3) * z;
#endif
}
#endif

/* Global size (LANES, blocks rounded up to the work-group's), n the blocks of
   this launch. */
__kernel void clb_random(__global void *out_, CLB_ARGS_PARAMS(CLB_GEN_ARGS_VECS))
{
    CLB_GEN_UNPACK();
    if (get_global_id(1) >= n) return;
    __global clb_out_t *out = (__global clb_out_t *)out_;
    const ulong l = get_global_id(0), blk = a1 / (CLB_G * CLB_L) + base + get_global_id(1);
    clb_u32 w0, w1, w2, w3;
    clb_philox4(blk * CLB_L + l, a0, &w0, &w1, &w2, &w3);
    clb_reg_t v0, v1, v2, v3;
#if CLB_OUT_DTYPE == 11 && CLB_GEN == 3
    v0 = CLB_DRAW_2(w0, w1), v1 = CLB_DRAW_2(w2, w3);
#elif CLB_OUT_DTYPE == 11
    const clb_u32 w[4] = {w0, w1, w2, w3};
    v0 = as_double(a2) + as_double(a3) * clb_rng_normal(w, 0);
    v1 = as_double(a2) + as_double(a3) * clb_rng_normal(w, 1);
#elif CLB_GEN == 3
    v0 = CLB_DRAW_1(w0), v1 = CLB_DRAW_1(w1), v2 = CLB_DRAW_1(w2), v3 = CLB_DRAW_1(w3);
#else
    float z0, z1, z2, z3;
    clb_rng_normal2f(w0, w1, &z0, &z1);
    clb_rng_normal2f(w2, w3, &z2, &z3);
    v0 = clb_draw_scale(z0, a2, a3), v1 = clb_draw_scale(z1, a2, a3);
    v2 = clb_draw_scale(z2, a2, a3), v3 = clb_draw_scale(z3, a2, a3);
#endif
    /* the block's first element in the output; wraps below 0 before the offset */
    const ulong first = blk * (CLB_G * CLB_L) - a1 + l;
#define CLB_PUT(k, v)                                                                              \
    if (first + (k) * CLB_L < total) CLB_STORE(CLB_OUT_DTYPE, out, first + (k) * CLB_L, v)
    CLB_PUT(0, v0);
    CLB_PUT(1, v1);
#if CLB_G == 4
    CLB_PUT(2, v2);
    CLB_PUT(3, v3);
#endif
}
#endif

#if (CLB_GEN == 3 || CLB_GEN == 4) && (CLB_OUT_DTYPE == 10 || CLB_OUT_DTYPE == 9)
/* float32 (and float16) draws on a CPU device: a work item two blocks, each block's 16
   calls on vector lanes (ulong16 words, zero-extended, so each 32 x 32 -> 64
   product is one vpmuludq-like multiply), each slot one 16-float store:
   whatever a device's work-group vectoriser does, the lanes are SIMD. The same
   operations as clb_philox4 and cl/random.h's maps, lane by lane: the same
   bits -- except that with CLB_V_FMA (the driver sets it on PoCL's CPU
   devices) the normal's polynomials fuse their multiply-adds: a few ulp from
   the host's values, ~11 % less time on Zen 4 (llvmpipe, which would run
   fma ten times slower, never takes this form unless a test forces it, and
   then without CLB_V_FMA). Each of these kernels is bound by its vector
   operations (2 cores of Zen 4 retire ~2 512-bit operations a cycle): Philox
   ~120 a block, the normal's map ~100 more. */
#ifndef CLB_V_FMA
#define CLB_V_FMA 0
#endif
/* The calls' order in the ulong16 words: even lanes in the low half, odd in
   the high, so that CLB_V_PACK's low half | high half << 32 puts call l's
   32-bit word in lane l: two operations a word (a shift and a ternary logic
   op), where the convert_uint16 of lanes in order took three (two vpmovqd
   and an insert); uniform ~7 % faster. */
#define CLB_V_EVEN_ODD (ulong16)(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15)
#define CLB_V_PACK(c) as_uint16(((c).lo & 0xffffffffUL) | ((c).hi << 32))

/* Blocks b (words w) and b + 1 (x). The masks (p & m) tell the compiler
   that each product's operands fit in 32 bits (vpmuludq); it drops them where
   only the low 32 bits are read. */
__attribute__((always_inline)) inline void clb_v_philox2(ulong ctr0, ulong seed, uint16 *w0, uint16 *w1,
                                                         uint16 *w2, uint16 *w3, uint16 *x0,
                                                         uint16 *x1, uint16 *x2, uint16 *x3)
{
    const ulong16 m = (ulong16)0xffffffffUL;
    const ulong16 ctr = (ulong16)ctr0 + CLB_V_EVEN_ODD, ctr1 = ctr + 16;
    ulong16 c0 = ctr & m, c1 = ctr >> 32, c2 = (ulong16)0, c3 = (ulong16)0;
    ulong16 d0 = ctr1 & m, d1 = ctr1 >> 32, d2 = (ulong16)0, d3 = (ulong16)0;
    ulong k0 = seed & 0xffffffffUL, k1 = seed >> 32;
#pragma unroll
    for (int r = 0; r < 10; r++) {
        const ulong16 p0 = c0 * (ulong16)CLB_PHILOX_M0, p1 = c2 * (ulong16)CLB_PHILOX_M1;
        const ulong16 q0 = d0 * (ulong16)CLB_PHILOX_M0, q1 = d2 * (ulong16)CLB_PHILOX_M1;
        c0 = (p1 >> 32) ^ c1 ^ (ulong16)k0;
        c2 = (p0 >> 32) ^ c3 ^ (ulong16)k1;
        d0 = (q1 >> 32) ^ d1 ^ (ulong16)k0;
        d2 = (q0 >> 32) ^ d3 ^ (ulong16)k1;
        c1 = p1 & m, c3 = p0 & m;
        d1 = q1 & m, d3 = q0 & m;
        k0 = (k0 + CLB_PHILOX_W0) & 0xffffffffUL;
        k1 = (k1 + CLB_PHILOX_W1) & 0xffffffffUL;
    }
    *w0 = CLB_V_PACK(c0), *w1 = CLB_V_PACK(c1), *w2 = CLB_V_PACK(c2), *w3 = CLB_V_PACK(c3);
    *x0 = CLB_V_PACK(d0), *x1 = CLB_V_PACK(d1), *x2 = CLB_V_PACK(d2), *x3 = CLB_V_PACK(d3);
}

/* float16 output: each slot's values computed in float as the float32 draw's
   (a uniform on the grid of 2^-11), rounded to half by integer operations
   (cl/common.cl's clb_half_bits16, the host's rule) and stored as 16 ushorts:
   the same bits as the scalar kernel's clb_rh and store. */
#if CLB_OUT_DTYPE == 9
typedef ushort clb_v_out_t;
typedef ushort16 clb_v_vec_t;
#define CLB_V_OUT(v) CLB_HALF16_BITS(v)
#define CLB_V_UNIT(w) (convert_float16((w) >> 21) * 0x1p-11f)
#define CLB_V_RH(v) clb_half_value16(clb_half_bits16(v))
#else
typedef float clb_v_out_t;
typedef float16 clb_v_vec_t;
#define CLB_V_OUT(v) (v)
#define CLB_V_UNIT(w) (convert_float16((w) >> 8) * 0x1p-24f)
#define CLB_V_RH(v) (v)
#endif

#if CLB_GEN == 3
inline float16 clb_v_uniform(uint16 w, float lo, float sc, float hi, float repl)
{
    const float16 r = CLB_V_RH((float16)lo + (float16)sc * CLB_V_UNIT(w));
    return select((float16)repl, r, r < (float16)hi);
}
#else
/* clb_rng_m2log on lanes */
inline float16 clb_v_m2log(uint16 m)
{
#if CLB_V_FMA
#pragma OPENCL FP_CONTRACT ON
#endif
    const uint16 d = as_uint16(convert_float16(m)) - 0x3f3504f3u;
    const float16 e = convert_float16(as_int16(d >> 23) - 24);
    const float16 x = as_float16((d & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    CLB_RNG_M2LOG_RETURN(float16, x, e);
}

/* clb_rng_normal2f on lanes, clb_rng_sincos's integers from the word w1
   itself (t = w1 >> 8): t - (q << 22) is t's low 22 bits sign-extended,
   (int)(w1 << 2) >> 10, and q & 3 the top two bits of u = w1 + 2^29: bit 30
   odd (sine and cosine swap), bit 31 the sine negated, the cosine where they
   differ; a sign flips after the product with r, which is the same. */
inline void clb_v_normal2(uint16 w0, uint16 w1, float16 *zc, float16 *zs)
{
#if CLB_V_FMA
#pragma OPENCL FP_CONTRACT ON
#endif
    const float16 r = sqrt(clb_v_m2log((w0 >> 8) + 1u));
    const float16 x = convert_float16(as_int16(w1 << 2) >> 10) * 0x1.921fb6p-22f;
    CLB_RNG_SINCOS_POLY(float16, x, sx, cx);
    const uint16 u = w1 + 0x20000000u;
    const int16 odd = as_int16(u << 1);
    const uint16 sneg = u & 0x80000000u, cneg = (u ^ (u << 1)) & 0x80000000u;
    *zc = as_float16(as_uint16(r * select(cx, sx, odd)) ^ cneg);
    *zs = as_float16(as_uint16(r * select(sx, cx, odd)) ^ sneg);
}
#endif

/* A block's 64 values from its words, stored at element `first` of the
   output (wrapped below 0 before the draw's offset), those in [0, total). */
__attribute__((always_inline)) inline void clb_v_block(__global clb_v_out_t *out, ulong first, ulong total,
                                                       uint16 w0, uint16 w1, uint16 w2, uint16 w3,
                                                       ulong a2, ulong a3, ulong a4, ulong a5)
{
    const float lo = as_float((uint)a2), sc = as_float((uint)a3);
    float16 v0, v1, v2, v3;
    /* [0, 1) and the standard normal (the usual draws): lo + 1 * v is
       lo + v, and [0, 1) needs no bound (every value is below 1) -- the same
       bits in fewer operations (a uniform draw ~10 % faster) */
    const bool unit = lo == 0.0f && sc == 1.0f;
#if CLB_GEN == 3
    const float hi = as_float((uint)a4), repl = as_float((uint)a5);
    if (unit && hi >= 1.0f) {
        v0 = CLB_V_UNIT(w0), v1 = CLB_V_UNIT(w1), v2 = CLB_V_UNIT(w2), v3 = CLB_V_UNIT(w3);
    } else {
        v0 = clb_v_uniform(w0, lo, sc, hi, repl), v1 = clb_v_uniform(w1, lo, sc, hi, repl);
        v2 = clb_v_uniform(w2, lo, sc, hi, repl), v3 = clb_v_uniform(w3, lo, sc, hi, repl);
    }
#else
    (void)a4, (void)a5;
    clb_v_normal2(w0, w1, &v0, &v1);
    clb_v_normal2(w2, w3, &v2, &v3);
    if (unit) {
        v0 = (float16)lo + v0, v1 = (float16)lo + v1, v2 = (float16)lo + v2, v3 = (float16)lo + v3;
    } else {
        v0 = (float16)lo + (float16)sc * v0, v1 = (float16)lo + (float16)sc * v1;
        v2 = (float16)lo + (float16)sc * v2, v3 = (float16)lo + (float16)sc * v3;
    }
#endif
    if (first < total && total - first >= 64) {
        if (((uintptr_t)(out + first) & (sizeof(clb_v_vec_t) - 1)) == 0) { /* one store a slot */
            __global clb_v_vec_t *o = (__global clb_v_vec_t *)(out + first);
            o[0] = CLB_V_OUT(v0), o[1] = CLB_V_OUT(v1), o[2] = CLB_V_OUT(v2), o[3] = CLB_V_OUT(v3);
        } else { /* PoCL splits each vstore16 into three stores */
            vstore16(CLB_V_OUT(v0), 0, out + first);
            vstore16(CLB_V_OUT(v1), 0, out + first + 16);
            vstore16(CLB_V_OUT(v2), 0, out + first + 32);
            vstore16(CLB_V_OUT(v3), 0, out + first + 48);
        }
        return;
    }
    clb_v_out_t v[64];
    vstore16(CLB_V_OUT(v0), 0, v), vstore16(CLB_V_OUT(v1), 1, v);
    vstore16(CLB_V_OUT(v2), 2, v), vstore16(CLB_V_OUT(v3), 3, v);
    for (int k = 0; k < 64; k++)
        if (first + (ulong)k < total) out[first + (ulong)k] = v[k];
}

/* Work item g: blocks 2g and 2g + 1 of the launch's n, the second stored
   only below n (total 0: nothing) -- computed either way, so that the
   compiler keeps both blocks in one straight line instead of moving the
   second into a branch (normal ~2 % faster). */
__kernel void clb_random_v(__global clb_v_out_t *out, CLB_ARGS_PARAMS(CLB_GEN_ARGS_VECS))
{
    CLB_GEN_UNPACK();
    const ulong t = 2 * get_global_id(0);
    if (t >= n) return;
    const ulong blk = a1 / 64 + base + t, first = blk * 64 - a1;
    uint16 w0, w1, w2, w3, x0, x1, x2, x3;
    clb_v_philox2(blk * 16, a0, &w0, &w1, &w2, &w3, &x0, &x1, &x2, &x3);
    clb_v_block(out, first, total, w0, w1, w2, w3, a2, a3, a4, a5);
    clb_v_block(out, first + 64, t + 1 < n ? total : 0, x0, x1, x2, x3, a2, a3, a4, a5);
}
#endif
