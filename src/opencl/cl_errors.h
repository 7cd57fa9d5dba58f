/* OpenCL error codes as names, and the one way OpenCL failures become a
 * clb_status with a message. Takes the code as int32_t (cl_int's definition)
 * so callers of this header need not include the OpenCL headers. */
#ifndef CLB_CL_ERRORS_H
#define CLB_CL_ERRORS_H

#include "clbroadcast.h"

#include <stdint.h>

/* "CL_INVALID_VALUE" for -30; NULL for a code this table does not know. */
const char *clb__cl_error_name(int32_t err);

/* Records "<call> failed: CL_..." as clb_last_error() and returns the status:
   CLB_ERR_OUT_OF_MEMORY for the allocation failures (CL_OUT_OF_RESOURCES,
   CL_OUT_OF_HOST_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE), CLB_ERR_OPENCL
   for everything else. */
clb_status clb__cl_fail(int32_t err, const char *call);

/* CLB_TRY for OpenCL return codes: on failure records the message, keeps the
   status in `st` and jumps to the function's `cleanup:` label. */
#define CLB_CL_CHECK(err, call)                                                                    \
    do {                                                                                           \
        int32_t clb_cl_err_ = (err);                                                               \
        if (clb_cl_err_ != 0) {                                                                    \
            st = clb__cl_fail(clb_cl_err_, (call));                                                \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

#endif /* CLB_CL_ERRORS_H */
