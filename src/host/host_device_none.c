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

void clb__device_free(clb__device *device)
{
    (void)device; /* never made: every selector resolves to the host backend (NULL) */
}

clb_status clb__device_resolve(const char *selector, clb__device **device)
{
    if (!device) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb__device_resolve: device is NULL");
    *device = NULL;
    char *sel = NULL;
    const char *origin = "";
    clb_status st = clb__selector_text(selector, &sel, &origin);
    if (st != CLB_OK || !sel) return st; /* no selector: the default rule, the host backend */
    if (!clb__ci_equal(sel, "host"))
        st = clb__fail(CLB_ERR_NO_DEVICE,
                       "no OpenCL device matches \"%s\"%s; available: host (this build has no "
                       "OpenCL support)",
                       sel, origin);
    free(sel);
    return st;
}
