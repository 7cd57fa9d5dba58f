/* The OpenCL side of device discovery, for the OpenCL backend: turns a global
 * device index into the platform/device handles and a filled description. */
#ifndef CLB_DEVICE_CL_H
#define CLB_DEVICE_CL_H

#include "clbroadcast.h"

#if CLB_HAVE_OPENCL
#include <CL/cl.h>

/* Looks up global device index `index` (order: platforms, then their devices)
   and fills *platform, *device and *info (any of them may be NULL).
   CLB_ERR_INVALID_ARGUMENT when the index is out of range. */
clb_status clb__cl_device_lookup(int index, cl_platform_id *platform, cl_device_id *device,
                                 clb_device_info *info);
/* Fills *info for a device handle of the application: index and selector those of
   the enumeration when the device is in it, else index -1 and selector "" (a
   sub-device, say). */
clb_status clb__cl_device_describe(cl_device_id device, clb_device_info *info);
#endif

#endif /* CLB_DEVICE_CL_H */
