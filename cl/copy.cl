/* Strided copy with dtype conversion: one kernel for contiguous(), repeat(),
 * to_host of views, cast() and copies into views, with the conversion rules of
 * common.cl's CLB_CONVERT (those of src/cpu/host_scalar.c).
 *
 * Launch geometry (planned on the host, see src/opencl/cl_copy.c), the same as
 * cl/elementwise.cl's: the plan's last axis is the "inner" axis, the others
 * are flattened into "rows"; the inner axis is cut into chunks of CLB_VEC
 * elements.
 *     dimension 0 of the NDRange: chunks
 *     dimension 1:                 rows
 * Work items loop over their share of both (see CLB_RANGE), so the launch
 * size is chosen for the device, not for the tensor. For each row a work item
 * decomposes the row index over the outer axes (the only division in the
 * kernel), then walks its chunks with additions only.
 *
 * Specialisation (-D, each with a default so the file compiles standalone):
 *   CLB_SRC_DTYPE, CLB_DST_DTYPE  clb_dtype numbers; copies that move bits
 *                   (same dtype, same-width integers) arrive as the unsigned
 *                   integer of that width, so four programs serve them all
 *   CLB_TABLE       0: up to 8 axes, tables by value; 1: tables in a buffer
 *   CLB_VEC         consecutive inner elements a work item handles at a time
 *   CLB_BLOCKED     1: each work item takes a contiguous block of rows and
 *                   chunks (CPU devices); 0: a grid stride (GPUs)
 *   CLB_INDEX64     64-bit index arithmetic (a plan piece too large for 32 bits)
 *   CLB_NT          streaming stores for a contiguous inner dst (common.cl)
 * The rank is an argument, not a define, and the fast paths are branches
 * inside one program chosen per launch from the inner strides: each program
 * costs PoCL 0.3-1 s to compile, and a cast of any shape should need one.
 *   dst 1, src 1:  contiguous inner axis (copies, casts, most of a repeat)
 *   dst -1, src 1: a reversed inner axis (x[..., ::-1] after the plan's flip,
 *                  src/core/plan.c): vector loads reversed in registers; bit
 *                  copies only
 *   dst 1, src 0:  broadcast inner axis (materialising an expand): the value
 *                  is read once per row and only stored in the chunk loop;
 *                  bit copies only, as every branch adds to the compile time
 *                  of the ~90 cast programs, which take the general path
 *   otherwise:     strided gather/scatter (transposes, copies into views) */

#ifndef CLB_SRC_DTYPE
#define CLB_SRC_DTYPE 10
#endif
#ifndef CLB_DST_DTYPE
#define CLB_DST_DTYPE 10
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

#if CLB_SRC_DTYPE < 0 || CLB_SRC_DTYPE > 11 || CLB_DST_DTYPE < 0 || CLB_DST_DTYPE > 11
#error "CLB_SRC_DTYPE and CLB_DST_DTYPE must be clb_dtype numbers (0..11)"
#endif
#if (CLB_SRC_DTYPE == 11 || CLB_DST_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_STORAGE(CLB_SRC_DTYPE) clb_src_t;
typedef CLB_STORAGE(CLB_DST_DTYPE) clb_dst_t;

/* The converted value between load and store: what CLB_CONVERT yields. A
   float16 result stays in float (in double from float64) until vstore_half_rte
   rounds it, once. */
#if CLB_DST_DTYPE == 9 && CLB_SRC_DTYPE == 11
typedef double clb_val_t;
#elif CLB_DST_DTYPE == 9
typedef float clb_val_t;
#else
typedef clb_dst_t clb_val_t;
#endif

#define CLB_VALUE(p, i) CLB_CONVERT(CLB_DST_DTYPE, CLB_SRC_DTYPE, CLB_LOAD(CLB_SRC_DTYPE, p, i))

/* ---- the kernel ------------------------------------------------------------------- */

