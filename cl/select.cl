/* The scatter of nonzero and masked_select (src/opencl/cl_scan.c drives it):
 * scan holds the inclusive running count of a bool mask over n positions;
 * position p is selected where the count rises there, and its slot is the
 * count before it. CLB_SELECT_COORDS=1 (nonzero) writes p's C-order
 * coordinates in the shape `shape` (ndim entries, a small buffer) as row slot
 * of the int64 output; 0 (masked_select) copies element src[src_offset + p],
 * moved as raw bits of CLB_ELEM_BYTES. One work item per position. */

#ifndef CLB_SELECT_COORDS
#define CLB_SELECT_COORDS 0
#endif
#ifndef CLB_ELEM_BYTES
#define CLB_ELEM_BYTES 4
#endif

#if CLB_SELECT_COORDS || CLB_ELEM_BYTES == 8
typedef ulong elem_t;
#elif CLB_ELEM_BYTES == 1
typedef uchar elem_t;
#elif CLB_ELEM_BYTES == 2
typedef ushort elem_t;
#else
typedef uint elem_t;
#endif

CLB_ARGS_PROBE(CLB_SELECT_ARGS_VECS)

__kernel void clb_select(__global elem_t *out, __global const long *scan,
                         __global const elem_t *src, __global const long *shape,
                         CLB_ARGS_PARAMS(CLB_SELECT_ARGS_VECS))
{
    CLB_ARGS_UNPACK(CLB_SELECT_ARGS_VECS, a);
    const long scan_offset = a[CLB_SELECT_SCAN_OFFSET], src_offset = a[CLB_SELECT_SRC_OFFSET],
        out_offset = a[CLB_SELECT_OUT_OFFSET], ndim = a[CLB_SELECT_NDIM], n = a[CLB_SELECT_N];
    const long p = (long)get_global_id(0);
    if (p >= n) return;
    const long now = scan[scan_offset + p], before = p > 0 ? scan[scan_offset + p - 1] : 0;
    if (now == before) return;
#if CLB_SELECT_COORDS
    long rem = p;
    for (long d = ndim - 1; d >= 0; d--) {
        const long e = shape[d], q = rem / e;
        out[out_offset + before * ndim + d] = (elem_t)(rem - q * e);
        rem = q;
    }
#else
    out[out_offset + before] = src[src_offset + p];
#endif
}
