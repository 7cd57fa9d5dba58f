/* Float32 transcendental functions (issue 28): clb_unary and clb_eval of log,
 * log2, log10, log1p, exp, expm1, sin, cos, tan, tanh, sigmoid and erf against
 * NumPy (single thread) and PyTorch (2 threads), in one run.
 *
 * The input is n float32 values in [0.5, 1.5) (a fixed-seed LCG), valid for every
 * function; each case makes a new output per call, as NumPy's f(x) does. The
 * library's cases are timed interleaved (one run of each in turn, so they see
 * the same machine load); the peers' times come from bench/math_peers.py run
 * right after, in the same process tree. Ratios are of median times: "x np" is
 * NumPy's time over the library's (above 1: the library is faster).
 *
 * Then fused expressions through clb_eval (timed in the same interleaved set):
 * each against the sum of its functions' single clb_eval times, which a fused
 * kernel should stay under (one read and one write instead of one per function;
 * "parts/fused" above 1). PoCL once ran log1p(exp(x)) + sin(x) at 5x that sum:
 * a branch per element kept the kernel from vector code (cl/eval.cl).
 *
 * --ulp measures accuracy instead: every 64th float32 bit pattern (2^26 values,
 * both signs, subnormals to infinities) through clb_unary and clb_eval, the
 * largest error in float32 ulps against float64 libm rounded to float32
 * (the ulp of the exact value's binade; arguments where that rounds past
 * FLT_MAX or below FLT_MIN counted only if the result is off by more than
 * their difference), and every special value compared as a bit pattern class.
 *
 * usage: bench_math [--device SEL] [--n N] [--rounds R] [--no-peers] [--ulp]
 * $CLB_BENCH_PYTHON names the python with numpy/torch (default /usr/bin/python3). */
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fn {
    const char *name; /* NumPy's (and clb_eval's) name */
    clb_unary_op op;
    double (*ref)(double);
} fn;

static double sigmoid_ref(double x) { return 1.0 / (1.0 + exp(-x)); }

static const fn FNS[] = {
    {"log", CLB_LOG, log},       {"log2", CLB_LOG2, log2},   {"log10", CLB_LOG10, log10},
    {"log1p", CLB_LOG1P, log1p}, {"exp", CLB_EXP, exp},      {"expm1", CLB_EXPM1, expm1},
    {"sin", CLB_SIN, sin},       {"cos", CLB_COS, cos},      {"tan", CLB_TAN, tan},
    {"tanh", CLB_TANH, tanh},    {"sigmoid", CLB_SIGMOID, sigmoid_ref}, {"erf", CLB_ERF, erf},
};
enum { NFN = sizeof FNS / sizeof FNS[0] };

/* Fused expressions and the functions they call (FNS names). */
typedef struct fused {
    const char *expr;
    const char *parts[4];
} fused;

static const fused FUSED[] = {
    {"exp(x) + sin(x)", {"exp", "sin"}},
    {"log1p(exp(x)) + sin(x)", {"log1p", "exp", "sin"}},
    {"log1p(exp(x)) + tanh(x)", {"log1p", "exp", "tanh"}},
    {"tanh(x) + sin(x)", {"tanh", "sin"}},
    {"sin(x) + cos(x)", {"sin", "cos"}},
    {"tanh(x) * sin(x) + log1p(exp(x))", {"tanh", "sin", "log1p", "exp"}},
    {"sigmoid(x) * tan(x) - log(x)", {"sigmoid", "tan", "log"}},
};
enum { NFUSED = sizeof FUSED / sizeof FUSED[0] };

typedef struct one_case {
    clb_context *ctx;
    const clb_tensor *x;
    const fn *f;
    char expr[48];
} one_case;

