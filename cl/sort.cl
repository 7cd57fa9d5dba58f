/* Stable sort of the rows of a C-contiguous (rows, len) input
 * (src/opencl/cl_sort.c drives it): a merge sort whose first passes run in
 * local memory.
 *
 * Every element becomes a (key, index) pair: the key is the value's bits made
 * an unsigned integer in sort order (floats: -0.0 as 0.0, every NaN above
 * +inf; signed integers: the sign bit flipped), inverted for a descending
 * sort; the index is the element's position in its row. Pairs compare by key,
 * then index, so every pair is distinct and any correct sorting network or
 * merge gives the one stable order: equal values keep their order, ascending
 * and descending alike.
 *
 * clb_sort_tile: one work-group per tile of `tile` (a power of two) elements
 * of a row sorts its pairs with a bitonic network in local memory (padding
 * pairs sort last and are never written). Bitonic because its compare-exchange
 * pattern is fixed, so every work item of a group does the same work between
 * barriers (no divergence on a GPU), and it needs no scratch beyond the tile.
 * With one tile a row (direct) it writes the results.
 * clb_sort_merge: each pass merges neighbouring sorted runs of `width` pairs:
 * one work item per pair finds its rank in the partner run by binary search
 * (merge path by ranks), so a pass is one launch over every element with no
 * synchronisation, and rows longer than local memory need log2(len / tile)
 * passes. clb_sort_finish writes the values (gathered from the input by index:
 * -0.0 and NaN payloads come out as they went in) and the int64 indices. */

#ifndef CLB_IN_DTYPE
#define CLB_IN_DTYPE 10
#endif
#ifndef CLB_DESCENDING
#define CLB_DESCENDING 0
#endif

#if CLB_IN_DTYPE == 7 || CLB_IN_DTYPE == 8 || CLB_IN_DTYPE == 11
typedef ulong key_t;
#define CLB_KEY_BYTES 8
#define CLB_KEY_MAX ULONG_MAX
#define CLB_SIGN_BIT 0x8000000000000000UL
#else
typedef uint key_t;
#define CLB_KEY_BYTES 4
#define CLB_KEY_MAX UINT_MAX
#define CLB_SIGN_BIT 0x80000000U
#endif

/* Raw element type (values are moved as bits). */
#if CLB_IN_DTYPE == 0 || CLB_IN_DTYPE == 1 || CLB_IN_DTYPE == 2
typedef uchar elem_t;
#elif CLB_IN_DTYPE == 3 || CLB_IN_DTYPE == 4 || CLB_IN_DTYPE == 9
typedef ushort elem_t;
#elif CLB_IN_DTYPE == 5 || CLB_IN_DTYPE == 6 || CLB_IN_DTYPE == 10
typedef uint elem_t;
#else
typedef ulong elem_t;
#endif

/* The key of the element stored as bits e. */
static key_t clb_sort_key(elem_t e)
{
    key_t k;
#if CLB_IN_DTYPE == 9 || CLB_IN_DTYPE == 10 || CLB_IN_DTYPE == 11
#if CLB_IN_DTYPE == 9
    const ushort h = e;
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    /* A half's bits are ordered as a float's: the same sign-magnitude rule. */
    const uint u = (h & 0x7fff) == 0 ? 0u : (uint)h << 16;
#else
    const bool nan = CLB_IN_DTYPE == 10 ? isnan(as_float((uint)e)) : false;
    const key_t u0 = (key_t)e;
    const key_t u = (u0 << 1) == 0 ? (key_t)0 : u0; /* -0.0 as 0.0 */
#endif
#if CLB_IN_DTYPE == 11
    const bool isnan64 = ((e >> 52) & 0x7ff) == 0x7ff && (e & 0xfffffffffffffUL) != 0;
    k = isnan64 ? CLB_KEY_MAX : (u & CLB_SIGN_BIT) ? ~u : (u | CLB_SIGN_BIT);
#else
    k = nan ? CLB_KEY_MAX : (u & CLB_SIGN_BIT) ? ~u : (u | CLB_SIGN_BIT);
#endif
#elif CLB_IN_DTYPE == 1
    k = (key_t)(int)(char)e ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 3
    k = (key_t)(int)(short)e ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 5 || CLB_IN_DTYPE == 7
    k = (key_t)e ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 0
    k = e != 0;
#else
    k = (key_t)e;
#endif
#if CLB_DESCENDING
    k = ~k;
#endif
    return k;
}

