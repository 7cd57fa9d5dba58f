/* The OpenCL backend's private state: the context behind a clb_context's impl
 * (queue, device limits, buffers, program cache, quirks, launch style) and the
 * cache of reusable kernel objects. Only src/opencl includes it; the backend's
 * interface to the rest of the library is cl_backend.h. */
#ifndef CLB_CL_STATE_H
#define CLB_CL_STATE_H

#include "cl_buffer.h"
#include "cl_program_cache.h"
#include "internal.h"

#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct clb__cl_context {
    cl_context context;
    cl_command_queue queue;
    cl_device_id device;
    bool device_retained; /* the application's device (clb_context_create_from_cl) */
    bool parkable;        /* the library's own PoCL context: parked at release (cl_park.h) */
    size_t max_item_size; /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    uint64_t local_mem_bytes; /* CL_DEVICE_LOCAL_MEM_SIZE */
    clb__buffer_env buffers;
    struct clb__slabs *slabs; /* SVM storage: blocks up to CLB__SLAB_MAX are sub-buffers of
                                 slabs (cl_slab.h); NULL: every block is a buffer */
    int64_t host_tiny_max; /* maps of up to this many elements may run on the host (cl_map.c) */
    clb__program_cache *programs;
    struct clb__cl_kernel_cache *kernels; /* reusable kernel objects (cl_launch.c) */
    atomic_int args_checked[CLB__KERNEL_COUNT]; /* launch descriptions verified (cl_args.c) */
    unsigned quirks;   /* CLB__QUIRK_* of the device (cl_quirks.c) */
    /* How the implementation runs a work-group: true where it is a loop over the
       work items on one core (PoCL's CPU drivers), so launches use few work
       items that each stream a long block; false where work items run across
       SIMD lanes (GPUs, llvmpipe, every other implementation), so launches use
       many short work items. clb__cl_launch_style() says which, and why. */
    bool loops;
    /* float32 transcendental functions as straight-line code (cl/scalar_ops.cl's
       CLB_OWN_MATH): on CPU devices, whose built-ins are branchy library calls
       that keep the element loops from vectorising; GPUs keep their built-ins. */
    bool own_math;
    /* Loop iterations a work item may run, all its loops together (INT64_MAX: no
       limit; CLB__QUIRK_LOOP_LIMIT: half the driver's budget, the other half left
       to the short loops around the long one). */
    int64_t max_trips;
} clb__cl_context;


static inline clb__cl_context *clb__cl_impl(clb_context *ctx)
{
    return (clb__cl_context *)ctx->impl;
}

/* ---- reusable kernel objects --------------------------------------------------------
 * Creating a kernel object and asking its work-group limits costs more than a
 * small launch itself, so drivers keep one kernel object per specialisation in
 * the context and reuse it. A kernel's arguments are shared state, so the cache
 * is locked from the lookup until the launch has been enqueued (OpenCL captures
 * argument values at enqueue), never while a program is built. */
#define CLB__CL_CACHED_ARGS 8 /* arguments 0..7 of a kernel object are remembered */

typedef struct clb__cl_kernel {
    struct clb__cl_kernel *next;
    clb__kernel_id id;
    uint64_t key;         /* the driver's compact encoding of its specialisation */
    cl_kernel kernel;
    size_t wg_multiple;   /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    size_t wg_max;        /* min(CL_KERNEL_WORK_GROUP_SIZE, the device's item limit) */
    /* The argument values last set (clb__cl_set_arg), so a launch that repeats one
       skips the driver call: each costs PoCL an allocation and a copy. */
    size_t arg_size[CLB__CL_CACHED_ARGS];
    void *arg_value[CLB__CL_CACHED_ARGS];
} clb__cl_kernel;

/* Sets argument `index` of k's kernel unless it already holds exactly this value
   (OpenCL keeps an argument until it is set again): for values only, never a
   buffer. Called with the kernel cache locked, as every use of a cached kernel
   object. */
clb_status clb__cl_set_arg(clb__cl_kernel *k, cl_uint index, size_t size, const void *value);
/* Sets buffer argument `index` (NULL allowed), always: a handle equal to the one
   set before may be a new buffer at a released one's address, and a driver that
   resolves the handle when it is set (Oclgrind) would keep the released one. */
clb_status clb__cl_set_mem(clb__cl_kernel *k, cl_uint index, cl_mem mem);

typedef struct clb__cl_kernel_cache clb__cl_kernel_cache;
clb_status clb__cl_kernel_cache_create(cl_device_id device, bool loops,
                                       clb__cl_kernel_cache **out);
void clb__cl_kernel_cache_destroy(clb__cl_kernel_cache *cache); /* NULL-safe */
/* On a hit returns the kernel of (id, key) with the cache locked; on a miss
   returns NULL with the cache unlocked. */
clb__cl_kernel *clb__cl_kernel_find(clb__cl_context *cl, clb__kernel_id id, uint64_t key);
/* Creates the kernel object of (id, key), `program`'s kernel `name`, caches it
   and returns it with the cache locked (another thread's equal entry wins a race). */
clb_status clb__cl_kernel_named(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                                cl_program program, const char *name, clb__cl_kernel **out);
void clb__cl_kernel_unlock(clb__cl_context *cl);
/* Drops every reference the cached kernel objects' arguments may hold on mem (an
   application's buffer whose last view went): each argument that holds it, or
   whose value was set without being remembered, becomes NULL, and is set again
   by its next launch. rusticl retains kernel arguments until they change, so the
   buffer would otherwise outlive every view (issue 26, finding 12). */
void clb__cl_kernels_forget(clb__cl_context *cl, cl_mem mem);

/* The kernel object `name` (number `variant` < 8 of the program's kernels) of
   `program`, a program of the context's program cache: found, or created and
   cached; returned with the cache locked, as clb__cl_kernel_find. For drivers
   whose specialisation is the program itself (reduce, matmul, eval). */
clb_status clb__cl_kernel_for(clb__cl_context *cl, clb__kernel_id id, cl_program program,
                              int variant, const char *name, clb__cl_kernel **out);

#endif /* CLB_CL_STATE_H */
