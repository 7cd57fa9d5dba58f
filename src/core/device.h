/* OpenCL device discovery and the selector grammar. */
#ifndef CLB_DEVICE_H
#define CLB_DEVICE_H

#include "clbroadcast.h"

/* Resolves a selector (grammar in clbroadcast.h; NULL -> $CLB_DEVICE -> default
   rule) to a global OpenCL device index, or -1 for the host backend.
   CLB_ERR_NO_DEVICE with the list of available selectors when nothing matches. */
clb_status clb__device_resolve(const char *selector, int *device_index);

#endif /* CLB_DEVICE_H */
