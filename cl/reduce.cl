/* Strided reduction: out[o] = fold over r of in[kept(o) + reduced(r)].
 *
 * The host splits the launch plan into two stride tables over the input:
 * kept axes (one per output axis, row-major: output element o is at
 * out_offset + o) and reduced axes (outermost first; the innermost one is the
 * fastest-moving input axis). Both are coalesced on the host.
 *
 * Work decomposition: a work-group of LX * LY items (LY a power of two) covers
 * LX consecutive outputs; its LY lanes per output share the chunk of the
 * reduced range this group owns (group id 1 picks the chunk). Each lane folds
 * every LY-th element of the chunk privately, then the lanes are combined by a
 * tree in local memory. The host picks the shape:
 *   row    (reduced axis innermost in memory): lanes walk along it (LY up to
 *          the work-group size, leftover lanes to more outputs);
 *   column (kept axis innermost in memory): LX up to the work-group size, each
 *          item walks its output's column while neighbouring items read
 *          neighbouring addresses (leftover lanes split the column).
 * With one chunk (CLB_FINAL=1) the group writes the result; with several it
 * writes accumulator-typed partials out[o * chunks + chunk] (CLB_FINAL=0) and
 * the host reduces those in a second launch of this kernel. CPU devices have
 * contiguous fast paths at the end of this file.
 *
 * The walk keeps (q, i) = (outer reduced index, innermost reduced index) and
 * only divides when i wraps past the innermost extent, so the common 1-2 axis
 * reductions never divide per element.
 *
 * Accumulators: floats (float16 too) in float, float64 in double, SUM/MEAN with
 * Kahan compensation so float32 sums of millions of elements stay within a few
 * ulps of an exact sum; integer and bool SUM/PROD in ulong (wrapping, as the
 * int64/uint64 result), MAX/MIN in long or ulong, integer MEAN in double.
 * MAX/MIN propagate NaN. An empty reduced range leaves the identity (0, 1),
 * and MEAN's 0 / 0 gives NaN. */

#ifndef CLB_IN_DTYPE
#define CLB_IN_DTYPE 10
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_ACC_DTYPE
#define CLB_ACC_DTYPE 10
#endif
/* The fold, by family so that one program serves two ops (fewer builds): 0 SUM
   and MEAN, 2 MAX and MIN, 4 PROD. The kernels' `param` argument picks the
   member: for SUM the divisor of a MEAN (-1: a plain sum), for MAX 1 for MIN,
   computed as -max(-x) on floats and ~max(~x) on integers (exact, and keeps
   the NaN rule). */
#ifndef CLB_OP
#define CLB_OP 0
#endif
#ifndef CLB_FINAL
#define CLB_FINAL 1
#endif
#ifndef CLB_WIDE_TABLE
#define CLB_WIDE_TABLE 0 /* 1: tables in a __constant buffer (more than 8 axes) */
#endif

#if (CLB_IN_DTYPE == 11 || CLB_ACC_DTYPE == 11 || CLB_OUT_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_STORAGE(CLB_IN_DTYPE) clb_in_t;
typedef CLB_STORAGE(CLB_ACC_DTYPE) clb_acc_t;
#if CLB_FINAL
typedef CLB_STORAGE(CLB_OUT_DTYPE) clb_out_t;
#else
typedef clb_acc_t clb_out_t;
#endif

#define CLB_IS_SUM (CLB_OP == 0)
#define CLB_FLOAT_ACC (CLB_ACC_DTYPE == 10 || CLB_ACC_DTYPE == 11)
/* Kahan compensation only where rounding happens: float accumulators. */
#define CLB_KAHAN (CLB_IS_SUM && CLB_FLOAT_ACC)