CLB_ARGS_PROBE(CLB_SORT_ARGS_VECS)

/* Whether pair (ka, ia) sorts before (kb, ib). */
#define CLB_PAIR_LESS(ka, ia, kb, ib) ((ka) < (kb) || ((ka) == (kb) && (ia) < (ib)))

__kernel void clb_sort_tile(__global const elem_t *in, __global key_t *keys, __global uint *idx,
                            __global elem_t *values, __global long *indices, __local key_t *lk,
                            __local uint *li, CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    const long in_offset = a[CLB_SORT_IN_OFFSET], values_offset = a[CLB_SORT_VALUES_OFFSET],
        indices_offset = a[CLB_SORT_INDICES_OFFSET], len = a[CLB_SORT_LEN], tile = a[CLB_SORT_TILE],
        tiles = a[CLB_SORT_TILES], direct = a[CLB_SORT_DIRECT];
    const long g = (long)(get_global_id(0) / get_local_size(0)), row = g / tiles, base = (g - row * tiles) * tile;
    const int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
    __global const elem_t *src = in + in_offset + row * len;
    for (int p = lid; p < tile; p += lsz) {
        const long j = base + p;
        lk[p] = j < len ? clb_sort_key(src[j]) : CLB_KEY_MAX;
        li[p] = j < len ? (uint)j : UINT_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int size = 2; size <= tile; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int t = lid; t < tile / 2; t += lsz) {
                const int a = 2 * t - (t & (stride - 1)), b = a + stride;
                const bool up = (a & size) == 0;
                const key_t ka = lk[a], kb = lk[b];
                const uint ia = li[a], ib = li[b];
                if (CLB_PAIR_LESS(kb, ib, ka, ia) == up) {
                    lk[a] = kb;
                    lk[b] = ka;
                    li[a] = ib;
                    li[b] = ia;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (int p = lid; p < tile; p += lsz) {
        const long j = base + p;
        if (j >= len) continue;
        if (direct) {
            if (values_offset >= 0) values[values_offset + row * len + j] = src[li[p]];
            if (indices_offset >= 0) indices[indices_offset + row * len + j] = (long)li[p];
        } else {
            keys[row * len + j] = lk[p];
            idx[row * len + j] = li[p];
        }
    }
}

__kernel void clb_sort_merge(__global const key_t *kin, __global const uint *iin,
                             __global key_t *kout, __global uint *iout,
                             CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    const long len = a[CLB_SORT_LEN], width = a[CLB_SORT_WIDTH], count = a[CLB_SORT_COUNT];
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long row = g / len, p = g - row * len, b = p / width, start = b * width;
    const long pstart = (b ^ 1) * width;
    const key_t k = kin[g];
    const uint i = iin[g];
    __global key_t *ko = kout + row * len;
    __global uint *io = iout + row * len;
    if (pstart >= len) {
        ko[p] = k;
        io[p] = i;
        return;
    }
    __global const key_t *pk = kin + row * len + pstart;
    __global const uint *pi = iin + row * len + pstart;
    long lo = 0, hi = min(width, len - pstart);
    while (lo < hi) {
        const long mid = (lo + hi) >> 1;
        if (CLB_PAIR_LESS(pk[mid], pi[mid], k, i))
            lo = mid + 1;
        else
            hi = mid;
    }
    const long at = min(start, pstart) + (p - start) + lo;
    ko[at] = k;
    io[at] = i;
}

__kernel void clb_sort_finish(__global const elem_t *in, __global const uint *idx,
                              __global elem_t *values, __global long *indices,
                              CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    const long in_offset = a[CLB_SORT_IN_OFFSET], values_offset = a[CLB_SORT_VALUES_OFFSET],
        indices_offset = a[CLB_SORT_INDICES_OFFSET], len = a[CLB_SORT_LEN],
        count = a[CLB_SORT_COUNT];
    const long g = (long)get_global_id(0);
    if (g >= count) return;
    const long row = g / len;
    const uint i = idx[g];
    if (values_offset >= 0) values[values_offset + g] = in[in_offset + row * len + i];
    if (indices_offset >= 0) indices[indices_offset + g] = (long)i;
}

/* torch.topk's k smallest pairs of each row (k <= CLB_TOPK_MAX; largest is the
   descending key), one work item a row: the row is scanned in order keeping a
   sorted list of the best k (key, index) pairs in private memory; an element
   enters only if its key is below the list's last (an equal key has the higher
   index and stays out), so the insertion cost is paid by few elements on most
   data. clb_topk_rows tests each element alone (the form for devices that run
   work items across SIMD lanes); clb_topk_rows_vec, for devices that run a
   work-group as a loop (PoCL), tests 16 elements at a time with one vector
   compare of their keys against the list's last and looks at them one by one
   only when one of them enters: on most of a long row the scan costs a vector
   load, the keys' few vector operations and one branch per 16 elements. */
#ifndef CLB_TOPK_MAX
#define CLB_TOPK_MAX 64
#endif

/* Puts (key, j) into the sorted list bk / bi of *n <= kk pairs if it belongs
   among the best kk (the list full: key below its last). */
static void clb_topk_insert(key_t *bk, uint *bi, int *n, int kk, key_t key, uint j)
{
    if (*n == kk && key >= bk[kk - 1]) return;
    int p = *n < kk ? (*n)++ : kk - 1;
    while (p > 0 && bk[p - 1] > key) {
        bk[p] = bk[p - 1];
        bi[p] = bi[p - 1];
        p--;
    }
    bk[p] = key;
    bi[p] = j;
}

/* The list's k pairs as row g of the outputs (an offset -1: not written); an
   index is its position in src, or what cand (0: none) holds there. */
static void clb_topk_write(__global const elem_t *src, __global elem_t *values,
                           __global long *indices, long values_offset, long indices_offset,
                           long k, long g, const uint *bi, __global const long *cand)
{
    for (int t = 0; t < (int)k; t++) {
        if (values_offset >= 0) values[values_offset + g * k + t] = src[bi[t]];
        if (indices_offset >= 0)
            indices[indices_offset + g * k + t] = cand ? cand[bi[t]] : (long)bi[t];
    }
}

static void clb_topk_row(__global const elem_t *in, __global elem_t *values,
                         __global long *indices, long in_offset, long values_offset,
                         long indices_offset, long len, long k, long g)
{
    key_t bk[CLB_TOPK_MAX];
    uint bi[CLB_TOPK_MAX];
    int n = 0;
    __global const elem_t *src = in + in_offset + g * len;
    for (long j = 0; j < len; j++) clb_topk_insert(bk, bi, &n, (int)k, clb_sort_key(src[j]), (uint)j);
    clb_topk_write(src, values, indices, values_offset, indices_offset, k, g, bi, 0);
}

/* 16 keys at once: clb_sort_key of each lane of e. */
#if CLB_KEY_BYTES == 8
typedef ulong16 key16_t;
#else
typedef uint16 key16_t;
#endif
#if CLB_IN_DTYPE == 0 || CLB_IN_DTYPE == 1 || CLB_IN_DTYPE == 2
typedef uchar16 elem16_t;
#elif CLB_IN_DTYPE == 3 || CLB_IN_DTYPE == 4 || CLB_IN_DTYPE == 9
typedef ushort16 elem16_t;
#elif CLB_IN_DTYPE == 5 || CLB_IN_DTYPE == 6 || CLB_IN_DTYPE == 10
typedef uint16 elem16_t;
#else
typedef ulong16 elem16_t;
#endif
static key16_t clb_sort_key16(elem16_t e)
{
    key16_t k;
#if CLB_IN_DTYPE == 9
    const uint16 h = convert_uint16(e);
    const int16 nan = ((h & 0x7c00u) == 0x7c00u) & ((h & 0x03ffu) != 0u);
    const uint16 u = (h & 0x7fffu) == 0u ? (uint16)0u : h << 16;
    k = nan ? (uint16)UINT_MAX : (u & CLB_SIGN_BIT) != 0u ? ~u : (u | CLB_SIGN_BIT);
#elif CLB_IN_DTYPE == 10
    const int16 nan = (e & 0x7fffffffu) > 0x7f800000u;
    const uint16 u = (e << 1) == 0u ? (uint16)0u : e; /* -0.0 as 0.0 */
    k = nan ? (uint16)UINT_MAX : (u & CLB_SIGN_BIT) != 0u ? ~u : (u | CLB_SIGN_BIT);
#elif CLB_IN_DTYPE == 11
    const long16 nan = (e & 0x7fffffffffffffffUL) > 0x7ff0000000000000UL;
    const ulong16 u = (e << 1) == 0UL ? (ulong16)0UL : e;
    k = nan ? (ulong16)ULONG_MAX : (u & CLB_SIGN_BIT) != 0UL ? ~u : (u | CLB_SIGN_BIT);
#elif CLB_IN_DTYPE == 1
    k = as_uint16(convert_int16(as_char16(e))) ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 3
    k = as_uint16(convert_int16(as_short16(e))) ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 5 || CLB_IN_DTYPE == 7
    k = e ^ CLB_SIGN_BIT;
#elif CLB_IN_DTYPE == 0
    k = convert_uint16(min(e, (uchar16)1));
#elif CLB_KEY_BYTES == 8
    k = e;
#else
    k = convert_uint16(e);
#endif
#if CLB_DESCENDING
    k = ~k;
#endif
    return k;
}

#if CLB_KEY_BYTES == 8
typedef ulong8 key8_t;
typedef ulong4 key4_t;
typedef ulong2 key2_t;
#else
typedef uint8 key8_t;
typedef uint4 key4_t;
typedef uint2 key2_t;
#endif
/* The least and the greatest of 16 keys (halves folded: a few shuffles, where
   any() of a compare is a chain of branches on PoCL). */
static key_t clb_key16_min(key16_t v)
{
    const key8_t m8 = min(v.lo, v.hi);
    const key4_t m4 = min(m8.lo, m8.hi);
    const key2_t m2 = min(m4.lo, m4.hi);
    return min(m2.x, m2.y);
}
static key_t clb_key16_max(key16_t v)
{
    const key8_t m8 = max(v.lo, v.hi);
    const key4_t m4 = max(m8.lo, m8.hi);
    const key2_t m2 = max(m4.lo, m4.hi);
    return max(m2.x, m2.y);
}

/* The greatest key that may still enter the list: any while it fills, then
   below its last; never above bound. *stop: nothing can enter any more. */
static key_t clb_topk_limit(const key_t *bk, int n, int kk, key_t bound, bool *stop)
{
    *stop = n == kk && bk[kk - 1] == 0;
    return n < kk || *stop ? bound : min(bound, (key_t)(bk[kk - 1] - 1));
}

/* The vector form. First a pass over the row's 16-element chunks keeps each
   lane's least key; for k <= 16 the greatest of these 16 keys of distinct
   elements is at least the k-th least key of the row, so no element above it
   can be among the best k: a bound that keeps most of the row's start (where
   the list is still filling and takes everything) from the insertion, at the
   cost of a scan of the keys alone (the row is then in cache for the second
   pass). Then the second pass tests each chunk's least key against the limit
   and inserts the chunk's elements in order where it passes. */
/* The scan of places start..end-1 of src (at least kk of them) into the list
   bk / bi of kk pairs. */
static void clb_topk_scan_vec(__global const elem_t *src, long start, long end, int kk,
                              key_t *bk, uint *bi)
{
    int n = 0;
    key_t bound = CLB_KEY_MAX;
    if (kk <= 16 && end - start >= 16) {
        key16_t m = (key16_t)CLB_KEY_MAX;
        for (long j = start; j + 16 <= end; j += 16) m = min(m, clb_sort_key16(vload16(0, src + j)));
        bound = clb_key16_max(m);
    }
    bool stop = false;
    key_t lim = clb_topk_limit(bk, n, kk, bound, &stop);
    long j = start;
    for (; j + 16 <= end && !stop; j += 16) {
        const key16_t kv = clb_sort_key16(vload16(0, src + j));
        if (clb_key16_min(kv) > lim) continue;
        key_t ks[16];
        vstore16(kv, 0, ks);
        for (int t = 0; t < 16; t++) {
            if (ks[t] > lim) continue;
            clb_topk_insert(bk, bi, &n, kk, ks[t], (uint)(j + t));
            lim = clb_topk_limit(bk, n, kk, bound, &stop);
        }
    }
    for (; j < end && !stop; j++) {
        const key_t key = clb_sort_key(src[j]);
        if (key > lim) continue;
        clb_topk_insert(bk, bi, &n, kk, key, (uint)j);
        lim = clb_topk_limit(bk, n, kk, bound, &stop);
    }
}

static void clb_topk_row_vec(__global const elem_t *in, __global elem_t *values,
                             __global long *indices, long in_offset, long values_offset,
                             long indices_offset, long len, long k, long g)
{
    key_t bk[CLB_TOPK_MAX];
    uint bi[CLB_TOPK_MAX];
    __global const elem_t *src = in + in_offset + g * len;
    clb_topk_scan_vec(src, 0, len, (int)k, bk, bi);
    clb_topk_write(src, values, indices, values_offset, indices_offset, k, g, bi, 0);
}

/* clb_sort_tile's CPU form, for devices that run a work-group as a loop over its
   work items (PoCL), where a barrier costs a pass over every work item: a
   work-group of one work item sorts its tile alone, insertion sort on runs of 16
   and then bottom-up merges between the two halves of lk / li (2 * tile pairs of
   local memory), every access sequential. Same arguments and results. */
__kernel void clb_sort_tile_seq(__global const elem_t *in, __global key_t *keys,
                                __global uint *idx, __global elem_t *values,
                                __global long *indices, __local key_t *lk, __local uint *li,
                                CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    const long in_offset = a[CLB_SORT_IN_OFFSET], values_offset = a[CLB_SORT_VALUES_OFFSET],
        indices_offset = a[CLB_SORT_INDICES_OFFSET], len = a[CLB_SORT_LEN], tile = a[CLB_SORT_TILE],
        tiles = a[CLB_SORT_TILES], direct = a[CLB_SORT_DIRECT];
#if CLB_KEY_BYTES == 4
    /* 32-bit keys: a pair packed into one ulong (key high, index low) compares as
       one integer; the two local buffers are the two halves of the merge. */
    const long g = (long)get_global_id(0), row = g / tiles, base = (g - row * tiles) * tile;
    const int n = (int)min(tile, len - base);
    __global const elem_t *src = in + in_offset + row * len;
    __local ulong *from = (__local ulong *)lk, *to = (__local ulong *)li;
    for (int p = 0; p < n; p++) {
        const ulong v = ((ulong)clb_sort_key(src[base + p]) << 32) | (ulong)(uint)(base + p);
        int q = p;
        if ((p & 15) != 0)
            for (; (q & 15) != 0 && from[q - 1] > v; q--) from[q] = from[q - 1];
        from[q] = v;
    }
    for (int w = 16; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            const int mid = min(lo + w, n), hi = min(lo + 2 * w, n);
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                const ulong x = from[a], y = from[b];
                const bool right = y < x;
                to[o++] = right ? y : x;
                a += !right;
                b += right;
            }
            for (; a < mid; a++) to[o++] = from[a];
            for (; b < hi; b++) to[o++] = from[b];
        }
        __local ulong *t = from;
        from = to;
        to = t;
    }
    for (int p = 0; p < n; p++) {
        const long j = base + p;
        const uint i = (uint)from[p];
        if (direct) {
            if (values_offset >= 0) values[values_offset + row * len + j] = src[i];
            if (indices_offset >= 0) indices[indices_offset + row * len + j] = (long)i;
        } else {
            keys[row * len + j] = (key_t)(from[p] >> 32);
            idx[row * len + j] = i;
        }
    }
#else
    const long g = (long)get_global_id(0), row = g / tiles, base = (g - row * tiles) * tile;
    const int n = (int)min(tile, len - base);
    __global const elem_t *src = in + in_offset + row * len;
    for (int p = 0; p < n; p++) {
        const key_t key = clb_sort_key(src[base + p]);
        int q = p;
        if ((p & 15) != 0) /* insertion into the current run of 16 */
            for (; (q & 15) != 0 && lk[q - 1] > key; q--) {
                lk[q] = lk[q - 1];
                li[q] = li[q - 1];
            }
        lk[q] = key;
        li[q] = (uint)(base + p);
    }
    int from = 0, to = (int)tile;
    for (int w = 16; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            const int mid = min(lo + w, n), hi = min(lo + 2 * w, n);
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi) { /* the left run's pairs have the lower indices */
                const bool right = lk[from + b] < lk[from + a];
                const int s = right ? b : a;
                lk[to + o] = lk[from + s];
                li[to + o] = li[from + s];
                o++;
                a += !right;
                b += right;
            }
            for (; a < mid; a++, o++) lk[to + o] = lk[from + a], li[to + o] = li[from + a];
            for (; b < hi; b++, o++) lk[to + o] = lk[from + b], li[to + o] = li[from + b];
        }
        const int t = from;
        from = to;
        to = t;
    }
    for (int p = 0; p < n; p++) {
        const long j = base + p;
        if (direct) {
            if (values_offset >= 0) values[values_offset + row * len + j] = src[li[from + p]];
            if (indices_offset >= 0) indices[indices_offset + row * len + j] = (long)li[from + p];
        } else {
            keys[row * len + j] = lk[from + p];
            idx[row * len + j] = li[from + p];
        }
    }
