/* The parameters of tensors made on a device (clb__gen_op, backend.h): what
 * clb_full, clb_arange, clb_linspace and the random draws hand the backends,
 * computed once here so the host backend and the kernels start from the same
 * bits. Pure: no device, no allocation. Each returns CLB_OK or
 * CLB_ERR_INVALID_ARGUMENT naming `fn` and saying what to do. */
#ifndef CLB_GENERATE_H
#define CLB_GENERATE_H

#include "backend.h"

/* numpy.full's value as dtype (op->a[0] = its bit pattern). */
clb_status clb__gen_full(const char *fn, clb_dtype dtype, clb_scalar value, clb__gen_op *op);
/* numpy.arange's length and its fill parameters (first, delta, second). */
clb_status clb__gen_arange(const char *fn, clb_dtype dtype, double start, double stop, double step,
                           int64_t *length, clb__gen_op *op);
/* numpy.linspace's parameters; op->f64 says in which precision they are. */
clb_status clb__gen_linspace(const char *fn, clb_dtype dtype, double start, double stop,
                             int64_t num, int endpoint, bool f64, clb__gen_op *op);
/* uniform (is_normal false: a, b = low, high) or normal (a, b = mean, std). */
clb_status clb__gen_random(const char *fn, clb_dtype dtype, bool is_normal, uint64_t seed,
                           uint64_t offset, double a, double b, clb__gen_op *op);

#endif /* CLB_GENERATE_H */