#if CLB_IS_SUM
#define CLB_IDENTITY ((clb_acc_t)0)
#define CLB_COMBINE(a, x) ((a) + (x))
#elif CLB_OP == 4
#define CLB_IDENTITY ((clb_acc_t)1)
#define CLB_COMBINE(a, x) ((a) * (x))
#elif CLB_ACC_DTYPE == 10 || CLB_ACC_DTYPE == 11
/* max/min that keep a NaN from either side (the host's MAXIMUM/MINIMUM rule). */
#define CLB_IDENTITY (-(clb_acc_t)INFINITY)
#define CLB_COMBINE(a, x) ((isnan(a) || (a) > (x)) ? (a) : (x))
#else
#define CLB_IDENTITY (CLB_ACC_DTYPE == 8 ? (clb_acc_t)0 : (clb_acc_t)LONG_MIN)
#define CLB_COMBINE(a, x) ((a) >= (x) ? (a) : (x))
#endif

/* MIN through MAX: values enter and leave the fold through CLB_FLIP (its own
   inverse), set up by CLB_FLIP_SETUP from param. */
#if CLB_OP == 2 && CLB_FLOAT_ACC
#define CLB_FLIP_SETUP(param) const clb_acc_t flip_ = (param) == 1 ? (clb_acc_t)-1 : (clb_acc_t)1
#define CLB_FLIP(x) ((x) * flip_)
#elif CLB_OP == 2
#define CLB_FLIP_SETUP(param) const clb_acc_t flip_ = (param) == 1 ? ~(clb_acc_t)0 : (clb_acc_t)0
#define CLB_FLIP(x) ((x) ^ flip_)
#else
#define CLB_FLIP_SETUP(param) (void)0
#define CLB_FLIP(x) (x)
#endif

/* Final scaling of a SUM-family result: MEAN divides (0 / 0 = NaN for an empty
   mean, as NumPy), a plain sum passes param -1. */
#if CLB_IS_SUM && CLB_FLOAT_ACC
#define CLB_MEAN_DIVIDE(acc, param) ((param) >= 0 ? (acc) / (clb_acc_t)(param) : (acc))
#else
#define CLB_MEAN_DIVIDE(acc, param) (acc)
#endif

#define CLB_LOAD_ACC(p, i) CLB_CONVERT(CLB_ACC_DTYPE, CLB_IN_DTYPE, CLB_LOAD(CLB_IN_DTYPE, p, i))

#if CLB_KAHAN
#define CLB_FOLD(x) CLB_KAHAN_STEP(clb_acc_t, acc, comp, x)
#else
#define CLB_FOLD(x) (acc = CLB_COMBINE(acc, (x)))
#endif

/* Everything about the launch but the buffers (and the scratch) arrives as the
   array `ra_` whose slots cl/launch_args.h names for the host (src/opencl/cl_reduce.c)
   and this file alike; CLB_RED_ARGS declares the kernel's locals from it. */
CLB_ARGS_PROBE(CLB_RED_ARGS_VECS)
#define CLB_RED_ARGS(extent, x, y)                                                                 \
    CLB_ARGS_UNPACK(CLB_RED_ARGS_VECS, ra_);                                                       \
    const clb_index out_offset = (clb_index)ra_[CLB_RED_OUT_OFFSET];                               \
    const clb_index in_offset = (clb_index)ra_[CLB_RED_IN_OFFSET];                                 \
    const clb_index kept_numel = (clb_index)ra_[CLB_RED_KEPT_NUMEL];                               \
    const clb_index extent = (clb_index)ra_[CLB_RED_EXTENT], chunk = (clb_index)ra_[CLB_RED_CHUNK];\
    const int kept_ndim = (int)ra_[CLB_RED_KEPT_NDIM], red_ndim = (int)ra_[CLB_RED_RED_NDIM];      \
    const int x = (int)ra_[CLB_RED_X], y = (int)ra_[CLB_RED_Y];                                    \
    const long param = ra_[CLB_RED_PARAM];                                                         \
    (void)out_offset, (void)chunk, (void)red_ndim, (void)x, (void)y

