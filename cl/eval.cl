/* Fused element-wise expression (clb_eval): one kernel reads every input once
 * and writes the output once, whatever the expression.
 *
 * The host (src/opencl/cl_expr.c) turns the typed expression tree into CLB_EVAL_BODY,
 * a sequence of statements over the helpers below: one register per tree node,
 * each holding the value the op-by-op chain would have stored (rounded to the
 * node's dtype), then a store to the output. The body is a -D define, so it is
 * part of the build options and therefore of the program-cache key; sizes,
 * strides and offsets are arguments, so one program serves every shape of a rank.
 *
 * Specialisation (-D, each with a default so the file compiles standalone):
 *   CLB_NIN            inputs (0..8); input k is buffer p<k> (1-based), the output p0
 *   CLB_OUT_DTYPE, CLB_IN1_DTYPE .. CLB_IN8_DTYPE   clb_dtype numbers
 *   CLB_NDIM           plan axes after coalescing (0 = one element)
 *   CLB_INNER0..8      innermost stride of each operand: 0, 1, or 2 (any: from the table)
 *   CLB_FLAT           1-D launch over all elements (a short innermost axis)
 *   CLB_VEC            inner elements per work item of the 2-D launch
 *   CLB_BLOCKED        1: work items take contiguous blocks of rows and chunks (CPU devices)
 *   CLB_UNROLL         1 (default): a chunk's CLB_VEC copies of the body are unrolled, for
 *                      the compiler to turn them into vector instructions; 0 for a long
 *                      body, whose unrolled copies would cost more compile time than the
 *                      vector code gains (cl_expr.c, CLB__EXPR_UNROLL_MAX_OPS)
 *   CLB_NT             streaming stores for a contiguous inner output (common.cl)
 *   CLB_INDEX64        64-bit index arithmetic (only for a plan that 32-bit pieces cannot cover)
 *   CLB_USE_<dt>       define the operation helpers of compute dtype <dt>
 *   CLB_EVAL_BODY      the generated statements
 *
 * The scalar rules are cl/scalar_ops.cl's (the host backend's, op by op), called
 * by op number through CLB_BINARY / CLB_UNARY; a float16 node computes in float
 * and is rounded to half after every operation (clb_rh). FP contraction is off
 * (scalar_ops.cl): a*b+c is two roundings, as on the host. */

#ifndef CLB_NIN
#define CLB_NIN 1
#endif
#ifndef CLB_NDIM
#define CLB_NDIM 1
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_UNROLL
#define CLB_UNROLL 1
#endif
#if CLB_UNROLL
#define CLB_CHUNK_LOOP _Pragma("unroll") for
#else
#define CLB_CHUNK_LOOP _Pragma("nounroll") for
#endif
#ifndef CLB_EVAL_BODY /* x * x, without helpers: cl/scalar_ops.cl came before this default */
#define CLB_IN1_DTYPE 10
#define CLB_EVAL_BODY                                                                              \
    CLB_LET(0, 10, CLB_LOAD(10, p1, o1));                                                          \
    CLB_RESULT(v0 * v0);
#endif

/* Inputs that do not exist get a one-byte type; their buffer argument is any buffer. */
#ifndef CLB_IN1_DTYPE
#define CLB_IN1_DTYPE 0
#endif
#ifndef CLB_IN2_DTYPE
#define CLB_IN2_DTYPE 0
#endif
#ifndef CLB_IN3_DTYPE
#define CLB_IN3_DTYPE 0
#endif
#ifndef CLB_IN4_DTYPE
#define CLB_IN4_DTYPE 0
#endif
#ifndef CLB_IN5_DTYPE
#define CLB_IN5_DTYPE 0
#endif
#ifndef CLB_IN6_DTYPE
#define CLB_IN6_DTYPE 0
#endif
#ifndef CLB_IN7_DTYPE
#define CLB_IN7_DTYPE 0
#endif
#ifndef CLB_IN8_DTYPE
#define CLB_IN8_DTYPE 0
#endif

/* ---- registers and conversions ---------------------------------------------------- */

/* The body's float constants: their bits, or with the literal-folding quirk
   (src/opencl/cl_quirks.c) their bits xor a kernel argument that is always 0,
   which no compiler can fold. */
