/* Element-wise broadcast patterns on one OpenCL device (issue 3's targets).
 *
 * Reference: the device's copy bandwidth, measured with a plain float4 copy
 * kernel (bench/ref_kernels.cl) over the same number of bytes as the largest
 * case. Each pattern reports its effective bandwidth (distinct bytes read +
 * bytes written, GB = 1e9) and its % of that copy bandwidth, once into a
 * preallocated output (clb_binary_into) and once with a new output per call.
 * Then the tiny bias add (32,30)+(30,): 1000 calls and one clb_finish, per
 * call, against 1000 enqueues of an empty kernel measured the same way.
 *
 * usage: bench_elementwise [--device N] [--quick]   (N: global OpenCL device index) */
#include "harness.h"

#include "bench_ref_kernels.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern {
    const char *name;
    int ndim_a, ndim_b;
    int64_t a[4], b[4];
    int ndim_out;
    int64_t out[4];
} pattern;

static clb_context *ctx;
static clb_tensor *ta, *tb, *tout;

static clb_status run_into(void *u)
{
    (void)u;
    return clb_binary_into(CLB_ADD, ta, tb, tout);
}

static clb_status run_new(void *u)
{
    (void)u;
    clb_tensor *r = NULL;
    clb_status st = clb_binary(CLB_SUB, ta, tb, &r);
    clb_tensor_release(r);
    return st;
}

static int64_t numel(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

static clb_tensor *random_tensor(int ndim, const int64_t *shape, uint64_t seed)
{
    int64_t n = numel(ndim, shape);
    float *data = malloc((size_t)n * sizeof *data);
    if (!data) return NULL;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        data[i] = (float)(seed >> 40) / (float)(1 << 24);
    }
    clb_tensor *t = NULL;
    clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, data, &t);
    free(data);
    return t;
}

/* ---- raw OpenCL references ------------------------------------------------------- */

typedef struct ref {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel copy, empty;
} ref;

static int ref_open(int index, ref *r)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return -1;
    int seen = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        if (index >= seen + (int)nd) {
            seen += (int)nd;
            continue;
        }
        cl_device_id dev = devs[index - seen];
        cl_int err;
        r->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        r->queue = clCreateCommandQueue(r->context, dev, 0, &err);
        const char *src = (const char *)clb__cl_sources[0].bytes;
        size_t len = clb__cl_sources[0].length;
        r->program = clCreateProgramWithSource(r->context, 1, &src, &len, &err);
        if (clBuildProgram(r->program, 1, &dev, "", NULL, NULL) != CL_SUCCESS) return -1;
        r->copy = clCreateKernel(r->program, "ref_copy", &err);
        r->empty = clCreateKernel(r->program, "ref_empty", &err);
        return err == CL_SUCCESS ? 0 : -1;
    }
    return -1;
}