#if CLB_WIDE_TABLE
/* [kept shape | kept strides | reduced shape | reduced strides] */
#define CLB_TABLE_ARG , __constant const clb_index *table
#define CLB_KSHAPE(d) table[d]
#define CLB_KSTRIDE(d) table[kept_ndim + (d)]
#define CLB_RSHAPE(d) table[2 * kept_ndim + (d)]
#define CLB_RSTRIDE(d) table[2 * kept_ndim + red_ndim + (d)]
#else
#define CLB_TABLE_ARG
#define CLB_KSHAPE(d) ((clb_index)ra_[CLB_RED_KSHAPE(d)])
#define CLB_KSTRIDE(d) ((clb_index)ra_[CLB_RED_KSTRIDE(d)])
#define CLB_RSHAPE(d) ((clb_index)ra_[CLB_RED_RSHAPE(d)])
#define CLB_RSTRIDE(d) ((clb_index)ra_[CLB_RED_RSTRIDE(d)])
#endif

/* One lane's fold over r = r0, r0 + step, ... < end; the innermost stride is
   `s` (the literal 1 for the contiguous copy of this loop, so it vectorises). */
#define CLB_LANE_LOOP(s)                                                                           \
    do {                                                                                           \
        while (r < end) {                                                                          \
            CLB_FOLD(CLB_FLIP(CLB_LOAD_ACC(in, base + qoff + i * (s))));                           \
            r += step;                                                                             \
            i += step;                                                                             \
            if (i >= n_inner) {                                                                    \
                const clb_index w_ = i / n_inner;                                                  \
                q += w_;                                                                           \
                i -= w_ * n_inner;                                                                 \
                qoff = 0;                                                                          \
                CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, qoff);                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)

__kernel void clb_reduce(__global clb_out_t *out, __global const clb_in_t *in,
                         CLB_ARGS_PARAMS(CLB_RED_ARGS_VECS), __local clb_acc_t *scratch CLB_TABLE_ARG)
{
    CLB_RED_ARGS(red_numel, lx_count, ly_count);
    const int lid = (int)get_local_id(0);
    const int ly = lid / lx_count, lx = lid - ly * lx_count;
    const clb_index o = (clb_index)get_group_id(0) * lx_count + lx;
    const clb_index gy = (clb_index)get_group_id(1);

    (void)param; /* not every family reads it */
    CLB_FLIP_SETUP(param);
    clb_acc_t acc = CLB_IDENTITY;
#if CLB_KAHAN
    clb_acc_t comp = 0;
#endif
    const clb_index start = gy * chunk;
    const clb_index end = min(start + chunk, red_numel);
    clb_index r = start + ly;
    if (o < kept_numel && r < end) {
        clb_index base = in_offset;
        CLB_OFFSET_OF(o, kept_ndim, CLB_KSHAPE, CLB_KSTRIDE, base);
        const clb_index n_inner = CLB_RSHAPE(red_ndim - 1);
        const clb_index s_inner = CLB_RSTRIDE(red_ndim - 1);
        const clb_index step = ly_count;
        clb_index q = r / n_inner, i = r - q * n_inner, qoff = 0;
        CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, qoff);
        if (s_inner == 1)
            CLB_LANE_LOOP(1);
        else
            CLB_LANE_LOOP(s_inner);
    }
#if CLB_KAHAN
    acc -= comp;
#endif

    /* Tree over the LY lanes of each output (lanes of one output are LX apart). */
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = ly_count / 2; w > 0; w /= 2) {
        if (ly < w) scratch[lid] = CLB_COMBINE(scratch[lid], scratch[lid + w * lx_count]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || o >= kept_numel) return;
    acc = CLB_FLIP(scratch[lx]);
#if CLB_FINAL
    acc = CLB_MEAN_DIVIDE(acc, param);
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, acc));
#else
    (void)out_offset;
    out[o * (clb_index)get_num_groups(1) + gy] = acc;