/* Everything about the launch but the buffers arrives as the array `a` whose
   slots cl/launch_args.h names for the host and this file alike. Up to
   CLB_BYVAL_DIMS axes the tables live there too; more go in a __constant
   buffer, rank entries per table, in the index type. */
CLB_ARGS_PROBE(CLB_COPY_ARGS_VECS)

#if !CLB_TABLE
#define CLB_TABLE_ARG
#define CLB_SHAPE(d) ((clb_index)a[CLB_COPY_SHAPE(d)])
#define CLB_SD(d) ((clb_index)a[CLB_COPY_STRIDE(0, d)])
#define CLB_SS(d) ((clb_index)a[CLB_COPY_STRIDE(1, d)])
#else
#define CLB_TABLE_ARG , __constant const clb_index *table
#define CLB_SHAPE(d) table[d]
#define CLB_SD(d) table[rank + (d)]
#define CLB_SS(d) table[2 * rank + (d)]
#endif

/* Blocks on CPU devices, a grid stride on GPUs (common.cl). */
#if CLB_BLOCKED
#define CLB_RANGE CLB_RANGE_BLOCK
#else
#define CLB_RANGE CLB_RANGE_GRID
#endif

/* Stores the CLB_VEC values vals[] at q with inner stride S: one streaming
   vector store when asked for and q is aligned for it (rows that are not
   multiples of CLB_VEC fall back to plain stores), else element by element. */
#if CLB_NT_OK && CLB_DST_DTYPE != 9 && CLB_VEC <= 16 && CLB_VLOAD_ALIGNED
/* With CLB_VLOAD_ALIGNED (PoCL): the values' private array is aligned for the
   vector type (CLB_VALS_ALIGN) and read as one vector; vloadN of it, as PoCL
   3.1 builds it, took two-element pieces. */
typedef CLB_CAT(CLB_STORAGE(CLB_DST_DTYPE), CLB_VEC) clb_dstvec_t;
#define CLB_VALS_ALIGN __attribute__((aligned(sizeof(clb_dstvec_t))))
#define CLB_STORE_CHUNK(q, S, vals)                                                                \
    do {                                                                                           \
        if ((S) == 1 && CLB_ALIGNED(q, CLB_VEC))                                                   \
            __builtin_nontemporal_store(*(const clb_dstvec_t *)(vals), (__global clb_dstvec_t *)(q)); \
        else                                                                                       \
            CLB_STORE_RUN_PLAIN(CLB_DST_DTYPE, q, S, vals);                                        \
    } while (0)
#elif CLB_NT_OK && CLB_DST_DTYPE != 9 && CLB_VEC <= 16
typedef CLB_CAT(CLB_STORAGE(CLB_DST_DTYPE), CLB_VEC) clb_dstvec_t;
#define CLB_STORE_CHUNK(q, S, vals) CLB_STORE_RUN_NT(CLB_DST_DTYPE, clb_dstvec_t, q, S, vals)
#elif CLB_DST_DTYPE == 9 && CLB_SRC_DTYPE != 11 && CLB_VEC > 1 && CLB_VEC <= 16
/* float16 from float: one vector conversion per contiguous chunk. */
#define CLB_STORE_CHUNK(q, S, vals)                                                                \
    do {                                                                                           \
        if ((S) == 1)                                                                              \
            CLB_CAT(CLB_CAT(vstore_half, CLB_VEC), _rte)(CLB_CAT(vload, CLB_VEC)(0, vals), 0, (q));  \
        else                                                                                       \
            CLB_STORE_RUN_PLAIN(CLB_DST_DTYPE, q, S, vals);                                        \
    } while (0)
#else
#define CLB_STORE_CHUNK(q, S, vals) CLB_STORE_RUN_PLAIN(CLB_DST_DTYPE, q, S, vals)
#endif
#ifndef CLB_VALS_ALIGN
#define CLB_VALS_ALIGN
#endif

