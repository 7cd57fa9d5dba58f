/* bench_create (issue 28): tensors made on the device against the device's
 * write-only peak, the random streams against PyTorch and NumPy, and
 * clb_tensor_format of a large tensor.
 *
 *   bench_create [--device SEL] [--log2n K] [--rounds R] [--no-peers]
 *
 * Device (default "pocl"), 2^K float32 elements (default 26):
 *   fill peak      bench/fill_ref.cl's float4 fill (plain and streaming stores;
 *                  the faster is the peak), raw OpenCL on the same device
 *   full, arange, linspace, random_uniform, random_normal: the library call
 *                  (a new tensor each call, released after), GB/s of the output
 * timed interleaved (every case once per round, so all see the same load), as
 * % of the fill peak, and the CPU time a call took (every thread of this
 * process; on a shared machine a run's wall time is mostly its wait for a
 * core, its CPU time the steadier figure) against the fills' smaller; then the
 * peers (unless --no-peers), run by bench/create_peers.py in the same
 * process tree right after (torch.rand / torch.randn on 2 threads, NumPy's
 * default_rng().random / standard_normal with dtype=float32), as ratios; then
 * clb_tensor_format of a (16384, 4096) float32 tensor, warm: min and median of
 * 20 calls. Ratios come from one run on a shared machine: compare them, not
 * the absolute figures. */
#include "harness.h"

#include "bench_fill_ref.h"

#include <CL/cl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

/* CPU seconds of this process (every thread: PoCL's and rusticl's workers). On
   a machine shared with other jobs a run's wall time is mostly its wait for a
   core; the CPU time each case spends is the steadier figure. */
static double cpu_now(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

typedef struct fill_ref {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem dst;
    size_t global;
    double cpu_s; /* CPU time of the timed runs */
    int runs;
} fill_ref;

/* The raw fill on the OpenCL device named `name`; 0 on success. */
static int fill_open(const char *name, const char *kernel, size_t bytes, fill_ref *f)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    memset(f, 0, sizeof *f);
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return -1;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd; d++) {
            char dn[256] = "";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dn, dn, NULL);
            if (strcmp(dn, name) != 0) continue;
            cl_int err;
            f->context = clCreateContext(NULL, 1, &devs[d], NULL, NULL, &err);
            if (err != CL_SUCCESS) return -1;
            f->queue = clCreateCommandQueue(f->context, devs[d], 0, &err);
            const char *src = (const char *)clb__cl_sources[0].bytes;
            size_t len = clb__cl_sources[0].length;
            f->program = clCreateProgramWithSource(f->context, 1, &src, &len, &err);
            if (clBuildProgram(f->program, 1, &devs[d], "", NULL, NULL) != CL_SUCCESS) return -1;
            f->kernel = clCreateKernel(f->program, kernel, &err);
            f->dst = clCreateBuffer(f->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
            if (err != CL_SUCCESS) return -1;
            float v = 1.5f;
            clSetKernelArg(f->kernel, 0, sizeof(cl_mem), &f->dst);
            clSetKernelArg(f->kernel, 1, sizeof v, &v);
            f->global = bytes / 16;
            return 0;
        }
    }
    return -1;
}

static clb_status fill_run(void *user)
{
    fill_ref *f = user;
    const double c0 = cpu_now();
    if (clEnqueueNDRangeKernel(f->queue, f->kernel, 1, NULL, &f->global, NULL, 0, NULL, NULL) !=
            CL_SUCCESS ||
        clFinish(f->queue) != CL_SUCCESS)
        return CLB_ERR_OPENCL;
    if (f->runs++ > 0) f->cpu_s += cpu_now() - c0; /* not the warm-up */
    return CLB_OK;
}

static void fill_close(fill_ref *f)
{
    if (f->dst) clReleaseMemObject(f->dst);
    if (f->kernel) clReleaseKernel(f->kernel);
    if (f->program) clReleaseProgram(f->program);
    if (f->queue) clReleaseCommandQueue(f->queue);
    if (f->context) clReleaseContext(f->context);
}

