/* Running sums and products (cumsum / cumprod) along the middle axis of a
 * C-contiguous (outer, len, inner) input; src/opencl/cl_scan.c drives it.
 *
 * A blocked scan (reduce, scan the block totals, rescan): the axis is cut into
 * nb blocks of `block` elements. clb_scan_totals gives each (o, block, i) its
 * block's total; the host scans those totals the same way (recursively, in
 * place), and clb_scan_apply rescans each block from the running total of the
 * blocks before it, writing the output. Every work item runs one block in
 * order, so no barrier or local memory is involved and a work item's loop is
 * bounded by the block (loop-limited drivers). Work items next to each other
 * take neighbouring i (coalesced where inner > 1) or neighbouring blocks.
 *
 * Accuracy: integer accumulators (long / ulong) wrap as NumPy's; float sums
 * are compensated (Kahan) within a block and across blocks, so a total's error
 * stays a few units of the last place however long the axis, where a plain
 * running float sum would drift with its length. */

#ifndef CLB_IN_DTYPE
#define CLB_IN_DTYPE 10
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_ACC_DTYPE
#define CLB_ACC_DTYPE 10
#endif
#ifndef CLB_SCAN_COLS
#define CLB_SCAN_COLS 1
#endif
#ifndef CLB_SCAN_VEC
#define CLB_SCAN_VEC 0
#endif
#ifndef CLB_SCAN_PROD
#define CLB_SCAN_PROD 0
#endif

#ifndef CLB_SCAN_NT
#define CLB_SCAN_NT 0
#endif

#if (CLB_IN_DTYPE == 11 || CLB_ACC_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_STORAGE(CLB_ACC_DTYPE) acc_t;
#define CLB_SCAN_FLOAT (CLB_ACC_DTYPE >= 9)
#define CLB_SCAN_KAHAN (CLB_SCAN_FLOAT && !CLB_SCAN_PROD)

#if CLB_SCAN_PROD
#define CLB_SCAN_ID ((acc_t)1)
#else
#define CLB_SCAN_ID ((acc_t)0)
#endif

/* Streaming stores of the output (CLB_SCAN_NT: outputs larger than the cache on
   CPU devices; a plain store first reads the line it writes), for outputs of 4
   or 8 bytes an element: a clang builtin (PoCL compiles with clang). */
#if CLB_SCAN_NT && CLB_OUT_DTYPE != 9 && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CLB_SCAN_NT_OK 1
#endif
#endif
#ifndef CLB_SCAN_NT_OK
#define CLB_SCAN_NT_OK 0
#endif
#if CLB_SCAN_NT_OK && __has_builtin(__builtin_ia32_sfence)
#define CLB_SCAN_FENCE() __builtin_ia32_sfence()
#elif CLB_SCAN_NT_OK
#define CLB_SCAN_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#else
#define CLB_SCAN_FENCE() ((void)0)
#endif
/* Stores the accumulator value v as element `at` of q. */
#if CLB_SCAN_NT_OK
#define CLB_SCAN_PUT(q, at, v)                                                                     \
    __builtin_nontemporal_store(CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, (v)), (q) + (at))
#else
#define CLB_SCAN_PUT(q, at, v) CLB_STORE(CLB_OUT_DTYPE, q, at, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, (v)))
#endif

#define CLB_SCAN_LOAD(p, at) CLB_CONVERT(CLB_ACC_DTYPE, CLB_IN_DTYPE, CLB_LOAD(CLB_IN_DTYPE, p, at))

/* One step of the running total s (with Kahan's correction c for float sums). */
#if CLB_SCAN_PROD
#define CLB_SCAN_STEP(s, c, x) ((s) = (s) * (x))
#elif CLB_SCAN_KAHAN
#define CLB_SCAN_STEP(s, c, x) CLB_KAHAN_STEP(acc_t, s, c, x)
#else
#define CLB_SCAN_STEP(s, c, x) ((s) = (s) + (x))
#endif
/* The running total's value: the sum less its correction (finite sums only). */
#if CLB_SCAN_KAHAN
#define CLB_SCAN_VALUE(s, c) (isfinite((s) - (c)) ? (s) - (c) : (s))
#else
#define CLB_SCAN_VALUE(s, c) (s)
#endif

/* The launch description's values (cl/launch_args.h), from the array `a`;
   every kernel takes the one description. */