/* Bit copies move whole chunks as one vector (OpenCL vectors go up to 16
   elements): from per-element code PoCL's compiler assembled the vectors lane
   by lane through the stack, which cost a materialised expand a tenth of the
   copy bandwidth. */
#if CLB_SRC_DTYPE == CLB_DST_DTYPE && CLB_VEC > 1 && CLB_VEC <= 16
#define CLB_VCOPY 1
typedef CLB_CAT(CLB_STORAGE(CLB_DST_DTYPE), CLB_VEC) clb_vec_t;
#else
#define CLB_VCOPY 0
#endif

/* pd/ps: this row's first dst/src element (common.cl's walk over the outer axes). */
#define CLB_ROW_STEP(i, d, _) (od += (i) * CLB_SD(d), os += (i) * CLB_SS(d))
#define CLB_ROW_START()                                                                            \
    clb_index od = 0, os = 0;                                                                      \
    CLB_UNRAVEL((clb_index)row, rank - 1, CLB_SHAPE, CLB_ROW_STEP, 0);                             \
    __global clb_dst_t *pd = dst + a[CLB_COPY_OFFSET(0)] + od;                                              \
    __global const clb_src_t *ps = src + a[CLB_COPY_OFFSET(1)] + os

/* Loads and converts the CLB_VEC values of a chunk at q with inner stride S
   into vals[]; float32 from float16 with one vector conversion when S is 1. */
#if CLB_SRC_DTYPE == 9 && CLB_DST_DTYPE == 10 && CLB_VEC > 1 && CLB_VEC <= 16
#define CLB_LOAD_CHUNK(vals, q, S)                                                                 \
    do {                                                                                           \
        if ((S) == 1) {                                                                            \
            CLB_CAT(vstore, CLB_VEC)(CLB_CAT(vload_half, CLB_VEC)(0, (q)), 0, (vals));             \
        } else {                                                                                   \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) vals[v] = CLB_VALUE(q, v * (S));   \
        }                                                                                          \
    } while (0)
#elif CLB_VLOAD_ALIGNED && CLB_SRC_DTYPE != 9 &&                                                  \
    (CLB_VEC == 2 || CLB_VEC == 4 || CLB_VEC == 8 || CLB_VEC == 16)
/* With CLB_VLOAD_ALIGNED (PoCL), a contiguous chunk is loaded as one vector
   (CLB_VLOAD_A) into an aligned private array, then converted element by
   element: the same values. */
typedef CLB_CAT(CLB_STORAGE(CLB_SRC_DTYPE), CLB_VEC) clb_srcvec_t;
#define CLB_LOAD_CHUNK(vals, q, S)                                                                 \
    do {                                                                                           \
        if ((S) == 1) {                                                                            \
            clb_src_t s_[CLB_VEC] __attribute__((aligned(sizeof(clb_srcvec_t))));                  \
            *(clb_srcvec_t *)s_ = CLB_VLOAD_A(clb_srcvec_t, CLB_VEC, q);                           \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) vals[v] = CLB_VALUE(s_, v);        \
        } else {                                                                                   \
            _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) vals[v] = CLB_VALUE(q, v * (S));   \
        }                                                                                          \
    } while (0)
#else
#define CLB_LOAD_CHUNK(vals, q, S)                                                                 \
    _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) vals[v] = CLB_VALUE(q, v * (S))
#endif

/* The CLB_VEC elements from inner index j0 with inner strides SD, SS. All
   values are loaded before any is stored: the compiler cannot prove dst and src
   apart, and this order lets it emit vector loads and stores when the strides
   are literal 1s (copies never overlap their source: op_copy.c's callers
   allocate or alias-check dst). */
