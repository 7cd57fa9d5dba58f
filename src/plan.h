/* Launch planning for strided loops over several operands (NumPy nditer /
 * PyTorch TensorIterator recipe). Pure: no OpenCL, no allocation. */
#ifndef CLB_PLAN_H
#define CLB_PLAN_H

#include "clbroadcast.h"

#include <stdint.h>

#define CLB__MAX_OPERANDS 4                   /* output + up to 3 inputs (where) */
#define CLB__PLAN_MAX_DIMS (2 * CLB_MAX_DIMS) /* repeat tiles every axis into two */

/* One strided loop nest: operand 0 is the output, 1.. the inputs.
   Element (i_0 .. i_{ndim-1}) of operand k lives at
   offsets[k] + sum_d i_d * strides[k][d]   (in elements of that operand).
   Axes are ordered outermost first; axis ndim-1 is the innermost. */
typedef struct clb__plan {
    int nops;
    int ndim;
    int64_t numel;
    int64_t shape[CLB__PLAN_MAX_DIMS];
    int64_t strides[CLB__MAX_OPERANDS][CLB__PLAN_MAX_DIMS];
    int64_t offsets[CLB__MAX_OPERANDS];
} clb__plan;

/* Builds a plan over `shape` (ndim axes, ndim <= CLB__PLAN_MAX_DIMS) for nops operands
   whose element strides over that shape are strides[k] (0 on broadcast axes):
   drops size-1 axes, orders axes by the output's stride (largest outermost), and
   merges neighbours that are contiguous with each other for every operand.
   A plan over zero elements has numel 0; a scalar plan has ndim 0. */
void clb__plan_make(clb__plan *plan, int nops, int ndim, const int64_t *shape,
                    const int64_t *const *strides, const int64_t *offsets);

/* Calls visit(offsets of every operand) for each element in row-major plan order.
   The reference loop the host backend runs; kept here so it is written once. */
typedef void (*clb__plan_visit_fn)(const int64_t *offsets, void *user);
void clb__plan_for_each(const clb__plan *plan, clb__plan_visit_fn visit, void *user);

#endif /* CLB_PLAN_H */
