/* Fused expressions (clb_eval) against the alternatives, in one run per device:
 *   - batch-norm normalize (x - mu) / sqrt(var + 1e-5), x (65536, 256) float32,
 *     mu and var (256,): clb_eval, clb_eval_into a preallocated out, the unfused
 *     op sequence (sub, add, sqrt, div: four launches, three temporaries), and
 *     NumPy's multi-op expression (python3 with numpy, timed the same way);
 *   - a 6-input where(m > 0, a * b + c, d - e) with different broadcast shapes;
 *   - the device's copy bandwidth: a plain and a streaming copy kernel
 *     (bench/refcopy.h; "% copy" is of the plain one) and the library's own
 *     copy (clb_cast to the same dtype).
 * GB/s count logical bytes: each input read once, the output written once
 * (GB = 1e9). Ratios are of median times; the cases are timed interleaved (one
 * run of each in turn), so they compare runs made under the same load.
 *
 * usage: bench_eval [--device SEL] [--quick] [--no-numpy]
 * $CLB_BENCH_PYTHON names the python with numpy (default /usr/bin/python3). */
#include "harness.h"
#if CLBB_HAVE_REFCOPY
#include "refcopy.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct state {
    clb_tensor *x, *mu, *var, *eps, *out;
    clb_tensor *m, *a, *b, *c, *d, *e;
} state;

static state S;
static const char *const bn_names[3] = {"x", "mu", "var"};
static const char bn_expr[] = "(x - mu) / sqrt(var + 1e-5)";
static const char where_expr[] = "where(m > 0, a * b + c, d - e)";

static clb_status run_copy(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_cast(S.x, CLB_FLOAT32, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_eval(void *u)
{
    clb_context *ctx = u;
    const clb_tensor *in[3] = {S.x, S.mu, S.var};
    clb_tensor *y = NULL;
    clb_status st = clb_eval(ctx, bn_expr, 3, bn_names, in, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_eval_into(void *u)
{
    clb_context *ctx = u;
    const clb_tensor *in[3] = {S.x, S.mu, S.var};
    return clb_eval_into(ctx, bn_expr, 3, bn_names, in, S.out);
}

static clb_status run_unfused(void *u)
{
    (void)u;
    clb_tensor *t1 = NULL, *t2 = NULL, *t3 = NULL, *y = NULL;
    clb_status st = clb_binary(CLB_SUB, S.x, S.mu, &t1);
    if (st == CLB_OK) st = clb_binary(CLB_ADD, S.var, S.eps, &t2);
    if (st == CLB_OK) st = clb_unary(CLB_SQRT, t2, &t3);
    if (st == CLB_OK) st = clb_binary(CLB_DIV, t1, t3, &y);
    clb_tensor_release(t1);
    clb_tensor_release(t2);
    clb_tensor_release(t3);
    clb_tensor_release(y);
    return st;
}

static clb_status run_where6(void *u)
{
    clb_context *ctx = u;
    static const char *const names[6] = {"m", "a", "b", "c", "d", "e"};
    const clb_tensor *in[6] = {S.m, S.a, S.b, S.c, S.d, S.e};
    clb_tensor *y = NULL;
    clb_status st = clb_eval(ctx, where_expr, 6, names, in, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status setup(clb_context *ctx, int64_t rows)
{
    int64_t xs[2] = {rows, 256}, cs[1] = {256}, ms[2] = {rows, 1}, ds[2] = {1, 256};
    float eps = 1e-5f;
    clb_status st = clbb_random_tensor(ctx, 2, xs, 1, 0, &S.x);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 1, cs, 2, 0, &S.mu);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 1, cs, 3, 0.5f, &S.var);
    if (st == CLB_OK) st = clb_tensor_from_host(ctx, CLB_FLOAT32, 0, NULL, &eps, &S.eps);
    if (st == CLB_OK) st = clb_tensor_empty(ctx, CLB_FLOAT32, 2, xs, &S.out);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, ms, 4, -0.5f, &S.m);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, xs, 5, 0, &S.a);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 1, cs, 6, 0, &S.b);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, xs, 7, 0, &S.c);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, ds, 8, 0, &S.d);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, xs, 9, 0, &S.e);
    return st;
}