#endif
}

/* A work item's PER rows through ROW (clb_topk_row, or clb_topk_row_vec's
   16-key vectors). */
#define CLB_TOPK_ROWS_KERNEL(NAME, ROW)                                                            \
    __kernel void NAME(__global const elem_t *in, __global elem_t *values,                       \
                       __global long *indices, CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))              \
    {                                                                                              \
        CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);                                                    \
        const long in_offset = a[CLB_SORT_IN_OFFSET], values_offset = a[CLB_SORT_VALUES_OFFSET],   \
                   indices_offset = a[CLB_SORT_INDICES_OFFSET], len = a[CLB_SORT_LEN],             \
                   k = a[CLB_SORT_K], rows = a[CLB_SORT_ROWS], per = a[CLB_SORT_PER];              \
        const long first = (long)get_global_id(0) * per, last = min(rows, first + per);            \
        for (long g = first; g < last; g++)                                                        \
            ROW(in, values, indices, in_offset, values_offset, indices_offset, len, k, g);         \
    }
CLB_TOPK_ROWS_KERNEL(clb_topk_rows, clb_topk_row)
CLB_TOPK_ROWS_KERNEL(clb_topk_rows_vec, clb_topk_row_vec)

/* One level of the chunked top-k (src/opencl/cl_topk.c), for rows too long for
   one work item (a loop-limited driver) or too few to fill the device: work
   item g keeps the K best pairs of chunk g % CHUNKS of row g / CHUNKS (the
   chunks split each LEN-element input row evenly, every chunk at least K
   long), as clb_topk_row does, and writes them in order at
   g * K: rows of CHUNKS * K candidates, the next level's input. An element's
   index is its position in the row, or (CAND) the index a lower level stored
   for it in cand: candidates lie in the order of their chunks, so equal keys
   still reach a level in the order of their original indices and the lower
   index wins, as in one pass. */
