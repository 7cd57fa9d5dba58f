/* clb_tensor_format: reads back only the elements numpy.array2string prints
 * (all of them up to 1000, else the first and last 3 along every longer axis:
 * one small read per corner block) and hands them to src/core/format.c. */
#include "format.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Reads the corner block `mask` (bit d set: the last CLB__FMT_EDGE indices of a
   cut axis d, else the first) into its place in kept. */
static clb_status read_block(const clb_tensor *t, const bool *cut, unsigned long long mask,
                             const int64_t *kept_shape, unsigned char *kept)
{
    clb_status st = CLB_OK;
    clb_tensor *view = NULL, *next = NULL;
    unsigned char *tmp = NULL;
    size_t size = clb_dtype_size(t->dtype);
    int64_t start[CLB_MAX_DIMS], bshape[CLB_MAX_DIMS], count = 1;
    int bit = 0;
    clb_tensor_retain((clb_tensor *)t);
    view = (clb_tensor *)t;
    for (int d = 0; d < t->ndim; d++) {
        start[d] = 0;
        bshape[d] = t->shape[d];
        if (cut[d]) {
            bool last = (mask >> bit++) & 1;
            start[d] = last ? CLB__FMT_EDGE : 0;
            bshape[d] = CLB__FMT_EDGE;
            CLB_TRY(clb_slice(view, d, last ? -CLB__FMT_EDGE : 0, last ? CLB_NONE : CLB__FMT_EDGE,
                              1, &next));
            clb_tensor_release(view);
            view = next;
            next = NULL;
        }
        count *= bshape[d];
    }
    tmp = malloc((size_t)count * size + 1);
    if (!tmp) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "clb_tensor_format: out of host memory");
    CLB_TRY(clb_tensor_to_host(view, tmp, (size_t)count * size));
    /* scatter: element j of the block goes to kept at start + its index */
    for (int64_t j = 0; j < count; j++) {
        int64_t rem = j, at = 0, stride = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
            int64_t i = rem % bshape[d];
            rem /= bshape[d];
            at += (start[d] + i) * stride;
            stride *= kept_shape[d];
        }
        memcpy(kept + (size_t)at * size, tmp + (size_t)j * size, size);
    }
cleanup:
    free(tmp);
    clb_tensor_release(view);
    return st;
}

/* Reads the printed elements into *kept (kept_shape), NULL for an empty t. */
static clb_status read_kept(const clb_tensor *t, bool summarize, int64_t *kept_shape,
                            unsigned char **kept)
{
    clb_status st = CLB_OK;
    bool cut[CLB_MAX_DIMS];
    int ncut = 0;
    int64_t count = 1;
    *kept = NULL;
    for (int d = 0; d < t->ndim; d++) {
        cut[d] = clb__fmt_axis_cut(summarize, t->shape[d]);
        ncut += cut[d];
        kept_shape[d] = cut[d] ? 2 * CLB__FMT_EDGE : t->shape[d];
        count *= kept_shape[d];
    }
    if (t->numel == 0) return CLB_OK;
    if (ncut > 40)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "clb_tensor_format: %d axes longer than %d would need 2^%d reads; "
                         "reshape or slice the tensor first", ncut, 2 * CLB__FMT_EDGE, ncut);
    *kept = malloc((size_t)count * clb_dtype_size(t->dtype) + 1);
    if (!*kept) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "clb_tensor_format: out of host memory");
    for (unsigned long long mask = 0; mask < (1ULL << ncut); mask++)
        CLB_TRY(read_block(t, cut, mask, kept_shape, *kept));
    return CLB_OK;
cleanup:
    free(*kept);
    *kept = NULL;
    return st;
}

clb_status clb_tensor_format(const clb_tensor *t, char *buf, size_t size, size_t *needed)
{
    clb_status st = CLB_OK;
    unsigned char *kept = NULL;
    char *text = NULL;
    int64_t kept_shape[CLB_MAX_DIMS];
    if (needed) *needed = 0;
    if (buf && size > 0) buf[0] = '\0';
    if (!needed)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_tensor_format: needed is NULL; pass the address of a size_t: it "
                         "receives the text's full length + 1, which tells a truncated text");
    if (!buf && size > 0)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_tensor_format: buf is NULL but size is %zu; pass size 0 to ask "
                         "for the length only", size);
    CLB_TRY(clb__check_tensor(t, "clb_tensor_format: t"));
    bool summarize = t->numel > CLB__FMT_THRESHOLD;
    CLB_TRY(read_kept(t, summarize, kept_shape, &kept));
    clb__fmt_values v = {.dtype = t->dtype, .ndim = t->ndim, .shape = t->shape,
                         .kept_shape = kept_shape, .kept = kept, .summarize = summarize};
    CLB_TRY(clb__format_text(&v, &text));
    size_t len = strlen(text);
    *needed = len + 1;
    if (size > 0) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
cleanup:
    free(kept);
    free(text);
    return st;
}
