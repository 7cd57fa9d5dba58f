/* numpy.array2string(a, separator=", ") with NumPy's default print options
 * (precision 8, threshold 1000, edgeitems 3, linewidth 75, floatmode
 * "maxprec"), over values already read back: the pure text half of
 * clb_tensor_format (src/ops/op_format.c reads the values). */
#ifndef CLB_FORMAT_H
#define CLB_FORMAT_H

#include "clbroadcast.h"

#include <stdbool.h>
#include <stddef.h>

#define CLB__FMT_EDGE 3         /* edgeitems */
#define CLB__FMT_THRESHOLD 1000 /* summarise past this many elements */

/* The values printed: the whole array when not summarised, else NumPy's
   _leading_trailing subset: on every axis longer than 2 * CLB__FMT_EDGE the
   first and last CLB__FMT_EDGE indices (kept_shape[d] = 6), all others whole.
   kept: C-contiguous over kept_shape, elements of dtype. */
typedef struct clb__fmt_values {
    clb_dtype dtype;
    int ndim;
    const int64_t *shape; /* the array's */
    const int64_t *kept_shape;
    const void *kept;
    bool summarize; /* numel > CLB__FMT_THRESHOLD */
} clb__fmt_values;

/* Whether axis size n is summarised (only the edges printed). */
static inline bool clb__fmt_axis_cut(bool summarize, int64_t n)
{
    return summarize && n > 2 * CLB__FMT_EDGE;
}

/* The text into a new NUL-terminated heap string (*text; free it). */
clb_status clb__format_text(const clb__fmt_values *v, char **text);

#endif /* CLB_FORMAT_H */
