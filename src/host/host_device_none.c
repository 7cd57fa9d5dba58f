/* Devices in a build without OpenCL: the host backend is the only device, and
 * the selector grammar reduces to "host". (src/opencl/cl_device.c is the
 * OpenCL build's.) */
#include "device.h"

#include "internal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

clb_status clb_device_count(int *out)
{
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_count: out is NULL");
    *out = 0;
    return CLB_OK;
}

clb_status clb_device_get_info(int index, clb_device_info *out)
{
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_get_info: out is NULL");
    memset(out, 0, sizeof *out);
    return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                     "clb_device_get_info: no OpenCL device with index %d (this build has no "
                     "OpenCL support)",
                     index);
}

clb_status clb_device_cached_programs(int index, int *count)
{
    if (!count) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_cached_programs: count is NULL");
    *count = 0;
    return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                     "clb_device_cached_programs: no OpenCL device with index %d (this build has "
                     "no OpenCL support)",
                     index);
}

clb_status clb__device_resolve(const char *selector, int *device_index)
{
    if (!device_index)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb__device_resolve: device_index is NULL");
    *device_index = -1;
    const char *origin = "";
    if (!selector) {
        const char *env = getenv("CLB_DEVICE");
        if (!env || !env[0]) return CLB_OK;
        selector = env;
        origin = " (from $CLB_DEVICE)";
    }
    char *sel = clb__trimmed_copy(selector);
    if (!sel) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory parsing a device selector");
    clb_status st = CLB_OK;
    if (!clb__ci_equal(sel, "host"))
        st = clb__fail(CLB_ERR_NO_DEVICE,
                       "no OpenCL device matches \"%s\"%s; available: host (this build has no "
                       "OpenCL support)",
                       sel, origin);
    free(sel);
    return st;
}