#endif
}

/* ---- contiguous fast paths for CPU devices ------------------------------------------------
 *
 * On CPUs a work item is a loop iteration of one thread, so what matters is
 * that each item streams contiguous memory through wide vector registers.
 * Two kernels do that for float SUM/MEAN (the bandwidth-bound cases):
 *   clb_reduce_rows: the innermost reduced axis is contiguous (n_inner a multiple
 *     of 16): item (o, c) sums whole rows q of output o for q in chunk c, 8
 *     lanes at a time, one sequential stream a row, Kahan-adding blocks of
 *     128 elements into the lanes;
 *   clb_reduce_cols: the innermost kept axis is contiguous (a multiple of 16
 *     outputs): an item owns a tile of up to a few thousand outputs and a band
 *     of the reduced range, streams eight row segments at a time, 8 lanes a
 *     step, and keeps its Kahan accumulators in local memory (see there).
 * One chunk writes results; several write partials for a second pass: rows
 * out[o * chunks + c] (the general kernel's, or clb_reduce_rows_last's own
 * last item), columns out[c * kept + o] (this column kernel's again, over
 * `chunks` contiguous rows). */
#if CLB_KAHAN && CLB_IN_DTYPE >= 9
#if CLB_ACC_DTYPE == 11
typedef double16 clb_acc16_t;
#else
typedef float16 clb_acc16_t;
#endif

/* The fast paths' vectors are eight wide (256 bits for float): on the AMD
   EPYC (Zen 4) that PoCL runs as skylake-avx512, a row sum of 256 MiB with
   256-bit loads ran 5-9 % faster than with the 512-bit loads of a float16
   (the same two-thread C loop both ways, interleaved in one process), and the
   float16 form of this kernel sat that much behind PyTorch's AVX2 x.sum(1). */
#if CLB_ACC_DTYPE == 11
typedef double8 clb_acc8_t;
#else
typedef float8 clb_acc8_t;
#endif
/* CLB_LOAD8(LD, p, off): the eight inputs at p + off as accumulators, read
   with LD(p) (a float8 or double8 read). The row loop below is written once
   and instantiated twice: with plain vector reads for a row whose start is
   aligned for them (every read of the row then is), else with CLB_LD_ANY. */
#if CLB_IN_DTYPE == 9
#define CLB_LOAD8(LD, p, off) vload_half8(0, (p) + (off))
#elif CLB_ACC_DTYPE == 11 && CLB_IN_DTYPE == 10
#define CLB_LOAD8(LD, p, off) convert_double8(LD((p) + (off)))
#else
#define CLB_LOAD8(LD, p, off) LD((p) + (off))
#endif
/* A row that is not aligned reads as before, with common.cl's CLB_VLOAD_A
   (PoCL 3.1 turned its vload8 branch into one vmovups, a plain vload8 here
   into two-element pieces). */
#if CLB_IN_DTYPE == 11
#define CLB_LD_VEC(q) (*(__global const double8 *)(q))
#define CLB_LD_ANY(q) CLB_VLOAD_A(double8, 8, q)
#else
#define CLB_LD_VEC(q) (*(__global const float8 *)(q))
#define CLB_LD_ANY(q) CLB_VLOAD_A(float8, 8, q)
#endif
/* The plain sum of the 32 elements at p + off, as eight lanes. */
#define CLB_SUM32(LD, p, off)                                                                      \
    ((CLB_LOAD8(LD, p, off) + CLB_LOAD8(LD, p, (off) + 8)) +                                       \
     (CLB_LOAD8(LD, p, (off) + 16) + CLB_LOAD8(LD, p, (off) + 24)))
/* One row of len elements at in + row into (s, comp), one sequential stream
   (the row's quarters read side by side as four streams ran 1.25-1.4x slower
   for the channel mean's rows of 50176 elements and 1.04-1.10x for a whole
   sum's segments, interleaved A/B on PoCL; rusticl 1.3x). The stream is a
   pointer, so each read's constant offset folds into its address (with
   32-bit indices every read otherwise took its own add and sign extension). */