#if CLB_QUIRK_LITERAL_FOLDING
#define CLB_LIT32(bits) as_float((uint)(bits) ^ (uint)clb_opaque_zero)
#define CLB_LIT64(bits) as_double((ulong)(bits) ^ (ulong)clb_opaque_zero)
#else
#define CLB_LIT32(bits) as_float(bits)
#define CLB_LIT64(bits) as_double(bits)
#endif

/* One node's register, and where's choice (the condition already a 0/1 bool). */
#define CLB_LET(i, dt, x) CLB_REG(dt) v##i = (x)
#define CLB_WHERE(c, a, b) ((c) ? (a) : (b))

/* ---- the kernel ------------------------------------------------------------------------ */

#define CLB_PTR(k, dt) __global const CLB_STORAGE(dt) *p##k

/* Everything about the launch but the buffers arrives as the array `a` whose
   slots cl/launch_args.h names for the host (src/opencl/expr_cl.c) and this
   file alike. Up to CLB_BYVAL_DIMS axes the tables live there too; more go in
   a __constant buffer, [shape | strides of operand 0 | 1 | ... | CLB_NIN],
   CLB_NDIM entries each, in the index type. */
CLB_ARGS_PROBE_TAIL(CLB_EVAL_ARGS_VECS)

#if CLB_NDIM <= CLB_BYVAL_DIMS
#define CLB_TABLE_ARG
#define CLB_SHAPE(d) ((clb_index)a[CLB_EVAL_SHAPE(d)])
#define CLB_STRIDE(k, d) ((clb_index)a[CLB_EVAL_STRIDE(k, d)])
#else
#define CLB_TABLE_ARG , __constant const clb_index *table
#define CLB_SHAPE(d) table[d]
#define CLB_STRIDE(k, d) table[((k) + 1) * CLB_NDIM + (d)]
#endif

/* Adds index i along axis d to the offset of operand k, if operand k exists
   (a compile-time test: the dead ones vanish). */
#define CLB_STEP(k, i, d)                                                                          \
    if ((k) <= CLB_NIN) r##k += (i) * CLB_STRIDE(k, d)
#define CLB_STEP_ALL(i, d)                                                                         \
    do {                                                                                           \
        CLB_STEP(0, i, d);                                                                         \
        CLB_STEP(1, i, d);                                                                         \
        CLB_STEP(2, i, d);                                                                         \
        CLB_STEP(3, i, d);                                                                         \
        CLB_STEP(4, i, d);                                                                         \
        CLB_STEP(5, i, d);                                                                         \
        CLB_STEP(6, i, d);                                                                         \
        CLB_STEP(7, i, d);                                                                         \
        CLB_STEP(8, i, d);                                                                         \
    } while (0)

/* Stride of operand k along the innermost axis: compile-time 0 (broadcast) or 1
   (contiguous) where the plan said so, which lets a CPU device vectorise the
   work-group loop over dimension 0 and a GPU coalesce without a multiply. */
#ifndef CLB_INNER0
#define CLB_INNER0 2
#endif
#ifndef CLB_INNER1
#define CLB_INNER1 2
#endif
#ifndef CLB_INNER2
#define CLB_INNER2 2
#endif
#ifndef CLB_INNER3
#define CLB_INNER3 2
#endif
#ifndef CLB_INNER4
#define CLB_INNER4 2
#endif
#ifndef CLB_INNER5
#define CLB_INNER5 2
#endif
#ifndef CLB_INNER6
#define CLB_INNER6 2
#endif
#ifndef CLB_INNER7
#define CLB_INNER7 2
#endif
#ifndef CLB_INNER8
#define CLB_INNER8 2
#endif
#define CLB_INNER_STEP(k, j)                                                                       \
    if ((k) <= CLB_NIN)                                                                            \
    o##k += CLB_INNER##k == 0   ? (clb_index)0                                                     \
            : CLB_INNER##k == 1 ? (j)                                                              \
                                : (j) * CLB_STRIDE(k, CLB_NDIM - 1)

/* Launch geometry: dimension 0 walks the innermost plan axis (no division),
   dimension 1 the rows, i.e. the other axes flattened; a row index is split over
   them with CLB_NDIM - 2 divisions. A 0-d plan is one row of one element.
   With CLB_FLAT (a short innermost axis, which would leave most of a work-group
   idle) the range is 1-D over all elements and one division finds the row. */
#ifndef CLB_FLAT
#define CLB_FLAT 0
#endif
/* Consecutive inner elements per work item (2-D launch): CPU devices run a
   work-group as a loop, so a few elements per item amortise the row walk. */
