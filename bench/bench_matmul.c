/* Matmul benchmark (issue 4): GFLOP/s of (B,N,N) @ (N,N) float32 through
   CLBlast with its built-in parameters (CLB_MATMUL_IMPL=clblast,
   CLB_MATMUL_TUNING=off), the library's own kernel (CLB_MATMUL_IMPL=kernel),
   CLBlast with the parameters clb_matmul_tune found for the device (run first
   in this process, or taken from the cache with --cached) and the dispatcher's
   own pick, against NumPy timed in the same run through /usr/bin/python3.
   FLOP = 2 * B * N^3; GFLOP = 1e9. The defaults are timed before anything
   tunes: CLBlast cannot restore them within a process.

   Then (OpenCL devices) the dispatcher's (64,256,256) @ (256,256) and
   (8,512,512) @ (8,512,512) (bench_stats' "matmul, same operands") against the
   device's float32 FMA peak (fma_ref.h: clb bench's peak kernels) timed in the
   same rounds, one call of each per round: the share of the peak as the
   median of the per-round shares and from the fastest runs. --vs-peak runs only that part (seconds,
   not the minutes CLBlast's builds and the tuning take); --rounds N its rounds
   (default 20).

   usage: bench_matmul [--device SEL] [--quick] [--cached] [--vs-peak] [--rounds N] */
#include "harness.h"
#if CLBB_HAVE_REFCOPY
#include "fma_ref.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clb_tensor *a_t, *b_t;

static clb_status run_matmul(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_matmul(a_t, b_t, &y);
    clb_tensor_release(y);
    return st;
}

static double numpy_seconds(int64_t batch, int64_t side)
{
    char cmd[768];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import numpy as np, time\n"
             "a = np.random.rand(%lld, %lld, %lld).astype(np.float32)\n"
             "b = np.random.rand(%lld, %lld).astype(np.float32)\n"
             "a @ b; ts = []\n"
             "for i in range(3):\n"
             "    t0 = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t0)\n"
             "print(sorted(ts)[1])\n"
             "\" 2>/dev/null",
             (long long)batch, (long long)side, (long long)side, (long long)side, (long long)side);
    double t = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    if (fscanf(p, "%lf", &t) != 1) t = 0;
    pclose(p);
    return t;
}

/* Median and fastest run, as GFLOP/s in g[0] and g[1]. */
static void measure(clb_context *ctx, const char *label, int quick, double flop, int *rc, double g[2])
{
    g[0] = g[1] = 0;
    clbb_result res = clbb_measure(ctx, run_matmul, NULL, 0, quick ? 0.5 : 3.0, 20);
    if (res.status != CLB_OK) {
        printf("  %-15s %s: %s\n", label, clb_status_name(res.status), clb_last_error());
        *rc = 1;
        return;
    }
    g[0] = flop / res.median_s / 1e9;
    g[1] = flop / res.min_s / 1e9;
    printf("  %-15s median %8.2f ms  %8.2f GFLOP/s   fastest %8.2f ms  %8.2f GFLOP/s\n", label,
           res.median_s * 1e3, g[0], res.min_s * 1e3, g[1]);
}

#if CLBB_HAVE_REFCOPY
static clb_tensor *a8_t, *b8_t;

static clb_status run_matmul8(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_matmul(a8_t, b8_t, &y);
    clb_tensor_release(y);
    return st;
}

enum { VS_CASES = 3, VS_MAX_ROUNDS = 1000 };

/* t[c * rounds + r]: seconds of case c in round r, the three one after another,
   the first of them rotating from round to round; status of the first failure. */
static clb_status time_rounds(clb_context *ctx, const clbb_timed *cases, int rounds, double *t)
{
    for (int c = 0; c < VS_CASES; c++) { /* warm-up: builds, first touch */
        clb_status st = cases[c].run(cases[c].user);
        if (st == CLB_OK) st = clb_finish(ctx);
        if (st != CLB_OK) return st;
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < VS_CASES; i++) {
            int c = (r + i) % VS_CASES;
            double t0 = clbb_now();
            clb_status st = cases[c].run(cases[c].user);
            if (st == CLB_OK) st = clb_finish(ctx);
            if (st != CLB_OK) return st;
            t[c * rounds + r] = clbb_now() - t0;
        }
    }
    return CLB_OK;
}

