/* Fault injection for the tests (meson option fault_injection, off by default).
 *
 * Each hook below is one line at a place where the library acquires something
 * that can fail in the field: a host allocation, a device buffer, a program
 * build, a kernel enqueue, a map. In a fault-injection build a test arms the
 * N-th hook pass to fail and checks that the public call cleans up. The hooks
 * make the real call fail the way the driver or libc would (NULL pointer, CL
 * error code), so the library's own error paths run, not a special one.
 * In a normal build every hook compiles to nothing. */
#ifndef CLB_FAULT_H
#define CLB_FAULT_H

#include <stdbool.h>
#include <stdlib.h>

typedef enum clb__fault_kind {
    CLB__FAULT_HOST_ALLOC = 0, /* host backend storage, storage and tensor records */
    CLB__FAULT_BUFFER,         /* clCreateBuffer */
    CLB__FAULT_BUILD,          /* clBuildProgram from source */
    CLB__FAULT_ENQUEUE,        /* clEnqueueNDRangeKernel */
    CLB__FAULT_MAP,            /* clEnqueueMapBuffer */
    CLB__FAULT_KINDS
} clb__fault_kind;

#define CLB__FAULT_ALL ((1u << CLB__FAULT_KINDS) - 1u)

#if defined(CLB_FAULT_INJECTION) && CLB_FAULT_INJECTION

/* From now on, the n-th (1-based) hook pass of a kind in `kinds` (bit mask of
   1u << clb__fault_kind) fails, once. n <= 0 disarms. Resets the counters. */
void clb__fault_arm(unsigned kinds, long n);
/* Hook passes of armed kinds since clb__fault_arm. */
long clb__fault_passes(void);
/* The kind of the armed fault once it has fired, else -1. */
int clb__fault_fired(void);
/* Called by the hooks: true when this pass is the one that must fail. */
bool clb__fault_hit(clb__fault_kind kind);
/* True when $CLB_TEST_INDEX64 is set: kernels take their 64-bit index path even
   on small shapes, so the Oclgrind set can check it without 2^31-element buffers. */
bool clb__fault_force_index64(void);

#define CLB__FAULT(kind) clb__fault_hit(kind)
/* Frees p and sets it to NULL when the fault fires: a failed malloc/calloc. */
#define CLB__FAULT_FREE(p, kind)                                                                   \
    do {                                                                                           \
        if (clb__fault_hit(kind)) {                                                                \
            free(p);                                                                               \
            (p) = NULL;                                                                            \
        }                                                                                          \
    } while (0)
/* After clEnqueueMapBuffer: undoes a successful map and reports CL_MAP_FAILURE. */
#define CLB__FAULT_MAP_HOOK(queue, mem, ptr, err)                                                  \
    do {                                                                                           \
        if (clb__fault_hit(CLB__FAULT_MAP)) {                                                      \
            if ((ptr) && (err) == CL_SUCCESS)                                                      \
                clEnqueueUnmapMemObject((queue), (mem), (ptr), 0, NULL, NULL);                     \
            (ptr) = NULL;                                                                          \
            (err) = CL_MAP_FAILURE;                                                                \
        }                                                                                          \
    } while (0)
#define CLB__FAULT_INDEX64() clb__fault_force_index64()

#else

#define CLB__FAULT(kind) false
#define CLB__FAULT_FREE(p, kind) ((void)0)
#define CLB__FAULT_MAP_HOOK(queue, mem, ptr, err) ((void)0)
#define CLB__FAULT_INDEX64() false

#endif

#endif /* CLB_FAULT_H */
