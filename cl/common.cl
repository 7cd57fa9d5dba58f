/* Shared preamble of every clbroadcast kernel (prepended to each kernel file).
 *
 * Kernels are specialised by -D defines from cl_kernels.c: dtypes are passed as
 * their clb_dtype numbers (CLB_SRC_DTYPE=10 means float32) and everything a
 * kernel needs to know about a dtype is looked up here by token pasting, so
 * adding a kernel never repeats the per-dtype rules. Every define has a
 * default, so each file compiles standalone for syntax checks. */

/* ---- capabilities ------------------------------------------------------------ */

/* Workarounds of driver defects, switched on by src/opencl/cl_quirks.c's table. */
#ifndef CLB_QUIRK_NAN_SAT_SELECT
#define CLB_QUIRK_NAN_SAT_SELECT 0
#endif
#ifndef CLB_QUIRK_LITERAL_FOLDING
#define CLB_QUIRK_LITERAL_FOLDING 0
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CLB_HAVE_FP64 1
#else
#define CLB_HAVE_FP64 0
#endif

#define CLB_CAT_(a, b) a##b
#define CLB_CAT(a, b) CLB_CAT_(a, b)

/* Streaming (non-temporal) stores for outputs far larger than the cache. On a
   CPU a plain store first reads the line it writes (read-for-ownership), so a
   stream that writes N bytes moves 2N; a streaming store moves N. The host
   asks for them (CLB_NT=1, src/opencl/cl_launch.c) only on CPU devices and only for
   large outputs; they are a clang builtin (PoCL compiles with clang), and
   without it the kernels use plain stores. */
#ifndef CLB_NT
#define CLB_NT 0
#endif
#define CLB_NT_OK 0
/* A streaming store moves a chunk of CLB_VEC elements as one vector: none for
   one-element chunks (launches of many short work items use those). */
#if CLB_NT && defined(__has_builtin) && defined(CLB_VEC) && CLB_VEC > 1
#if __has_builtin(__builtin_nontemporal_store)
#undef CLB_NT_OK
#define CLB_NT_OK 1
#endif
#endif
/* Streaming stores are weakly ordered: a fence at the end of a kernel that made
   them orders them before the completion the host waits on. */
#if CLB_NT_OK && __has_builtin(__builtin_ia32_sfence)
#define CLB_NT_FENCE() __builtin_ia32_sfence()
#elif CLB_NT_OK
#define CLB_NT_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#else
#define CLB_NT_FENCE() ((void)0)
#endif
/* One compensated (Kahan) step: s += x with the running error in c, values of
   type T (a scalar or a vector accumulator). */
#define CLB_KAHAN_STEP(T, s, c, x)                                                                 \
    do {                                                                                           \
        const T y_ = (x) - (c);                                                                    \
        const T t_ = (s) + y_;                                                                     \
        (c) = (t_ - (s)) - y_;                                                                     \
        (s) = t_;                                                                                  \
    } while (0)
/* Whether p is aligned for a vector store of n elements of its type (n a power of 2). */
#define CLB_ALIGNED(p, n) ((((uintptr_t)(p)) & ((n) * sizeof(*(p)) - 1)) == 0)
/* Loads the n elements at p as one vector of type VT (n elements of p's type).
   With CLB_VLOAD_ALIGNED, a plain vector load where p is aligned for VT, else
   vloadN: the same value either way, and the aligned load is what the compiler
   turns into one full-width load (PoCL 3.1 builds vload16 of float from
   two-element pieces; an add of two of them ran as eight two-lane adds). The
   host sets it where it was measured to pay, on CPU devices that run a
   work-group as a loop (src/opencl/cl_launch.c, clb__cl_vload_aligned); on
   llvmpipe, whose work items are SIMD lanes, the per-lane branch halved a row
   sum, so there and on GPUs it is vloadN. */
#ifndef CLB_VLOAD_ALIGNED
#define CLB_VLOAD_ALIGNED 0
#endif
#if CLB_VLOAD_ALIGNED
#define CLB_VLOAD_A(VT, n, p)                                                                      \
    (CLB_ALIGNED(p, n) ? *(__global const VT *)(p) : CLB_CAT(vload, n)(0, p))
