/* Shape algebra: validation, broadcasting, strides, axes. Pure: no device. */
#ifndef CLB_SHAPE_H
#define CLB_SHAPE_H

#include "clbroadcast.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Checks ndim (0..CLB_MAX_DIMS), a non-NULL shape when ndim > 0, sizes >= 0 and that
   the element count fits int64; `what` names the argument in the message. */
clb_status clb__shape_check(int ndim, const int64_t *shape, const char *what, int64_t *numel);
/* numel * itemsize as size_t, or CLB_ERR_INVALID_ARGUMENT when it overflows. */
clb_status clb__byte_size(int64_t numel, size_t itemsize, size_t *bytes);

void clb__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* "(3, 4)", "()" or "(5,)"; returns buf. */
const char *clb__shape_str(int ndim, const int64_t *shape, char *buf, size_t cap);

/* NumPy's broadcast of n shapes, with PyTorch's error text naming the tensors
   a, b, c, ... in argument order. Validates every shape. */
clb_status clb__broadcast(int n, const int *ndims, const int64_t *const *shapes, int *out_ndim,
                          int64_t *out_shape);
/* Strides of a view (ndim, shape, strides) broadcast to (out_ndim, out_shape), which it must
   be compatible with: 0 on prepended and expanded axes. */
void clb__broadcast_strides(int ndim, const int64_t *shape, const int64_t *strides, int out_ndim,
                            const int64_t *out_shape, int64_t *out_strides);

/* Axis in [-ndim, ndim) -> [0, ndim); CLB_ERR_INVALID_ARGUMENT otherwise. */
clb_status clb__normalize_axis(int axis, int ndim, int *out);
/* The reductions' axes argument (naxes of axes; axes NULL: every axis) over an
   ndim-dimensional shape: marks reduced[d] and lists the reduced axes, ascending,
   in red (*nred of them). CLB_ERR_INVALID_ARGUMENT naming fn for axes NULL with
   naxes > 0, naxes out of [0, ndim], an axis out of range or named twice. */
clb_status clb__reduced_axes(const char *fn, int ndim, int naxes, const int *axes, bool *reduced,
                             int *nred, int *red);

/* PyTorch view() rule: strides that present (ndim, shape, strides) as new_shape without
   copying, if they exist (same element count assumed). */
bool clb__view_strides(int ndim, const int64_t *shape, const int64_t *strides, int new_ndim,
                       const int64_t *new_shape, int64_t *new_strides);

#endif /* CLB_SHAPE_H */
