/* matmul with numpy.matmul semantics: 1-D operands promoted and their added axis
   removed afterwards, batch dimensions broadcast. */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <string.h>

/* One operand seen as a batch of matrices: batch shape and strides, then the
   matrix rows/cols. A 1-D operand becomes a row (a) or a column (b). */
typedef struct matrix_view {
    int batch_ndim;
    int64_t batch_shape[CLB_MAX_DIMS];
    int64_t batch_strides[CLB_MAX_DIMS];
    int64_t rows, cols, row_stride, col_stride;
} matrix_view;

static void view_as_matrices(const clb_tensor *t, bool is_left, matrix_view *v)
{
    if (t->ndim == 1) {
        v->batch_ndim = 0;
        if (is_left) {
            v->rows = 1, v->cols = t->shape[0];
            v->row_stride = 0, v->col_stride = t->strides[0];
        } else {
            v->rows = t->shape[0], v->cols = 1;
            v->row_stride = t->strides[0], v->col_stride = 0;
        }
        return;
    }
    v->batch_ndim = t->ndim - 2;
    memcpy(v->batch_shape, t->shape, (size_t)v->batch_ndim * sizeof(int64_t));
    memcpy(v->batch_strides, t->strides, (size_t)v->batch_ndim * sizeof(int64_t));
    v->rows = t->shape[t->ndim - 2];
    v->cols = t->shape[t->ndim - 1];
    v->row_stride = t->strides[t->ndim - 2];
    v->col_stride = t->strides[t->ndim - 1];
}

clb_status clb_matmul(const clb_tensor *a, const clb_tensor *b, clb_tensor **out)
{
    return clb__matmul_impl(a, b, CLB__MATMUL_AUTO, out);
}

/* The result's shape, batch + (m, n) without the axes a 1-D operand gained
   (out_shape, returned: its ndim), and batch + (m, n) whole (full_shape). */
static int result_shape(const clb_tensor *a, const clb_tensor *b, const clb__matmul_op *op,
                        int64_t *full_shape, int64_t *out_shape)
{
    int nd = op->batch_ndim, out_ndim = 0;
    memcpy(full_shape, op->batch_shape, (size_t)nd * sizeof(int64_t));
    full_shape[nd] = op->m;
    full_shape[nd + 1] = op->n;
    for (int d = 0; d < nd; d++) out_shape[out_ndim++] = op->batch_shape[d];
    if (a->ndim > 1) out_shape[out_ndim++] = op->m;
    if (b->ndim > 1) out_shape[out_ndim++] = op->n;
    return out_ndim;
}

clb_status clb__matmul_impl(const clb_tensor *a, const clb_tensor *b, int impl, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *ca = NULL, *cb = NULL;
    char sa[512], sb[512];
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_matmul: out is NULL");
    *out = NULL;
    CLB_TRY(clb__check_tensor(a, "clb_matmul: a"));
    CLB_TRY(clb__check_tensor(b, "clb_matmul: b"));
    CLB_TRY(clb__check_same_context("clb_matmul", a, b));
    clb_dtype dtype;
    CLB_TRY(clb__matmul_types_r(clb__rules(a->storage->ctx), a->dtype, b->dtype, &dtype));
    if (a->ndim == 0 || b->ndim == 0)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "clb_matmul: input operand %d is 0-d; matmul needs at least 1 dimension (use "
                 "clb_binary with CLB_MUL for scalars)",
                 a->ndim == 0 ? 0 : 1);
    matrix_view va, vb;
    view_as_matrices(a, true, &va);
    view_as_matrices(b, false, &vb);
    if (va.cols != vb.rows)
        CLB_FAIL(CLB_ERR_SHAPE_MISMATCH,
                 "clb_matmul: inner dimensions differ: a %s has %lld columns but b %s has %lld "
                 "rows",
                 clb__shape_str(a->ndim, a->shape, sa, sizeof sa), (long long)va.cols,
                 clb__shape_str(b->ndim, b->shape, sb, sizeof sb), (long long)vb.rows);

    clb__matmul_op op = {.dtype = dtype, .m = va.rows, .n = vb.cols, .k = va.cols, .impl = impl};
    const int batch_ndims[2] = {va.batch_ndim, vb.batch_ndim};
    const int64_t *batch_shapes[2] = {va.batch_shape, vb.batch_shape};
    st = clb__broadcast(2, batch_ndims, batch_shapes, &op.batch_ndim, op.batch_shape);
    if (st != CLB_OK)
        CLB_FAIL(st, "clb_matmul: batch dimensions of a %s and b %s do not broadcast: %s",
                 clb__shape_str(a->ndim, a->shape, sa, sizeof sa),
                 clb__shape_str(b->ndim, b->shape, sb, sizeof sb), clb_last_error());

    /* Backends multiply one dtype; mixed inputs are converted first (NumPy does the same). */
    if (a->dtype != dtype) CLB_TRY(clb_cast(a, dtype, &ca));
    if (b->dtype != dtype) CLB_TRY(clb_cast(b, dtype, &cb));
    const clb_tensor *ea = ca ? ca : a, *eb = cb ? cb : b;
    if (ca) view_as_matrices(ea, true, &va);
    if (cb) view_as_matrices(eb, false, &vb);

    int64_t full_shape[CLB_MAX_DIMS + 2], out_shape[CLB_MAX_DIMS];
    int nd = op.batch_ndim, out_ndim = result_shape(a, b, &op, full_shape, out_shape);
    if (out_ndim > CLB_MAX_DIMS)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "clb_matmul: the result would have more than %d dimensions",
                 CLB_MAX_DIMS);
    CLB_TRY(clb__tensor_new(a->storage->ctx, dtype, out_ndim, out_shape, out));

    int64_t full_strides[CLB_MAX_DIMS + 2];
    clb__contiguous_strides(nd + 2, full_shape, full_strides);
    memcpy(op.batch_strides[0], full_strides, (size_t)nd * sizeof(int64_t));
    clb__broadcast_strides(va.batch_ndim, va.batch_shape, va.batch_strides, nd, op.batch_shape,
                           op.batch_strides[1]);
    clb__broadcast_strides(vb.batch_ndim, vb.batch_shape, vb.batch_strides, nd, op.batch_shape,
                           op.batch_strides[2]);
    op.offsets[0] = (*out)->offset, op.offsets[1] = ea->offset, op.offsets[2] = eb->offset;
    op.row_strides[0] = full_strides[nd], op.col_strides[0] = full_strides[nd + 1];
    op.row_strides[1] = va.row_stride, op.col_strides[1] = va.col_stride;
    op.row_strides[2] = vb.row_stride, op.col_strides[2] = vb.col_stride;
    if ((*out)->numel > 0) {
        clb_context *ctx = a->storage->ctx;
        void *handles[3] = {(*out)->storage->handle, ea->storage->handle, eb->storage->handle};
        CLB_TRY(ctx->backend->matmul(ctx, &op, handles));
    }
    clb_tensor_release(ca);
    clb_tensor_release(cb);
    return CLB_OK;
cleanup:
    clb_tensor_release(ca);
    clb_tensor_release(cb);
    clb_tensor_release(*out);
    *out = NULL;
    return st;
}