#else
#define CLB_VLOAD_A(VT, n, p) CLB_CAT(vload, n)(0, p)
#endif
/* Stores v, a vector of CLB_VEC elements of type VT, at p: streaming when the
   kernel streams and p is aligned for it, else with vstoreN. */
#if CLB_NT_OK
#define CLB_VSTORE(VT, v, p)                                                                       \
    do {                                                                                           \
        if (CLB_ALIGNED(p, CLB_VEC))                                                               \
            __builtin_nontemporal_store((v), (__global VT *)(p));                                  \
        else                                                                                       \
            CLB_CAT(vstore, CLB_VEC)((v), 0, (p));                                                 \
    } while (0)
#else
#define CLB_VSTORE(VT, v, p) CLB_CAT(vstore, CLB_VEC)((v), 0, (p))
#endif

/* Stores the CLB_VEC values vals[] (a private array) of dtype DT at q with inner
   stride S, element by element. */
#define CLB_STORE_RUN_PLAIN(DT, q, S, vals)                                                        \
    do {                                                                                           \
        _Pragma("unroll") for (int run_ = 0; run_ < CLB_VEC; run_++)                               \
            CLB_STORE(DT, q, run_ * (S), (vals)[run_]);                                            \
    } while (0)
/* The same as one streaming store of the vector type VT when S is 1 and q is
   aligned for it (rows that are not multiples of CLB_VEC fall back to plain
   stores). Only in kernels that stream (CLB_NT_OK), and not for float16: half
   vectors need cl_khr_fp16. */
#if CLB_NT_OK
#define CLB_STORE_RUN_NT(DT, VT, q, S, vals)                                                       \
    do {                                                                                           \
        if ((S) == 1 && CLB_ALIGNED(q, CLB_VEC))                                                   \
            __builtin_nontemporal_store(CLB_CAT(vload, CLB_VEC)(0, vals), (__global VT *)(q));     \
        else                                                                                       \
            CLB_STORE_RUN_PLAIN(DT, q, S, vals);                                                   \
    } while (0)
#endif

/* ---- launch descriptions ---------------------------------------------------------- */

/* A launch description of N long16 arguments (cl/launch_args.h): the kernel's
   parameters, and the private array `a` they are copied into by whole-vector
   stores (constant offsets: some compilers fail on indexing an argument). */
#define CLB_ARGS_PARAMS_1 long16 clb_args0
#define CLB_ARGS_PARAMS_2 CLB_ARGS_PARAMS_1, long16 clb_args1
#define CLB_ARGS_PARAMS_3 CLB_ARGS_PARAMS_2, long16 clb_args2
#define CLB_ARGS_PARAMS_4 CLB_ARGS_PARAMS_3, long16 clb_args3
#define CLB_ARGS_PARAMS_6 CLB_ARGS_PARAMS_4, long16 clb_args4, long16 clb_args5
#define CLB_ARGS_PARAMS(N) CLB_CAT(CLB_ARGS_PARAMS_, N)
#define CLB_ARGS_STORE_1(a) vstore16(clb_args0, 0, a)
#define CLB_ARGS_STORE_2(a) CLB_ARGS_STORE_1(a), vstore16(clb_args1, 1, a)
#define CLB_ARGS_STORE_3(a) CLB_ARGS_STORE_2(a), vstore16(clb_args2, 2, a)
#define CLB_ARGS_STORE_4(a) CLB_ARGS_STORE_3(a), vstore16(clb_args3, 3, a)
#define CLB_ARGS_STORE_6(a) CLB_ARGS_STORE_4(a), vstore16(clb_args4, 4, a), vstore16(clb_args5, 5, a)
#define CLB_ARGS_UNPACK(N, a)                                                                      \
    long a[16 * (N)];                                                                              \
    CLB_CAT(CLB_ARGS_STORE_, N)(a)
