/* The peaks of an OpenCL device: raw kernels from cli/peaks/peaks.cl on the
   context's own cl_context, device and queue (clbroadcast_cl.h), outside the
   library, so they measure the device and driver, not clbroadcast (see peaks.h).
   Every kernel runs with local size NULL: the implementation picks the
   work-group, and no geometry of one implementation is assumed. */
#include "peaks.h"

#include "harness.h"

#include "clbroadcast_cl.h"
#include "peaks_cl_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEAK_BLOCK 16  /* float4s per work item of read/write (peaks.cl's default) */
#define PEAK_ITERS 512 /* FMA loop trips (peaks.cl's default) */
#define PEAK_STR2(x) #x
#define PEAK_STR(x) PEAK_STR2(x)
/* Passed to every build, so the kernels and the counts here agree by construction. */
#define PEAK_SIZES " -DPEAK_BLOCK=" PEAK_STR(PEAK_BLOCK) " -DPEAK_ITERS=" PEAK_STR(PEAK_ITERS)
#define RT_CALLS 16    /* round-trip launches per timed run */
#define PIPE_CALLS 256 /* pipelined launches per timed run */

typedef struct cl_env {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    const char *failed_call; /* the call behind a nonzero run code */
} cl_env;

typedef struct cl_job {
    cl_env *env;
    cl_kernel kernel;
    size_t global;
    int calls;       /* launches per run (at least one) */
    int finish_each; /* 1: clFinish after every launch (a round trip); else once per run */
    /* transfers */
    int transfer; /* 0 kernel, 1 write, 2 read, 3 map-write */
    cl_mem buf;
    void *host;
    size_t bytes;
} cl_job;

static const char *cl_error_name(cl_int e)
{
    switch (e) {
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    default: return "an OpenCL error";
    }
}

static int run_job(void *u)
{
    cl_job *j = u;
    cl_env *e = j->env;
    cl_int err = CL_SUCCESS;
    switch (j->transfer) {
    case 0: {
        int calls = j->calls > 0 ? j->calls : 1;
        for (int i = 0; i < calls && err == CL_SUCCESS; i++) {
            err = clEnqueueNDRangeKernel(e->queue, j->kernel, 1, NULL, &j->global, NULL, 0, NULL, NULL);
            if (err != CL_SUCCESS) e->failed_call = "clEnqueueNDRangeKernel";
            if (err == CL_SUCCESS && j->finish_each) {
                err = clFinish(e->queue);
                if (err != CL_SUCCESS) e->failed_call = "clFinish";
            }
        }
        break;
    }
    case 1:
        err = clEnqueueWriteBuffer(e->queue, j->buf, CL_TRUE, 0, j->bytes, j->host, 0, NULL, NULL);
        if (err != CL_SUCCESS) e->failed_call = "clEnqueueWriteBuffer";
        break;
    case 2:
        err = clEnqueueReadBuffer(e->queue, j->buf, CL_TRUE, 0, j->bytes, j->host, 0, NULL, NULL);
        if (err != CL_SUCCESS) e->failed_call = "clEnqueueReadBuffer";
        break;
    case 3: {
        void *p = clEnqueueMapBuffer(e->queue, j->buf, CL_TRUE, CL_MAP_WRITE, 0, j->bytes, 0, NULL,
                                     NULL, &err);
        if (err != CL_SUCCESS) {
            e->failed_call = "clEnqueueMapBuffer";
            break;
        }
        memcpy(p, j->host, j->bytes);
        err = clEnqueueUnmapMemObject(e->queue, j->buf, p, 0, NULL, NULL);
        if (err != CL_SUCCESS) e->failed_call = "clEnqueueUnmapMemObject";
        break;
    }
    }
    if (err == CL_SUCCESS) {
        err = clFinish(e->queue);
        if (err != CL_SUCCESS) e->failed_call = "clFinish";
    }
    return err == CL_SUCCESS ? 0 : (int)err;
}

