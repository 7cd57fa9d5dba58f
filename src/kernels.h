/* The kernel registry: which embedded .cl files make up each kernel's program,
 * the kernel function's name, and how a define set becomes the build-option
 * string (the options are the specialisation and part of every cache key). */
#ifndef CLB_KERNELS_H
#define CLB_KERNELS_H

#include "clbroadcast.h"

#include <stddef.h>
#include <stdint.h>

typedef enum clb__kernel_id {
    CLB__KERNEL_COPY = 0, /* cl/copy.cl: strided copy / cast */
    CLB__KERNEL_COUNT
} clb__kernel_id;

#define CLB__KERNEL_MAX_SOURCES 2   /* common.cl + the kernel's file */
#define CLB__KERNEL_OPTIONS_MAX 256 /* longest option string (a handful of -D) */

/* "copy.cl"; NULL for an unknown id. */
const char *clb__kernel_file(clb__kernel_id id);
/* Name of the __kernel function in the program: "clb_copy". */
const char *clb__kernel_function(clb__kernel_id id);

/* The program's source strings in build order (common.cl first) and their
   lengths; returns how many (0 for an unknown id). The strings are static. */
int clb__kernel_sources(clb__kernel_id id, const char **strings, size_t *lengths);

/* One -D of the preamble; the value is always an integer (dtype number, rank...). */
typedef struct clb__kernel_define {
    const char *name;
    int64_t value;
} clb__kernel_define;

/* Writes "-DNAME=value -DNAME=value ..." into buf (CLB__KERNEL_OPTIONS_MAX bytes).
   No fast-math or other flags: results must match the host backend bit for bit. */
clb_status clb__kernel_options(const clb__kernel_define *defines, int count, char *buf,
                               size_t cap);

#endif /* CLB_KERNELS_H */