/* The same with one long8 after the N vectors (a family's CLB_<F>_ARGS_TAIL). */
#define CLB_ARGS_PARAMS_TAIL(N) CLB_ARGS_PARAMS(N), long8 clb_args_tail
#define CLB_ARGS_UNPACK_TAIL(N, a)                                                                 \
    long a[16 * (N) + 8];                                                                          \
    CLB_CAT(CLB_ARGS_STORE_, N)(a), vstore8(clb_args_tail, 2 * (N), a)

/* A kernel that echoes a launch description of N vectors back to the host:
   out[i] is slot i as the device received it. src/opencl/cl_args.c runs it once per
   context and kernel family. */
#define CLB_ARGS_PROBE(N)                                                                          \
    __kernel void clb_args_probe(__global long *out, CLB_ARGS_PARAMS(N))                           \
    {                                                                                              \
        if (get_global_id(0) != 0) return;                                                         \
        CLB_ARGS_UNPACK(N, a);                                                                     \
        for (int i = 0; i < 16 * (N); i++) out[i] = a[i];                                          \
    }
#define CLB_ARGS_PROBE_TAIL(N)                                                                     \
    __kernel void clb_args_probe(__global long *out, CLB_ARGS_PARAMS_TAIL(N))                      \
    {                                                                                              \
        if (get_global_id(0) != 0) return;                                                         \
        CLB_ARGS_UNPACK_TAIL(N, a);                                                                \
        for (int i = 0; i < 16 * (N) + 8; i++) out[i] = a[i];                                      \
    }

/* ---- index type ----------------------------------------------------------------- */

/* 32-bit index arithmetic (the division and modulo of the offset walk are several
   times cheaper on GPUs) unless the host found an element count or offset that
   needs 64 bits (CLB_INDEX64=1). */
#ifndef CLB_INDEX64
#define CLB_INDEX64 0
#endif
#if CLB_INDEX64
typedef long clb_index;
typedef long8 clb_index8;
#else
typedef int clb_index;
typedef int8 clb_index8;
#endif

/* ---- dtypes (numbers = enum clb_dtype) -------------------------------------------- */

/* Storage type of each dtype in global memory. Bool is one byte holding 0 or 1;
   float16 is stored as half and only ever touched through vload_half /
   vstore_half, which are core OpenCL, so float16 works without cl_khr_fp16. */
#define CLB_STORAGE_0 uchar
#define CLB_STORAGE_1 char
#define CLB_STORAGE_2 uchar
#define CLB_STORAGE_3 short
#define CLB_STORAGE_4 ushort
#define CLB_STORAGE_5 int
#define CLB_STORAGE_6 uint
#define CLB_STORAGE_7 long
#define CLB_STORAGE_8 ulong
#define CLB_STORAGE_9 half
#define CLB_STORAGE_10 float
#define CLB_STORAGE_11 double

/* Class of each dtype: decides how it is loaded, stored and converted. */
#define CLB_CLASS_0 KBOOL
#define CLB_CLASS_1 KINT
#define CLB_CLASS_2 KINT
#define CLB_CLASS_3 KINT
#define CLB_CLASS_4 KINT
#define CLB_CLASS_5 KINT
#define CLB_CLASS_6 KINT
#define CLB_CLASS_7 KINT
#define CLB_CLASS_8 KINT
#define CLB_CLASS_9 KHALF
#define CLB_CLASS_10 KFLOAT
#define CLB_CLASS_11 KFLOAT

/* Register type of a value of each dtype: bool is uchar 0/1, float16 computes
   in float (holding a half-representable value). */
#define CLB_REG_0 uchar
#define CLB_REG_1 char
#define CLB_REG_2 uchar
#define CLB_REG_3 short
#define CLB_REG_4 ushort
#define CLB_REG_5 int
#define CLB_REG_6 uint
#define CLB_REG_7 long
#define CLB_REG_8 ulong
#define CLB_REG_9 float
#define CLB_REG_10 float
#define CLB_REG_11 double

