/* Checks that a device receives the launch descriptions of cl/launch_args.h
 * exactly as the host writes them (see cl_args.h). */
#include "cl_args.h"

#include "cl_errors.h"
#include "internal.h"
#include "cl_kernels.h"
#include "cl_program_cache.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

_Static_assert(CLB_COPY_ARGS_LEN <= 16 * CLB_COPY_ARGS_VECS, "copy description outgrew its vectors");
_Static_assert(CLB_MAP_ARGS_LEN <= 16 * CLB_MAP_ARGS_VECS, "map description outgrew its vectors");
_Static_assert(CLB_EVAL_ARGS_LEN <= 16 * CLB_EVAL_ARGS_VECS + 8 * CLB_EVAL_ARGS_TAIL,
               "eval description outgrew its vectors");
_Static_assert(CLB_ARGRED_ARGS_LEN <= 16 * CLB_ARGRED_ARGS_VECS, "argreduce description outgrew its vector");
_Static_assert(CLB_RED_ARGS_LEN <= 16 * CLB_RED_ARGS_VECS, "reduce description outgrew its vectors");
_Static_assert(CLB_ER_ARGS_LEN <= 16 * CLB_ER_ARGS_VECS, "eval_reduce description outgrew its vector");
_Static_assert(CLB_MM_ARGS_LEN <= 16 * CLB_MM_ARGS_VECS, "matmul description outgrew its vectors");
_Static_assert(CLB_TAKE_ARGS_LEN <= 16 * CLB_TAKE_ARGS_VECS, "take description outgrew its vector");
_Static_assert(CLB_SCAN_ARGS_LEN <= 16 * CLB_SCAN_ARGS_VECS, "scan description outgrew its vector");
_Static_assert(CLB_SORT_ARGS_LEN <= 16 * CLB_SORT_ARGS_VECS, "sort description outgrew its vector");
_Static_assert(CLB_SELECT_ARGS_LEN <= 16 * CLB_SELECT_ARGS_VECS,
               "select description outgrew its vector");
_Static_assert(CLB_GEN_ARGS_LEN <= 16 * CLB_GEN_ARGS_VECS,
               "generate description outgrew its vector");
_Static_assert(sizeof(cl_long16) == 16 * sizeof(cl_long), "cl_long16 is 16 packed cl_longs");
_Static_assert(sizeof(cl_long8) == 8 * sizeof(cl_long), "cl_long8 is 8 packed cl_longs");

int clb__cl_args_vecs(clb__kernel_id id)
{
    switch (id) {
    case CLB__KERNEL_COPY: return CLB_COPY_ARGS_VECS;
    case CLB__KERNEL_MAP: return CLB_MAP_ARGS_VECS;
    case CLB__KERNEL_EVAL: return CLB_EVAL_ARGS_VECS;
    case CLB__KERNEL_ARGREDUCE: return CLB_ARGRED_ARGS_VECS;
    case CLB__KERNEL_REDUCE: return CLB_RED_ARGS_VECS;
    case CLB__KERNEL_EVAL_REDUCE: return CLB_ER_ARGS_VECS;
    case CLB__KERNEL_MATMUL: return CLB_MM_ARGS_VECS;
    case CLB__KERNEL_TAKE: return CLB_TAKE_ARGS_VECS;
    case CLB__KERNEL_SCAN: return CLB_SCAN_ARGS_VECS;
    case CLB__KERNEL_SORT: return CLB_SORT_ARGS_VECS;
    case CLB__KERNEL_SELECT: return CLB_SELECT_ARGS_VECS;
    case CLB__KERNEL_GENERATE: return CLB_GEN_ARGS_VECS;
    default: return 0;
    }
}

/* Whether family id's description ends with a long8 after its vectors. */
static bool args_tail(clb__kernel_id id)
{
    return id == CLB__KERNEL_EVAL && CLB_EVAL_ARGS_TAIL;
}

int clb__cl_args_slots(clb__kernel_id id)
{
    return 16 * clb__cl_args_vecs(id) + (args_tail(id) ? 8 : 0);
}

/* The size of argument t of family id's description: a long16, or the long8 tail. */
static size_t arg_size(clb__kernel_id id, int t)
{
    return t < clb__cl_args_vecs(id) ? sizeof(cl_long16) : sizeof(cl_long8);
}

/* Arguments of family id's description. */
static int arg_count(clb__kernel_id id)
{
    return clb__cl_args_vecs(id) + (args_tail(id) ? 1 : 0);
}

clb_status clb__cl_set_args(clb__cl_kernel *k, clb__kernel_id id, cl_uint first,
                            const clb__cl_args *args)
{
    int n = arg_count(id);
    for (int t = 0; t < n; t++) {
        clb_status st = clb__cl_set_arg(k, first + (cl_uint)t, arg_size(id, t), args->v + 16 * t);
        if (st != CLB_OK) return st;
    }
    return CLB_OK;
}

