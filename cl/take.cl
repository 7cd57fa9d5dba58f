/* numpy.take / take_along_axis as one gather (src/opencl/cl_take.c drives it).
 *
 * The source is C-contiguous (outer, n, inner), the output C-contiguous
 * (outer, m, inner); output row r = (o, j) takes its index k from
 * idx[idx_offset + o * is0 + j * is1 + i * is2] (int64; CLB_IDX_UNSIGNED reads
 * uint64 bits) and copies src[(o, k, :)]. Elements are moved as raw bits of
 * CLB_ELEM_BYTES, so one program serves every dtype of that size (float64
 * needs no cl_khr_fp64 to be copied). An index outside [-n, n) is never used to
 * read: its element is written as zero and *bad set to 1, which the host reads
 * once with the result (a plain store of the same value from many work items is
 * benign). n >= 1 here (the host refuses an empty axis before launching).
 *
 * Two forms:
 *  - CLB_TAKE_RUNS=0 (GPUs, llvmpipe): one output element a work item, so
 *    neighbouring work items read and write neighbouring elements of a row,
 *    which coalesces.
 *  - CLB_TAKE_RUNS=1 (CPU devices that run a work-group as a loop, PoCL): a work
 *    item takes `per` consecutive units, a unit `chunk` elements of one output
 *    row (a whole row unless rows are too few to share out). The first unit is
 *    found by division, the rest by counting on, so a run of one-element rows
 *    (take_along_axis of one index a row) costs no division a row. With one
 *    index a row (CLB_TAKE_ROW, is2 == 0) the index is read and checked once a
 *    unit and the row copied in 16-element vectors, with streaming stores where
 *    the host asks (CLB_TAKE_NT: outputs larger than the cache; a plain store
 *    first reads the line it writes) while the next unit's source row is
 *    prefetched (a random row starts a new stream the prefetchers would first
 *    have to find). With an index an element the check is a select, not a
 *    branch: a bad index reads element 0 of its row and writes zero; the places
 *    of a batch of 16 elements are prefetched a batch ahead of their loads. */

#ifndef CLB_ELEM_BYTES
#define CLB_ELEM_BYTES 4
#endif
#ifndef CLB_IDX_UNSIGNED
#define CLB_IDX_UNSIGNED 0
#endif
#ifndef CLB_TAKE_ROW
#define CLB_TAKE_ROW 0 /* 1: one index per output row (is2 == 0) */
#endif
#ifndef CLB_TAKE_RUNS
#define CLB_TAKE_RUNS 0
#endif
#ifndef CLB_TAKE_NT
#define CLB_TAKE_NT 0
#endif
#ifndef CLB_TAKE_PREFETCH
#define CLB_TAKE_PREFETCH 0
#endif

#if CLB_ELEM_BYTES == 1
typedef uchar elem_t;
typedef uchar16 elemv_t;
#elif CLB_ELEM_BYTES == 2
typedef ushort elem_t;
typedef ushort16 elemv_t;
#elif CLB_ELEM_BYTES == 4
typedef uint elem_t;
typedef uint16 elemv_t;
#else
typedef ulong elem_t;
typedef ulong16 elemv_t;
#endif

/* Prefetches and streaming stores are clang builtins (PoCL compiles with clang);
   the host asks for them only on CPU devices. The prefetch goes to L2 (locality
   2, x86 prefetcht1): 16384 random rows of 4 KiB, PoCL, one run: 63-67 % of the
   copy with it, 43-48 % with locality 0 (prefetchnta), 43 % with 3, 35-40 %
   without any. */
#if CLB_TAKE_RUNS && defined(__has_builtin)
#if CLB_TAKE_PREFETCH && __has_builtin(__builtin_prefetch)
#define CLB_TAKE_PF(p) __builtin_prefetch((p), 0, 2)
#endif
#if CLB_TAKE_NT && __has_builtin(__builtin_nontemporal_store)
#define CLB_TAKE_NT_OK 1
#endif
#endif
#ifndef CLB_TAKE_PF
#define CLB_TAKE_PF(p) ((void)0)
#endif
#ifndef CLB_TAKE_NT_OK
#define CLB_TAKE_NT_OK 0
#endif
/* Streaming stores are weakly ordered: fenced before the work item ends. */
#if CLB_TAKE_NT_OK && __has_builtin(__builtin_ia32_sfence)
#define CLB_TAKE_FENCE() __builtin_ia32_sfence()
#elif CLB_TAKE_NT_OK
#define CLB_TAKE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#else
#define CLB_TAKE_FENCE() ((void)0)
#endif

