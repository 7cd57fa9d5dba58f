/* Strided copy with dtype conversion: one kernel for contiguous(), repeat(),
 * to_host of views, cast() and copies into views.
 *
 * Work item `id` handles element `id` of a row-major loop nest of CLB_NDIM
 * axes (the launch plan, already broadcast, sorted and coalesced on the host).
 * Element offsets, in elements, are
 *     dst: dst_offset + sum_d i_d * dst_strides[d]
 *     src: src_offset + sum_d i_d * src_strides[d]   (0 on broadcast axes)
 * Only the rank is compiled in; shape, strides and offsets are arguments, so
 * one program serves every shape of that rank and dtype pair.
 *
 * How the tables arrive: up to CLB_BYVAL_DIMS (8) axes they are passed by value
 * as three 8-lane vectors. That needs no buffer per launch (no allocation, no
 * hidden transfer on discrete GPUs) and the values sit in registers; after
 * coalescing nearly every plan has 1-3 axes. Plans of up to 128 axes (repeat
 * doubles the rank, and permutations of many axes do not coalesce) get one
 * small __constant buffer [shape | dst_strides | src_strides] instead, which
 * would not fit the 1 KiB kernel-argument minimum the standard guarantees. */

#ifndef CLB_SRC_DTYPE
#define CLB_SRC_DTYPE 10
#endif
#ifndef CLB_DST_DTYPE
#define CLB_DST_DTYPE 10
#endif
#ifndef CLB_NDIM
#define CLB_NDIM 2
#endif
#define CLB_BYVAL_DIMS 8

#if CLB_SRC_DTYPE < 0 || CLB_SRC_DTYPE > 11 || CLB_DST_DTYPE < 0 || CLB_DST_DTYPE > 11
#error "CLB_SRC_DTYPE and CLB_DST_DTYPE must be clb_dtype numbers (0..11)"
#endif
#if (CLB_SRC_DTYPE == 11 || CLB_DST_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_STORAGE(CLB_SRC_DTYPE) clb_src_t;
typedef CLB_STORAGE(CLB_DST_DTYPE) clb_dst_t;

#if CLB_NDIM <= CLB_BYVAL_DIMS
#define CLB_TABLE_ARGS clb_index8 shape_v, clb_index8 dst_strides_v, clb_index8 src_strides_v
#define CLB_SHAPE(d) shape[d]
#define CLB_DST_STRIDE(d) dst_strides[d]
#define CLB_SRC_STRIDE(d) src_strides[d]
#else
#define CLB_TABLE_ARGS __constant const clb_index *table
#define CLB_SHAPE(d) table[d]
#define CLB_DST_STRIDE(d) table[CLB_NDIM + (d)]
#define CLB_SRC_STRIDE(d) table[2 * CLB_NDIM + (d)]
#endif

__kernel void clb_copy(__global clb_dst_t *dst, __global const clb_src_t *src, clb_index numel,
                       clb_index dst_offset, clb_index src_offset, CLB_TABLE_ARGS)
{
    size_t gid = get_global_id(0);
    if (gid >= (size_t)numel) return;

#if CLB_NDIM <= CLB_BYVAL_DIMS
    /* Lanes to private arrays so the walk can index them; with the rank fixed
       the indices are constants and the arrays stay in registers. */
    clb_index shape[CLB_BYVAL_DIMS], dst_strides[CLB_BYVAL_DIMS], src_strides[CLB_BYVAL_DIMS];
    vstore8(shape_v, 0, shape);
    vstore8(dst_strides_v, 0, dst_strides);
    vstore8(src_strides_v, 0, src_strides);
#endif

    clb_index d_off = dst_offset, s_off = src_offset;
    CLB_OFFSETS2((clb_index)gid, CLB_NDIM, CLB_SHAPE, CLB_DST_STRIDE, CLB_SRC_STRIDE, d_off, s_off);
    CLB_STORE(CLB_DST_DTYPE, dst, d_off,
              CLB_CONVERT(CLB_DST_DTYPE, CLB_SRC_DTYPE, CLB_LOAD(CLB_SRC_DTYPE, src, s_off)));
}
