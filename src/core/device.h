/* OpenCL device discovery and the selector grammar. */
#ifndef CLB_DEVICE_H
#define CLB_DEVICE_H

#include "clbroadcast.h"

#include <stdbool.h>

/* Resolves a selector (grammar in clbroadcast.h; NULL -> $CLB_DEVICE -> default
   rule) to a global OpenCL device index, or -1 for the host backend.
   CLB_ERR_NO_DEVICE with the list of available selectors when nothing matches. */
clb_status clb__device_resolve(const char *selector, int *device_index);

/* Selector text (device_text.c): case-insensitive equality, and a malloc'd copy
   without the blanks around it (selectors from the environment often carry
   them: "gpu "); NULL when out of memory. */
bool clb__ci_equal(const char *a, const char *b);
char *clb__trimmed_copy(const char *s);

#endif /* CLB_DEVICE_H */
