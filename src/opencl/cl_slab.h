/* Small SVM storage carved out of shared slabs (quirk svm-lookup).
 *
 * PoCL 3.1 keeps a context's SVM allocations in a linked list and walks it on
 * every clCreateBuffer(CL_MEM_USE_HOST_PTR) of an SVM pointer (and every
 * clSVMFree): with one SVM block per tensor, the 20,000th tensor took 18 ms to
 * create and 100,000 live tensors were out of reach. Blocks of up to
 * CLB__SLAB_MAX bytes are therefore sub-buffers of larger SVM slabs: the list
 * holds one entry per slab, and a sub-buffer costs about a microsecond however
 * many exist. Kernels, transfers and the interop header see an ordinary cl_mem
 * (clb_tensor_get_cl_buffer hands out the sub-buffer, offset 0 at its start;
 * its CL_MEM_HOST_PTR is the slab's host memory plus its origin).
 *
 * Thread-safe: one lock per context's slab set. */
#ifndef CLB_CL_SLAB_H
#define CLB_CL_SLAB_H

#include "clbroadcast.h"

#include <stdbool.h>
#include <stddef.h>

#include <CL/cl.h>

/* Blocks up to this size come from slabs. */
#define CLB__SLAB_MAX ((size_t)64 << 10)

typedef struct clb__slabs clb__slabs;
struct clb__buffer_env;

/* An empty set for a device whose sub-buffer origins must be multiples of
   align bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8); NULL when out of host memory. */
clb__slabs *clb__slabs_create(size_t align);
/* Releases the slabs; every block must have been given back (the context's
   storage and pool are gone). NULL-safe. */
void clb__slabs_destroy(clb__slabs *s);

/* A sub-buffer of nbytes (<= CLB__SLAB_MAX) of a slab of s, making a slab
   (clb__buffer_alloc on env) when none of its size has room. */
clb_status clb__slab_alloc(clb__slabs *s, const struct clb__buffer_env *env, size_t nbytes,
                           cl_mem *out);
/* Gives a block back when it is a sub-buffer of one of s's slabs (and releases
   it): true; false when mem is not one (the caller releases it). NULL s: false. */
bool clb__slab_free(clb__slabs *s, cl_mem mem);

#endif /* CLB_CL_SLAB_H */