#define CLB_SCAN_UNPACK()                                                                          \
    CLB_ARGS_UNPACK(CLB_SCAN_ARGS_VECS, a);                                                        \
    const long in_offset = a[CLB_SCAN_IN_OFFSET], out_offset = a[CLB_SCAN_OUT_OFFSET];             \
    const long len = a[CLB_SCAN_LEN], inner = a[CLB_SCAN_INNER], block = a[CLB_SCAN_BLOCK];        \
    const long nb = a[CLB_SCAN_NB], ichunks = a[CLB_SCAN_ICHUNKS];                                 \
    const long has_prefix = a[CLB_SCAN_HAS_PREFIX], count = a[CLB_SCAN_COUNT];                     \
    (void)in_offset, (void)out_offset, (void)len, (void)inner, (void)block, (void)nb,              \
        (void)ichunks, (void)has_prefix, (void)count

CLB_ARGS_PROBE(CLB_SCAN_ARGS_VECS)

/* Work item g = (o, b, ic) over outer * nb * ichunks: columns i0 .. i0 + CLB_SCAN_COLS
   (within inner) of block b, elements l0 .. l1 along the axis. Several columns a
   work item (CPU devices that loop over a work-group) walk the rows of the block
   in order, each row's run of columns contiguous; one column (GPUs) leaves
   neighbouring columns to neighbouring work items. */
#define CLB_SCAN_UNIT(g, nb, ichunks, len, block, o, b, i0, l0, l1)                               \
    const long ic_ = (g) % (ichunks), t_ = (g) / (ichunks), b = t_ % (nb), o = t_ / (nb);       \
    const long i0 = ic_ * CLB_SCAN_COLS;                                                           \
    const long l0 = b * (block), l1 = min((long)(len), l0 + (block))

__kernel void clb_scan_totals(__global const CLB_STORAGE(CLB_IN_DTYPE) *in,
                              __global acc_t *totals,
                              CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    CLB_SCAN_UNIT(g, nb, ichunks, len, block, o, b, i0, l0, l1);
    const int cols = (int)min((long)CLB_SCAN_COLS, inner - i0);
    __global const CLB_STORAGE(CLB_IN_DTYPE) *p = in + in_offset + o * len * inner + i0;
    acc_t s[CLB_SCAN_COLS], c[CLB_SCAN_COLS];
    for (int k = 0; k < CLB_SCAN_COLS; k++) s[k] = CLB_SCAN_ID, c[k] = 0;
    if (cols == CLB_SCAN_COLS) /* a constant trip count: the column loop vectorises */
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < CLB_SCAN_COLS; k++)
                CLB_SCAN_STEP(s[k], c[k], CLB_SCAN_LOAD(p, l * inner + k));
    else
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < cols; k++) CLB_SCAN_STEP(s[k], c[k], CLB_SCAN_LOAD(p, l * inner + k));
    for (int k = 0; k < cols; k++) totals[(o * nb + b) * inner + i0 + k] = CLB_SCAN_VALUE(s[k], c[k]);
}

/* prefix: the inclusive scan of the block totals (has_prefix 0 for a single
   block). in and out may be one buffer (the totals scanned in place). */
__kernel void clb_scan_apply(__global const CLB_STORAGE(CLB_IN_DTYPE) *in,
                             __global CLB_STORAGE(CLB_OUT_DTYPE) *out,
                             __global const acc_t *prefix,
                             CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    CLB_SCAN_UNIT(g, nb, ichunks, len, block, o, b, i0, l0, l1);
    const int cols = (int)min((long)CLB_SCAN_COLS, inner - i0);
    const long base = o * len * inner + i0;
    __global const CLB_STORAGE(CLB_IN_DTYPE) *p = in + in_offset + base;
    __global CLB_STORAGE(CLB_OUT_DTYPE) *q = out + out_offset + base;
    acc_t s[CLB_SCAN_COLS], c[CLB_SCAN_COLS];
    for (int k = 0; k < CLB_SCAN_COLS; k++) {
        s[k] = has_prefix && b > 0 && k < cols ? prefix[(o * nb + b - 1) * inner + i0 + k]
                                               : CLB_SCAN_ID;
        c[k] = 0;
    }
#define CLB_SCAN_APPLY_ONE(k)                                                                      \
    do {                                                                                           \
        CLB_SCAN_STEP(s[k], c[k], CLB_SCAN_LOAD(p, l * inner + (k)));                              \
        CLB_SCAN_PUT(q, l * inner + (k), CLB_SCAN_VALUE(s[k], c[k]));                              \
    } while (0)
    if (cols == CLB_SCAN_COLS) /* a constant trip count: the column loop vectorises */
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < CLB_SCAN_COLS; k++) CLB_SCAN_APPLY_ONE(k);
    else
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < cols; k++) CLB_SCAN_APPLY_ONE(k);
    CLB_SCAN_FENCE();
}