static void teardown(void)
{
    clb_tensor *all[] = {S.x, S.mu, S.var, S.eps, S.out, S.m, S.a, S.b, S.c, S.d, S.e};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    memset(&S, 0, sizeof S);
}

/* The result of the fused kernel equals the op sequence on the host backend's
   semantics within float32 rounding: checked once, after timing. */
static int validate(clb_context *ctx)
{
    clb_tensor *fused = NULL;
    const clb_tensor *in[3] = {S.x, S.mu, S.var};
    if (clb_eval(ctx, bn_expr, 3, bn_names, in, &fused) != CLB_OK) return 0;
    int64_t n = clb_tensor_numel(fused);
    float *got = malloc((size_t)n * 4), *x = malloc((size_t)n * 4), mu[256], var[256];
    int ok = got && x && clb_tensor_to_host(fused, got, (size_t)n * 4) == CLB_OK &&
             clb_tensor_to_host(S.x, x, (size_t)n * 4) == CLB_OK &&
             clb_tensor_to_host(S.mu, mu, sizeof mu) == CLB_OK &&
             clb_tensor_to_host(S.var, var, sizeof var) == CLB_OK;
    for (int64_t i = 0; ok && i < n; i++) {
        float want = (x[i] - mu[i % 256]) / sqrtf(var[i % 256] + 1e-5f);
        float diff = got[i] - want;
        if (diff < 0) diff = -diff;
        if (diff > 1e-5f * (want < 0 ? -want : want) + 1e-6f) ok = 0;
    }
    free(got);
    free(x);
    clb_tensor_release(fused);
    return ok;
}

/* NumPy's time for the same expression (median of timed runs), or 0. */
static double numpy_median(int64_t rows, int quick)
{
    /* $CLB_BENCH_PYTHON, else the system interpreter (where distributions put
       numpy), else whatever python3 is first on PATH. */
    const char *py = getenv("CLB_BENCH_PYTHON");
    if (!py || !py[0]) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -c \"import numpy as np, time\n"
             "r=np.random.default_rng(1)\n"
             "x=r.random((%lld,256),dtype=np.float32); mu=r.random(256,dtype=np.float32); "
             "var=r.random(256,dtype=np.float32)+0.5\n"
             "t=[]\n"
             "for i in range(%d):\n"
             "  s=time.perf_counter(); y=(x - mu) / np.sqrt(var + 1e-5); "
             "t.append(time.perf_counter()-s)\n"
             "assert y.dtype==np.float32\n"
             "t=sorted(t[1:]); print(t[len(t)//2])\" 2>/dev/null",
             py, (long long)rows, quick ? 4 : 12);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    double t = 0;
    if (fscanf(p, "%lf", &t) != 1) t = 0;
    pclose(p);
    return t;
}

/* % copy: of the plain copy kernel (else of clb_cast, without an OpenCL reference);
   % strm: of the streaming copy kernel. */
static double copy_ref, stream_ref;

static void report(const char *what, clbb_result r)
{
    if (r.status != CLB_OK) {
        printf("  %-40s %s: %s\n", what, clb_status_name(r.status), clb_last_error());
        return;
    }
    printf("  %-40s %9.3f ms %9.2f GB/s %7.1f%% copy", what, r.median_s * 1e3, r.gbps,
           copy_ref > 0 ? 100.0 * r.gbps / copy_ref : 0);
    if (stream_ref > 0) printf(" %7.1f%% strm", 100.0 * r.gbps / stream_ref);
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    int quick = 0, numpy = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--no-numpy"))
            numpy = 0;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--quick] [--no-numpy]\n", argv[0]);
            return 2;
        }
    }
    clb_context *ctx = NULL;
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_eval: %s\n", clb_last_error());
        return 2;
    }
    int64_t rows = quick ? 4096 : 65536;
    double n = (double)rows * 256;
    if (setup(ctx, rows) != CLB_OK) {
        fprintf(stderr, "bench_eval: setup failed: %s\n", clb_last_error());
        teardown();
        clb_context_release(ctx);
        return 1;
    }
    double bn_bytes = 8.0 * n + 2 * 256 * 4;  /* x read, out written, mu and var */
    double w_bytes = 16.0 * n + 4.0 * (double)rows + 2 * 256 * 4; /* a c e read, out written, m b d */
    /* Timed interleaved, a round of each case at a time: the ratios then compare
       runs made under the same machine load. The raw reference copies
       (bench/refcopy.h) join when the device is an OpenCL device. */
    enum { NCASES = 7 };
    clbb_timed cases[NCASES] = {
        {run_copy, ctx, 8.0 * n},     {run_eval, ctx, bn_bytes}, {run_eval_into, ctx, bn_bytes},
        {run_unfused, ctx, bn_bytes}, {run_where6, ctx, w_bytes},
    };
    int count = 5;