static clb_status run_unary(void *u)
{
    one_case *c = u;
    clb_tensor *y = NULL;
    clb_status st = clb_unary(c->f->op, c->x, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_eval(void *u)
{
    one_case *c = u;
    static const char *const names[1] = {"x"};
    const clb_tensor *in[1] = {c->x};
    clb_tensor *y = NULL;
    clb_status st = clb_eval(c->ctx, c->expr, 1, names, in, &y);
    clb_tensor_release(y);
    return st;
}

/* The peers' medians (ms) by name: numpy[i], torch[i]; 0 where missing. */
static void peers(int64_t n, int rounds, double *np_ms, double *th_ms)
{
    const char *py = getenv("CLB_BENCH_PYTHON");
    if (!py || !py[0]) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s/math_peers.py %lld %d 2>/dev/null", py, CLB_BENCH_DIR,
             (long long)n, rounds);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    char lib[16], name[16];
    double ms;
    while (fscanf(p, "%15s %15s %lf", lib, name, &ms) == 3)
        for (int i = 0; i < NFN; i++)
            if (!strcmp(name, FNS[i].name)) (!strcmp(lib, "numpy") ? np_ms : th_ms)[i] = ms;
    pclose(p);
}

/* The error of got in float32 ulps of the exact value want; special values
   (NaN, infinities, zeros' signs) must match exactly, else 1e9. */
static double ulp_error(float got, double want)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : 1e9;
    const float wf = (float)want;
    if (isinf(wf) || isinf(got)) return wf == got ? 0 : 1e9;
    if (want == 0) return got == 0 && signbit(got) == signbit(want) ? 0 : 1e9;
    int e;
    frexp(want, &e);
    if (e < FLT_MIN_EXP) e = FLT_MIN_EXP; /* subnormals: the smallest ulp */
    return fabs((double)got - want) / ldexp(1.0, e - FLT_MANT_DIG);
}

/* Max ulp of clb_unary and clb_eval per function over every 64th bit pattern. */
static int accuracy(clb_context *ctx)
{
    const int64_t n = (int64_t)1 << 26;
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    clb_tensor *t = NULL;
    int rc = 0;
    if (!x || !y) {
        fprintf(stderr, "bench_math: out of memory\n");
        rc = 1;
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        const uint32_t bits = (uint32_t)(i * 64 + (i % 61));
        memcpy(&x[i], &bits, sizeof bits);
    }
    if (clb_tensor_from_host(ctx, CLB_FLOAT32, 1, &n, x, &t) != CLB_OK) {
        fprintf(stderr, "bench_math: %s\n", clb_last_error());
        rc = 1;
        goto done;
    }
    printf("accuracy on %s: max error in ulp vs float64 libm, %lld arguments\n",
           clb_context_device_name(ctx), (long long)n);
    printf("%-8s %12s %12s   worst argument\n", "fn", "clb_unary", "clb_eval");
    for (int f = 0; f < NFN; f++) {
        double worst[2] = {0, 0};
        float arg = 0;
        for (int how = 0; how < 2; how++) {
            one_case c = {ctx, t, &FNS[f], ""};
            snprintf(c.expr, sizeof c.expr, "%s(x)", FNS[f].name);
            clb_tensor *r = NULL;
            clb_status st = how ? clb_eval(ctx, c.expr, 1, (const char *const[]){"x"},
                                           (const clb_tensor *const[]){t}, &r)
                                : clb_unary(FNS[f].op, t, &r);
            if (st == CLB_OK) st = clb_tensor_to_host(r, y, (size_t)n * sizeof *y);
            clb_tensor_release(r);
            if (st != CLB_OK) {
                printf("%-8s failed: %s\n", FNS[f].name, clb_last_error());
                rc = 1;
                break;
            }
            for (int64_t i = 0; i < n; i++) {
                const double e = ulp_error(y[i], FNS[f].ref((double)x[i]));
                if (e > worst[how]) {
                    worst[how] = e;
                    if (how == 0) arg = x[i];
                }
            }
        }
        printf("%-8s %12.3g %12.3g   %a\n", FNS[f].name, worst[0], worst[1], (double)arg);
    }
done:
    clb_tensor_release(t);
    free(x);
    free(y);
    return rc;
}

/* The fused table: res holds the single functions' unary/eval pairs, then the
   fused cases. */