typedef struct made {
    clb_context *ctx;
    int which;
    int64_t n;
    double cpu_s;
    int runs;
} made;

static clb_status made_run(void *user)
{
    made *m = user;
    const double c0 = cpu_now();
    clb_tensor *t = NULL;
    clb_scalar v = {.kind = CLB_SCALAR_FLOAT, .f = 1.5};
    clb_status st;
    switch (m->which) {
    case 0: st = clb_full(m->ctx, CLB_FLOAT32, 1, &m->n, v, &t); break;
    case 1: st = clb_arange(m->ctx, CLB_FLOAT32, 0, (double)m->n, 1, &t); break;
    case 2: st = clb_linspace(m->ctx, CLB_FLOAT32, 0, 1, m->n, 1, &t); break;
    case 3: st = clb_random_uniform(m->ctx, CLB_FLOAT32, 1, &m->n, 1, 0, 0, 1, &t); break;
    default: st = clb_random_normal(m->ctx, CLB_FLOAT32, 1, &m->n, 1, 0, 0, 1, &t); break;
    }
    if (st == CLB_OK) st = clb_finish(m->ctx);
    clb_tensor_release(t);
    if (m->runs++ > 0) m->cpu_s += cpu_now() - c0; /* not the warm-up (the build) */
    return st;
}

/* Runs bench/create_peers.py; peers[k] = seconds or -1 (numpy_random,
   numpy_standard_normal, torch_rand, torch_randn). */
static void run_peers(int64_t n, double *peers)
{
    static const char *const names[4] = {"numpy_random", "numpy_standard_normal", "torch_rand",
                                         "torch_randn"};
    for (int k = 0; k < 4; k++) peers[k] = -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=2 /usr/bin/python3 %s/create_peers.py %lld 7 2",
             CLB_BENCH_DIR, (long long)n);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    char line[256], name[128];
    double s;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%127s %lf", name, &s) == 2)
            for (int k = 0; k < 4; k++)
                if (!strcmp(name, names[k])) peers[k] = s;
    pclose(p);
}

static double format_ms(clb_context *ctx, double *min_ms)
{
    const int64_t shape[2] = {16384, 4096};
    clb_tensor *t = NULL;
    double times[20];
    if (clb_random_uniform(ctx, CLB_FLOAT32, 2, shape, 3, 0, 0, 1, &t) != CLB_OK) return -1;
    char *buf = malloc(1 << 16);
    size_t need = 0;
    clb_tensor_format(t, buf, 1 << 16, &need); /* warm: kernels built, pages touched */
    for (int i = 0; i < 20; i++) {
        double t0 = clbb_now();
        clb_tensor_format(t, buf, 1 << 16, &need);
        times[i] = clbb_now() - t0;
    }
    free(buf);
    clb_tensor_release(t);
    double med = clbb_sort_median(times, 20);
    *min_ms = times[0] * 1e3;
    return med * 1e3;
}

