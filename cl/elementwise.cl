/* Strided n-ary map: out = op(in0), op(in0, in1) or where(in0, in1, in2), with
 * the scalar rules of cl/scalar_ops.cl (the host backend's, op by op).
 *
 * Launch geometry (planned on the host, see src/opencl/cl_map.c): the plan's last
 * axis is the "inner" axis, the others are flattened into "rows"; the inner
 * axis is cut into chunks of CLB_VEC elements.
 *     dimension 0 of the NDRange: chunks
 *     dimension 1:                 rows
 * Work items loop over their share of both (see CLB_RANGE), so the launch
 * size is chosen for the device, not for the tensor. For each row a work item
 * decomposes the row index over the outer axes (the only div/mod walk), then
 * walks its chunks with additions only.
 *
 * Specialisation (-D, each with a default so the file compiles standalone):
 *   CLB_KIND        0 unary, 1 binary, 2 where
 *   CLB_OP          clb_unary_op / clb_binary_op number (unused for where)
 *   CLB_IN0_DTYPE.. CLB_IN2_DTYPE, CLB_COMPUTE_DTYPE, CLB_OUT_DTYPE: clb_dtype numbers
 *   CLB_TABLE       0: up to 8 axes, tables by value; 1: tables in a buffer
 *   CLB_VEC         consecutive inner elements a work item handles at a time
 *   CLB_BLOCKED     1: each work item takes a contiguous block of rows and
 *                   chunks (CPU devices); 0: a grid stride (GPUs)
 *   CLB_INDEX64     64-bit index arithmetic (a plan piece too large for 32 bits)
 *   CLB_NT          streaming stores for a contiguous inner output (common.cl)
 * The rank is an argument, not a define: the row walk runs once per row, so a
 * loop over a runtime rank costs little, and one program then serves
 * every rank (each program costs PoCL 0.1-1 s to compile). For the same reason
 * the fast paths (inner strides 0 or 1 known to the compiler, so it can emit
 * vector loads and stores) are kernels of one program, chosen per launch from
 * the actual strides: same-shape or row-broadcast (all 1), column broadcast
 * (1, 1, 0), outer product (1, 0, 1), reversed inputs, and the general strided
 * walk (clb_map). PoCL compiles most of a kernel at its first launch, so a
 * process pays only for the layouts it uses (0.2-0.8 s each there).
 *
 * Arguments: the four buffers (unused inputs are NULL) and the launch
 * description clb_map_args below. Offsets are 64-bit numbers, so a 32-bit
 * piece may start anywhere in a large buffer. */

#ifndef CLB_KIND
#define CLB_KIND 1
#endif
#ifndef CLB_OP
#define CLB_OP 0
#endif
#ifndef CLB_IN0_DTYPE
#define CLB_IN0_DTYPE 10
#endif
#ifndef CLB_IN1_DTYPE
#define CLB_IN1_DTYPE 10
#endif
#ifndef CLB_IN2_DTYPE
#define CLB_IN2_DTYPE 10
#endif
#ifndef CLB_COMPUTE_DTYPE
#define CLB_COMPUTE_DTYPE 10
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_TABLE
#define CLB_TABLE 0
#endif
#ifndef CLB_VEC
#define CLB_VEC 4
#endif
#ifndef CLB_BLOCKED
#define CLB_BLOCKED 0
#endif

#if (CLB_IN0_DTYPE == 11 || CLB_IN1_DTYPE == 11 || CLB_IN2_DTYPE == 11 ||                         \
     CLB_COMPUTE_DTYPE == 11 || CLB_OUT_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

/* ---- types ------------------------------------------------------------------- */

/* The dtype of the op's result before the conversion to out: bool for
   comparisons and logical ops, the compute dtype otherwise. */
#if (CLB_KIND == 1 && CLB_OP >= CLB_EQ && CLB_OP <= CLB_LOGICAL_XOR) ||                        \
    (CLB_KIND == 0 && (CLB_OP == CLB_LOGICAL_NOT || (CLB_OP >= CLB_ISNAN && CLB_OP <= CLB_ISFINITE)))
#define CLB_EVAL_DTYPE 0
#else
#define CLB_EVAL_DTYPE CLB_COMPUTE_DTYPE
#endif

