/* Helpers shared by the picking, ordering and running-total entry points
 * (op_take.c, op_sort.c, op_scan.c). */
#ifndef CLB_OP_INDEX_H
#define CLB_OP_INDEX_H

#include "internal.h"

/* clb__normalize_axis with fn named in the message. */
clb_status clb__axis_of(const char *fn, int axis, int ndim, int *out);

/* t with axis a moved last, made C-contiguous (a new reference to t when it
   already is that): rows of t->shape[a] elements. */
clb_status clb__rows_of(const clb_tensor *t, int a, clb_tensor **out);

/* The inverse of clb__rows_of for a C-contiguous result laid out as rows
   (axis a last): the tensor in the original axis order, C-contiguous. */
clb_status clb__rows_restore(const clb_tensor *rows, int a, clb_tensor **out);

#endif /* CLB_OP_INDEX_H */
