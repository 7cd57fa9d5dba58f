/* The OpenCL interop header compiles on its own under pedantic C99 (it pulls in
 * <CL/cl.h> and clbroadcast.h), and its declarations match the library's. */
#include "clbroadcast_cl.h"

#include <stdio.h>

int main(void)
{
    clb_status (*create)(cl_context, cl_device_id, cl_command_queue, clb_context **) =
        clb_context_create_from_cl;
    clb_status (*get)(const clb_context *, cl_context *, cl_device_id *, cl_command_queue *) =
        clb_context_get_cl;
    clb_status (*wrap)(clb_context *, cl_mem, size_t, clb_dtype, int, const int64_t *,
                       const int64_t *, clb_tensor **) = clb_tensor_from_cl_buffer;
    clb_status (*buffer)(const clb_tensor *, cl_mem *, size_t *) = clb_tensor_get_cl_buffer;
    clb_context *ctx = NULL;
    cl_mem mem = NULL;
    /* NULL handles: refused, nothing created */
    if (create(NULL, NULL, NULL, &ctx) != CLB_ERR_INVALID_ARGUMENT || ctx) return 1;
    if (get(NULL, NULL, NULL, NULL) != CLB_ERR_INVALID_ARGUMENT) return 1;
    if (buffer(NULL, &mem, NULL) != CLB_ERR_INVALID_ARGUMENT || mem) return 1;
    (void)wrap;
    puts("clbroadcast_cl.h: C99 pedantic OK");
    return 0;
}