#define CLB_ROW_SUM(LD)                                                                            \
    do {                                                                                           \
        __global const clb_in_t *p = in + row, *end = p + len;                                    \
        for (; p + 128 <= end; p += 128) {                                                         \
            clb_acc8_t b0 = CLB_SUM32(LD, p, 0) + CLB_SUM32(LD, p, 32);                            \
            clb_acc8_t b1 = CLB_SUM32(LD, p, 64) + CLB_SUM32(LD, p, 96);                           \
            CLB_KAHAN_STEP(clb_acc8_t, s, comp, b0 + b1);                                          \
        }                                                                                          \
        for (; p < end; p += 16)                                                                   \
            CLB_KAHAN_STEP(clb_acc8_t, s, comp, CLB_LOAD8(LD, p, 0) + CLB_LOAD8(LD, p, 8));        \
    } while (0)

static clb_acc_t clb_hsum8(clb_acc8_t v)
{
    /* Pairwise: 8 -> 4 -> 2 -> 1. */
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 4) b = v.lo + v.hi;
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 2) c = b.lo + b.hi;
    return c.lo + c.hi;
}

/* Item g's fold into acc (a new clb_acc_t): its output o and chunk c of the
   rows; items past the end return. Items run chunk by chunk (item g: output
   g % kept_numel of chunk g / kept_numel), so the items in flight read
   neighbouring rows where the outputs interleave in memory (a channel mean:
   image n's channels, then image n + 1's), as one sweep over the input. Each
   row: 128 elements are summed plainly, then Kahan-added into the lanes; len
   is a multiple of 16: one alignment test per row (a test per read cost six
   instructions a read). */
#if CLB_VLOAD_ALIGNED && CLB_IN_DTYPE != 9
#define CLB_ROW_SUM_ANY()                                                                          \
    do {                                                                                           \
        if (CLB_ALIGNED(in + row, 8))                                                              \
            CLB_ROW_SUM(CLB_LD_VEC);                                                               \
        else                                                                                       \
            CLB_ROW_SUM(CLB_LD_ANY);                                                               \
    } while (0)
#else
#define CLB_ROW_SUM_ANY() CLB_ROW_SUM(CLB_LD_ANY)
#endif
#define CLB_ROWS_ITEM(acc)                                                                         \
    const clb_index g = (clb_index)get_global_id(0);                                               \
    const clb_index c = g / kept_numel, o = g - c * kept_numel;                                    \
    if (c >= chunks) return;                                                                       \
    clb_index base = in_offset;                                                                    \
    CLB_OFFSET_OF(o, kept_ndim, CLB_KSHAPE, CLB_KSTRIDE, base);                                    \
    const clb_index len = CLB_RSHAPE(red_ndim - 1);                                                \
    clb_acc8_t s = 0, comp = 0;                                                                    \
    const clb_index q_end = min((c + 1) * chunk, rows);                                            \
    for (clb_index q = c * chunk; q < q_end; ++q) {                                                \
        clb_index row = base;                                                                      \
        CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, row);                              \
        CLB_ROW_SUM_ANY();                                                                         \
    }                                                                                              \
    clb_acc_t acc = clb_hsum8(s) - clb_hsum8(comp)

__kernel void clb_reduce_rows(__global clb_out_t *out, __global const clb_in_t *in,
                              CLB_ARGS_PARAMS(CLB_RED_ARGS_VECS) CLB_TABLE_ARG)
{
    CLB_RED_ARGS(rows, chunks, tile_);
    CLB_ROWS_ITEM(acc);
#if CLB_FINAL
    acc = CLB_MEAN_DIVIDE(acc, param);
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, acc));
#else
    (void)param;
    (void)out_offset;
    out[o * chunks + c] = acc;