/* GB/s of the float4 copy of `bytes` bytes (median of a calibrated loop). */
static double ref_copy_gbps(ref *r, size_t bytes)
{
    cl_int err;
    cl_mem src = clCreateBuffer(r->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem dst = clCreateBuffer(r->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    float pattern_value = 1.5f;
    clEnqueueFillBuffer(r->queue, src, &pattern_value, sizeof pattern_value, 0, bytes, 0, NULL, NULL);
    clEnqueueFillBuffer(r->queue, dst, &pattern_value, sizeof pattern_value, 0, bytes, 0, NULL, NULL);
    clSetKernelArg(r->copy, 0, sizeof src, &src);
    clSetKernelArg(r->copy, 1, sizeof dst, &dst);
    size_t global = bytes / 16;
    double times[64];
    int n = 0;
    clEnqueueNDRangeKernel(r->queue, r->copy, 1, NULL, &global, NULL, 0, NULL, NULL);
    clFinish(r->queue);
    double start = clbb_now();
    while (n < 64 && (n < 5 || clbb_now() - start < 2.0)) {
        double t0 = clbb_now();
        clEnqueueNDRangeKernel(r->queue, r->copy, 1, NULL, &global, NULL, 0, NULL, NULL);
        clFinish(r->queue);
        times[n++] = clbb_now() - t0;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    return 2.0 * (double)bytes / times[n / 2] / 1e9;
}

/* Seconds per call of `calls` empty-kernel enqueues followed by one clFinish. */
static double ref_empty_per_call(ref *r, int calls)
{
    size_t global = 1;
    double best = 1e9;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = clbb_now();
        for (int i = 0; i < calls; i++)
            clEnqueueNDRangeKernel(r->queue, r->empty, 1, NULL, &global, NULL, 0, NULL, NULL);
        clFinish(r->queue);
        double t = (clbb_now() - t0) / calls;
        if (t < best) best = t;
    }
    return best;
}

static void ref_close(ref *r)
{
    if (r->copy) clReleaseKernel(r->copy);
    if (r->empty) clReleaseKernel(r->empty);
    if (r->program) clReleaseProgram(r->program);
    if (r->queue) clReleaseCommandQueue(r->queue);
    if (r->context) clReleaseContext(r->context);
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int device = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--device N] [--quick]\n", argv[0]);
            return 2;
        }
    }
    int64_t s = quick ? 4 : 1; /* --quick divides the large axes */
    const pattern patterns[] = {
        {"same shape 2^26 + 2^26", 1, 1, {((int64_t)1 << 26) / s}, {((int64_t)1 << 26) / s}, 1,
         {((int64_t)1 << 26) / s}},
        {"row (16384,4096) + (4096,)", 2, 1, {16384 / s, 4096}, {4096}, 2, {16384 / s, 4096}},
        {"column (16384,4096) + (16384,1)", 2, 2, {16384 / s, 4096}, {16384 / s, 1}, 2,
         {16384 / s, 4096}},
        {"images (256,3,224,224) - (3,1,1)", 4, 3, {256 / s, 3, 224, 224}, {3, 1, 1}, 4,
         {256 / s, 3, 224, 224}},
        {"outer (8192,1) + (1,8192)", 2, 2, {8192 / s, 1}, {1, 8192}, 2, {8192 / s, 8192}},
    };
    char selector[16];
    snprintf(selector, sizeof selector, "%d", device);
    if (clb_context_create(selector, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_elementwise: %s\n", clb_last_error());
        return 2;
    }
    ref r = {0};
    if (ref_open(device, &r) != 0) {
        fprintf(stderr, "bench_elementwise: cannot build the reference kernels on device %d\n",
                device);
        return 2;
    }
    size_t copy_bytes = (size_t)(((int64_t)1 << 26) / s) * 4;
    double copy = ref_copy_gbps(&r, copy_bytes);
    printf("device %d: %s\n", device, clb_context_device_name(ctx));
    printf("copy bandwidth (float4 copy kernel, %zu MB each way): %.2f GB/s\n\n", copy_bytes >> 20,
           copy);
    printf("%-36s %10s %8s %10s %8s %9s %9s\n", "pattern (float32)", "into GB/s", "% copy",
           "new GB/s", "% copy", "into ms", "new ms");
    int rc = 0;
    for (size_t c = 0; c < sizeof patterns / sizeof patterns[0]; c++) {
        const pattern *p = &patterns[c];
        ta = random_tensor(p->ndim_a, p->a, 1);
        tb = random_tensor(p->ndim_b, p->b, 2);
        if (!ta || !tb || clb_tensor_empty(ctx, CLB_FLOAT32, p->ndim_out, p->out, &tout) != CLB_OK) {
            fprintf(stderr, "%s: setup failed: %s\n", p->name, clb_last_error());
            rc = 1;
        } else {
            double bytes = 4.0 * (double)(numel(p->ndim_a, p->a) + numel(p->ndim_b, p->b) +
                                          numel(p->ndim_out, p->out));
            clbb_result into = clbb_measure(ctx, run_into, NULL, bytes, quick ? 0.5 : 2.0, 100);
            clbb_result fresh = clbb_measure(ctx, run_new, NULL, bytes, quick ? 0.5 : 2.0, 100);
            if (into.status != CLB_OK || fresh.status != CLB_OK) {
                fprintf(stderr, "%s: %s\n", p->name, clb_last_error());
                rc = 1;
            }
            printf("%-36s %10.2f %7.1f%% %10.2f %7.1f%% %9.3f %9.3f\n", p->name, into.gbps,
                   100 * into.gbps / copy, fresh.gbps, 100 * fresh.gbps / copy,
                   1e3 * into.median_s, 1e3 * fresh.median_s);
        }
        clb_tensor_release(ta);
        clb_tensor_release(tb);
        clb_tensor_release(tout);
        ta = tb = tout = NULL;
    }

    /* Tiny launches: (32,30) + (30,) into a preallocated out. */
    const int calls = 1000;
    int64_t bs[2] = {32, 30}, bias[1] = {30};
    ta = random_tensor(2, bs, 3);
    tb = random_tensor(1, bias, 4);
    clb_tensor_empty(ctx, CLB_FLOAT32, 2, bs, &tout);
    double best = 1e9;
    for (int rep = 0; rep < 7; rep++) {
        double t0 = clbb_now();
        for (int i = 0; i < calls; i++) run_into(NULL);
        clb_finish(ctx);
        double t = (clbb_now() - t0) / calls;
        if (t < best) best = t;
    }
    double empty = ref_empty_per_call(&r, calls);
    printf("\ntiny bias add (32,30)+(30,): %.2f us per call; empty kernel enqueue %.2f us; "
           "ratio %.2fx\n",
           1e6 * best, 1e6 * empty, best / empty);
    clb_tensor_release(ta);
    clb_tensor_release(tb);
    clb_tensor_release(tout);
    ref_close(&r);
    clb_context_release(ctx);
    return rc;
}
