/* What the drivers of clb_reduce (cl_reduce.c) and clb_eval_reduce
 * (cl_eval_reduce.c) share: the accumulator dtype of a fold and the work-groups
 * a launch wants. */
#ifndef CLB_CL_REDUCE_COMMON_H
#define CLB_CL_REDUCE_COMMON_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

/* Accumulator dtype of a fold (cl/reduce.cl): floats (float16 too) in float32,
   float64 in float64, integer MEAN in float64 (float32 for the float32 mean of
   integers, CLB_PROMOTE_TORCH, on a device without float64: fp64 false),
   integer and bool SUM/PROD in uint64 (wrapping), MAX/MIN in int64 or uint64. */
clb_dtype clb__cl_accumulator(clb_reduce_op op, clb_dtype in, clb_dtype out, bool fp64);
/* Work-groups that keep every compute unit of ctx's device busy with a few to
   switch between. */
int64_t clb__cl_groups_wanted(const clb_context *ctx);

#endif /* CLB_CL_REDUCE_COMMON_H */
