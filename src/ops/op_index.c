/* Axis checks and the rows layout (axis moved last) of the ordering ops. */
#include "op_index.h"

#include "shape.h"

#include <stdio.h>

clb_status clb__axis_of(const char *fn, int axis, int ndim, int *out)
{
    clb_status st = clb__normalize_axis(axis, ndim, out);
    if (st != CLB_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", clb_last_error());
        return clb__fail(st, "%s: %s", fn, why);
    }
    return CLB_OK;
}

clb_status clb__rows_of(const clb_tensor *t, int a, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *moved = NULL;
    int perm[CLB_MAX_DIMS], nd = 0;
    *out = NULL;
    for (int d = 0; d < t->ndim; d++)
        if (d != a) perm[nd++] = d;
    perm[nd] = a;
    CLB_TRY(clb_permute(t, perm, &moved));
    CLB_TRY(clb_contiguous(moved, out));
cleanup:
    clb_tensor_release(moved);
    return st;
}

clb_status clb__rows_restore(const clb_tensor *rows, int a, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *back = NULL;
    int perm[CLB_MAX_DIMS];
    const int nd = rows->ndim;
    *out = NULL;
    /* rows' axis d is the original axis d (d < a), d + 1 (a <= d < nd - 1); its last is a. */
    for (int d = 0; d < nd; d++) perm[d] = d < a ? d : d == a ? nd - 1 : d - 1;
    CLB_TRY(clb_permute(rows, perm, &back));
    CLB_TRY(clb_contiguous(back, out));
cleanup:
    clb_tensor_release(back);
    return st;
}