typedef CLB_STORAGE(CLB_OUT_DTYPE) clb_out_t;
typedef CLB_STORAGE(CLB_IN0_DTYPE) clb_in0_t;
typedef CLB_STORAGE(CLB_IN1_DTYPE) clb_in1_t;
typedef CLB_STORAGE(CLB_IN2_DTYPE) clb_in2_t;
typedef CLB_REG(CLB_COMPUTE_DTYPE) clb_c_t;

/* ---- the op: cl/scalar_ops.cl's rule ----------------------------------------- */

#if CLB_KIND == 1
#define CLB_OP_VALUE(a, b) CLB_BINARY(CLB_OP, CLB_COMPUTE_DTYPE, a, b)
#elif CLB_KIND == 0
#define CLB_OP_VALUE(x) CLB_UNARY(CLB_OP, CLB_COMPUTE_DTYPE, x)
#endif

/* A float16 result stored into a wider float out keeps its half rounding. */
#if CLB_EVAL_DTYPE == 9 && CLB_OUT_DTYPE != 9
#define CLB_FINISH(r) clb_rh(r)
#else
#define CLB_FINISH(r) (r)
#endif

/* ---- the kernel ------------------------------------------------------------------- */

/* Everything about the launch but the buffers arrives as the array `a` whose
   slots cl/launch_args.h names for the host and this file alike. Up to
   CLB_BYVAL_DIMS axes the tables live there too; more go in a __constant
   buffer, rank entries per table, in the index type. */
CLB_ARGS_PROBE(CLB_MAP_ARGS_VECS)

#if !CLB_TABLE
#define CLB_TABLE_ARG
#define CLB_SHAPE(d) ((clb_index)a[CLB_MAP_SHAPE(d)])
#define CLB_S0(d) ((clb_index)a[CLB_MAP_STRIDE(0, d)])
#define CLB_S1(d) ((clb_index)a[CLB_MAP_STRIDE(1, d)])
#define CLB_S2(d) ((clb_index)a[CLB_MAP_STRIDE(2, d)])
#define CLB_S3(d) ((clb_index)a[CLB_MAP_STRIDE(3, d)])
#else
#define CLB_TABLE_ARG , __constant const clb_index *table
#define CLB_SHAPE(d) table[d]
#define CLB_S0(d) table[1 * rank + (d)]
#define CLB_S1(d) table[2 * rank + (d)]
#define CLB_S2(d) table[3 * rank + (d)]
#define CLB_S3(d) table[4 * rank + (d)]
#endif

#define CLB_IN(k, dt, j, is) CLB_CONVERT(CLB_COMPUTE_DTYPE, dt, CLB_LOAD(dt, p##k, (j) * (is)))

#if CLB_KIND == 0
#define CLB_RESULT(j, S1, S2, S3) CLB_OP_VALUE(CLB_IN(1, CLB_IN0_DTYPE, j, S1))
#elif CLB_KIND == 1
#define CLB_RESULT(j, S1, S2, S3)                                                                  \
    CLB_OP_VALUE(CLB_IN(1, CLB_IN0_DTYPE, j, S1), CLB_IN(2, CLB_IN1_DTYPE, j, S2))
#else /* where: the condition is read for its truthiness */
#define CLB_RESULT(j, S1, S2, S3)                                                                  \
    (CLB_CONVERT(0, CLB_IN0_DTYPE, CLB_LOAD(CLB_IN0_DTYPE, p1, (j) * (S1)))                        \
         ? CLB_IN(2, CLB_IN1_DTYPE, j, S2)                                                         \
         : CLB_IN(3, CLB_IN2_DTYPE, j, S3))
#endif

/* The value element j stores (the out dtype's register type). */
#define CLB_VALUE(j, S1, S2, S3)                                                                   \
    CLB_CONVERT(CLB_OUT_DTYPE, CLB_EVAL_DTYPE, CLB_FINISH(CLB_RESULT(j, S1, S2, S3)))
#if CLB_OUT_DTYPE == 9 && CLB_EVAL_DTYPE == 11 /* float16 rounds once, from the double */
typedef double clb_outv_t;
#else
typedef CLB_REG(CLB_OUT_DTYPE) clb_outv_t;
#endif

/* Stores the CLB_VEC values r_[] at p0 with inner stride S0: one streaming
   vector store when asked for and p0 is aligned for it (outputs whose rows are
   not multiples of CLB_VEC fall back to plain stores), else element by element. */