#define CLB_STORAGE(dt) CLB_CAT(CLB_STORAGE_, dt)
#define CLB_REG(dt) CLB_CAT(CLB_REG_, dt)
#define CLB_CLASS(dt) CLB_CAT(CLB_CLASS_, dt)

/* Loads give a value in registers: bool as uchar 0/1 (any nonzero byte is true),
   float16 as the exact float. Stores take such a value. */
#define CLB_LOAD_KBOOL(p, i) ((uchar)((p)[i] != 0))
#define CLB_LOAD_KINT(p, i) ((p)[i])
#define CLB_LOAD_KHALF(p, i) CLB_VLOAD_HALF((size_t)(i), (p))
#define CLB_LOAD_KFLOAT(p, i) ((p)[i])
#define CLB_STORE_KBOOL(p, i, v) ((p)[i] = (v))
#define CLB_STORE_KINT(p, i, v) ((p)[i] = (v))
#define CLB_STORE_KHALF(p, i, v) CLB_VSTORE_HALF((v), (size_t)(i), (p))
#define CLB_STORE_KFLOAT(p, i, v) ((p)[i] = (v))

#define CLB_LOAD(dt, p, i) CLB_CAT(CLB_LOAD_, CLB_CLASS(dt))(p, i)

/* float16 by integer operations, for CPU devices (CLB_OWN_MATH): PoCL's
   vstore_half / vload_half are calls that keep its work-item loops from
   vectorising (a float16 add 7x slower than a float32 one), these are
   straight-line code. clb_half_bits: round to nearest even (below 2^-14 a float
   addition of 0.5 rounds to a multiple of 2^-24; from 2^16 infinity; NaN keeps
   its sign and top payload bits, made quiet), as src/core/half.c; the low 16
   bits of the result. clb_half_value: the exact float of half bits h. */
/* The two rules once, as function bodies for any width: U the uint type (uint16
   on lanes), AU / AF its as_ casts to and from float, CF the conversion. */
#define CLB_HALF_BITS_BODY(U, AU, AF, x)                                                           \
    const U f = AU(x), a = f & 0x7fffffffu, sign = (f >> 16) & 0x8000u;                            \
    const U nrm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13; /* exponent - 112, rounded */        \
    const U sub = AU(AF(a) + 0.5f) - 0x3f000000u;                                                  \
    const U big = a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : (U)0x7c00u;                   \
    return sign | (a >= 0x47800000u ? big : a < 0x38800000u ? sub : nrm)
#define CLB_HALF_VALUE_BODY(U, CF, AU, AF, h)                                                       \
    const U e = (h) & 0x7c00u, mag = ((h) & 0x7fffu) << 13;                                        \
    const U r = e == 0x7c00u ? mag | 0x7f800000u                                                   \
                : e == 0     ? AU(CF((h) & 0x3ffu) * 0x1p-24f)                                    \
                             : mag + 0x38000000u;                                                  \
    return AF((((h) & 0x8000u) << 16) | r)
inline uint clb_half_bits(float x) { CLB_HALF_BITS_BODY(uint, as_uint, as_float, x); }
inline float clb_half_value(uint h) { CLB_HALF_VALUE_BODY(uint, (float), as_uint, as_float, h); }
/* The same on 16 lanes (cl/generate.cl's float16 draws on CPU devices). */
inline uint16 clb_half_bits16(float16 x) { CLB_HALF_BITS_BODY(uint16, as_uint16, as_float16, x); }
inline float16 clb_half_value16(uint16 h)
{
    CLB_HALF_VALUE_BODY(uint16, convert_float16, as_uint16, as_float16, h);
}
/* 16 floats as half bits; 16 halves at __global p as floats; 16 floats stored
   as halves at __global p. */
#define CLB_HALF16_BITS(v) convert_ushort16(clb_half_bits16(v))
#define CLB_HALF16_LOAD(p)                                                                         \
    clb_half_value16(convert_uint16(vload16(0, (__global const ushort *)(p))))
#define CLB_HALF16_STORE(v, p) vstore16(CLB_HALF16_BITS(v), 0, (__global ushort *)(p))

