/* The environment, read once per context (see options.h). */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void clb__options_read(clb__options *o)
{
    o->reduce_fast = -1;
    o->matmul_impl = CLB__MATMUL_AUTO;
    o->matmul_tuning = true;
    o->host_tiny = 8192;
    o->argreduce_lanes = 0;
    o->huge_pages = true;

    const char *v = getenv("CLB_REDUCE_FAST");
    if (v && (v[0] == '0' || v[0] == '1') && v[1] == '\0') o->reduce_fast = v[0] - '0';
    v = getenv("CLB_MATMUL_IMPL");
    if (v && strcmp(v, "kernel") == 0) o->matmul_impl = CLB__MATMUL_KERNEL;
    if (v && strcmp(v, "clblast") == 0) o->matmul_impl = CLB__MATMUL_CLBLAST;
    v = getenv("CLB_MATMUL_TUNING");
    if (v && strcasecmp(v, "off") == 0) o->matmul_tuning = false;
    v = getenv("CLB_HOST_TINY");
    if (v && *v) {
        char *end = NULL;
        long long n = strtoll(v, &end, 10);
        if (end && *end == '\0' && n >= 0) o->host_tiny = (int64_t)n;
    }
    v = getenv("CLB_HUGE_PAGES");
    if (v && strcmp(v, "0") == 0) o->huge_pages = false;
    v = getenv("CLB_ARGREDUCE_LANES");
    if (v && *v) {
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (end && *end == '\0' && n >= 1 && n <= 64) o->argreduce_lanes = (int)n;
    }
}