/* The dispatcher's matmuls and the FMA peak in the same rounds (see the top):
   each matmul's share of the peak as the median of its per-round shares (a
   round's three runs see the same load) and from the fastest runs. */
static int vs_peak(clb_context *ctx, int64_t batch, int rounds)
{
    double flop = 2.0 * (double)batch * 256.0 * 256.0 * 256.0;
    char label[40];
    snprintf(label, sizeof label, "(%lld,256,256)@(256,256)", (long long)batch);
    clbb_fma fma;
    const int64_t s8[3] = {8, 512, 512};
    double *t = NULL, *share = NULL;
    int rc = 1;
    if (rounds > VS_MAX_ROUNDS) rounds = VS_MAX_ROUNDS;
    if (clbb_fma_open(clb_context_device_name(ctx), &fma) != 0) {
        printf("vs FMA peak: the peak kernels do not run on %s\n", clb_context_device_name(ctx));
    } else if (clbb_random_tensor(ctx, 3, s8, 8, -0.5f, &a8_t) != CLB_OK ||
               clbb_random_tensor(ctx, 3, s8, 9, -0.5f, &b8_t) != CLB_OK ||
               !(t = malloc(sizeof *t * VS_CASES * (size_t)rounds)) ||
               !(share = malloc(sizeof *share * (size_t)rounds))) {
        printf("vs FMA peak: setup: %s\n", clb_last_error());
    } else {
        const clbb_timed cases[VS_CASES] = {{clbb_fma_run, &fma, 0}, {run_matmul, NULL, 0},
                                            {run_matmul8, NULL, 0}};
        const double flops[VS_CASES] = {fma.flops, flop, 2.0 * 8 * 512.0 * 512.0 * 512.0};
        const char *labels[VS_CASES] = {"FMA peak", label, "(8,512,512)@(8,512,512)"};
        clb_status st = time_rounds(ctx, cases, rounds, t);
        if (st != CLB_OK) printf("vs FMA peak: %s: %s\n", clb_status_name(st), clb_last_error());
        rc = st != CLB_OK;
        if (st == CLB_OK)
            printf("vs FMA peak (%s, %.0f MFLOP a run), %d rounds of one call each, float32:\n",
                   fma.name, fma.flops / 1e6, rounds);
        double pk_fastest = st == CLB_OK ? t[0] : 0;
        for (int r = 1; st == CLB_OK && r < rounds; r++) pk_fastest = t[r] < pk_fastest ? t[r] : pk_fastest;
        for (int c = 0; st == CLB_OK && c < VS_CASES; c++) {
            const double *tc = t + c * rounds;
            double fastest = tc[0];
            for (int r = 0; r < rounds; r++) {
                share[r] = flops[c] / tc[r] / (flops[0] / t[r]);
                fastest = tc[r] < fastest ? tc[r] : fastest;
            }
            double med_share = clbb_sort_median(share, rounds);
            printf("  %-24s fastest %7.2f ms %7.2f GFLOP/s", labels[c], fastest * 1e3,
                   flops[c] / fastest / 1e9);
            if (c > 0)
                printf(" = %5.1f %% of the peak's fastest; median share of the round's peak "
                       "%5.1f %%",
                       100 * flops[c] / fastest / (flops[0] / pk_fastest), 100 * med_share);
            printf("\n");
        }
    }
    free(t);
    free(share);
    clb_tensor_release(a8_t);
    clb_tensor_release(b8_t);
    clbb_fma_close(&fma);
    return rc;
}
#endif

static void ratio(const char *what, const double *x, const char *of, const double *y)
{
    if (x[0] > 0 && y[0] > 0 && y[1] > 0)
        printf("  %-15s %6.2fx %-15s (fastest runs: %.2fx)\n", what, x[0] / y[0], of, x[1] / y[1]);
}

typedef struct bench_args {
    const char *device;
    int quick, cached, only_peak, rounds;
} bench_args;

