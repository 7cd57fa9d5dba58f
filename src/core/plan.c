/* Launch planning: the NumPy-nditer / TensorIterator recipe, written once for
   every backend. */
#include "plan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Axis order: larger output stride outermost; ties (reduced or broadcast axes
   of the output) broken by the inputs' strides, so the fastest-moving input axis
   ends up innermost. Stable insertion sort: ranks are at most 128. */
static bool goes_before(const clb__plan *p, int a, int b)
{
    for (int k = 0; k < p->nops; k++) {
        int64_t sa = clb__abs64(p->strides[k][a]), sb = clb__abs64(p->strides[k][b]);
        if (sa != sb) return sa > sb;
    }
    return false;
}

static void swap_axes(clb__plan *p, int a, int b)
{
    int64_t t = p->shape[a];
    p->shape[a] = p->shape[b];
    p->shape[b] = t;
    for (int k = 0; k < p->nops; k++) {
        t = p->strides[k][a];
        p->strides[k][a] = p->strides[k][b];
        p->strides[k][b] = t;
    }
}

void clb__plan_make(clb__plan *p, int nops, int ndim, const int64_t *shape,
                    const int64_t *const *strides, const int64_t *offsets)
{
    p->nops = nops;
    p->ndim = 0;
    p->numel = 1;
    for (int k = 0; k < nops; k++) p->offsets[k] = offsets ? offsets[k] : 0;
    for (int d = 0; d < ndim; d++) p->numel *= shape[d];
    if (p->numel == 0) return;

    /* 1. Drop size-1 axes: they move no operand. */
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == 1) continue;
        p->shape[p->ndim] = shape[d];
        for (int k = 0; k < nops; k++) p->strides[k][p->ndim] = strides[k][d];
        p->ndim++;
    }
    /* 2. Order axes by stride, outermost first. */
    for (int i = 1; i < p->ndim; i++)
        for (int j = i; j > 0 && goes_before(p, j, j - 1); j--) swap_axes(p, j, j - 1);
    /* 3. Merge an axis into its inner neighbour when, for every operand, stepping the
       outer axis once equals stepping the inner one through its whole extent. */
    int merged = 0;
    for (int d = 0; d < p->ndim; d++) {
        if (merged > 0) {
            int outer = merged - 1; /* the last kept axis; d is its inner neighbour */
            bool fits = true;
            for (int k = 0; k < nops && fits; k++)
                fits = p->strides[k][outer] == p->strides[k][d] * p->shape[d];
            if (fits) {
                p->shape[outer] *= p->shape[d];
                for (int k = 0; k < nops; k++) p->strides[k][outer] = p->strides[k][d];
                continue;
            }
        }
        p->shape[merged] = p->shape[d];
        for (int k = 0; k < nops; k++) p->strides[k][merged] = p->strides[k][d];
        merged++;
    }
    p->ndim = merged;
}

void clb__plan_flip_inputs(clb__plan *p)
{
    if (p->numel == 0 || p->nops < 2) return;
    for (int d = 0; d < p->ndim; d++) {
        if (p->strides[0][d] == 0) continue;
        bool descends = false, ascends = false;
        for (int k = 1; k < p->nops; k++) {
            descends |= p->strides[k][d] < 0;
            ascends |= p->strides[k][d] > 0;
        }
        if (!descends || ascends) continue;
        for (int k = 0; k < p->nops; k++) {
            p->offsets[k] += (p->shape[d] - 1) * p->strides[k][d];
            p->strides[k][d] = -p->strides[k][d];
        }
    }
}

void clb__plan_for_each(const clb__plan *p, clb__plan_visit_fn visit, void *user)
{
    if (p->numel == 0) return;
    int64_t index[CLB__PLAN_MAX_DIMS] = {0};
    int64_t off[CLB__MAX_OPERANDS];
    memcpy(off, p->offsets, sizeof off);
    for (;;) {
        visit(off, user);
        /* Odometer increment, innermost axis first. */
        int d = p->ndim - 1;
        for (; d >= 0; d--) {
            for (int k = 0; k < p->nops; k++) off[k] += p->strides[k][d];
            if (++index[d] < p->shape[d]) break;
            for (int k = 0; k < p->nops; k++) off[k] -= p->strides[k][d] * p->shape[d];
            index[d] = 0;
        }
        if (d < 0) return;
    }
}

/* ---- launch pieces ------------------------------------------------------------ */

_Atomic int64_t clb__plan_piece_limit = INT32_MAX;

/* The span of operand k over `shape`: how far apart its first and last touched
   elements can be (both directions, as strides may be negative). */
static void operand_span(const clb__plan *p, int k, const int64_t *shape, int64_t *lo,
                         int64_t *hi)
{
    *lo = 0;
    *hi = 0;
    for (int d = 0; d < p->ndim; d++) {
        int64_t step = (shape[d] - 1) * p->strides[k][d];
        if (step > 0) *hi += step;
        else *lo += step;
    }
}

bool clb__plan_fits(const clb__plan *p, const int64_t *shape, int64_t limit)
{
    if (!shape) shape = p->shape;
    int64_t n = 1;
    for (int d = 0; d < p->ndim; d++) {
        n *= shape[d];
        if (n > limit) return false;
    }
    for (int k = 0; k < p->nops; k++) {
        int64_t lo, hi;
        operand_span(p, k, shape, &lo, &hi);
        if (hi > limit || -lo > limit) return false;
    }
    return true;
}

/* The largest distance axis d moves any operand across `extent` steps. */
static int64_t axis_span(const clb__plan *p, int d, int64_t extent)
{
    int64_t span = extent;
    for (int k = 0; k < p->nops; k++) {
        int64_t s = clb__abs64(p->strides[k][d]) * (extent - 1);
        if (s > span) span = s;
    }
    return span;
}

bool clb__plan_split(const clb__plan *p, int64_t limit, int64_t max_pieces, int64_t *piece,
                     int64_t *count)
{
    for (int d = 0; d < p->ndim; d++) piece[d] = p->shape[d];
    *count = p->numel > 0 ? 1 : 0;
    while (!clb__plan_fits(p, piece, limit)) {
        int best = -1;
        int64_t best_span = 0;
        for (int d = 0; d < p->ndim; d++) {
            int64_t span = piece[d] > 1 ? axis_span(p, d, piece[d]) : 0;
            if (span > best_span) best_span = span, best = d;
        }
        if (best < 0) return false; /* every axis is down to one step */
        piece[best] = (piece[best] + 1) / 2;
        *count = 1;
        for (int d = 0; d < p->ndim; d++) {
            *count *= (p->shape[d] + piece[d] - 1) / piece[d];
            if (*count > max_pieces) return false;
        }
    }
    return true;
}

void clb__plan_piece(const clb__plan *p, const int64_t *piece_shape, int64_t index,
                     clb__plan *out)
{
    *out = *p;
    out->numel = 1;
    /* Tile coordinates, innermost axis varying fastest. */
    for (int d = p->ndim - 1; d >= 0; d--) {
        int64_t tiles = (p->shape[d] + piece_shape[d] - 1) / piece_shape[d];
        int64_t t = index % tiles;
        index /= tiles;
        int64_t start = t * piece_shape[d];
        int64_t extent = p->shape[d] - start < piece_shape[d] ? p->shape[d] - start : piece_shape[d];
        out->shape[d] = extent;
        out->numel *= extent;
        for (int k = 0; k < p->nops; k++) out->offsets[k] += start * p->strides[k][d];
    }
}
