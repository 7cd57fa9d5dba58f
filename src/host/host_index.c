/* The host backend's take, cumsum / cumprod, sort and compaction: plain loops,
 * the reference the OpenCL kernels are tested against. Running totals of floats
 * are kept exactly enough to serve as that reference: float16 / float32 in
 * double, float64 with a compensated (Neumaier) sum. */
#include "host_index.h"

#include "dtype.h"
#include "fault.h"
#include "host_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- take ------------------------------------------------------------------ */

clb_status clb__host_gather(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                            bool *bad)
{
    (void)ctx;
    const size_t size = clb_dtype_size(op->dtype);
    char *out = (char *)handles[0] + (size_t)op->out_offset * size;
    const char *src = (const char *)handles[1] + (size_t)op->src_offset * size;
    const int64_t *idx = (const int64_t *)handles[2] + op->idx_offset;
    *bad = false;
    for (int64_t o = 0; o < op->outer; o++)
        for (int64_t j = 0; j < op->m; j++)
            for (int64_t i = 0; i < op->inner; i++) {
                int64_t k = idx[o * op->idx_strides[0] + j * op->idx_strides[1] +
                                i * op->idx_strides[2]];
                char *dst = out + (size_t)((o * op->m + j) * op->inner + i) * size;
                if (k < 0 && !op->idx_unsigned) k += op->n;
                if (k < 0 || k >= op->n) {
                    *bad = true;
                    memset(dst, 0, size);
                    continue;
                }
                memcpy(dst, src + (size_t)((o * op->n + k) * op->inner + i) * size, size);
            }
    return CLB_OK;
}

/* ---- cumsum / cumprod ---------------------------------------------------------- */

/* One line of the scan: len elements `stride` apart. */
static void scan_line(const clb__scan_op *op, const clb__operand *in, const clb__operand *out,
                      int64_t in_at, int64_t out_at, int64_t stride)
{
    if (clb__dtype_is_float(op->out)) {
        const bool compensate = op->out == CLB_FLOAT64 && !op->prod;
        double s = op->prod ? 1.0 : 0.0, c = 0.0;
        for (int64_t l = 0; l < op->len; l++) {
            double x = clb__operand_read(in, in_at + l * stride, CLB_FLOAT64).d;
            if (op->prod) {
                s *= x;
            } else if (compensate) { /* Neumaier: the lost low part of each step in c */
                double t = s + x;
                c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
                s = t;
            } else {
                s += x;
            }
            clb__value v = {.d = compensate && isfinite(s + c) ? s + c : s};
            clb__operand_write(out, out_at + l * stride, v, CLB_FLOAT64);
        }
        return;
    }
    clb__value s = {.u = op->prod ? 1u : 0u};
    for (int64_t l = 0; l < op->len; l++) {
        clb__value x = clb__operand_read(in, in_at + l * stride, op->out);
        s.u = op->prod ? s.u * x.u : s.u + x.u; /* two's complement: wraps as NumPy */
        clb__operand_write(out, out_at + l * stride, s, op->out);
    }
}

clb_status clb__host_scan(clb_context *ctx, const clb__scan_op *op, void *const *handles)
{
    (void)ctx;
    clb__operand out = clb__operand_of(handles[0], op->out);
    clb__operand in = clb__operand_of(handles[1], op->in);
    for (int64_t o = 0; o < op->outer; o++)
        for (int64_t i = 0; i < op->inner; i++) {
            int64_t at = o * op->len * op->inner + i;
            scan_line(op, &in, &out, op->in_offset + at, op->out_offset + at, op->inner);
        }
    return CLB_OK;
}

/* ---- sort ------------------------------------------------------------------------ */

typedef struct sort_item {
    uint64_t key;
    uint64_t index;
} sort_item;

/* The order of clb_sort as an unsigned key: floats by their bits made monotonic
   (-0.0 as 0.0, every NaN above +inf), signed integers with the sign bit
   flipped; descending inverts the key. Ties then fall to the index. */
static uint64_t sort_key(const clb__operand *in, int64_t at, clb_dtype dt, bool descending)
{
    uint64_t key;
    if (clb__dtype_is_float(dt)) {
        double d = clb__operand_read(in, at, CLB_FLOAT64).d;
        uint64_t u;
        if (d == 0.0) d = 0.0;
        memcpy(&u, &d, sizeof u);
        key = isnan(d) ? UINT64_MAX : (u >> 63) ? ~u : u | (1ull << 63);
    } else if (clb__dtype_is_unsigned(dt) || dt == CLB_BOOL) {
        key = clb__operand_read(in, at, CLB_UINT64).u;
    } else {
        key = clb__operand_read(in, at, CLB_INT64).u ^ (1ull << 63);
    }
    return descending ? ~key : key;
}