#if CLB_NT_OK && CLB_OUT_DTYPE != 9
typedef CLB_CAT(CLB_STORAGE(CLB_OUT_DTYPE), CLB_VEC) clb_outvec_t;
#if CLB_VLOAD_ALIGNED && CLB_BLOCKED
/* PoCL: r_ aligned for the vector type and read as one vector, as cl/eval.cl's
   chunks (a vloadN of it made PoCL 3.1 build the whole chunk's body in
   two-lane pieces: clb_unary(CLB_LOG) of 2^24 float32, whose output streams,
   took 53 ms against clb_eval's 21 ms for the same function). */
#define CLB_RUN_ALIGN __attribute__((aligned(sizeof(clb_outvec_t))))
#define CLB_STORE_CHUNK(S0)                                                                        \
    do {                                                                                           \
        if ((S0) == 1 && CLB_ALIGNED(p0, CLB_VEC))                                                 \
            __builtin_nontemporal_store(*(const clb_outvec_t *)r_, (__global clb_outvec_t *)p0);   \
        else                                                                                       \
            CLB_STORE_RUN_PLAIN(CLB_OUT_DTYPE, p0, S0, r_);                                        \
    } while (0)
#else
#define CLB_STORE_CHUNK(S0) CLB_STORE_RUN_NT(CLB_OUT_DTYPE, clb_outvec_t, p0, S0, r_)
#endif
#elif CLB_OUT_DTYPE == 9 && CLB_VEC == 16 && CLB_VLOAD_ALIGNED && CLB_BLOCKED &&                 \
    defined(CLB_OWN_MATH) && CLB_OWN_MATH
/* float16 results on PoCL: the chunk's floats read as one vector, rounded by
   cl/common.cl's 16-lane integer rule and stored as 16 halves (element by
   element PoCL built the chunk in pieces: float16 exp of 2^24 took 52 ms
   against float32's 6). */
#define CLB_RUN_ALIGN __attribute__((aligned(64)))
#define CLB_STORE_CHUNK(S0)                                                                        \
    do {                                                                                           \
        if ((S0) == 1)                                                                             \
            CLB_HALF16_STORE(*(const float16 *)r_, p0);                                            \
        else                                                                                       \
            CLB_STORE_RUN_PLAIN(CLB_OUT_DTYPE, p0, S0, r_);                                        \
    } while (0)
#else
#define CLB_STORE_CHUNK(S0) CLB_STORE_RUN_PLAIN(CLB_OUT_DTYPE, p0, S0, r_)
#endif
#ifndef CLB_RUN_ALIGN
#define CLB_RUN_ALIGN
#endif

/* Binary ops whose vector form is the scalar rule itself (exact IEEE add,
   subtract, multiply) on one float dtype throughout: a chunk whose output is
   contiguous and whose inputs are contiguous or broadcast (stride 1 or 0) is
   computed as CLB_VEC-wide vectors. From the scalar code PoCL's compiler built
   the vectors lane by lane through the stack, which held a write-only outer
   product to ~60 % of a streaming fill on a CPU. */
#if CLB_KIND == 1 && CLB_OP <= CLB_MUL && CLB_IN0_DTYPE == CLB_COMPUTE_DTYPE &&                   \
    CLB_IN1_DTYPE == CLB_COMPUTE_DTYPE && CLB_OUT_DTYPE == CLB_COMPUTE_DTYPE
#if CLB_OP == CLB_ADD
#define CLB_VEXPR(x, y) ((x) + (y))
#elif CLB_OP == CLB_SUB
#define CLB_VEXPR(x, y) ((x) - (y))
#else
#define CLB_VEXPR(x, y) ((x) * (y))
#endif
/* an output chunk contiguous, the inputs contiguous, broadcast or reversed */
#define CLB_VFITS_(S) ((S) == 0 || (S) == 1 || (S) == -1)
#define CLB_VECTOR_FITS(S0, S1, S2) ((S0) == 1 && CLB_VFITS_(S1) && CLB_VFITS_(S2))
#endif
/* float16 on CPU devices (CLB_OWN_MATH, 16 elements a chunk): the same, the
   halves widened and the float results rounded by cl/common.cl's 16-lane
   integer rules -- the scalar rule's bits (a float op, then one rounding to
   half). Element by element PoCL built the chunk through the stack: a float16
   add of 2^24 took 49 ms against float32's 3-6 ms. */
#if defined(CLB_VEXPR) && CLB_COMPUTE_DTYPE == 9 && CLB_VEC == 16 && defined(CLB_OWN_MATH) &&      \
    CLB_OWN_MATH