/* Index value k checked against an axis of n: its place in [0, n), or -1. */
static inline long clb_take_place(long k, long n)
{
#if CLB_IDX_UNSIGNED
    return (ulong)k < (ulong)n ? k : -1;
#else
    const long p = k < 0 ? k + n : k;
    return p >= 0 && p < n ? p : -1;
#endif
}

#if CLB_TAKE_RUNS
/* Copies len elements from sp to dst, prefetching the same span of pf (the next
   unit's source) as it goes. */
static void clb_take_copy(__global elem_t *dst, __global const elem_t *sp,
                          __global const elem_t *pf, long len)
{
    long i = 0;
#if CLB_TAKE_NT_OK
    if (CLB_ALIGNED(dst, 16)) {
        for (; i + 16 <= len; i += 16) {
            CLB_TAKE_PF(pf + i);
#if CLB_ELEM_BYTES == 8
            CLB_TAKE_PF(pf + i + 8);
#endif
            __builtin_nontemporal_store(vload16(0, sp + i), (__global elemv_t *)(dst + i));
        }
    }
#endif
    for (; i + 16 <= len; i += 16) {
        CLB_TAKE_PF(pf + i);
#if CLB_ELEM_BYTES == 8
        CLB_TAKE_PF(pf + i + 8);
#endif
        vstore16(vload16(0, sp + i), 0, dst + i);
    }
    for (; i < len; i++) dst[i] = sp[i];
}
#endif

#if CLB_TAKE_RUNS && CLB_TAKE_ROW
/* Units first..last-1 (CLB_TAKE_RUNS with one index a row); returns whether an
   index was out of range. */
static int clb_take_rows(__global elem_t *out, __global const elem_t *sb,
                         __global const long *ib, long n, long m, long inner, long chunk,
                         long chunks, long is0, long is1, long first, long last)
{
    /* Unit u = (row, c), row = (o, j): found once, then counted on. */
    long row = first / chunks, c = first - row * chunks;
    long o = row / m, j = row - o * m;
    long k = clb_take_place(ib[o * is0 + j * is1], n);
    int flag = 0;
    for (long u = first; u < last; u++) {
        const long i0 = c * chunk, i1 = min(inner, i0 + chunk);
        __global elem_t *dst = out + row * inner;
        long c2 = c + 1, row2 = row, o2 = o, j2 = j; /* the next unit */
        if (c2 == chunks) {
            c2 = 0, row2++, j2++;
            if (j2 == m) j2 = 0, o2++;
        }
        /* The next unit's index is read now, to prefetch its row. */
        long k2 = k;
        if (c2 == 0 && u + 1 < last) k2 = clb_take_place(ib[o2 * is0 + j2 * is1], n);
        const long next_start = (o2 * n + (k2 < 0 ? 0 : k2)) * inner + c2 * chunk;
        if (k < 0) {
            flag = 1;
            for (long i = i0; i < i1; i++) dst[i] = 0;
        } else {
            clb_take_copy(dst + i0, sb + (o * n + k) * inner + i0, sb + next_start, i1 - i0);
        }
        k = k2, c = c2, row = row2, o = o2, j = j2;
    }
    return flag;
}
#endif

#if CLB_TAKE_RUNS && !CLB_TAKE_ROW
/* Output elements first..last-1 (CLB_TAKE_RUNS with an index an element), in
   batches of 16 (random rows of a large source miss every cache, and a loop
   that loads as it goes keeps few misses in flight): a batch's source places
   are found and prefetched one batch ahead of its loads, so that the loads of
   one batch and the prefetches of the next, 32 misses, are in flight at once.
   take_along_axis of one index a row of (16384, 4096) float32, PoCL, 2 cores,
   caches cold: 0.55-0.58 ms a call with the loads alone, 0.28-0.33 ms with the
   prefetches (of which about 0.1 ms is a call's fixed cost); batches of 32:
   no better. */