#if CLBB_HAVE_REFCOPY
    clbb_ref ref = {0};
    clbb_ref_copy plain = {0}, streaming = {0};
    if (clbb_ref_open(clb_context_device_name(ctx), &ref) == 0 &&
        clbb_ref_copy_setup(&ref, ref.copy, (size_t)(4.0 * n), &plain) == 0 &&
        clbb_ref_copy_setup(&ref, ref.copy_stream, (size_t)(4.0 * n), &streaming) == 0) {
        cases[count++] = (clbb_timed){clbb_ref_copy_run, &plain, 8.0 * n};
        cases[count++] = (clbb_timed){clbb_ref_copy_run, &streaming, 8.0 * n};
    }
#endif
    clbb_result res[NCASES];
    clbb_measure_interleaved(ctx, count, cases, quick ? 7 : 15, res);
    clbb_result copy = res[0], eval = res[1], into = res[2], unfused = res[3], where6 = res[4];
    copy_ref = count > 5 ? res[5].gbps : copy.gbps;
    stream_ref = count > 5 ? res[6].gbps : 0;
    int valid = eval.status == CLB_OK && validate(ctx);
    double np_s = numpy ? numpy_median(rows, quick) : 0;

    printf("device: %s\n", clb_context_device_name(ctx));
    printf("batch-norm normalize \"%s\", x (%lld, 256) float32, mu/var (256,)\n", bn_expr,
           (long long)rows);
    if (count > 5) {
        report("copy: plain copy kernel", res[5]);
        report("stream: streaming copy kernel", res[6]);
    }
    report("clb_cast f32 -> f32", copy);
    report("clb_eval", eval);
    report("clb_eval_into (preallocated out)", into);
    report("unfused: sub, add, sqrt, div", unfused);
    if (np_s > 0)
        printf("  %-40s %9.3f ms %9.2f GB/s\n", "NumPy (x - mu) / np.sqrt(var + 1e-5)", np_s * 1e3,
               bn_bytes / np_s / 1e9);
    else if (numpy)
        printf("  %-40s not measured (python3 with numpy not found)\n", "NumPy");
    printf("6 inputs \"%s\": m (%lld, 1), a c e (%lld, 256), b (256,), d (1, 256)\n", where_expr,
           (long long)rows, (long long)rows);
    report("clb_eval, 6 inputs", where6);
    if (eval.status == CLB_OK) {
        printf("ratios (median times):\n");
        if (unfused.status == CLB_OK)
            printf("  clb_eval vs unfused ops:  %.2fx faster\n", unfused.median_s / eval.median_s);
        if (np_s > 0) printf("  clb_eval vs NumPy:        %.2fx faster\n", np_s / eval.median_s);
        if (copy_ref > 0)
            printf("  clb_eval vs copy:         %.1f%% of copy bandwidth\n",
                   100.0 * eval.gbps / copy_ref);
        if (where6.status == CLB_OK && copy_ref > 0)
            printf("  6-input where vs copy:    %.1f%% of copy bandwidth\n",
                   100.0 * where6.gbps / copy_ref);
        printf("  result check:             %s\n", valid ? "ok" : "MISMATCH");
    }
#if CLBB_HAVE_REFCOPY
    clbb_ref_copy_close(&plain);
    clbb_ref_copy_close(&streaming);
    clbb_ref_close(&ref);
#endif
    teardown();
    clb_context_release(ctx);
    return eval.status == CLB_OK && !valid ? 1 : 0;
}