#define CLB_CHUNK(SD, SS)                                                                          \
    do {                                                                                           \
        __global clb_dst_t *qd = pd + j0 * (SD);                                                   \
        __global const clb_src_t *qs = ps + j0 * (SS);                                             \
        if ((long)j0 + CLB_VEC <= (long)inner) {                                                   \
            if (CLB_VCOPY && (SD) == 1 && (SS) == 1) {                                             \
                CLB_VCOPY_CHUNK(qd, qs);                                                           \
            } else if (CLB_VCOPY && (SD) == -1 && (SS) == 1) {                                     \
                CLB_VCOPY_REV_CHUNK(qd, qs);                                                       \
            } else {                                                                               \
                clb_val_t v_[CLB_VEC] CLB_VALS_ALIGN;                                              \
                CLB_LOAD_CHUNK(v_, qs, SS);                                                        \
                CLB_STORE_CHUNK(qd, SD, v_);                                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (int v = 0; v < (int)(inner - j0); v++)                                            \
                CLB_STORE(CLB_DST_DTYPE, qd, v * (SD), CLB_VALUE(qs, v * (SS)));                   \
        }                                                                                          \
    } while (0)

/* A chunk into a reversed dst (inner stride -1): elements qd[0], qd[-1], ...,
   qd[1 - CLB_VEC] take qs[0 .. CLB_VEC - 1], so the vector loaded from qs is
   reversed in registers and stored (streaming where asked for) at its lowest
   address. Bit copies hold unsigned integers, the mask type shuffle wants. */
#define CLB_REV_MASK_2 (clb_vec_t)(1, 0)
#define CLB_REV_MASK_4 (clb_vec_t)(3, 2, 1, 0)
#define CLB_REV_MASK_8 (clb_vec_t)(7, 6, 5, 4, 3, 2, 1, 0)
#define CLB_REV_MASK_16 (clb_vec_t)(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#if CLB_VCOPY
/* CLB_VLOAD_A: one full-width load where qs is aligned for it on PoCL (common.cl). */
#define CLB_VCOPY_CHUNK(qd, qs) CLB_VSTORE(clb_vec_t, CLB_VLOAD_A(clb_vec_t, CLB_VEC, qs), qd)
#define CLB_VCOPY_REV_CHUNK(qd, qs)                                                                \
    CLB_VSTORE(clb_vec_t,                                                                          \
               shuffle(CLB_VLOAD_A(clb_vec_t, CLB_VEC, qs), CLB_CAT(CLB_REV_MASK_, CLB_VEC)),      \
               (qd) - (CLB_VEC - 1))
#else
#define CLB_VCOPY_CHUNK(qd, qs) ((void)0)
#define CLB_VCOPY_REV_CHUNK(qd, qs) ((void)0)
#endif

/* Every (row, chunk) of this work item with inner strides SD, SS. */
/* Every (row, chunk) of this work item with inner strides SD, SS, in columns
   of `tile` chunks: each column of chunks down every row of the block before
   the next. A tile of the whole chunk range is plain row order. One loop nest
   for both orders, as each copy of CLB_CHUNK adds to every program's compile
   time.
   Transposing sources on CPU devices (stride down the rows smaller than along
   them) take tiles of one chunk: row by row, each row's gather touched a page
   per element (2048 of them for a 2048-wide transpose), the TLB missed on
   every load and each fetched line was gone before the next row wanted its
   next element; a chunk column keeps CLB_VEC lines and pages in use for as
   many rows as a line holds. Wider tiles measured slower (the TLB again):
   1 chunk 5.5 GB/s, 2: 4.9, 4: 3.3, row by row 1.6. */
#define CLB_LOOPS_TILED(SD, SS, tile)                                                              \
    for (long c0 = cfirst; c0 < cend; c0 += (tile)) {                                              \
        const long c1 = c0 + (tile) < cend ? c0 + (tile) : cend;                                   \
        for (long row = rfirst; row < rend; row += rstep) {                                        \
            CLB_ROW_START();                                                                       \
            for (long c = c0; c < c1; c += cstep) {                                                \
                clb_index j0 = (clb_index)(c * CLB_VEC);                                           \
                CLB_CHUNK(SD, SS);                                                                 \
            }                                                                                      \
        }                                                                                          \
    }
#define CLB_LOOPS(SD, SS) CLB_LOOPS_TILED(SD, SS, cend - cfirst)

/* Inner source stride 0: one value per row, stored CLB_VEC at a time. */
#if CLB_VCOPY
#define CLB_SPLAT() const clb_vec_t xv = (clb_vec_t)(x)
#define CLB_STORE_SPLAT(qd) CLB_VSTORE(clb_vec_t, xv, qd)
#else
#define CLB_SPLAT()                                                                                \
    clb_val_t xs[CLB_VEC] CLB_VALS_ALIGN;                                                          \
    _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) xs[v] = x