#endif
}

#if !CLB_FINAL
/* clb_reduce_rows in one launch where a work-group is a loop on one core
   (PoCL): each item writes its partial out[o * chunks + c] as above, then
   counts itself done; the last of the kept_numel * chunks items folds every
   output's partials (Kahan, in chunk order) into result[out_offset + o]. It
   saves the second launch, which cost the channel mean ~4 % where the cores
   sat idle before the call. The fence before the count publishes the partial;
   the one after orders the last item's reads after it (CPU caches are
   coherent, and the host only takes this kernel on such devices). `done`
   starts at 0. */
__kernel void clb_reduce_rows_last(__global clb_out_t *out, __global const clb_in_t *in,
                                   CLB_ARGS_PARAMS(CLB_RED_ARGS_VECS) CLB_TABLE_ARG,
                                   __global CLB_STORAGE(CLB_OUT_DTYPE) *result,
                                   __global volatile int *done)
{
    CLB_RED_ARGS(rows, chunks, tile_);
    CLB_ROWS_ITEM(acc);
    out[o * chunks + c] = acc;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    if (atomic_inc(done) != (int)(kept_numel * chunks) - 1) return;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    for (clb_index k = 0; k < kept_numel; ++k) {
        clb_acc_t sum = 0, cmp = 0;
        for (clb_index j = 0; j < chunks; ++j)
            CLB_KAHAN_STEP(clb_acc_t, sum, cmp, ((__global volatile clb_acc_t *)out)[k * chunks + j]);
        const clb_acc_t x = CLB_MEAN_DIVIDE(sum - cmp, param);
        CLB_STORE(CLB_OUT_DTYPE, result, out_offset + k, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, x));
    }
}
#endif

/* Leaves the input offset of the current row of the reduced table in `at`, then
   advances the row iterator (q, i, qoff) by one row. */
#define CLB_NEXT_ROW(at)                                                                           \
    do {                                                                                           \
        (at) = base + qoff + i * s_inner;                                                          \
        if (++i == n_inner) {                                                                      \
            i = 0;                                                                                 \
            ++q;                                                                                   \
            qoff = 0;                                                                              \
            CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, qoff);                              \
        }                                                                                          \
    } while (0)

/* Kahan-adds x, eight values, into the local accumulators sum[j..j+8) and
   cmp[j..j+8) (aligned: each item's slice starts at a multiple of 16). */
#define CLB_COL_ACC8(j, x)                                                                         \
    do {                                                                                           \
        __local clb_acc8_t *sp_ = (__local clb_acc8_t *)(sum + (j));                               \
        __local clb_acc8_t *cp_ = (__local clb_acc8_t *)(cmp + (j));                               \
        clb_acc8_t sv_ = *sp_, cv_ = *cp_;                                                         \
        CLB_KAHAN_STEP(clb_acc8_t, sv_, cv_, (x));                                                 \
        *sp_ = sv_;                                                                                \
        *cp_ = cv_;                                                                                \
    } while (0)
/* The eight rows p0..p7 of a block added into the accumulators, read with LD. */
#define CLB_COL_BLOCK8(LD)                                                                         \
    for (clb_index j = 0; j < w; j += 8)                                                           \
        CLB_COL_ACC8(j, ((CLB_LOAD8(LD, in, p0 + j) + CLB_LOAD8(LD, in, p1 + j)) +                 \
                         (CLB_LOAD8(LD, in, p2 + j) + CLB_LOAD8(LD, in, p3 + j))) +                \
                            ((CLB_LOAD8(LD, in, p4 + j) + CLB_LOAD8(LD, in, p5 + j)) +             \
                             (CLB_LOAD8(LD, in, p6 + j) + CLB_LOAD8(LD, in, p7 + j))))