#define CLB_VECTOR_HALF 1
#define CLB_HIN(p, S)                                                                              \
    clb_half_value16(convert_uint16(                                                               \
        (S) == 1    ? vload16(0, (__global const ushort *)(p))                                     \
        : (S) == -1 ? shuffle(vload16(0, (__global const ushort *)(p) - 15),                       \
                              (ushort16)(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))    \
                    : (ushort16)(((__global const ushort *)(p))[0])))
#else
#define CLB_VECTOR_HALF 0
#endif
#if defined(CLB_VEXPR) && (CLB_COMPUTE_DTYPE == 10 || CLB_COMPUTE_DTYPE == 11) && CLB_VEC > 1
#define CLB_VECTOR 1
typedef CLB_CAT(CLB_STORAGE(CLB_COMPUTE_DTYPE), CLB_VEC) clb_cvec_t;
/* An input's chunk: a vector load (one aligned load where p allows, common.cl),
   its one element broadcast, or (stride -1, a reversed view) the vector ending
   at p reversed in registers. */
#if CLB_COMPUTE_DTYPE == 10
typedef CLB_CAT(uint, CLB_VEC) clb_cmask_t;
#else
typedef CLB_CAT(ulong, CLB_VEC) clb_cmask_t;
#endif
#define CLB_VREV_2 (clb_cmask_t)(1, 0)
#define CLB_VREV_4 (clb_cmask_t)(3, 2, 1, 0)
#define CLB_VREV_8 (clb_cmask_t)(7, 6, 5, 4, 3, 2, 1, 0)
#define CLB_VREV_16 (clb_cmask_t)(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define CLB_VIN(p, S)                                                                              \
    ((S) == 1    ? CLB_VLOAD_A(clb_cvec_t, CLB_VEC, p)                                             \
     : (S) == -1 ? shuffle(CLB_CAT(vload, CLB_VEC)(0, (p) - (CLB_VEC - 1)), CLB_CAT(CLB_VREV_, CLB_VEC)) \
                 : (clb_cvec_t)((p)[0]))
#else
#define CLB_VECTOR 0
#endif

/* float16/32 sin, cos and tan with CLB_OWN_MATH (CPU devices): a chunk's
   elements take the branch-free clb_mf_*_run of cl/scalar_ops.cl, which flag a
   finite |x| past the polynomials' range (2^20, 256 without float64) instead
   of branching to the built-in per element; a flagged chunk (rare) is computed
   again element by element with the exact helper, so the values are the ones
   the exact helper gives. The branch per element kept PoCL's chunks scalar:
   clb_unary(CLB_SIN) took 2-3x the time of sin(x) in clb_eval, whose chunks
   do the same (cl/eval.cl). */
#if CLB_KIND == 0 && CLB_MF_RUNS && (CLB_COMPUTE_DTYPE == 9 || CLB_COMPUTE_DTYPE == 10)
#if CLB_OP == CLB_SIN
#define CLB_OP_RUN clb_mf_sin_run
#elif CLB_OP == CLB_COS
#define CLB_OP_RUN clb_mf_cos_run
#elif CLB_OP == CLB_TAN
#define CLB_OP_RUN clb_mf_tan_run
#endif
#endif
#ifdef CLB_OP_RUN
#define CLB_VALUE_RUN(j, S1, big)                                                                  \
    CLB_CONVERT(CLB_OUT_DTYPE, CLB_EVAL_DTYPE,                                                     \
                CLB_FINISH(CLB_OP_RUN(CLB_IN(1, CLB_IN0_DTYPE, j, S1), big)))
#endif

/* The work item's CLB_VEC elements at p0..p3 with inner strides S0..S3. Every
   value is computed before any is stored: the compiler cannot prove out apart
   from the inputs (in place is allowed), and this order lets literal 0s and 1s
   become vector loads and stores. */
#if CLB_VECTOR_HALF /* the chunk's vector value, stored */
#define CLB_VCHUNK(S1, S2)                                                                         \
    do {                                                                                           \
        const float16 v_ = CLB_VEXPR(CLB_HIN(p1, S1), CLB_HIN(p2, S2));                            \
        CLB_HALF16_STORE(v_, p0);                                                                  \
    } while (0)
#elif CLB_VECTOR
#define CLB_VCHUNK(S1, S2)                                                                         \
    do {                                                                                           \
        const clb_cvec_t v_ = CLB_VEXPR(CLB_VIN(p1, S1), CLB_VIN(p2, S2));                         \
        CLB_VSTORE(clb_cvec_t, v_, p0);                                                            \
    } while (0)