static int print_fused(const clbb_result *res)
{
    int failed = 0;
    printf("%-34s %10s %10s %12s\n", "fused (clb_eval)", "eval ms", "parts ms", "parts/fused");
    for (int i = 0; i < NFUSED; i++) {
        const clbb_result f = res[2 * NFN + i];
        double parts = 0;
        for (int p = 0; p < 4 && FUSED[i].parts[p]; p++)
            for (int k = 0; k < NFN; k++)
                if (!strcmp(FUSED[i].parts[p], FNS[k].name)) parts += res[2 * k + 1].median_s * 1e3;
        if (f.status != CLB_OK) {
            printf("%-34s failed: %s\n", FUSED[i].expr, clb_last_error());
            failed = 1;
            continue;
        }
        const double fm = f.median_s * 1e3;
        printf("%-34s %10.2f %10.2f %12.2f\n", FUSED[i].expr, fm, parts, parts / fm);
    }
    return failed;
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    int64_t n = 1 << 24;
    int rounds = 7, with_peers = 1, ulp = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-peers"))
            with_peers = 0;
        else if (!strcmp(argv[i], "--ulp"))
            ulp = 1;
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--n N] [--rounds R] [--no-peers] [--ulp]\n",
                    argv[0]);
            return 2;
        }
    }
    if (n < 1 || rounds < 1) {
        fprintf(stderr, "bench_math: --n and --rounds must be positive\n");
        return 2;
    }
    clb_context *ctx = NULL;
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_math: %s\n", clb_last_error());
        return 2;
    }
    if (ulp) {
        const int rc = accuracy(ctx);
        clb_context_release(ctx);
        return rc;
    }
    clb_tensor *x = NULL;
    if (clbb_random_tensor(ctx, 1, &n, 1, 0.5f, &x) != CLB_OK) {
        fprintf(stderr, "bench_math: %s\n", clb_last_error());
        clb_context_release(ctx);
        return 1;
    }
    one_case cs[NFN + NFUSED];
    clbb_timed cases[2 * NFN + NFUSED];
    for (int i = 0; i < NFN; i++) {
        cs[i] = (one_case){ctx, x, &FNS[i], ""};
        snprintf(cs[i].expr, sizeof cs[i].expr, "%s(x)", FNS[i].name);
        cases[2 * i] = (clbb_timed){run_unary, &cs[i], 8.0 * (double)n};
        cases[2 * i + 1] = (clbb_timed){run_eval, &cs[i], 8.0 * (double)n};
    }
    for (int i = 0; i < NFUSED; i++) {
        cs[NFN + i] = (one_case){ctx, x, NULL, ""};
        snprintf(cs[NFN + i].expr, sizeof cs[NFN + i].expr, "%s", FUSED[i].expr);
        cases[2 * NFN + i] = (clbb_timed){run_eval, &cs[NFN + i], 8.0 * (double)n};
    }
    clbb_result res[2 * NFN + NFUSED];
    clbb_measure_interleaved(ctx, 2 * NFN + NFUSED, cases, rounds, res);
    double np_ms[NFN] = {0}, th_ms[NFN] = {0};
    if (with_peers) peers(n, rounds, np_ms, th_ms);
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = 0;
        fclose(la);
    }
    printf("bench_math: %s, n = %lld float32 in [0.5, 1.5), %d rounds, load %.2f %.2f %.2f\n",
           clb_context_device_name(ctx), (long long)n, rounds, load[0], load[1], load[2]);
    printf("%-8s %10s %10s %10s %10s %8s %8s %8s\n", "fn", "unary ms", "eval ms", "numpy ms",
           "torch ms", "x np(u)", "x np(e)", "x torch");
    int failed = 0;
    for (int i = 0; i < NFN; i++) {
        const clbb_result u = res[2 * i], e = res[2 * i + 1];
        if (u.status != CLB_OK || e.status != CLB_OK) {
            printf("%-8s failed: %s\n", FNS[i].name, clb_last_error());
            failed = 1;
            continue;
        }
        const double um = u.median_s * 1e3, em = e.median_s * 1e3;
        printf("%-8s %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %8.2f\n", FNS[i].name, um, em,
               np_ms[i], th_ms[i], np_ms[i] / um, np_ms[i] / em, th_ms[i] / um);
    }
    failed |= print_fused(res);
    clb_tensor_release(x);
    clb_context_release(ctx);
    return failed;
}