/* Samples one job into p; 0 on success, else the reason is in p. */
static int sample(bench_peak *p, const bench_plan *plan, cl_job *j, double divisor,
                  bench_peak_unit unit)
{
    int rc = bench_sample(plan, run_job, j, divisor, &p->st);
    if (rc) {
        bench_peak_skip(p, 0, "%s: %s (%d)", rc == -1 ? "malloc" : j->env->failed_call,
                        rc == -1 ? "out of memory" : cl_error_name(rc), rc);
        return 1;
    }
    bench_peak_finish(p, unit);
    return 0;
}

static cl_program build(cl_env *e, const char *options, char *why, size_t cap)
{
    const char *src = (const char *)clb__cl_sources[0].bytes;
    size_t len = clb__cl_sources[0].length;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(e->context, 1, &src, &len, &err);
    if (err != CL_SUCCESS) {
        snprintf(why, cap, "clCreateProgramWithSource: %s (%d)", cl_error_name(err), err);
        return NULL;
    }
    err = clBuildProgram(prog, 1, &e->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[160] = "";
        clGetProgramBuildInfo(prog, e->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        for (char *c = log; *c; c++)
            if (*c == '\n') *c = ' ';
        snprintf(why, cap, "building cli/peaks/peaks.cl with %s: %s (%d) %s", options, cl_error_name(err),
                 err, log);
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

static int has_extension(cl_device_id dev, const char *name)
{
    size_t len = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || !len) return 0;
    char *ext = malloc(len + 1);
    int found = 0;
    if (ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, ext, NULL) == CL_SUCCESS) {
        ext[len] = '\0';
        size_t n = strlen(name);
        for (const char *s = strstr(ext, name); s && !found; s = strstr(s + 1, name))
            found = (s == ext || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0');
    }
    free(ext);
    return found;
}

static cl_mem buffer(cl_env *e, cl_mem_flags flags, size_t bytes, const void *init, cl_int *err)
{
    cl_mem m = clCreateBuffer(e->context, flags, bytes, NULL, err);
    if (*err == CL_SUCCESS && init)
        *err = clEnqueueWriteBuffer(e->queue, m, CL_TRUE, 0, bytes, init, 0, NULL, NULL);
    return m;
}

/* ---- bandwidth ------------------------------------------------------------------------ */

/* The faster of a blocked and a strided kernel (peaks.cl) into p. */
static void two_layouts(cl_env *e, cl_program prog, const char *blocked, const char *strided,
                        cl_mem a, cl_mem b, cl_uint seed_or_zero, int is_write, size_t global,
                        const bench_plan *plan, bench_peak *p, const char *what)
{
    const char *names[2] = {blocked, strided};
    bench_peak best = {0}, tried;
    int have = 0, won = 0;
    char other[96] = "";
    for (int i = 0; i < 2; i++) {
        tried = *p;
        cl_int err;
        cl_kernel k = clCreateKernel(prog, names[i], &err);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof a, &a);
        if (err == CL_SUCCESS)
            err = is_write ? clSetKernelArg(k, 1, sizeof seed_or_zero, &seed_or_zero)
                           : clSetKernelArg(k, 1, sizeof b, &b);
        if (err != CL_SUCCESS) {
            bench_peak_skip(&tried, 0, "clCreateKernel/clSetKernelArg %s: %s (%d)", names[i],
                            cl_error_name(err), err);
        } else {
            cl_job j = {.env = e, .kernel = k, .global = global, .calls = 1};
            sample(&tried, plan, &j, 1, UNIT_GBPS);
        }
        if (k) clReleaseKernel(k);
        if (tried.measured && (!have || tried.st.median_s < best.st.median_s)) {
            if (have) snprintf(other, sizeof other, "; %s %.2f GB/s", names[0], best.value);
            best = tried;
            won = i;
            have = 1;
        } else if (tried.measured) {
            snprintf(other, sizeof other, "; %s %.2f GB/s", names[i], tried.value);
        } else if (!have && i == 1) {
            best = tried;
        }
    }
    double work = p->work;
    *p = best;
    p->work = work;
    snprintf(p->kernel, sizeof p->kernel, "peaks.cl %s (faster of blocked/strided%s): %s", names[won],
             other, what);
}

static void bandwidth_peaks(cl_env *e, cl_program prog, size_t bytes, const float *data,
                            const bench_plan *plan, bench_peak *peaks)
{
    cl_int err;
    size_t n4 = bytes / 16, nout = n4 / PEAK_BLOCK;
    cl_mem src = buffer(e, CL_MEM_READ_WRITE, bytes, data, &err);
    cl_mem dst = err == CL_SUCCESS ? buffer(e, CL_MEM_READ_WRITE, bytes, data, &err) : NULL;
    cl_mem out = err == CL_SUCCESS ? buffer(e, CL_MEM_READ_WRITE, nout * sizeof(float), NULL, &err) : NULL;
    char mem[32];
    snprintf(mem, sizeof mem, "%zu MiB", bytes >> 20);
    if (err != CL_SUCCESS) {
        for (int i = PEAK_COPY; i <= PEAK_WRITE; i++)
            bench_peak_skip(&peaks[i], 0, "clCreateBuffer/clEnqueueWriteBuffer of %s: %s (%d)", mem,
                            cl_error_name(err), err);
    } else {
        /* copy */
        bench_peak *p = &peaks[PEAK_COPY];
        cl_kernel k = clCreateKernel(prog, "peak_copy", &err);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof src, &src);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof dst, &dst);
        p->work = 2.0 * (double)bytes;
        if (err != CL_SUCCESS) {
            bench_peak_skip(p, 0, "peak_copy: %s (%d)", cl_error_name(err), err);
        } else {
            cl_job j = {.env = e, .kernel = k, .global = n4, .calls = 1};
            if (!sample(p, plan, &j, 1, UNIT_GBPS)) {
                /* validate after timing: the first and last float4s */
                float got[8];
                err = clEnqueueReadBuffer(e->queue, dst, CL_TRUE, bytes - 16, 16, got, 0, NULL, NULL);
                if (err == CL_SUCCESS)
                    err = clEnqueueReadBuffer(e->queue, dst, CL_TRUE, 0, 16, got + 4, 0, NULL, NULL);
                if (err != CL_SUCCESS || memcmp(got, data + bytes / 4 - 4, 16) || memcmp(got + 4, data, 16))
                    bench_peak_skip(p, 0, "peak_copy wrote something else than its input");
            }
            snprintf(p->kernel, sizeof p->kernel,
                     "peaks.cl peak_copy: dst[i] = src[i], one float4 per work item, %s of random "
                     "float32 (bytes read + written)", mem);
        }
        if (k) clReleaseKernel(k);
        /* read */
        char what[160];
        peaks[PEAK_READ].work = (double)bytes + (double)nout * sizeof(float);
        snprintf(what, sizeof what, "sums %d float4s per work item, writes 1 float; %s of random float32",
                 PEAK_BLOCK, mem);
        two_layouts(e, prog, "peak_read_blocked", "peak_read_strided", src, out, 0, 0, nout, plan,
                    &peaks[PEAK_READ], what);
        peaks[PEAK_WRITE].work = (double)bytes;
        snprintf(what, sizeof what, "writes %d float4s of hashed (incompressible) values per work item; %s",
                 PEAK_BLOCK, mem);
        two_layouts(e, prog, "peak_write_blocked", "peak_write_strided", dst, NULL, 12345u, 1, nout,
                    plan, &peaks[PEAK_WRITE], what);
    }
    if (src) clReleaseMemObject(src);
    if (dst) clReleaseMemObject(dst);
    if (out) clReleaseMemObject(out);
}

