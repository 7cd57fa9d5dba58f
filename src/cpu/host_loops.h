/* Typed inner loops for the commonest element-wise maps on host memory.
 *
 * The host backend's reference loop (host_backend.c) converts every element
 * through clb__value and an op switch: exact for every dtype pair, but ~45 ns
 * an element. When the inputs, the compute type and the output share one of
 * float32, float64, int32, int64 and the op is plain arithmetic, a typed loop
 * the compiler vectorises gives the same bits at memory speed. The host
 * backend uses it, and so do OpenCL CPU devices for tiny maps on host-shared
 * (SVM) storage, where a kernel launch costs more than the work (cl_map.c).
 * Copies within one dtype get the same treatment on the host backend. */
#ifndef CLB_HOST_LOOPS_H
#define CLB_HOST_LOOPS_H

#include "backend.h"
#include "plan.h"

#include <stdbool.h>
#include <stdint.h>

/* One contiguous-or-strided run of n elements: out[i*so] = f(a[i*sa], b[i*sb]),
   strides in elements, pointers already at the run's first element. */
typedef void (*clb__host_loop_fn)(int64_t n, void *out, int64_t so, const void *a, int64_t sa,
                                  const void *b, int64_t sb);

/* The typed loop of op, or NULL when only the reference loop does it. */
clb__host_loop_fn clb__host_loop_find(const clb__map_op *op);

/* The loop copying elements of itemsize bytes (a copy within one dtype: its
   operands are out and a), or NULL for a size it has none for. */
clb__host_loop_fn clb__host_copy_loop(size_t itemsize);

/* Runs fn over every element of plan (numel > 0, at most three operands, all
   of itemsize bytes); bases[k] is operand k's storage (plan offsets are in
   elements from there). */
void clb__host_loop_run(clb__host_loop_fn fn, size_t itemsize, const clb__plan *plan,
                        void *const *bases);

/* 1 (default): the host backend uses the typed loops (maps and copies); tests
   set 0 to compare them with the reference loop. */
extern _Atomic int clb__host_loops_enabled;

#endif /* CLB_HOST_LOOPS_H */