/* Rows (inner == 1) of float32 / float64 on CPU devices that loop over a
   work-group (CLB_SCAN_VEC=1, input dtype = accumulator dtype): eight elements
   at a time as one vector. clb_scan_totals_vec sums a block in eight compensated
   lanes; clb_scan_apply_vec forms each vector's own running sums in three
   shift-and-add steps, adds the carry of everything before it, and carries the
   vector's total on in one compensated scalar sum. A single running total
   would wait on its previous value at every element; here that chain is paid
   once per eight. */
#if CLB_SCAN_VEC == 1
typedef CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 8) accv_t;
#if CLB_ACC_DTYPE == 11
typedef ulong8 maskv_t;
#else
typedef uint8 maskv_t;
#endif
#if CLB_SCAN_PROD
#define CLB_VOP(a, b) ((a) * (b))
#else
#define CLB_VOP(a, b) ((a) + (b))
#endif

__kernel void clb_scan_totals_vec(__global const acc_t *in,
                                  __global acc_t *totals,
                                  CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / nb, b = g - o * nb, l0 = b * block, l1 = min(len, l0 + block);
    __global const acc_t *p = in + in_offset + o * len;
    accv_t s = (accv_t)CLB_SCAN_ID, c = (accv_t)0;
    long l = l0;
#if CLB_SCAN_KAHAN
    for (; l + 8 <= l1; l += 8) CLB_KAHAN_STEP(accv_t, s, c, vload8(0, p + l));
#else
    for (; l + 8 <= l1; l += 8) s = CLB_VOP(s, vload8(0, p + l));
#endif
    acc_t t = CLB_SCAN_ID, tc = 0;
    for (; l < l1; l++) CLB_SCAN_STEP(t, tc, p[l]);
#if CLB_SCAN_KAHAN
    const accv_t v = s - c;
#else
    const accv_t v = s;
#endif
    for (int k = 0; k < 8; k++) CLB_SCAN_STEP(t, tc, v[k]);
    totals[g] = CLB_SCAN_VALUE(t, tc);
}