/* ---- FMA --------------------------------------------------------------------------------- */

static void fma_peak(cl_env *e, const char *options, const char *type, size_t tsize, int quick,
                     const bench_plan *plan, bench_peak *p)
{
    char why[256];
    cl_program prog = build(e, options, why, sizeof why);
    if (!prog) {
        bench_peak_skip(p, 0, "%s", why);
        return;
    }
    const size_t max_global = (size_t)1 << 22;
    cl_int err;
    cl_mem out = clCreateBuffer(e->context, CL_MEM_READ_WRITE, max_global * tsize, NULL, &err);
    const char *names[4] = {"peak_fma", "peak_fma4", "peak_fma16", "peak_fma16_fused"};
    /* flops per work item: 2 per mad, chains x lanes per trip (peaks.cl) */
    const double per_item[4] = {2.0 * 16 * PEAK_ITERS, 2.0 * 16 * 4 * PEAK_ITERS, 2.0 * 8 * 16 * PEAK_ITERS,
                                2.0 * 8 * 16 * PEAK_ITERS};
    double target = quick ? 0.005 : 0.02;
    bench_peak best = {0};
    char other[128] = "";
    int won = -1;
    size_t best_global = 0;
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++) {
        float a = 0.999f, b = 0.001f;
        cl_kernel k = clCreateKernel(prog, names[i], &err);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof out, &out);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof a, &a);
        if (err == CL_SUCCESS) err = clSetKernelArg(k, 2, sizeof b, &b);
        cl_job j = {.env = e, .kernel = k, .global = 4096, .calls = 1};
        /* Calibrate the work-item count to a run of at least `target` seconds,
           the faster of two runs at each size so one slow run (another
           process) does not stop it early; the first run also builds the
           kernel for the device. */
        if (err == CL_SUCCESS && run_job(&j) == 0) {
            for (;;) {
                double t0 = clbb_now();
                if (run_job(&j) != 0) break;
                double t1 = clbb_now();
                if (run_job(&j) != 0) break;
                double fastest = t1 - t0 < clbb_now() - t1 ? t1 - t0 : clbb_now() - t1;
                if (fastest >= target || j.global >= max_global) break;
                j.global *= 2;
            }
            bench_peak tried = {0};
            tried.work = per_item[i] * (double)j.global;
            if (!sample(&tried, plan, &j, 1, UNIT_GFLOPS)) {
                size_t used = strlen(other);
                if (won < 0 || tried.value > best.value) {
                    if (won >= 0)
                        snprintf(other + used, sizeof other - used, "; %s %.2f", names[won], best.value);
                    best = tried;
                    won = i;
                    best_global = j.global;
                } else {
                    snprintf(other + used, sizeof other - used, "; %s %.2f", names[i], tried.value);
                }
            }
        }
        if (k) clReleaseKernel(k);
    }
    if (won < 0) {
        bench_peak_skip(p, 0, "%s: %s (%d)", e->failed_call ? e->failed_call : "peak_fma", cl_error_name(err), err);
    } else {
        *p = best;
        snprintf(p->kernel, sizeof p->kernel,
                 "peaks.cl %s (fastest of scalar/vector4/vector16 mad and vector16 fma%s GFLOP/s), %s: independent "
                 "chains x = mad(x, y, c) or fma per work item, %d trips, %zu work items, 2 flops per mad",
                 names[won], other, type, PEAK_ITERS, best_global);
    }
    if (out) clReleaseMemObject(out);
    clReleaseProgram(prog);
}