int main(int argc, char **argv)
{
    const char *sel = "pocl";
    int log2n = 26, rounds = 7, peers_too = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) sel = argv[++i];
        else if (!strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-peers")) peers_too = 0;
        else {
            fprintf(stderr, "usage: bench_create [--device SEL] [--log2n K] [--rounds R] [--no-peers]\n");
            return 2;
        }
    }
    clb_context *ctx = NULL;
    if (clb_context_create(sel, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_create: %s\n", clb_last_error());
        return 1;
    }
    const int64_t n = (int64_t)1 << log2n;
    const double bytes = 4.0 * (double)n;
    fill_ref plain, stream;
    int have_ref = fill_open(clb_context_device_name(ctx), "ref_fill", (size_t)bytes, &plain) == 0 &&
                   fill_open(clb_context_device_name(ctx), "ref_fill_stream", (size_t)bytes, &stream) == 0;
    made m[5];
    clbb_timed cases[7];
    double *cpu_s[7];
    int *runs[7], nc = 0;
    if (have_ref) {
        cpu_s[nc] = &plain.cpu_s, runs[nc] = &plain.runs;
        cases[nc++] = (clbb_timed){fill_run, &plain, bytes};
        cpu_s[nc] = &stream.cpu_s, runs[nc] = &stream.runs;
        cases[nc++] = (clbb_timed){fill_run, &stream, bytes};
    }
    for (int k = 0; k < 5; k++) {
        m[k] = (made){ctx, k, n, 0, 0};
        cpu_s[nc] = &m[k].cpu_s, runs[nc] = &m[k].runs;
        cases[nc++] = (clbb_timed){made_run, &m[k], bytes};
    }
    clbb_result res[7];
    clbb_measure_interleaved(ctx, nc, cases, rounds, res);
    const char *labels[7] = {"fill (plain stores)", "fill (streaming stores)", "clb_full",
                             "clb_arange", "clb_linspace", "clb_random_uniform", "clb_random_normal"};
    const int first = have_ref ? 0 : 2;
    double peak = 0, cpu[7], cpu_peak = 0; /* CPU ms a call; the fills' smaller */
    if (have_ref) peak = res[0].gbps > res[1].gbps ? res[0].gbps : res[1].gbps;
    for (int i = 0; i < nc; i++) cpu[i] = *runs[i] > 1 ? 1e3 * *cpu_s[i] / (*runs[i] - 1) : 0;
    if (have_ref) cpu_peak = cpu[0] < cpu[1] ? cpu[0] : cpu[1];
    printf("bench_create: %s, 2^%d float32 (%.0f MB), median of %d interleaved rounds\n",
           clb_context_device_name(ctx), log2n, bytes / 1e6, rounds);
    printf("%-26s %10s %9s %8s %8s %8s\n", "case", "median ms", "GB/s", "% peak", "CPU ms",
           "% (CPU)");
    for (int i = 0; i < nc; i++) {
        if (res[i].status != CLB_OK) {
            printf("%-26s %s\n", labels[first + i], clb_status_name(res[i].status));
            continue;
        }
        printf("%-26s %10.2f %9.2f %7.0f%% %8.2f %7.0f%%\n", labels[first + i],
               res[i].median_s * 1e3, res[i].gbps, peak > 0 ? 100 * res[i].gbps / peak : 0, cpu[i],
               cpu_peak > 0 && cpu[i] > 0 ? 100 * cpu_peak / cpu[i] : 0);
    }
    double peers[4] = {-1, -1, -1, -1};
    if (peers_too) run_peers(n, peers);
    const double uni = res[nc - 2].median_s, nor = res[nc - 1].median_s;
    static const char *const pnames[4] = {"NumPy default_rng().random(float32)",
                                          "NumPy standard_normal(float32)", "torch.rand (2 threads)",
                                          "torch.randn (2 threads)"};
    printf("\n%-38s %10s %22s\n", "peer", "median ms", "clb speed-up vs peer");
    for (int k = 0; k < 4; k++) {
        if (peers[k] < 0) {
            printf("%-38s %10s\n", pnames[k], "n/a");
            continue;
        }
        double mine = k % 2 == 0 ? uni : nor;
        printf("%-38s %10.2f %21.2fx\n", pnames[k], peers[k] * 1e3, peers[k] / mine);
    }
    double fmin = 0, fmed = format_ms(ctx, &fmin);
    printf("\nclb_tensor_format of (16384, 4096) float32, warm: median %.3f ms, min %.3f ms\n",
           fmed, fmin);
    if (have_ref) {
        fill_close(&plain);
        fill_close(&stream);
    }
    clb_context_release(ctx);
    return 0;
}