#define CLB_STORE_SPLAT(qd) CLB_STORE_CHUNK(qd, 1, xs)
#endif
#define CLB_LOOPS_BROADCAST()                                                                      \
    for (long row = rfirst; row < rend; row += rstep) {                                            \
        CLB_ROW_START();                                                                           \
        const clb_val_t x = CLB_VALUE(ps, 0);                                                      \
        CLB_SPLAT();                                                                               \
        for (long c = cfirst; c < cend; c += cstep) {                                              \
            clb_index j0 = (clb_index)(c * CLB_VEC);                                               \
            __global clb_dst_t *qd = pd + j0;                                                      \
            if ((long)j0 + CLB_VEC <= (long)inner) {                                               \
                CLB_STORE_SPLAT(qd);                                                               \
            } else {                                                                               \
                for (int v = 0; v < (int)(inner - j0); v++) CLB_STORE(CLB_DST_DTYPE, qd, v, x);    \
            }                                                                                      \
        }                                                                                          \
    }

__kernel void clb_copy(__global clb_dst_t *dst, __global const clb_src_t *src,
                       CLB_ARGS_PARAMS(CLB_COPY_ARGS_VECS) CLB_TABLE_ARG)
{
    CLB_ARGS_UNPACK(CLB_COPY_ARGS_VECS, a);
    const clb_index inner = (clb_index)a[CLB_COPY_INNER];
    const int rank = (int)a[CLB_COPY_RANK];
    long rfirst, rend, rstep, cfirst, cend, cstep;
    long chunks = ((long)inner + CLB_VEC - 1) / CLB_VEC;
    CLB_RANGE(get_global_id(1), get_global_size(1), a[CLB_COPY_ROWS], rfirst, rend, rstep);
    CLB_RANGE(get_global_id(0), get_global_size(0), chunks, cfirst, cend, cstep);
    const clb_index isd = (clb_index)a[CLB_COPY_INNER_STRIDE(0)],
                    iss = (clb_index)a[CLB_COPY_INNER_STRIDE(1)];

#if CLB_BLOCKED
    const clb_index row_stride = rank >= 2 ? CLB_SS(rank - 2) : 0;
    const bool transposing =
        rank >= 2 && (row_stride < 0 ? -row_stride : row_stride) < (iss < 0 ? -iss : iss);
    const long tile = transposing ? 1 : cend - cfirst;
#else
    const long tile = cend - cfirst; /* a grid stride: no column tiles */
#endif
#if CLB_SRC_DTYPE == CLB_DST_DTYPE /* a bit copy (src/opencl/cl_copy.c: canonical_pair) */
    if (isd == 1 && iss == 1) CLB_LOOPS(1, 1)
    else if (isd == 1 && iss == 0) CLB_LOOPS_BROADCAST()
    /* a reversed inner axis (clb_slice with a negative step), which the plan's
       flip (src/core/plan.c) turns into a reversed dst: each chunk is loaded as
       one vector and reversed in registers instead of scattered element by element */
    else if (isd == -1 && iss == 1) CLB_LOOPS(-1, 1)
    else CLB_LOOPS_TILED(isd, iss, tile)
#else
    if (isd == 1 && iss == 1) CLB_LOOPS(1, 1)
    else CLB_LOOPS_TILED(isd, iss, tile)
#endif
    CLB_NT_FENCE();
}
