/* Kernel registry over the sources cl/embed.py compiled into the library. */
#include "cl_kernels.h"

#include "internal.h"

#include "cl_sources.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Every program starts with the op enums, the launch-description slots and the
   shared preamble; kernels that evaluate element-wise ops add their scalar rules. */
static const struct {
    const char *file;
    const char *function;
    bool scalar_ops; /* cl/scalar_ops.cl before the file */
    const char *after; /* a file appended to the same program (NULL: none) */
} registry[CLB__KERNEL_COUNT] = {
    [CLB__KERNEL_COPY] = {"copy.cl", "clb_copy", false, NULL},
    [CLB__KERNEL_REDUCE] = {"reduce.cl", "clb_reduce", false, NULL},
    [CLB__KERNEL_MATMUL] = {"matmul.cl", "clb_matmul", false, NULL},
    [CLB__KERNEL_MAP] = {"elementwise.cl", "clb_map", true, NULL},
    [CLB__KERNEL_EVAL] = {"eval.cl", "clb_eval", true, NULL},
    [CLB__KERNEL_ARGREDUCE] = {"argreduce.cl", "clb_argmax", false, NULL},
    [CLB__KERNEL_EVAL_REDUCE] = {"eval_reduce.cl", "clb_eval_reduce", true, "stats.cl"},
    [CLB__KERNEL_FILL] = {"fill.cl", "clb_fill", false, NULL},
    [CLB__KERNEL_GENERATE] = {"generate.cl", "clb_generate", false, NULL},
    [CLB__KERNEL_TAKE] = {"take.cl", "clb_take", false, NULL},
    [CLB__KERNEL_SCAN] = {"scan.cl", "clb_scan_apply", false, NULL},
    [CLB__KERNEL_SELECT] = {"select.cl", "clb_select", false, NULL},
    [CLB__KERNEL_SORT] = {"sort.cl", "clb_sort_tile", false, NULL},
};

static const clb__cl_source *find_source(const char *name)
{
    for (int i = 0; i < CLB__CL_SOURCE_COUNT; i++)
        if (strcmp(clb__cl_sources[i].name, name) == 0) return &clb__cl_sources[i];
    return NULL;
}

const char *clb__kernel_file(clb__kernel_id id)
{
    return (unsigned)id < CLB__KERNEL_COUNT ? registry[id].file : NULL;
}

const char *clb__kernel_function(clb__kernel_id id)
{
    return (unsigned)id < CLB__KERNEL_COUNT ? registry[id].function : NULL;
}

int clb__kernel_sources(clb__kernel_id id, const char **strings, size_t *lengths)
{
    if ((unsigned)id >= CLB__KERNEL_COUNT) return 0;
    /* The shared files are separate strings rather than #includes: programs are
       built from memory, with no include path to search. */
    const clb__cl_source *parts[CLB__KERNEL_MAX_SOURCES];
    int n = 0;
    parts[n++] = find_source("clb_enums.h");
    parts[n++] = find_source("launch_args.h");
    parts[n++] = find_source("common.cl");
    /* random.h is shared with the host; scalar_ops.cl takes its float log and
       sincos polynomials (CLB_OWN_MATH) from it. */
    if (registry[id].scalar_ops || id == CLB__KERNEL_GENERATE) parts[n++] = find_source("random.h");
    if (registry[id].scalar_ops) parts[n++] = find_source("scalar_ops.cl");
    parts[n++] = find_source(registry[id].file);
    if (registry[id].after) parts[n++] = find_source(registry[id].after);
    for (int i = 0; i < n; i++) {
        if (!parts[i]) return 0;
        strings[i] = (const char *)parts[i]->bytes;
        lengths[i] = parts[i]->length;
    }
    return n;
}

clb_status clb__kernel_options(const clb__kernel_define *defines, int count, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "no room for kernel build options");
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        int n = snprintf(buf + len, cap - len, "%s-D%s=%" PRId64, i ? " " : "", defines[i].name,
                         defines[i].value);
        if (n < 0 || (size_t)n >= cap - len)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "kernel build options longer than %zu bytes",
                             cap);
        len += (size_t)n;
    }
    return CLB_OK;
}
