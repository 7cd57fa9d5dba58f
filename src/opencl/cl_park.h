/* OpenCL contexts kept for reuse instead of released (issue 25, item 2).
 *
 * PoCL's clReleaseContext of a process's last context frees its compiler state:
 * the kernel library module and the LLVM context (lib/CL/pocl_llvm_utils.cc,
 * pocl_llvm_release_context), 0.2-1.0 s after a run that compiled anything.
 * A context the library created on PoCL is therefore parked here when its
 * clb_context is released: the next clb_context_create on that device takes it
 * back (no clCreateContext, the compiler state still loaded), and at exit the
 * operating system reclaims it. One context per device at most; a second
 * released while the slot is full is released at once. Contexts an
 * application passed in (clb_context_create_from_cl) are never parked. */
#ifndef CLB_CL_PARK_H
#define CLB_CL_PARK_H

#include <CL/cl.h>

#include <stdbool.h>

/* Whether contexts of this platform are parked (PoCL's). */
bool clb__cl_park_wanted(const char *platform);
/* The context parked for device, now the caller's (one reference), or NULL. */
cl_context clb__cl_park_take(cl_device_id device);
/* Parks context (the caller's one reference) for device; false when the slots
   are full (the caller releases it). */
bool clb__cl_park_put(cl_device_id device, cl_context context);

#endif /* CLB_CL_PARK_H */
