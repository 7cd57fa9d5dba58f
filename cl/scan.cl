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
                              __global acc_t *totals, long in_offset, long len, long inner,
                              long block, long nb, long ichunks, long count)
{
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
                             __global const acc_t *prefix, long in_offset, long out_offset,
                             long len, long inner, long block, long nb, long ichunks,
                             long has_prefix, long count)
{
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
        CLB_STORE(CLB_OUT_DTYPE, q, l * inner + (k),                                               \
                  CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, CLB_SCAN_VALUE(s[k], c[k])));          \
    } while (0)
    if (cols == CLB_SCAN_COLS) /* a constant trip count: the column loop vectorises */
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < CLB_SCAN_COLS; k++) CLB_SCAN_APPLY_ONE(k);
    else
        for (long l = l0; l < l1; l++)
            for (int k = 0; k < cols; k++) CLB_SCAN_APPLY_ONE(k);
}

/* Rows (inner == 1) of float32 / float64 on CPU devices that loop over a
   work-group (CLB_SCAN_VEC=1, input dtype = accumulator dtype): eight elements
   at a time as one vector. clb_scan_totals_vec sums a block in eight compensated
   lanes; clb_scan_apply_vec forms each vector's own running sums in three
   shift-and-add steps, adds the carry of everything before it, and carries the
   vector's total on in one compensated scalar sum. A single running total
   would wait on its previous value at every element; here that chain is paid
   once per eight. */
#if CLB_SCAN_VEC
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

__kernel void clb_scan_totals_vec(__global const acc_t *in, __global acc_t *totals,
                                  long in_offset, long len, long block, long nb, long count)
{
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

__kernel void clb_scan_apply_vec(__global const acc_t *in, __global acc_t *out,
                                 __global const acc_t *prefix, long in_offset, long out_offset,
                                 long len, long block, long nb, long has_prefix, long count)
{
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long o = g / nb, b = g - o * nb, l0 = b * block, l1 = min(len, l0 + block);
    __global const acc_t *p = in + in_offset + o * len;
    __global acc_t *q = out + out_offset + o * len;
    acc_t s = has_prefix && b > 0 ? prefix[g - 1] : CLB_SCAN_ID, c = 0;
    const accv_t id = (accv_t)CLB_SCAN_ID;
    const maskv_t m1 = (maskv_t)(8, 0, 1, 2, 3, 4, 5, 6), m2 = (maskv_t)(8, 8, 0, 1, 2, 3, 4, 5),
                  m4 = (maskv_t)(8, 8, 8, 8, 0, 1, 2, 3);
    long l = l0;
    for (; l + 8 <= l1; l += 8) {
        accv_t v = vload8(0, p + l);
        v = CLB_VOP(v, shuffle2(v, id, m1));
        v = CLB_VOP(v, shuffle2(v, id, m2));
        v = CLB_VOP(v, shuffle2(v, id, m4));
        const acc_t base = CLB_SCAN_VALUE(s, c);
        vstore8(CLB_VOP((accv_t)base, v), 0, q + l);
#if CLB_SCAN_PROD
        s = base * v.s7;
#else
        CLB_SCAN_STEP(s, c, v.s7);
#endif
    }
    for (; l < l1; l++) {
        CLB_SCAN_STEP(s, c, p[l]);
        q[l] = CLB_SCAN_VALUE(s, c);
    }
}
#endif