/* 0, or 2 after printing the usage. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){NULL, 0, 0, 0, 20};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            a->quick = 1;
        else if (!strcmp(argv[i], "--cached"))
            a->cached = 1;
        else if (!strcmp(argv[i], "--vs-peak"))
            a->only_peak = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            a->rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            a->device = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [--device SEL] [--quick] [--cached] [--vs-peak] [--rounds N]\n",
                    argv[0]);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_args args;
    if (parse_args(argc, argv, &args) != 0) return 2;
    const char *device = args.device;
    int quick = args.quick, cached = args.cached, rounds = args.rounds;
    int64_t batch = quick ? 8 : 64, side = 256;
    clb_context *ctx = NULL;
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_matmul: %s\n", clb_last_error());
        return 2;
    }
    const int64_t as[3] = {batch, side, side}, bs[2] = {side, side};
    if (clbb_random_tensor(ctx, 3, as, 7, -0.5f, &a_t) != CLB_OK ||
        clbb_random_tensor(ctx, 2, bs, 7, -0.5f, &b_t) != CLB_OK) {
        fprintf(stderr, "bench_matmul: setup: %s\n", clb_last_error());
        return 1;
    }
    double flop = 2.0 * (double)batch * (double)side * (double)side * (double)side;
    printf("device: %s\n(%lld,%lld,%lld) @ (%lld,%lld) float32, %.2f GFLOP per run\n",
           clb_context_device_name(ctx), (long long)batch, (long long)side, (long long)side,
           (long long)side, (long long)side, flop / 1e9);
    int rc = 0;
    if (args.only_peak) {
#if CLBB_HAVE_REFCOPY
        rc = vs_peak(ctx, batch, rounds);
#else
        printf("vs FMA peak: this build has no OpenCL\n");
#endif
        clb_tensor_release(a_t);
        clb_tensor_release(b_t);
        clb_context_release(ctx);
        return rc;
    }
    setenv("CLB_MATMUL_TUNING", "off", 1);
    setenv("CLB_MATMUL_IMPL", "clblast", 1);
    double g_default[2], g_kernel[2], g_tuned[2], g_auto[2], g_numpy[2] = {0, 0};
    measure(ctx, "clblast default", quick, flop, &rc, g_default);
    setenv("CLB_MATMUL_IMPL", "kernel", 1);
    measure(ctx, "kernel", quick, flop, &rc, g_kernel);
    unsetenv("CLB_MATMUL_TUNING");
    unsetenv("CLB_MATMUL_IMPL");
    if (!cached) {
        clb_matmul_tune_result *r = malloc(sizeof *r);
        clb_status st = r ? clb_matmul_tune(ctx, CLB_FLOAT32, 0, r) : CLB_ERR_OUT_OF_MEMORY;
        if (st != CLB_OK) {
            printf("  tuning failed: %s: %s\n", clb_status_name(st), clb_last_error());
            rc = 1;
        } else if (r->best >= 0) {
            printf("  (clb_matmul_tune: %d candidates, best %.2f GFLOP/s on (%lld,256,256): %s)\n",
                   r->count, r->candidates[r->best].gflops, (long long)r->batch,
                   r->candidates[r->best].params);
        }
        free(r);
    }
    setenv("CLB_MATMUL_IMPL", "clblast", 1);
    measure(ctx, "clblast tuned", quick, flop, &rc, g_tuned);
    unsetenv("CLB_MATMUL_IMPL");
    measure(ctx, "dispatcher", quick, flop, &rc, g_auto);
    double np_s = numpy_seconds(batch, side);
    if (np_s > 0) g_numpy[0] = g_numpy[1] = flop / np_s / 1e9; /* its median of 3 */
    if (np_s > 0)
        printf("  %-15s median %8.2f ms  %8.2f GFLOP/s\n", "numpy", np_s * 1e3, g_numpy[0]);
    else
        printf("  numpy not available: no comparison\n");
    printf("ratios:\n");
    ratio("clblast tuned", g_tuned, "clblast default", g_default);
    ratio("kernel", g_kernel, "clblast default", g_default);
    ratio("dispatcher", g_auto, "clblast default", g_default);
    ratio("clblast tuned", g_tuned, "numpy", g_numpy);
    ratio("kernel", g_kernel, "numpy", g_numpy);
    ratio("dispatcher", g_auto, "numpy", g_numpy);
#if CLBB_HAVE_REFCOPY
    if (vs_peak(ctx, batch, rounds) != 0) rc = 1;
#endif
    clb_tensor_release(a_t);
    clb_tensor_release(b_t);
    clb_context_release(ctx);
    return rc;
}
