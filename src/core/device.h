/* OpenCL device discovery and the selector grammar. */
#ifndef CLB_DEVICE_H
#define CLB_DEVICE_H

#include "clbroadcast.h"

#include <stdbool.h>

/* A resolved OpenCL device: its handles and every fact about it the backend
   needs, gathered once (one capabilities struct per device, as ggml keeps).
   An incomplete type: the OpenCL backend's clb__cl_caps is behind it
   (src/opencl/cl_device.h), and nothing above that backend looks inside. */
typedef struct clb__device clb__device;

/* Resolves a selector (grammar in clbroadcast.h; NULL -> $CLB_DEVICE -> default
   rule) once: *device receives the device with its facts, or NULL for the host
   backend; the caller frees it with clb__device_free. CLB_ERR_NO_DEVICE with the
   list of available selectors when nothing matches. */
clb_status clb__device_resolve(const char *selector, clb__device **device);
void clb__device_free(clb__device *device); /* NULL-safe */

/* Selector text (device_text.c): case-insensitive equality, and a malloc'd copy
   without the blanks around it (selectors from the environment often carry
   them: "gpu "); NULL when out of memory. */
bool clb__ci_equal(const char *a, const char *b);
char *clb__trimmed_copy(const char *s);

/* The selector a context asks for, written once for both device sides: the
   argument, else $CLB_DEVICE. *sel: its trimmed copy for the caller to free, or
   NULL when neither names one (the default rule); *origin: what a message adds
   after it (" (from $CLB_DEVICE)" or ""). CLB_ERR_OUT_OF_MEMORY on the copy. */
clb_status clb__selector_text(const char *selector, char **sel, const char **origin);

#endif /* CLB_DEVICE_H */
