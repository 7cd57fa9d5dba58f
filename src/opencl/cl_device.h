/* The OpenCL side of device discovery, for the OpenCL backend: a device's
 * handles and facts, gathered once when a selector resolves or an
 * application's device is adopted, and the lookup of a global device index. */
#ifndef CLB_DEVICE_CL_H
#define CLB_DEVICE_CL_H

#include "clbroadcast.h"
#include "device.h"

#if CLB_HAVE_OPENCL
#include <CL/cl.h>

#include <stdbool.h>
#include <stdint.h>

/* One device's capabilities: what context setup needs, queried once (ggml's
   backend keeps one such struct per device). Above this backend it travels as
   the opaque clb__device of core/device.h (clb__cl_caps_of converts). */
typedef struct clb__cl_caps {
    cl_platform_id platform;
    cl_device_id device;
    clb_device_info info;     /* the public description (quirk names included) */
    size_t max_item_size;     /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] (at least 1) */
    uint64_t local_mem_bytes; /* CL_DEVICE_LOCAL_MEM_SIZE */
    bool fine_grain_svm;      /* a CPU device sharing fine-grained SVM buffers with the host */
    unsigned quirks;          /* CLB__QUIRK_* bits of the entries that apply (cl_quirks.c) */
} clb__cl_caps;

/* The capabilities a resolved device handle holds (clb__device_resolve made it
   from a clb__cl_caps). */
static inline const clb__cl_caps *clb__cl_caps_of(const clb__device *device)
{
    return (const clb__cl_caps *)(const void *)device;
}

/* Describes global device index `index` (order: platforms, then their devices)
   into *info. CLB_ERR_INVALID_ARGUMENT when the index is out of range. */
clb_status clb__cl_device_lookup(int index, clb_device_info *info);
/* The facts of a device handle of the application, into *out: index and selector
   those of the enumeration when the device is in it, else index -1 and selector ""
   (a sub-device, say). */
clb_status clb__cl_device_adopt(cl_device_id device, clb__cl_caps *out);
#endif

#endif /* CLB_DEVICE_CL_H */