__kernel void clb_scan_apply_vec(__global const acc_t *in,
                                 __global acc_t *out,
                                 __global const acc_t *prefix,
                                 CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / nb, b = g - o * nb, l0 = b * block, l1 = min(len, l0 + block);
    __global const acc_t *p = in + in_offset + o * len;
    __global acc_t *q = out + out_offset + o * len;
    acc_t s = has_prefix && b > 0 ? prefix[g - 1] : CLB_SCAN_ID, c = 0;
    const accv_t id = (accv_t)CLB_SCAN_ID;
    const maskv_t m1 = (maskv_t)(8, 0, 1, 2, 3, 4, 5, 6), m2 = (maskv_t)(8, 8, 0, 1, 2, 3, 4, 5),
                  m4 = (maskv_t)(8, 8, 8, 8, 0, 1, 2, 3);
#define CLB_SCAN_V8(v)                                                                             \
    do {                                                                                           \
        (v) = CLB_VOP((v), shuffle2((v), id, m1));                                                 \
        (v) = CLB_VOP((v), shuffle2((v), id, m2));                                                 \
        (v) = CLB_VOP((v), shuffle2((v), id, m4));                                                 \
    } while (0)
#if CLB_SCAN_NT_OK
#define CLB_SCAN_PUT8(v, at)                                                                       \
    do {                                                                                           \
        if (CLB_ALIGNED(q + (at), 8))                                                              \
            __builtin_nontemporal_store((v), (__global accv_t *)(q + (at)));                        \
        else                                                                                       \
            vstore8((v), 0, q + (at));                                                             \
    } while (0)
#else
#define CLB_SCAN_PUT8(v, at) vstore8((v), 0, q + (at))
#endif
#if CLB_SCAN_PROD
#define CLB_SCAN_CARRY(x) (s = base * (x))
#else
#define CLB_SCAN_CARRY(x) CLB_SCAN_STEP(s, c, (x))
#endif
    long l = l0;
    /* Four vectors a step: each one's running sums, then the later ones carried
       from the earlier ones' last lanes (off the running total's chain), so the
       compensated total waits on itself once per 32 elements, not per 8. */
    for (; l + 32 <= l1; l += 32) {
        accv_t v0 = vload8(0, p + l), v1 = vload8(1, p + l), v2 = vload8(2, p + l),
               v3 = vload8(3, p + l);
        CLB_SCAN_V8(v0);
        CLB_SCAN_V8(v1);
        CLB_SCAN_V8(v2);
        CLB_SCAN_V8(v3);
        v1 = CLB_VOP(v1, (accv_t)v0.s7);
        v2 = CLB_VOP(v2, (accv_t)v1.s7);
        v3 = CLB_VOP(v3, (accv_t)v2.s7);
        const acc_t base = CLB_SCAN_VALUE(s, c);
        const accv_t bv = (accv_t)base;
        CLB_SCAN_PUT8(CLB_VOP(bv, v0), l);
        CLB_SCAN_PUT8(CLB_VOP(bv, v1), l + 8);
        CLB_SCAN_PUT8(CLB_VOP(bv, v2), l + 16);
        CLB_SCAN_PUT8(CLB_VOP(bv, v3), l + 24);
        CLB_SCAN_CARRY(v3.s7);
    }
    for (; l + 8 <= l1; l += 8) {
        accv_t v = vload8(0, p + l);
        CLB_SCAN_V8(v);
        const acc_t base = CLB_SCAN_VALUE(s, c);
        CLB_SCAN_PUT8(CLB_VOP((accv_t)base, v), l);
        CLB_SCAN_CARRY(v.s7);
    }
    for (; l < l1; l++) {
        CLB_SCAN_STEP(s, c, p[l]);
        q[l] = CLB_SCAN_VALUE(s, c);
    }
    CLB_SCAN_FENCE();
}
#endif

/* Columns (inner > 1) of float32 / float64 on CPU devices that loop over a
 * work-group (CLB_SCAN_VEC=2, input dtype = accumulator dtype): the blocked scan
 * above, with each work item's block a run of whole rows (o, l0..l1, :), which
 * is one contiguous stretch of memory, read eight rows at a time side by side as
 * vectors of 16. The running totals of a row's columns live in scratch (two
 * rows' worth a work item: sums and compensations), which stays in the core's
 * cache.
 * clb_scan_tile_sums writes each block's column totals; the host scans them
 * (outer, nb, inner) with the same forms; clb_scan_tile_apply rescans each
 * block from the totals before it. Memory sees two reads and one write of every
 * element (a copy: one and one); walking a block a run of columns at a time
 * instead, as the element loops do, read each row's pieces at a stride and ran
 * at a third of the copy's rate.
 * Where the columns are many (wide rows or many outer indices),
 * clb_scan_strips below reads once instead.
 * A single pass that chains blocks by ticket (each work item waiting for the
 * prefix of the block before) read once, but on a loaded machine a waiting work
 * item spun while the one it waited for was not scheduled: (16384, 4096)
 * float32 along axis 0 took 3.6 s there. */
#if CLB_SCAN_VEC == 2
typedef CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 16) accw_t;
#if CLB_SCAN_PROD
#define CLB_SCAN_WSTEP(s, c, x) ((s) = (s) * (x))
#elif CLB_SCAN_KAHAN
#define CLB_SCAN_WSTEP(s, c, x) CLB_KAHAN_STEP(accw_t, s, c, x)
#else
#define CLB_SCAN_WSTEP(s, c, x) ((s) = (s) + (x))
#endif
#if CLB_SCAN_KAHAN
#define CLB_SCAN_WVALUE(s, c) select((s), (s) - (c), isfinite((s) - (c)))
#else
#define CLB_SCAN_WVALUE(s, c) (s)
#endif
/* Whole-vector loads and stores where aligned: PoCL 3.1 builds vload16 from
   two-element pieces (cl/common.cl, CLB_VLOAD_A). */
#define CLB_SCAN_LD16(p) (CLB_ALIGNED(p, 16) ? *(__global const accw_t *)(p) : vload16(0, p))
#define CLB_SCAN_ST16(v, p)                                                                        \
    do {                                                                                           \
        if (CLB_ALIGNED(p, 16))                                                                    \
            *(__global accw_t *)(p) = (v);                                                         \
        else                                                                                       \
            vstore16((v), 0, (p));                                                                 \
    } while (0)