#endif
#if CLB_VECTOR || CLB_VECTOR_HALF
#define CLB_FULL_CHUNK(S0, S1, S2, S3)                                                             \
    do {                                                                                           \
        if (CLB_VECTOR_FITS(S0, S1, S2)) {                                                         \
            CLB_VCHUNK(S1, S2);                                                                    \
        } else {                                                                                   \
            clb_outv_t r_[CLB_VEC] CLB_RUN_ALIGN;                                                  \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) r_[v] = CLB_VALUE(v, S1, S2, S3);  \
            CLB_STORE_CHUNK(S0);                                                                   \
        }                                                                                          \
    } while (0)
#elif defined(CLB_OP_RUN)
#define CLB_FULL_CHUNK(S0, S1, S2, S3)                                                             \
    do {                                                                                           \
        clb_outv_t r_[CLB_VEC] CLB_RUN_ALIGN;                                                      \
        int big_ = 0;                                                                              \
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) r_[v] = CLB_VALUE_RUN(v, S1, &big_);   \
        if (big_) { /* a large argument: the chunk again, exactly */                               \
            _Pragma("nounroll") for (int v = 0; v < CLB_VEC; v++)                                  \
                r_[v] = CLB_VALUE(v, S1, S2, S3);                                                  \
        }                                                                                          \
        CLB_STORE_CHUNK(S0);                                                                       \
    } while (0)
#elif CLB_KIND == 0 && CLB_IN0_DTYPE == 9 && CLB_COMPUTE_DTYPE == 9 && CLB_VEC == 16 &&        \
    CLB_VLOAD_ALIGNED && CLB_BLOCKED && defined(CLB_OWN_MATH) && CLB_OWN_MATH
/* A float16 unary op on PoCL: a contiguous input's 16 halves widened at once
   (clb_half_value16) into floats the body reads from registers; element by
   element PoCL built the chunk in pieces (float16 exp of 2^24: 52 ms against
   float32's 6). The op's value is the scalar rule's on the same floats. */
#define CLB_FULL_CHUNK(S0, S1, S2, S3)                                                             \
    do {                                                                                           \
        clb_outv_t r_[CLB_VEC] CLB_RUN_ALIGN;                                                      \
        if ((S1) == 1) {                                                                           \
            float x_[16] __attribute__((aligned(64)));                                             \
            *(float16 *)x_ = CLB_HALF16_LOAD(p1);                                                  \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) r_[v] =                            \
                CLB_CONVERT(CLB_OUT_DTYPE, CLB_EVAL_DTYPE, CLB_FINISH(CLB_OP_VALUE(x_[v])));       \
        } else {                                                                                   \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) r_[v] = CLB_VALUE(v, S1, S2, S3);  \
        }                                                                                          \
        CLB_STORE_CHUNK(S0);                                                                       \
    } while (0)
#else
#define CLB_FULL_CHUNK(S0, S1, S2, S3)                                                             \
    do {                                                                                           \
        clb_outv_t r_[CLB_VEC] CLB_RUN_ALIGN;                                                      \
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) r_[v] = CLB_VALUE(v, S1, S2, S3);      \
        CLB_STORE_CHUNK(S0);                                                                       \
    } while (0)
#endif
#define CLB_WALK(S0, S1, S2, S3)                                                                   \
    do {                                                                                           \
        if ((long)j0 + CLB_VEC <= (long)inner) {                                                   \
            CLB_FULL_CHUNK(S0, S1, S2, S3);                                                        \
        } else {                                                                                   \
            for (int v = 0; v < (int)(inner - j0); v++)                                            \
                CLB_STORE(CLB_OUT_DTYPE, p0, v * (S0), CLB_VALUE(v, S1, S2, S3));                  \
        }                                                                                          \
    } while (0)

/* Blocks on CPU devices, a grid stride on GPUs (common.cl). */
#if CLB_BLOCKED
#define CLB_RANGE CLB_RANGE_BLOCK
#else
#define CLB_RANGE CLB_RANGE_GRID
#endif

/* Every (row, chunk) of this work item with inner strides S0..S3. A row's
   offsets come from decomposing its index over the outer axes 0..rank-2. */
#define CLB_ROW_STEP(i, d, _)                                                                      \
    (o0 += (i) * CLB_S0(d), o1 += (i) * CLB_S1(d), o2 += (i) * CLB_S2(d), o3 += (i) * CLB_S3(d))