__kernel void clb_reduce_cols(__global clb_out_t *out, __global const clb_in_t *in,
                              CLB_ARGS_PARAMS(CLB_RED_ARGS_VECS),
                              __local clb_acc_t *scratch CLB_TABLE_ARG)
{
    CLB_RED_ARGS(red_numel, chunks, tile);
    /* The contiguous kept extent `cols` splits into tiles of `tile` outputs; item
       (c, a, t) owns tile t of kept row a (the outer kept axes, row-major) and
       band c of the reduced range. It streams whole row segments of its band,
       eight rows at a time (eight sequential streams), and Kahan-adds their
       plain sum into accumulators kept in its slice of the work-group's local
       `scratch` (2 * tile accumulators: sums, then compensations; on a CPU a
       per-thread buffer that stays in cache). */
    const clb_index cols = CLB_KSHAPE(kept_ndim - 1);
    const clb_index tiles = (cols + tile - 1) / tile, owners = kept_numel / cols;
    const clb_index g = (clb_index)get_global_id(0);
    const clb_index c = g / (owners * tiles), rest = g - c * (owners * tiles);
    const clb_index a = rest / tiles, t = rest - a * tiles;
    if (c >= chunks) return;
    const clb_index j0 = t * tile, w = min((clb_index)tile, cols - j0), o = a * cols + j0;
    __local clb_acc_t *sum = scratch + (clb_index)get_local_id(0) * 2 * tile, *cmp = sum + tile;
    clb_index base = in_offset + j0;
    CLB_OFFSET_OF(a * cols, kept_ndim, CLB_KSHAPE, CLB_KSTRIDE, base);
    for (clb_index j = 0; j < w; j += 16) {
        vstore16((clb_acc16_t)0, 0, sum + j);
        vstore16((clb_acc16_t)0, 0, cmp + j);
    }
    const clb_index n_inner = CLB_RSHAPE(red_ndim - 1), s_inner = CLB_RSTRIDE(red_ndim - 1);
    clb_index r = c * chunk;
    const clb_index end = min(r + chunk, red_numel);
    clb_index q = r / n_inner, i = r - q * n_inner, qoff = 0;
    CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, qoff);
    /* One reduced axis (a plain stride between rows) and a band of 64 rows or
       more: the eight rows of a step lie an eighth of the band apart, so each
       of the eight streams walks consecutive rows (one long run where rows are
       contiguous) instead of restarting every row. */
    if (red_ndim == 1 && end - r >= 64) {
        const clb_index gsz = (end - r) / 8, gs = gsz * s_inner;
        for (clb_index k = 0; k < gsz; ++k) {
            const clb_index p0 = base + (r + k) * s_inner, p1 = p0 + gs, p2 = p1 + gs, p3 = p2 + gs,
                            p4 = p3 + gs, p5 = p4 + gs, p6 = p5 + gs, p7 = p6 + gs;
#if CLB_VLOAD_ALIGNED && CLB_IN_DTYPE != 9
            if (CLB_ALIGNED(in + p0, 8) && gs % 8 == 0)
                CLB_COL_BLOCK8(CLB_LD_VEC);
            else
#endif
                CLB_COL_BLOCK8(CLB_LD_ANY);
        }
        r += 8 * gsz;
        i = r; /* the row iterator of the one axis (q stays 0) */
    }
    for (; r + 8 <= end; r += 8) {
        clb_index p0, p1, p2, p3, p4, p5, p6, p7;
        CLB_NEXT_ROW(p0);
        CLB_NEXT_ROW(p1);
        CLB_NEXT_ROW(p2);
        CLB_NEXT_ROW(p3);
        CLB_NEXT_ROW(p4);
        CLB_NEXT_ROW(p5);
        CLB_NEXT_ROW(p6);
        CLB_NEXT_ROW(p7);
        /* Eight lanes a step (256-bit reads for float, as the row kernel),
           plain vector reads where all eight rows start aligned for them. */
#if CLB_VLOAD_ALIGNED && CLB_IN_DTYPE != 9
        if (CLB_ALIGNED(in + p0, 8) && CLB_ALIGNED(in + p1, 8) && CLB_ALIGNED(in + p2, 8) &&
            CLB_ALIGNED(in + p3, 8) && CLB_ALIGNED(in + p4, 8) && CLB_ALIGNED(in + p5, 8) &&
            CLB_ALIGNED(in + p6, 8) && CLB_ALIGNED(in + p7, 8))
            CLB_COL_BLOCK8(CLB_LD_VEC);
        else
#endif
            CLB_COL_BLOCK8(CLB_LD_ANY);
    }
    for (; r < end; ++r) {
        clb_index p0;
        CLB_NEXT_ROW(p0);
        for (clb_index j = 0; j < w; j += 8)
            CLB_COL_ACC8(j, CLB_LOAD8(CLB_LD_ANY, in, p0 + j));
    }
    for (clb_index j = 0; j < w; ++j) {
        clb_acc_t x = sum[j] - cmp[j];
#if CLB_FINAL
        x = CLB_MEAN_DIVIDE(x, param);
        CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o + j, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, x));