#ifndef CLB_VEC
#define CLB_VEC 1
#endif
/* CLB_BLOCKED (CPU devices): each work item takes a contiguous block of rows
   and of CLB_VEC-element chunks (as cl/elementwise.cl), walks a row's offsets
   once, computes a chunk's CLB_VEC values before storing any (the compiler
   cannot prove the output apart from the inputs; this order lets literal inner
   strides become vector loads), and stores a chunk with one streaming vector
   store when CLB_NT asks for it. */
#ifndef CLB_BLOCKED
#define CLB_BLOCKED 0
#endif

/* Every operand's offset of inner element j of the row whose offsets are r0..r8. */
#if CLB_NDIM >= 1
#define CLB_OFFSETS_AT(j)                                                                          \
    clb_index o0 = r0, o1 = r1, o2 = r2, o3 = r3, o4 = r4, o5 = r5, o6 = r6, o7 = r7, o8 = r8;     \
    CLB_INNER_STEP(0, j);                                                                          \
    CLB_INNER_STEP(1, j);                                                                          \
    CLB_INNER_STEP(2, j);                                                                          \
    CLB_INNER_STEP(3, j);                                                                          \
    CLB_INNER_STEP(4, j);                                                                          \
    CLB_INNER_STEP(5, j);                                                                          \
    CLB_INNER_STEP(6, j);                                                                          \
    CLB_INNER_STEP(7, j);                                                                          \
    CLB_INNER_STEP(8, j)
#else
#define CLB_OFFSETS_AT(j)                                                                          \
    clb_index o0 = r0, o1 = r1, o2 = r2, o3 = r3, o4 = r4, o5 = r5, o6 = r6, o7 = r7, o8 = r8
#endif

/* Offset of inner element j of operand k from its row start, and the chunk's
   pointers: per-chunk bases (64-bit pointer arithmetic, once per chunk) that
   shadow p1..p8 inside the chunk, so the body's loads are base[v * stride]
   with v a constant after unrolling, which the compiler turns into vector
   loads (offsets summed in the 32-bit index type hide that they are consecutive). */
#if CLB_NDIM >= 1
#define CLB_INNER_OFF(k, j)                                                                        \
    (CLB_INNER##k == 0   ? (clb_index)0                                                            \
     : CLB_INNER##k == 1 ? (clb_index)(j)                                                          \
                         : (clb_index)(j) * CLB_STRIDE(k, CLB_NDIM - 1))
#else
#define CLB_INNER_OFF(k, j) ((clb_index)0)
#endif
#define CLB_IN_PTR_T(k) __global const CLB_STORAGE(CLB_IN##k##_DTYPE) *const
#define CLB_CHUNK_BASE(k, j0) CLB_IN_PTR_T(k) q##k##_ = p##k + r##k + CLB_INNER_OFF(k, j0)
#define CLB_CHUNK_BASES(j0)                                                                        \
    __global CLB_STORAGE(CLB_OUT_DTYPE) *const q0_ = p0 + r0 + CLB_INNER_OFF(0, j0);               \
    CLB_CHUNK_BASE(1, j0);                                                                         \
    CLB_CHUNK_BASE(2, j0);                                                                         \
    CLB_CHUNK_BASE(3, j0);                                                                         \
    CLB_CHUNK_BASE(4, j0);                                                                         \
    CLB_CHUNK_BASE(5, j0);                                                                         \
    CLB_CHUNK_BASE(6, j0);                                                                         \
    CLB_CHUNK_BASE(7, j0);                                                                         \
    CLB_CHUNK_BASE(8, j0)
/* With CLB_VLOAD_ALIGNED (PoCL, common.cl), a contiguous input's chunk is loaded
   before the body as one vector (CLB_VLOAD_A: one full-width load where the
   address is aligned for it, else vloadN) into a private array that shadows
   p<k>, so the body's CLB_LOAD(dt, p<k>, v) reads the same values from
   registers: PoCL 3.1 built the body's per-element loads, as vloadN, from
   two-element pieces. float16 keeps its vload_half per element (half vectors
   need cl_khr_fp16); llvmpipe and GPUs keep the pointers (CLB_VLOAD_ALIGNED 0). */
#if CLB_VLOAD_ALIGNED && CLB_BLOCKED && CLB_NDIM >= 1 &&                                          \
    (CLB_VEC == 2 || CLB_VEC == 4 || CLB_VEC == 8 || CLB_VEC == 16)