#if CLB_SCAN_NT_OK
#define CLB_SCAN_PUT16(v, w)                                                                       \
    do {                                                                                           \
        if (CLB_ALIGNED(w, 16))                                                                    \
            __builtin_nontemporal_store((v), (__global accw_t *)(w));                              \
        else                                                                                       \
            vstore16((v), 0, (w));                                                                 \
    } while (0)
#else
#define CLB_SCAN_PUT16(v, w) CLB_SCAN_ST16(v, w)
#endif
#if CLB_SCAN_PROD
#define CLB_SCAN_WOP(a, b) ((a) * (b))
#else
#define CLB_SCAN_WOP(a, b) ((a) + (b))
#endif
/* Steps the running totals (ws, wc) of `width` columns by the n (1..8) rows of
   them at r, row j at r + j * stride; with q, stores the running totals of
   each row at q + j * stride. The batch's own running totals t are plain sums
   of at most n terms; each output is the total before the batch combined with
   t, and the total takes one compensated step by t a batch: per element one
   add for t and one for the output, where a compensated step an element (four
   dependent operations, and the select of its value) held a core below the
   memory's rate. The totals are loaded and stored once a batch, for the n rows
   read side by side ((16384, 4096) float32, PoCL, the rescan alone: 30-50 ms a
   row at a time, 18-24 ms four rows, 17 ms eight; a copy 13-15 ms in the same
   minute), four vectors of 16 columns at a time (one alone left the core
   waiting on its chain: the single pass below at 59 % of the copy, four 74 %,
   one run). */
#define CLB_SCAN_BROW16(t, base, k)                                                                \
    do {                                                                                           \
        (t) = CLB_SCAN_WOP((t), CLB_SCAN_LD16(r + j * stride + (k)));                              \
        if (q) CLB_SCAN_PUT16(CLB_SCAN_WOP((base), (t)), q + j * stride + (k));                    \
    } while (0)
static void clb_scan_rows(__global acc_t *ws, __global acc_t *wc, __global const acc_t *r,
                          __global acc_t *q, long stride, long width, int n)
{
    long k = 0;
    const accw_t id = (accw_t)CLB_SCAN_ID;
    for (; k + 64 <= width; k += 64) {
        accw_t s0 = CLB_SCAN_LD16(ws + k), s1 = CLB_SCAN_LD16(ws + k + 16),
               s2 = CLB_SCAN_LD16(ws + k + 32), s3 = CLB_SCAN_LD16(ws + k + 48);
        accw_t c0 = CLB_SCAN_LD16(wc + k), c1 = CLB_SCAN_LD16(wc + k + 16),
               c2 = CLB_SCAN_LD16(wc + k + 32), c3 = CLB_SCAN_LD16(wc + k + 48);
        const accw_t b0 = CLB_SCAN_WVALUE(s0, c0), b1 = CLB_SCAN_WVALUE(s1, c1),
                     b2 = CLB_SCAN_WVALUE(s2, c2), b3 = CLB_SCAN_WVALUE(s3, c3);
        accw_t t0 = id, t1 = id, t2 = id, t3 = id;
        for (int j = 0; j < n; j++) {
            CLB_SCAN_BROW16(t0, b0, k);
            CLB_SCAN_BROW16(t1, b1, k + 16);
            CLB_SCAN_BROW16(t2, b2, k + 32);
            CLB_SCAN_BROW16(t3, b3, k + 48);
        }
        CLB_SCAN_WSTEP(s0, c0, t0);
        CLB_SCAN_WSTEP(s1, c1, t1);
        CLB_SCAN_WSTEP(s2, c2, t2);
        CLB_SCAN_WSTEP(s3, c3, t3);
        CLB_SCAN_ST16(s0, ws + k);
        CLB_SCAN_ST16(s1, ws + k + 16);
        CLB_SCAN_ST16(s2, ws + k + 32);
        CLB_SCAN_ST16(s3, ws + k + 48);
        CLB_SCAN_ST16(c0, wc + k);
        CLB_SCAN_ST16(c1, wc + k + 16);
        CLB_SCAN_ST16(c2, wc + k + 32);
        CLB_SCAN_ST16(c3, wc + k + 48);
    }
    for (; k + 16 <= width; k += 16) {
        accw_t s = CLB_SCAN_LD16(ws + k), c = CLB_SCAN_LD16(wc + k), t = id;
        const accw_t b = CLB_SCAN_WVALUE(s, c);
        for (int j = 0; j < n; j++) CLB_SCAN_BROW16(t, b, k);
        CLB_SCAN_WSTEP(s, c, t);
        CLB_SCAN_ST16(s, ws + k);
        CLB_SCAN_ST16(c, wc + k);
    }
    for (; k < width; k++) {
        acc_t s = ws[k], c = wc[k], t = CLB_SCAN_ID;
        const acc_t b = CLB_SCAN_VALUE(s, c);
        for (int j = 0; j < n; j++) {
            t = CLB_SCAN_WOP(t, r[j * stride + k]);
            if (q) q[j * stride + k] = CLB_SCAN_WOP(b, t);
        }
        CLB_SCAN_STEP(s, c, t);
        ws[k] = s, wc[k] = c;
    }
}