/* The loads and stores of float16 elements: on CPU devices (CLB_OWN_MATH, a
   clang front end: overloads by address space) the two above, elsewhere the
   built-ins. A double (float64 -> float16) is rounded once by the built-in. */
#if defined(CLB_OWN_MATH) && CLB_OWN_MATH && defined(__clang__)
#define CLB_HALF_LS(AS)                                                                            \
    __attribute__((overloadable, always_inline)) inline float clb_vload_half(size_t i,             \
                                                                             const AS half *p)     \
    {                                                                                              \
        return clb_half_value(((const AS ushort *)p)[i]);                                          \
    }                                                                                              \
    __attribute__((overloadable, always_inline)) inline void clb_vstore_half(float v, size_t i,    \
                                                                             AS half *p)           \
    {                                                                                              \
        ((AS ushort *)p)[i] = (ushort)clb_half_bits(v);                                            \
    }                                                                                              \
    CLB_HALF_LS_D(AS)
#if CLB_HAVE_FP64
#define CLB_HALF_LS_D(AS)                                                                          \
    __attribute__((overloadable, always_inline)) inline void clb_vstore_half(double v, size_t i,   \
                                                                             AS half *p)           \
    {                                                                                              \
        vstore_half_rte(v, i, p);                                                                  \
    }
#else
#define CLB_HALF_LS_D(AS)
#endif
CLB_HALF_LS(__global)
CLB_HALF_LS(__local)
CLB_HALF_LS(__private)
#define CLB_VLOAD_HALF(i, p) clb_vload_half((i), (p))
#define CLB_VSTORE_HALF(v, i, p) clb_vstore_half((v), (i), (p))
#else
#define CLB_VLOAD_HALF(i, p) vload_half((i), (p))
#define CLB_VSTORE_HALF(v, i, p) vstore_half_rte((v), (i), (p))
#endif

/* A float rounded to the nearest half, kept in a float register: a float16
   op's result (cl/scalar_ops.cl) and a float16 draw (cl/generate.cl). */
inline float clb_rh(float x)
{
#if defined(CLB_OWN_MATH) && CLB_OWN_MATH
    return clb_half_value(clb_half_bits(x));
#else
    ushort bits;
    vstore_half_rte(x, 0, (__private half *)&bits);
    return vload_half(0, (__private const half *)&bits);
#endif
}
#define CLB_STORE(dt, p, i, v) CLB_CAT(CLB_STORE_, CLB_CLASS(dt))(p, i, v)

/* Conversion of a loaded value x of dtype `from` to the value stored as dtype
   `to`: exactly clb_cast's (and the host backend's) rules.
     -> bool:          x != 0 (NaN is true, -0.0 false)
     int/bool -> int:  C conversion (narrowing wraps, bool gives 0/1)
     float -> int:     round toward zero, saturating (convert_<T>_sat), NaN -> 0;
                       the standard asks _sat for NaN -> 0 too, but not every
                       implementation does it (Oclgrind gives INT_MIN), so it is explicit
     -> float16:       the value is kept in float (double from float64) and
                       vstore_half_rte rounds once, to nearest even
     -> float/double:  C conversion (round to nearest even) */