#define CLB_PRELOAD_OK 1
#else
#define CLB_PRELOAD_OK 0
#endif
#define CLB_PRELOAD_IF(k) (CLB_PRELOAD_OK && (k) <= CLB_NIN && CLB_INNER##k == 1)
#define CLB_SHADOW_PTR(k) CLB_IN_PTR_T(k) p##k = q##k##_
#define CLB_IN_VEC_T(k) CLB_CAT(CLB_STORAGE(CLB_IN##k##_DTYPE), CLB_VEC)
#define CLB_SHADOW_VEC(k)                                                                          \
    CLB_STORAGE(CLB_IN##k##_DTYPE) p##k[CLB_VEC] __attribute__((aligned(sizeof(CLB_IN_VEC_T(k))))); \
    *(CLB_IN_VEC_T(k) *)p##k = CLB_VLOAD_A(CLB_IN_VEC_T(k), CLB_VEC, q##k##_)
#if CLB_PRELOAD_IF(1) && CLB_IN1_DTYPE != 9
#define CLB_SHADOW1 CLB_SHADOW_VEC(1)
#else
#define CLB_SHADOW1 CLB_SHADOW_PTR(1)
#endif
#if CLB_PRELOAD_IF(2) && CLB_IN2_DTYPE != 9
#define CLB_SHADOW2 CLB_SHADOW_VEC(2)
#else
#define CLB_SHADOW2 CLB_SHADOW_PTR(2)
#endif
#if CLB_PRELOAD_IF(3) && CLB_IN3_DTYPE != 9
#define CLB_SHADOW3 CLB_SHADOW_VEC(3)
#else
#define CLB_SHADOW3 CLB_SHADOW_PTR(3)
#endif
#if CLB_PRELOAD_IF(4) && CLB_IN4_DTYPE != 9
#define CLB_SHADOW4 CLB_SHADOW_VEC(4)
#else
#define CLB_SHADOW4 CLB_SHADOW_PTR(4)
#endif
#if CLB_PRELOAD_IF(5) && CLB_IN5_DTYPE != 9
#define CLB_SHADOW5 CLB_SHADOW_VEC(5)
#else
#define CLB_SHADOW5 CLB_SHADOW_PTR(5)
#endif
#if CLB_PRELOAD_IF(6) && CLB_IN6_DTYPE != 9
#define CLB_SHADOW6 CLB_SHADOW_VEC(6)
#else
#define CLB_SHADOW6 CLB_SHADOW_PTR(6)
#endif
#if CLB_PRELOAD_IF(7) && CLB_IN7_DTYPE != 9
#define CLB_SHADOW7 CLB_SHADOW_VEC(7)
#else
#define CLB_SHADOW7 CLB_SHADOW_PTR(7)
#endif
#if CLB_PRELOAD_IF(8) && CLB_IN8_DTYPE != 9
#define CLB_SHADOW8 CLB_SHADOW_VEC(8)
#else
#define CLB_SHADOW8 CLB_SHADOW_PTR(8)
#endif
#define CLB_CHUNK_SHADOWS()                                                                        \
    CLB_SHADOW1;                                                                                   \
    CLB_SHADOW2;                                                                                   \
    CLB_SHADOW3;                                                                                   \
    CLB_SHADOW4;                                                                                   \
    CLB_SHADOW5;                                                                                   \
    CLB_SHADOW6;                                                                                   \
    CLB_SHADOW7;                                                                                   \
    CLB_SHADOW8
#define CLB_CHUNK_OFFSETS(v)                                                                       \
    const clb_index o1 = CLB_INNER_OFF(1, v), o2 = CLB_INNER_OFF(2, v), o3 = CLB_INNER_OFF(3, v),  \
                    o4 = CLB_INNER_OFF(4, v), o5 = CLB_INNER_OFF(5, v), o6 = CLB_INNER_OFF(6, v),  \
                    o7 = CLB_INNER_OFF(7, v), o8 = CLB_INNER_OFF(8, v)

typedef CLB_REG(CLB_OUT_DTYPE) clb_outv_t;
#if CLB_NT_OK && CLB_OUT_DTYPE != 9 && CLB_INNER0 == 1 && CLB_VEC <= 16
#define CLB_STREAM_CHUNK 1
typedef CLB_CAT(CLB_STORAGE(CLB_OUT_DTYPE), CLB_VEC) clb_outvec_t;
#else
#define CLB_STREAM_CHUNK 0
#endif

/* A streamed chunk's values, with CLB_VLOAD_ALIGNED: the private array is
   aligned for the vector type and read as one vector for the streaming store
   (vloadN of it, as PoCL 3.1 builds it, split the body into two-lane pieces). */
#if CLB_STREAM_CHUNK && CLB_PRELOAD_OK
#define CLB_RUN_ALIGN __attribute__((aligned(sizeof(clb_outvec_t))))
#else
#define CLB_RUN_ALIGN
#endif

/* A chunk's unrolled elements become vector code only as straight-line code:
   with CLB_OWN_MATH, float sin, cos and tan in a chunk call the branch-free
   forms (cl/scalar_ops.cl, clb_mf_*_run: function-like macros named as the
   helpers take the body's calls), which flag an argument past their range in
   clb_big_ instead of branching to the built-in; a flagged chunk (rare: a
   finite |x| > 2^20, or 256 without float64) is computed again element by
   element with the exact helpers. Without trig in the body clb_big_ stays 0
   and the second pass is dead code. */
#define CLB_TRIG_RUN CLB_MF_RUNS

/* The result of the body: a store, or in a chunk a register (redefined there). */
#define CLB_RESULT(x) CLB_STORE(CLB_OUT_DTYPE, p0, o0, x)

__kernel void clb_eval(__global CLB_STORAGE(CLB_OUT_DTYPE) *p0, CLB_PTR(1, CLB_IN1_DTYPE),
                       CLB_PTR(2, CLB_IN2_DTYPE), CLB_PTR(3, CLB_IN3_DTYPE),
                       CLB_PTR(4, CLB_IN4_DTYPE), CLB_PTR(5, CLB_IN5_DTYPE),
                       CLB_PTR(6, CLB_IN6_DTYPE), CLB_PTR(7, CLB_IN7_DTYPE),
                       CLB_PTR(8, CLB_IN8_DTYPE),
                       CLB_ARGS_PARAMS_TAIL(CLB_EVAL_ARGS_VECS) CLB_TABLE_ARG, int clb_opaque_zero)
{
    CLB_ARGS_UNPACK_TAIL(CLB_EVAL_ARGS_VECS, a);
    const clb_index inner = (clb_index)a[CLB_EVAL_INNER], rows = (clb_index)a[CLB_EVAL_ROWS];
#if CLB_BLOCKED
    /* rows and chunks come from this work item's blocks, below */
#elif CLB_FLAT
    size_t gid = get_global_id(0);
    if (gid >= (size_t)inner * (size_t)rows) return;
    clb_index row = (clb_index)(gid / (size_t)inner);
    clb_index j0 = (clb_index)gid - row * inner;
#define CLB_RUN 1
#else
    clb_index j0 = (clb_index)get_global_id(0) * CLB_VEC;
    if (j0 >= inner) return;
    clb_index row = (clb_index)get_global_id(1);
#define CLB_RUN CLB_VEC
#endif

    /* Each operand's first element, in 64 bits: a plan piece may start anywhere in a
       large buffer while the offsets walked from there fit the index type. */
    p0 += a[CLB_EVAL_OFFSET(0)];
    p1 += a[CLB_EVAL_OFFSET(1)];
    p2 += a[CLB_EVAL_OFFSET(2)];
    p3 += a[CLB_EVAL_OFFSET(3)];
    p4 += a[CLB_EVAL_OFFSET(4)];
    p5 += a[CLB_EVAL_OFFSET(5)];
    p6 += a[CLB_EVAL_OFFSET(6)];
    p7 += a[CLB_EVAL_OFFSET(7)];
    p8 += a[CLB_EVAL_OFFSET(8)];
#if CLB_BLOCKED
    long rfirst, rend, cfirst, cend, step_;
    CLB_RANGE_BLOCK(get_global_id(1), get_global_size(1), rows, rfirst, rend, step_);
    CLB_RANGE_BLOCK(get_global_id(0), get_global_size(0), ((long)inner + CLB_VEC - 1) / CLB_VEC,
                    cfirst, cend, step_);
    (void)step_;
    for (long row_ = rfirst; row_ < rend; row_++) {
        const clb_index row = (clb_index)row_;
#endif
    clb_index r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0, r7 = 0, r8 = 0;
#if CLB_NDIM >= 2
#define CLB_ROW_STEP(i, d, _) CLB_STEP_ALL(i, d)
    CLB_UNRAVEL(row, CLB_NDIM - 1, CLB_SHAPE, CLB_ROW_STEP, 0);
#else
    (void)row;
#endif
#if CLB_BLOCKED
        for (long c = cfirst; c < cend; c++) {
            const clb_index j0 = (clb_index)(c * CLB_VEC);
            if ((long)j0 + CLB_VEC <= (long)inner) {
                CLB_CHUNK_BASES(j0);
                clb_outv_t r_[CLB_VEC] CLB_RUN_ALIGN;
                int clb_big_ = 0;
#undef CLB_RESULT
#define CLB_RESULT(x) r_[v] = (x)
                {
                    CLB_CHUNK_SHADOWS();
#if CLB_TRIG_RUN
#define clb_sin_9(a) clb_mf_sin_run((a), &clb_big_)
#define clb_cos_9(a) clb_mf_cos_run((a), &clb_big_)
#define clb_tan_9(a) clb_mf_tan_run((a), &clb_big_)
#define clb_sin_10(a) clb_mf_sin_run((a), &clb_big_)
#define clb_cos_10(a) clb_mf_cos_run((a), &clb_big_)
#define clb_tan_10(a) clb_mf_tan_run((a), &clb_big_)
#endif
                    CLB_CHUNK_LOOP (int v = 0; v < CLB_VEC; v++) {
                        CLB_CHUNK_OFFSETS(v);
                        CLB_EVAL_BODY
                    }
#if CLB_TRIG_RUN
#undef clb_sin_9
#undef clb_cos_9
#undef clb_tan_9
#undef clb_sin_10
#undef clb_cos_10
#undef clb_tan_10
#endif
                }
#if CLB_TRIG_RUN
                if (clb_big_) { /* a large sin/cos/tan argument: the chunk again, exactly */
                    CLB_CHUNK_SHADOWS();
                    _Pragma("nounroll") for (int v = 0; v < CLB_VEC; v++) {
                        CLB_CHUNK_OFFSETS(v);
                        CLB_EVAL_BODY
                    }
                }
#endif
#undef CLB_RESULT
#define CLB_RESULT(x) CLB_STORE(CLB_OUT_DTYPE, p0, o0, x)
#if CLB_STREAM_CHUNK && CLB_PRELOAD_OK
                if (CLB_ALIGNED(q0_, CLB_VEC))
                    __builtin_nontemporal_store(*(const clb_outvec_t *)r_,
                                                (__global clb_outvec_t *)q0_);
                else
                    CLB_STORE_RUN_PLAIN(CLB_OUT_DTYPE, q0_, 1, r_);
#elif CLB_STREAM_CHUNK
                CLB_STORE_RUN_NT(CLB_OUT_DTYPE, clb_outvec_t, q0_, 1, r_);
#else
                CLB_STORE_RUN_PLAIN(CLB_OUT_DTYPE, q0_, CLB_INNER_OFF(0, 1), r_);
#endif
            } else {
                for (clb_index j = j0; j < inner; j++) {
                    CLB_OFFSETS_AT(j);
                    CLB_EVAL_BODY
                }
            }
        }
    }
    CLB_NT_FENCE();
#else
    /* The row's start: the divisions above are paid once per CLB_RUN elements. */
    p0 += r0;
    p1 += r1;
    p2 += r2;
    p3 += r3;
    p4 += r4;
    p5 += r5;
    p6 += r6;
    p7 += r7;
    p8 += r8;
    for (int v = 0; v < CLB_RUN; v++) {
        clb_index j = j0 + v;
        if (j >= inner) break;
        clb_index o0 = 0, o1 = 0, o2 = 0, o3 = 0, o4 = 0, o5 = 0, o6 = 0, o7 = 0, o8 = 0;
#if CLB_NDIM >= 1
        CLB_INNER_STEP(0, j);
        CLB_INNER_STEP(1, j);
        CLB_INNER_STEP(2, j);
        CLB_INNER_STEP(3, j);
        CLB_INNER_STEP(4, j);
        CLB_INNER_STEP(5, j);
        CLB_INNER_STEP(6, j);
        CLB_INNER_STEP(7, j);
        CLB_INNER_STEP(8, j);
#endif
        CLB_EVAL_BODY
    }
#endif
}