typedef struct clb_take_batch {
    long at[16];
    bool ok[16];
    int cnt;
} clb_take_batch;

/* The places of elements e..e+cnt-1, prefetched; (o, j, i) counted on. */
static void clb_take_places(clb_take_batch *b, __global const elem_t *sb,
                            __global const long *ib, long n, long m, long inner, long is0,
                            long is1, long is2, long *o, long *j, long *i, int cnt)
{
    b->cnt = cnt;
    for (int t = 0; t < cnt; t++) {
        const long p = clb_take_place(ib[*o * is0 + *j * is1 + *i * is2], n);
        b->ok[t] = p >= 0;
        b->at[t] = (*o * n + (p < 0 ? 0 : p)) * inner + *i;
        CLB_TAKE_PF(sb + b->at[t]);
        if (++*i == inner) {
            *i = 0;
            if (++*j == m) *j = 0, ++*o;
        }
    }
}

static int clb_take_elems(__global elem_t *out, __global const elem_t *sb,
                          __global const long *ib, long n, long m, long inner, long is0,
                          long is1, long is2, long first, long last)
{
    long row = first / inner, i = first - row * inner;
    long o = row / m, j = row - o * m;
    int flag = 0;
    clb_take_batch cur, next;
    clb_take_places(&cur, sb, ib, n, m, inner, is0, is1, is2, &o, &j, &i,
                    (int)min(16L, last - first));
    for (long e = first; e < last; e += 16) {
        if (e + 16 < last)
            clb_take_places(&next, sb, ib, n, m, inner, is0, is1, is2, &o, &j, &i,
                            (int)min(16L, last - e - 16));
        elem_t v[16];
        for (int t = 0; t < cur.cnt; t++) v[t] = sb[cur.at[t]];
        for (int t = 0; t < cur.cnt; t++) {
            flag |= !cur.ok[t];
            out[e + t] = cur.ok[t] ? v[t] : (elem_t)0;
        }
        if (e + 16 < last) cur = next;
    }
    return flag;
}
#endif

CLB_ARGS_PROBE(CLB_TAKE_ARGS_VECS)

__kernel void clb_take(__global elem_t *out, __global const elem_t *src,
                       __global const long *idx, __global int *bad,
                       CLB_ARGS_PARAMS(CLB_TAKE_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_TAKE_ARGS_VECS, a);
    const long n = a[CLB_TAKE_N], m = a[CLB_TAKE_M], inner = a[CLB_TAKE_INNER];
    const long chunk = a[CLB_TAKE_CHUNK], chunks = a[CLB_TAKE_CHUNKS];
    const long is0 = a[CLB_TAKE_IS(0)], is1 = a[CLB_TAKE_IS(1)], is2 = a[CLB_TAKE_IS(2)];
    const long src_offset = a[CLB_TAKE_SRC_OFFSET], idx_offset = a[CLB_TAKE_IDX_OFFSET];
    const long out_offset = a[CLB_TAKE_OUT_OFFSET];
    const long units = a[CLB_TAKE_UNITS], per = a[CLB_TAKE_PER];
#if CLB_TAKE_RUNS
    const long first = (long)get_global_id(0) * per, last = min(units, first + per);
    if (first >= last) return;
#if CLB_TAKE_ROW
    (void)is2;
    const int flag = clb_take_rows(out + out_offset, src + src_offset, idx + idx_offset, n, m,
                                   inner, chunk, chunks, is0, is1, first, last);
#else
    (void)chunk, (void)chunks;
    const int flag = clb_take_elems(out + out_offset, src + src_offset, idx + idx_offset, n, m,
                                    inner, is0, is1, is2, first, last);
#endif
    if (flag) *bad = 1;
    CLB_TAKE_FENCE();
#else
    /* One element a work item. */
    (void)chunk, (void)chunks, (void)per;
    const long u = (long)get_global_id(0);
    if (u >= units) return;
    const long row = u / inner, i = u - row * inner;
    const long o = row / m, j = row - o * m;
    const long p = clb_take_place(idx[idx_offset + o * is0 + j * is1 + i * is2], n);
    if (p < 0) {
        *bad = 1;
        out[out_offset + u] = 0;
    } else {
        out[out_offset + u] = src[src_offset + (o * n + p) * inner + i];
    }
#endif
}