#define CLB_LOOPS(S0, S1, S2, S3)                                                                  \
    for (long row = rfirst; row < rend; row += rstep) {                                            \
        clb_index o0 = 0, o1 = 0, o2 = 0, o3 = 0;                                                  \
        CLB_UNRAVEL((clb_index)row, rank - 1, CLB_SHAPE, CLB_ROW_STEP, 0);                         \
        for (long c = cfirst; c < cend; c += cstep) {                                              \
            clb_index j0 = (clb_index)(c * CLB_VEC);                                               \
            __global clb_out_t *p0 = out + a[CLB_MAP_OFFSET(0)] + o0 + j0 * (S0);                            \
            __global const clb_in0_t *p1 = in0 + a[CLB_MAP_OFFSET(1)] + o1 + j0 * (S1);                      \
            __global const clb_in1_t *p2 = in1 + a[CLB_MAP_OFFSET(2)] + o2 + j0 * (S2);                      \
            __global const clb_in2_t *p3 = in2 + a[CLB_MAP_OFFSET(3)] + o3 + j0 * (S3);                      \
            (void)p2, (void)p3;                                                                    \
            CLB_WALK(S0, S1, S2, S3);                                                              \
        }                                                                                          \
    }

/* The kernels: one per layout with fast paths (the inner strides the
   compiler knows), and clb_map for every other. The host picks one per launch
   from the plan's inner strides (cl_map.c); they share a program, and a
   driver that compiles a kernel at its first launch (PoCL) compiles only the
   layouts a process uses. */
#define CLB_MAP_KERNEL(name, S0, S1, S2, S3)                                                       \
    __kernel void name(__global clb_out_t *out, __global const clb_in0_t *in0,                     \
                       __global const clb_in1_t *in1, __global const clb_in2_t *in2,               \
                       CLB_ARGS_PARAMS(CLB_MAP_ARGS_VECS) CLB_TABLE_ARG)                           \
    {                                                                                              \
        CLB_ARGS_UNPACK(CLB_MAP_ARGS_VECS, a);                                                     \
        const clb_index rows = (clb_index)a[CLB_MAP_ROWS], inner = (clb_index)a[CLB_MAP_INNER];    \
        const int rank = (int)a[CLB_MAP_RANK];                                                     \
        long rfirst, rend, rstep, cfirst, cend, cstep;                                             \
        long chunks = ((long)inner + CLB_VEC - 1) / CLB_VEC;                                       \
        CLB_RANGE(get_global_id(1), get_global_size(1), rows, rfirst, rend, rstep);                \
        CLB_RANGE(get_global_id(0), get_global_size(0), chunks, cfirst, cend, cstep);              \
        const clb_index is0 = (clb_index)a[CLB_MAP_INNER_STRIDE(0)],                               \
                        is1 = (clb_index)a[CLB_MAP_INNER_STRIDE(1)],                               \
                        is2 = (clb_index)a[CLB_MAP_INNER_STRIDE(2)],                               \
                        is3 = (clb_index)a[CLB_MAP_INNER_STRIDE(3)];                               \
        (void)is0, (void)is1, (void)is2, (void)is3;                                                \
        CLB_LOOPS(S0, S1, S2, S3)                                                                  \
        CLB_NT_FENCE();                                                                            \
    }

/* Names and layouts: the host's map_layout (cl_map.c) matches them. */
#if CLB_KIND == 1
CLB_MAP_KERNEL(clb_map_same, 1, 1, 1, 0)   /* same shape, row broadcast */
CLB_MAP_KERNEL(clb_map_column, 1, 1, 0, 0) /* column broadcast */
CLB_MAP_KERNEL(clb_map_outer, 1, 0, 1, 0)  /* outer product */
#if CLB_VECTOR || CLB_VECTOR_HALF /* a reversed input (clb_slice with a negative step) */
CLB_MAP_KERNEL(clb_map_rev0, 1, -1, 1, 0)
CLB_MAP_KERNEL(clb_map_rev1, 1, 1, -1, 0)
#endif
#elif CLB_KIND == 0
CLB_MAP_KERNEL(clb_map_same, 1, 1, 0, 0)
#else
CLB_MAP_KERNEL(clb_map_same, 1, 1, 1, 1)
#endif
CLB_MAP_KERNEL(clb_map, is0, is1, is2, is3)