static void clb_topk_chunk(__global const elem_t *in, __global const long *cand,
                           __global elem_t *values, __global long *indices,
                           const long *a, bool vec)
{
    const long len = a[CLB_SORT_LEN], k = a[CLB_SORT_K], rows = a[CLB_SORT_ROWS],
               chunks = a[CLB_SORT_CHUNKS], g = (long)get_global_id(0);
    if (g >= rows * chunks) return;
    const long row = g / chunks, c = g % chunks;
    const long start = c * len / chunks, end = (c + 1) * len / chunks;
    __global const elem_t *src = in + a[CLB_SORT_IN_OFFSET] + row * len;
    key_t bk[CLB_TOPK_MAX];
    uint bi[CLB_TOPK_MAX];
    int n = 0;
    const int kk = (int)k;
    if (vec) {
        clb_topk_scan_vec(src, start, end, kk, bk, bi);
    } else {
        for (long j = start; j < end; j++) clb_topk_insert(bk, bi, &n, kk, clb_sort_key(src[j]), (uint)j);
    }
    clb_topk_write(src, values, indices, a[CLB_SORT_VALUES_OFFSET],
                   a[CLB_SORT_INDICES_OFFSET], k, g, bi, a[CLB_SORT_CAND] ? cand + row * len : 0);
}

__kernel void clb_topk_chunks(__global const elem_t *in, __global const long *cand,
                              __global elem_t *values, __global long *indices,
                              CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    clb_topk_chunk(in, cand, values, indices, a, false);
}

/* The same with clb_topk_row_vec's scan (CPU devices whose work-groups are loops). */
__kernel void clb_topk_chunks_vec(__global const elem_t *in, __global const long *cand,
                                  __global elem_t *values, __global long *indices,
                                  CLB_ARGS_PARAMS(CLB_SORT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SORT_ARGS_VECS, a);
    clb_topk_chunk(in, cand, values, indices, a, true);
}