#else
        out[c * kept_numel + o + j] = x; /* band-major: the second pass is this kernel */
#endif
    }
#if !CLB_FINAL
    (void)param;
    (void)out_offset;
#endif
}

/* Column sums where work items run across SIMD lanes (llvmpipe, src/opencl/cl_reduce.c
   with tiles of one column): item g folds output o = g % kept over band
   c = g / kept of the reduced range, one scalar Kahan sum, so the lanes of a
   step read neighbouring elements of one row (measured on llvmpipe: 8.7 GB/s,
   against 1.5 with a vector per item and 2.7 with the tiles above). Same
   arguments as clb_reduce_cols; scratch and tile are unused. */
__kernel void clb_reduce_cols_lanes(__global clb_out_t *out, __global const clb_in_t *in,
                                    CLB_ARGS_PARAMS(CLB_RED_ARGS_VECS),
                                    __local clb_acc_t *scratch CLB_TABLE_ARG)
{
    CLB_RED_ARGS(red_numel, chunks, tile);
    (void)scratch, (void)tile;
    const clb_index g = (clb_index)get_global_id(0);
    const clb_index c = g / kept_numel, o = g - c * kept_numel;
    if (c >= chunks) return;
    clb_index base = in_offset;
    CLB_OFFSET_OF(o, kept_ndim, CLB_KSHAPE, CLB_KSTRIDE, base);
    const clb_index n_inner = CLB_RSHAPE(red_ndim - 1), s_inner = CLB_RSTRIDE(red_ndim - 1);
    clb_index r = c * chunk;
    const clb_index end = min(r + chunk, red_numel);
    clb_index q = r / n_inner, i = r - q * n_inner, qoff = 0;
    CLB_OFFSET_OF(q, red_ndim - 1, CLB_RSHAPE, CLB_RSTRIDE, qoff);
    clb_acc_t sum = 0, cmp = 0;
#define CLB_KAHAN1(x) CLB_KAHAN_STEP(clb_acc_t, sum, cmp, x)
    if (red_ndim == 1) { /* one reduced axis (the usual case after coalescing): a plain stride */
        for (clb_index at = base + r * s_inner; r < end; ++r, at += s_inner)
            CLB_KAHAN1(CLB_LOAD_ACC(in, at));
    } else {
        for (; r < end; ++r) {
            clb_index p0;
            CLB_NEXT_ROW(p0);
            CLB_KAHAN1(CLB_LOAD_ACC(in, p0));
        }
    }
#undef CLB_KAHAN1
    clb_acc_t x = sum - cmp;
#if CLB_FINAL
    x = CLB_MEAN_DIVIDE(x, param);
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, x));
#else
    out[c * kept_numel + o] = x; /* band-major, as clb_reduce_cols */
    (void)param;
    (void)out_offset;
#endif
}
#endif /* fast paths */