#define CLB_SAT_(T, x) convert_##T##_sat(x)
#define CLB_CVT_KBOOL_KBOOL(T, x) ((uchar)((x) != 0))
#define CLB_CVT_KBOOL_KINT(T, x) ((uchar)((x) != 0))
#define CLB_CVT_KBOOL_KHALF(T, x) ((uchar)((x) != 0))
#define CLB_CVT_KBOOL_KFLOAT(T, x) ((uchar)((x) != 0))
#define CLB_CVT_KINT_KBOOL(T, x) ((T)(x))
#define CLB_CVT_KINT_KINT(T, x) ((T)(x))
#if CLB_QUIRK_NAN_SAT_SELECT /* src/opencl/cl_quirks.c: the same values, selected before converting */
#define CLB_CVT_KINT_KHALF(T, x) CLB_SAT_(T, isnan(x) ? 0.0f : (x))
#define CLB_CVT_KINT_KFLOAT(T, x) CLB_SAT_(T, isnan(x) ? 0.0f : (x))
#else
#define CLB_CVT_KINT_KHALF(T, x) (isnan(x) ? (T)0 : CLB_SAT_(T, x))
#define CLB_CVT_KINT_KFLOAT(T, x) (isnan(x) ? (T)0 : CLB_SAT_(T, x))
#endif
#define CLB_CVT_KHALF_KBOOL(T, x) ((float)(x))
#define CLB_CVT_KHALF_KINT(T, x) ((float)(x))
#define CLB_CVT_KHALF_KHALF(T, x) (x)
#define CLB_CVT_KHALF_KFLOAT(T, x) (x)
#define CLB_CVT_KFLOAT_KBOOL(T, x) ((T)(x))
#define CLB_CVT_KFLOAT_KINT(T, x) ((T)(x))
#define CLB_CVT_KFLOAT_KHALF(T, x) ((T)(x))
#define CLB_CVT_KFLOAT_KFLOAT(T, x) ((T)(x))

#define CLB_CONVERT(to, from, x)                                                                   \
    CLB_CAT(CLB_CAT(CLB_CVT_, CLB_CLASS(to)), CLB_CAT(_, CLB_CLASS(from)))(CLB_STORAGE(to), x)

/* ---- offsets ------------------------------------------------------------------------- */

/* The one offset walk: splits row-major index `id` over axes 0..ndim-1 (the
   innermost last; ndim may be a run-time value) and runs STEP(i, d, ...) with
   each axis's index i, innermost first; SHAPE(d) reads an extent. The
   remainder is written as x - q * e, never with % beside /: that pair makes LLVM
   emit a `freeze`, which Oclgrind's uninitialised-value checker cannot run, and
   costs a second division. Macros rather than functions: OpenCL 1.2 has no
   generic address space, and the tables live in private or constant memory. */
#define CLB_UNRAVEL(id, ndim, SHAPE, STEP, ...)                                                    \
    do {                                                                                           \
        clb_index rem_ = (id);                                                                     \
        for (int d_ = (ndim) - 1; d_ > 0; --d_) {                                                  \
            clb_index e_ = SHAPE(d_), q_ = rem_ / e_, i_ = rem_ - q_ * e_;                         \
            STEP(i_, d_, __VA_ARGS__);                                                             \
            rem_ = q_;                                                                             \
        }                                                                                          \
        if ((ndim) > 0) STEP(rem_, 0, __VA_ARGS__);                                                \
    } while (0)

/* The common step: one offset `off` over one stride table STRIDE(d). */
#define CLB_STEP_OFFSET(i, d, STRIDE, off) ((off) += (i) * STRIDE(d))
#define CLB_OFFSET_OF(id, ndim, SHAPE, STRIDE, off)                                                \
    CLB_UNRAVEL(id, ndim, SHAPE, CLB_STEP_OFFSET, STRIDE, off)

/* ---- work splits ------------------------------------------------------------------------ */

/* The share of `count` rows or chunks that work item `id` of `size` covers, as
   a loop from first to end by step. CPU devices take one contiguous block each
   (every work item streams through memory in order and few work-groups are
   launched); GPUs a grid stride (neighbouring work items touch neighbouring
   elements). The counters are 64-bit even for 32-bit plans: a count near
   INT32_MAX plus a step must not wrap. Kernels pick one by their CLB_BLOCKED. */
#define CLB_RANGE_BLOCK(id, size, count, first, end, step)                                         \
    do {                                                                                           \
        long per_ = ((long)(count) + (long)(size) - 1) / (long)(size);                             \
        first = (long)(id) * per_;                                                                 \
        end = first + per_ < (long)(count) ? first + per_ : (long)(count);                         \
        step = 1;                                                                                  \
    } while (0)
#define CLB_RANGE_GRID(id, size, count, first, end, step)                                          \
    do {                                                                                           \
        first = (long)(id);                                                                        \
        end = (long)(count);                                                                       \
        step = (long)(size);                                                                       \
    } while (0)
