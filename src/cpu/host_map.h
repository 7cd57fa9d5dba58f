/* Element-wise maps with the host's scalar rules over plans whose operands are
 * host memory: the host backend's map, and the first tier of CPU devices whose
 * storage the host shares (src/opencl/cl_map.c, while their kernel compiles).
 * Pure C: element access through host_scalar.c's loaders and conversions. */
#ifndef CLB_HOST_MAP_H
#define CLB_HOST_MAP_H

#include "backend.h"
#include "host_scalar.h"
#include "plan.h"

/* One strided operand: where its storage starts and how to read and write it. */
typedef struct clb__operand {
    char *base;
    size_t itemsize;
    clb_dtype dtype;
    clb__load_fn load;
    clb__store_fn store;
} clb__operand;

clb__operand clb__operand_of(void *base, clb_dtype dtype);
/* Element `offset` (in elements) of o, converted to dtype `as`. */
clb__value clb__operand_read(const clb__operand *o, int64_t offset, clb_dtype as);
/* Stores v, a value of dtype `from`, into element `offset` of o. */
void clb__operand_write(const clb__operand *o, int64_t offset, clb__value v, clb_dtype from);

/* out = op(inputs) over the plan; bases[k] is the host address of operand k's
   storage (the plan's offsets count from it). A typed loop (host_loops.c) where
   one exists, else element by element. */
void clb__host_map_run(const clb__map_op *op, const clb__plan *plan, void *const *bases);

#endif /* CLB_HOST_MAP_H */