/* ---- launch and transfers ---------------------------------------------------------------- */

static void launch_peaks(cl_env *e, cl_program prog, const bench_plan *plan, bench_peak *peaks)
{
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "peak_empty", &err);
    for (int i = 0; i < 2; i++) {
        bench_peak *p = &peaks[i ? PEAK_LAUNCH_PIPELINED : PEAK_LAUNCH_ROUND_TRIP];
        if (err != CL_SUCCESS) {
            bench_peak_skip(p, 0, "clCreateKernel peak_empty: %s (%d)", cl_error_name(err), err);
            continue;
        }
        cl_job j = {.env = e, .kernel = k, .global = 1, .calls = i ? PIPE_CALLS : RT_CALLS,
                    .finish_each = !i};
        sample(p, plan, &j, j.calls, UNIT_US);
        snprintf(p->kernel, sizeof p->kernel,
                 i ? "peaks.cl peak_empty (no arguments, 1 work item): %d clEnqueueNDRangeKernel, "
                     "then one clFinish; time per launch"
                   : "peaks.cl peak_empty (no arguments, 1 work item): clEnqueueNDRangeKernel + "
                     "clFinish, %d times; time per launch",
                 j.calls);
    }
    if (k) clReleaseKernel(k);
}

static void transfer_peaks(cl_env *e, size_t bytes, float *data, const bench_plan *plan,
                           bench_peak *peaks)
{
    char mem[32];
    snprintf(mem, sizeof mem, "%zu MiB", bytes >> 20);
    static const char *const what[3] = {
        "clEnqueueWriteBuffer (blocking) of %s of random float32 from malloc'd host memory",
        "clEnqueueReadBuffer (blocking) of %s into malloc'd host memory",
        ("clEnqueueMapBuffer (CL_MAP_WRITE) of a CL_MEM_ALLOC_HOST_PTR buffer, memcpy of %s of random "
         "float32 into it, unmap, finish: zero-copy where the device shares host memory")};
    for (int i = 0; i < 3; i++) {
        bench_peak *p = &peaks[PEAK_HOST_TO_DEVICE + i];
        cl_int err;
        cl_mem m = clCreateBuffer(e->context, i == 2 ? CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR
                                                     : CL_MEM_READ_WRITE,
                                  bytes, NULL, &err);
        void *host = i == 1 ? malloc(bytes) : data;
        if (err != CL_SUCCESS || !host) {
            bench_peak_skip(p, 0, "clCreateBuffer of %s: %s (%d)", mem, cl_error_name(err), err);
        } else {
            if (i == 1) {
                memset(host, 0, bytes); /* first touch outside the timing */
                err = clEnqueueWriteBuffer(e->queue, m, CL_TRUE, 0, bytes, data, 0, NULL, NULL);
            }
            cl_job j = {.env = e, .transfer = i + 1, .buf = m, .host = host, .bytes = bytes};
            p->work = (double)bytes;
            if (err != CL_SUCCESS)
                bench_peak_skip(p, 0, "clEnqueueWriteBuffer: %s (%d)", cl_error_name(err), err);
            else
                sample(p, plan, &j, 1, UNIT_GBPS);
            snprintf(p->kernel, sizeof p->kernel, what[i], mem);
        }
        if (i == 1) free(host);
        if (m) clReleaseMemObject(m);
    }
}

