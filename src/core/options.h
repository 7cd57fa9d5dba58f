/* The library's environment variables, read once when a context is created
 * into the context's options (README "Environment variables"): nothing reads
 * the environment on a call's path. */
#ifndef CLB_OPTIONS_H
#define CLB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct clb__options {
    int reduce_fast;    /* CLB_REDUCE_FAST: -1 by device (default), 0 never, 1 on every device */
    int matmul_impl;    /* CLB_MATMUL_IMPL: 0 the dispatch rule, 1 "kernel", 2 "clblast" */
    bool matmul_tuning; /* CLB_MATMUL_TUNING: false for "off" (ignore cached tunings) */
    int64_t host_tiny;  /* CLB_HOST_TINY: largest map run on the calling thread (8192) */
    int argreduce_lanes; /* CLB_ARGREDUCE_LANES: lanes per row of cl/argreduce.cl (0: by device) */
    bool huge_pages;     /* CLB_HUGE_PAGES: false for "0" (large host storage keeps 4 KiB pages) */
} clb__options;

enum { CLB__MATMUL_AUTO = 0, CLB__MATMUL_KERNEL = 1, CLB__MATMUL_CLBLAST = 2 };

/* Fills o from the environment; a malformed value keeps the default. */
void clb__options_read(clb__options *o);

#endif /* CLB_OPTIONS_H */