static int item_cmp(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

clb_status clb__host_sort(clb_context *ctx, const clb__sort_op *op, void *const *handles)
{
    (void)ctx;
    sort_item *items = malloc((size_t)op->len * sizeof *items);
    CLB__FAULT_FREE(items, CLB__FAULT_HOST_ALLOC);
    if (!items)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: out of host memory for a sort of rows of %lld elements",
                         (long long)op->len);
    const size_t size = clb_dtype_size(op->in);
    clb__operand in = clb__operand_of(handles[2], op->in);
    for (int64_t r = 0; r < op->rows; r++) {
        const int64_t base = op->in_offset + r * op->len;
        for (int64_t j = 0; j < op->len; j++)
            items[j] = (sort_item){sort_key(&in, base + j, op->in, op->descending), (uint64_t)j};
        qsort(items, (size_t)op->len, sizeof *items, item_cmp); /* keys with indices: all distinct */
        for (int64_t j = 0; j < op->len; j++) {
            if (handles[0])
                memcpy((char *)handles[0] + (size_t)(op->values_offset + r * op->len + j) * size,
                       in.base + (size_t)(base + (int64_t)items[j].index) * size, size);
            if (handles[1])
                ((int64_t *)handles[1])[op->indices_offset + r * op->len + j] =
                    (int64_t)items[j].index;
        }
    }
    free(items);
    return CLB_OK;
}

/* torch.topk without sorting whole rows: each row scanned once, keeping its best
   k (key, index) pairs in order; an element enters only if its key is below the
   list's last (an equal key has the higher index and stays out), so most
   elements cost one comparison. k above HOST_TOPK_MAX: not done, the rows are
   sorted instead (an insertion would cost up to k moves an element). */
#define HOST_TOPK_MAX 256

clb_status clb__host_topk(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                          bool *done)
{
    (void)ctx;
    *done = false;
    if (op->k > HOST_TOPK_MAX) return CLB_OK;
    sort_item best[HOST_TOPK_MAX];
    const size_t size = clb_dtype_size(op->in);
    const int k = (int)op->k;
    clb__operand in = clb__operand_of(handles[2], op->in);
    for (int64_t r = 0; r < op->rows; r++) {
        const int64_t base = op->in_offset + r * op->len;
        int n = 0;
        for (int64_t j = 0; j < op->len; j++) {
            const uint64_t key = sort_key(&in, base + j, op->in, op->largest);
            if (n == k && key >= best[k - 1].key) continue;
            int p = n < k ? n++ : k - 1;
            for (; p > 0 && best[p - 1].key > key; p--) best[p] = best[p - 1];
            best[p] = (sort_item){key, (uint64_t)j};
        }
        for (int t = 0; t < k; t++) {
            if (handles[0])
                memcpy((char *)handles[0] + (size_t)(op->values_offset + r * op->k + t) * size,
                       in.base + (size_t)(base + (int64_t)best[t].index) * size, size);
            if (handles[1])
                ((int64_t *)handles[1])[op->indices_offset + r * op->k + t] = (int64_t)best[t].index;
        }
    }
    *done = true;
    return CLB_OK;
}

/* ---- nonzero / masked_select ----------------------------------------------------------- */

clb_status clb__host_compact(clb_context *ctx, const clb__compact_op *op, void *const *handles)
{
    (void)ctx;
    const int64_t *scan = (const int64_t *)handles[1] + op->scan_offset;
    const size_t size = op->coords ? sizeof(int64_t) : clb_dtype_size(op->dtype);
    char *out = (char *)handles[0] + (size_t)op->out_offset * size;
    for (int64_t p = 0; p < op->n; p++) {
        const int64_t before = p ? scan[p - 1] : 0;
        if (scan[p] == before) continue;
        if (op->coords) {
            int64_t *row = (int64_t *)out + before * op->ndim, rem = p;
            for (int d = op->ndim - 1; d >= 0; d--) {
                row[d] = rem % op->shape[d];
                rem /= op->shape[d];
            }
        } else {
            memcpy(out + (size_t)before * size,
                   (const char *)handles[2] + (size_t)(op->src_offset + p) * size, size);
        }
    }
    return CLB_OK;
}