void clb__cl_args_fill(clb__cl_args *args, const clb__plan *p, int ops, bool tables,
                       int64_t *rows, int64_t *inner)
{
    const int nd = p->ndim > 0 ? p->ndim : 1;
#define AXIS_SHAPE(a) (p->ndim > 0 ? p->shape[a] : 1)
#define AXIS_STRIDE(o, a) ((o) >= p->nops || p->ndim == 0 ? 0 : p->strides[o][a])
    memset(args, 0, sizeof *args);
    *inner = AXIS_SHAPE(nd - 1);
    *rows = p->numel / *inner;
    args->v[CLB_ARGS_ROWS(ops)] = *rows;
    args->v[CLB_ARGS_INNER(ops)] = *inner;
    args->v[CLB_ARGS_RANK(ops)] = nd;
    for (int o = 0; o < ops; o++) {
        args->v[CLB_ARGS_OFFSET(ops, o)] = o < p->nops ? p->offsets[o] : 0;
        args->v[CLB_ARGS_INNER_STRIDE(ops, o)] = AXIS_STRIDE(o, nd - 1);
    }
    if (!tables) return;
    for (int a = 0; a < nd; a++) {
        args->v[CLB_ARGS_SHAPE(ops, a)] = AXIS_SHAPE(a);
        for (int o = 0; o < ops; o++) args->v[CLB_ARGS_STRIDE(ops, o, a)] = AXIS_STRIDE(o, a);
    }
#undef AXIS_SHAPE
#undef AXIS_STRIDE
}

/* A value for slot i that no shifted, truncated or byte-swapped slot equals. */
static cl_long probe_value(int i)
{
    return (cl_long)(0x5A00000000000000ull | (uint64_t)(i + 1) << 32 | (uint64_t)(i + 1) * 0x101u);
}

clb_status clb__cl_check_args(clb__cl_context *cl, clb__kernel_id id, cl_program program)
{
    int vecs = arg_count(id);
    if (vecs == 0 || atomic_load(&cl->args_checked[id])) return CLB_OK;
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = NULL;
    cl_mem out = NULL;
    int len = clb__cl_args_slots(id);
    size_t bytes = (size_t)len * sizeof(cl_long);
    clb__cl_args args, got;
    for (int i = 0; i < len; i++) args.v[i] = probe_value(i);

    kernel = clCreateKernel(program, "clb_args_probe", &err);
    CLB_CL_CHECK(err, "clCreateKernel(clb_args_probe)");
    out = clCreateBuffer(cl->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CLB_CL_CHECK(err, "clCreateBuffer");
    CLB_CL_CHECK(clSetKernelArg(kernel, 0, sizeof out, &out), "clSetKernelArg");
    for (int t = 0; t < vecs && err == CL_SUCCESS; t++)
        err = clSetKernelArg(kernel, 1 + (cl_uint)t, arg_size(id, t), args.v + 16 * t);
    CLB_CL_CHECK(err, "clSetKernelArg");
    size_t one = 1;
    CLB_CL_CHECK(clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL),
                 "clEnqueueNDRangeKernel(clb_args_probe)");
    CLB_CL_CHECK(clEnqueueReadBuffer(cl->queue, out, CL_TRUE, 0, bytes, got.v, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
    for (int i = 0; i < len; i++) {
        if (got.v[i] != args.v[i]) {
            char name[128] = "?", driver[64] = "?";
            clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
            clGetDeviceInfo(cl->device, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
            st = clb__fail(CLB_ERR_UNSUPPORTED,
                           "device '%s' (driver %s) cannot run the %s kernels: slot %d of their "
                           "launch description arrives as 0x%016" PRIx64 " instead of 0x%016" PRIx64
                           " (a long16 kernel argument is passed wrongly)",
                           name, driver, clb__kernel_file(id), i, (uint64_t)got.v[i],
                           (uint64_t)args.v[i]);
            goto cleanup;
        }
    }
    atomic_store(&cl->args_checked[id], 1);
cleanup:
    if (out) clReleaseMemObject(out);
    if (kernel) clReleaseKernel(kernel);
    return st;
}

/* Whether program defines a kernel called name (CL_PROGRAM_KERNEL_NAMES). */
static bool has_kernel(cl_program program, const char *name)
{
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return false;
    char *names = malloc(size);
    bool found = false;
    if (names && clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) == CL_SUCCESS) {
        size_t len = strlen(name);
        for (const char *p = names; *p; p += strcspn(p, ";"), p += *p == ';') {
            size_t n = strcspn(p, ";");
            if (n == len && memcmp(p, name, len) == 0) found = true;
        }
    }
    free(names);
    return found;
}

clb_status clb__cl_kernel_build_checked(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                                        const char *options, const char *name,
                                        clb__cl_kernel **out)
{
    cl_program program = NULL;
    clb_status st = clb__program_cache_get(cl->programs, id, options, &program);
    if (st == CLB_OK) st = clb__cl_check_args(cl, id, program);
    if (st != CLB_OK) return st;
    if (name && !has_kernel(program, name)) name = NULL;
    return clb__cl_kernel_named(cl, id, key, program, name ? name : clb__kernel_function(id), out);
}
