/* numpy.take / take_along_axis as one gather (src/opencl/cl_take.c drives it).
 *
 * The source is C-contiguous (outer, n, inner), the output C-contiguous
 * (outer, m, inner); output row r = (o, j) takes its index k from
 * idx[idx_offset + o * is0 + j * is1 + i * is2] (int64; CLB_IDX_UNSIGNED reads
 * uint64 bits) and copies src[(o, k, :)]. Elements are moved as raw bits of
 * CLB_ELEM_BYTES, so one program serves every dtype of that size (float64
 * needs no cl_khr_fp64 to be copied).
 *
 * Work item = `per` consecutive units, a unit one chunk of CLB_TAKE_CHUNK
 * elements of one output row: on a GPU (chunk 1, per 1) neighbouring work items
 * read and write neighbouring elements of a row, which coalesces; on a CPU whose
 * work-group is a loop (PoCL) each work item copies contiguous runs of several
 * rows. An index outside [-n, n) is never used: the
 * element is written as zero and *bad set to 1, which the host reads once with
 * the result (a plain store of the same value from many work items is benign). */

#ifndef CLB_ELEM_BYTES
#define CLB_ELEM_BYTES 4
#endif
#ifndef CLB_IDX_UNSIGNED
#define CLB_IDX_UNSIGNED 0
#endif
#ifndef CLB_TAKE_ROW
#define CLB_TAKE_ROW 0 /* 1: one index per output row (is2 == 0) */
#endif
#ifndef CLB_TAKE_CHUNK
#define CLB_TAKE_CHUNK 1
#endif

#if CLB_ELEM_BYTES == 1
typedef uchar elem_t;
#elif CLB_ELEM_BYTES == 2
typedef ushort elem_t;
#elif CLB_ELEM_BYTES == 4
typedef uint elem_t;
#else
typedef ulong elem_t;
#endif

__kernel void clb_take(__global elem_t *out, __global const elem_t *src,
                       __global const long *idx, __global int *bad, long n, long m, long inner,
                       long chunks, long is0, long is1, long is2, long src_offset,
                       long idx_offset, long out_offset, long units, long per)
{
    const long first = (long)get_global_id(0) * per, last = min(units, first + per);
    for (long u = first; u < last; u++) {
        const long row = u / chunks, c = u - row * chunks;
        const long o = row / m, j = row - o * m;
        const long i0 = c * CLB_TAKE_CHUNK;
        const long i1 = min(inner, i0 + CLB_TAKE_CHUNK);
        __global elem_t *dst = out + out_offset + row * inner;
        __global const long *ip = idx + idx_offset + o * is0 + j * is1;
#if CLB_TAKE_ROW
        /* One index for the whole output row (take: is2 == 0): checked once, then a
           contiguous run copied (vectorisable on a CPU). */
        long k = ip[0];
#if CLB_IDX_UNSIGNED
        const bool ok = (ulong)k < (ulong)n;
#else
        if (k < 0) k += n;
        const bool ok = k >= 0 && k < n;
#endif
        if (!ok) {
            *bad = 1;
            for (long i = i0; i < i1; i++) dst[i] = 0;
            continue;
        }
        __global const elem_t *sp = src + src_offset + (o * n + k) * inner;
        for (long i = i0; i < i1; i++) dst[i] = sp[i];
#else
        for (long i = i0; i < i1; i++) {
            long k = ip[i * is2];
#if CLB_IDX_UNSIGNED
            const bool ok = (ulong)k < (ulong)n;
#else
            if (k < 0) k += n;
            const bool ok = k >= 0 && k < n;
#endif
            if (!ok) {
                *bad = 1;
                dst[i] = 0;
                continue;
            }
            dst[i] = src[src_offset + (o * n + k) * inner + i];
        }
#endif
    }
}