void bench_peaks_cl(clb_context *ctx, const clb_device_info *info, const bench_plan *plan,
                    int quick, bench_peak *peaks)
{
    memset(peaks, 0, PEAK_COUNT * sizeof *peaks);
    cl_env e = {NULL, NULL, NULL, "OpenCL"};
    clb_status st = clb_context_get_cl(ctx, &e.context, &e.device, &e.queue);
    if (st != CLB_OK) {
        for (int i = 0; i < PEAK_COUNT; i++)
            bench_peak_skip(&peaks[i], 0, "clb_context_get_cl: %s: %s", clb_status_name(st), clb_last_error());
        return;
    }
    size_t bytes = bench_peak_bytes(quick, info->max_alloc_bytes);
    float *data = malloc(bytes);
    char why[256] = "out of memory for the random data";
    cl_program prog = data ? build(&e, "-DPEAK_T=float" PEAK_SIZES, why, sizeof why) : NULL;
    if (!prog) {
        for (int i = 0; i < PEAK_COUNT; i++) bench_peak_skip(&peaks[i], 0, "%s", why);
        free(data);
        return;
    }
    bench_random_floats(data, bytes / sizeof(float), 2);
    bandwidth_peaks(&e, prog, bytes, data, plan, peaks);
    fma_peak(&e, "-DPEAK_T=float" PEAK_SIZES, "float32", 4, quick, plan, &peaks[PEAK_FMA_F32]);
    if (has_extension(e.device, "cl_khr_fp16"))
        fma_peak(&e, "-DPEAK_T=half -DPEAK_FP16=1" PEAK_SIZES, "float16", 2, quick, plan, &peaks[PEAK_FMA_F16]);
    else
        bench_peak_skip(&peaks[PEAK_FMA_F16], 1, "the device has no cl_khr_fp16");
    if (has_extension(e.device, "cl_khr_fp64"))
        fma_peak(&e, "-DPEAK_T=double -DPEAK_FP64=1" PEAK_SIZES, "float64", 8, quick, plan, &peaks[PEAK_FMA_F64]);
    else
        bench_peak_skip(&peaks[PEAK_FMA_F64], 1, "the device has no cl_khr_fp64");
    launch_peaks(&e, prog, plan, peaks);
    transfer_peaks(&e, bytes, data, plan, peaks);
    clReleaseProgram(prog);
    free(data);
}
