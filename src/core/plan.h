/* Launch planning for strided loops over several operands (NumPy nditer /
 * PyTorch TensorIterator recipe). Pure: no OpenCL, no allocation. */
#ifndef CLB_PLAN_H
#define CLB_PLAN_H

#include "clbroadcast.h"

#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

#define CLB__MAX_OPERANDS 9                   /* output + up to 8 inputs (clb_eval) */
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

/* Reverses the walk along every plan axis that the inputs (operands 1..) only
   descend (strides <= 0, one < 0) and the output (operand 0) moves along: each
   element still pairs with the same inputs, but the inputs are then read in
   ascending order (and the output written in the other direction). A CPU's
   prefetchers follow ascending reads and its streaming stores do not care about
   the order, so a reversed view (clb_slice with a negative step) copies at the
   speed of a forward one (NumPy's nditer flips negative strides for the same
   reason). Only for loops whose elements are independent: copies and maps. */
void clb__plan_flip_inputs(clb__plan *plan);

/* Calls visit(offsets of every operand) for each element in row-major plan order.
   The reference loop the host backend runs; kept here so it is written once. */
typedef void (*clb__plan_visit_fn)(const int64_t *offsets, void *user);
void clb__plan_for_each(const clb__plan *plan, clb__plan_visit_fn visit, void *user);

/* ---- launch pieces and fast paths (what a device kernel needs) ------------------ */

/* Whether a loop nest of `shape` (plan->ndim axes; NULL: the plan's own shape)
   over the plan's strides stays within `limit` elements: its element count and,
   for every operand, the largest distance between two offsets it touches
   relative to its first element (so a piece may start anywhere). */
bool clb__plan_fits(const clb__plan *plan, const int64_t *shape, int64_t limit);

/* Splits the plan into pieces that each fit `limit` (so a kernel indexing in 32
   bits can run per piece): halves the axis with the largest span until a piece
   fits. Fills piece_shape (plan->ndim entries) and *count, the number of pieces.
   Returns false when that would take more than max_pieces pieces (an axis whose
   single step is already too long): the caller indexes in 64 bits instead. */
bool clb__plan_split(const clb__plan *plan, int64_t limit, int64_t max_pieces,
                     int64_t *piece_shape, int64_t *count);

/* The largest count/span a piece may have for a 32-bit kernel: INT32_MAX. A
   variable only so tests can lower it and run the piece path on small tensors. */
extern _Atomic int64_t clb__plan_piece_limit;

/* The index-th piece (row-major over the tiles of piece_shape) as a plan of its
   own: the same strides, the tile's extents and the offsets of its first element. */
void clb__plan_piece(const clb__plan *plan, const int64_t *piece_shape, int64_t index,
                     clb__plan *piece);


/* |v|, for strides (v > INT64_MIN: a plan's strides are). */
static inline int64_t clb__abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

#endif /* CLB_PLAN_H */