/* Work item g = (o, b): rows l0..l1 of outer index o; ws, wc: its 2 * inner
   scratch. */
__kernel void clb_scan_tile_sums(__global const acc_t *in,
                                 __global acc_t *totals,
                                 __global acc_t *scratch,
                                 CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / nb, b = g - o * nb, l0 = b * block, l1 = min(len, l0 + block);
    __global const acc_t *p = in + in_offset + o * len * inner;
    __global acc_t *ws = scratch + g * 2 * inner, *wc = ws + inner;
    for (long k = 0; k < inner; k++) ws[k] = CLB_SCAN_ID, wc[k] = 0;
    for (long l = l0; l < l1; l += 8)
        clb_scan_rows(ws, wc, p + l * inner, 0, inner, inner, (int)min(8L, l1 - l));
    __global acc_t *t = totals + g * inner;
    for (long k = 0; k < inner; k++) t[k] = CLB_SCAN_VALUE(ws[k], wc[k]);
}

/* prefix: the inclusive scan of the block totals (has_prefix 0: one block). */
__kernel void clb_scan_tile_apply(__global const acc_t *in,
                                  __global acc_t *out,
                                  __global const acc_t *prefix,
                                  __global acc_t *scratch,
                                  CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / nb, b = g - o * nb, l0 = b * block, l1 = min(len, l0 + block);
    __global const acc_t *p = in + in_offset + o * len * inner;
    __global acc_t *q = out + out_offset + o * len * inner;
    __global acc_t *ws = scratch + g * 2 * inner, *wc = ws + inner;
    const bool from = has_prefix && b > 0;
    for (long k = 0; k < inner; k++) ws[k] = from ? prefix[(g - 1) * inner + k] : CLB_SCAN_ID, wc[k] = 0;
    for (long l = l0; l < l1; l += 8)
        clb_scan_rows(ws, wc, p + l * inner, q + l * inner, inner, inner,
                      (int)min(8L, l1 - l));
    CLB_SCAN_FENCE();
}

/* The single pass, where the columns alone give the device enough work
   (cl_scan.c, strip_width): work item g = (o, ic) owns the run of `block`
   columns ic * block .. (fewer in the last run) of outer index o and walks all
   len rows, eight at a time, reading and writing each element once; each row's
   piece of the run is contiguous (runs of 4-8 KiB: 1 KiB pieces ran at half the
   rate). ws, wc: its 2 * block scratch, which stays in the core's cache. The
   running totals are compensated over the whole axis. */
__kernel void clb_scan_strips(__global const acc_t *in,
                              __global acc_t *out,
                              __global acc_t *scratch,
                              CLB_ARGS_PARAMS(CLB_SCAN_ARGS_VECS))
{
    CLB_SCAN_UNPACK();
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / ichunks, k0 = (g - o * ichunks) * block, width = min(block, inner - k0);
    __global const acc_t *p = in + in_offset + o * len * inner + k0;
    __global acc_t *q = out + out_offset + o * len * inner + k0;
    __global acc_t *ws = scratch + g * 2 * block, *wc = ws + block;
    for (long k = 0; k < width; k++) ws[k] = CLB_SCAN_ID, wc[k] = 0;
    for (long l = 0; l < len; l += 8)
        clb_scan_rows(ws, wc, p + l * inner, q + l * inner, inner, width, (int)min(8L, len - l));
    CLB_SCAN_FENCE();
}
#endif
