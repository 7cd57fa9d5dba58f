/* A user's first programs (issue 25, "Measure it"): what a new user meets on
 * each device, cold and warm, against NumPy and PyTorch.
 *
 *   bench_first [--device SEL]... [--program NAME]... [--warm-only]
 *   bench_first --pairs SEL      knn and x ** 2 against their "* itself" forms,
 *                                interleaved in one process (best of 5 each)
 *
 * Programs, written as the README and header suggest:
 *   bn       batch normalisation of (32,3,64,64) float32 images: per-channel mean
 *            and std (clb_reduce, clb_var keepdim) and "(x - m) / sqrt(v + 1e-5)"
 *   knn      k-nearest neighbours, x (2000,64) against y (3000,64): the header's
 *            clb_eval_reduce("(x - y) ** 2", SUM, axis -1), then clb_argmin
 *   knn_mul  the same with "(x - y) * (x - y)" (the ** 2 form must be as fast)
 *   attn     attention (4,8,128,64): Q @ K^T with K^T a clb_permute view,
 *            * 0.125 (clb_binary_scalar), softmax, @ V
 *   qk       the batched product alone: (4,8,128,64) @ (4,8,64,128), the second
 *            operand K^T a clb_permute view (issue 25, item 3)
 *   softmax  clb_softmax over the rows of (1000,1000) float32
 *   pow4m    x ** 2 on 4M float32 (clb_eval), against x * x (warm only)
 *
 * For each device and program, three fresh processes of this program:
 *   cold     empty CLB_CACHE_DIR, POCL_CACHE_DIR and MESA_SHADER_CACHE_DIR: the
 *            first result (from before clb_context_create to the result on the
 *            host) and the process's whole time, clb_context_release and exit
 *            included, timed by the parent;
 *   second   the same over the caches the cold run filled (a user's next run);
 *   warm     in one process, the best of 5 runs after a first.
 * NumPy and PyTorch (2 threads) run the same programs through bench/first_ref.py
 * with /usr/bin/python3 ("n/a" without them); "x NumPy" is NumPy's time over
 * ours (above 1: faster than NumPy). One run on a shared machine: compare the
 * numbers within a row, not across runs. */
#include "clbroadcast.h"
#include "harness.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "bench_first: %s: %s: %s\n", #call, clb_status_name(st_),              \
                    clb_last_error());                                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static clb_tensor *randn(clb_context *ctx, int ndim, const int64_t *shape, unsigned seed)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *v = malloc((size_t)n * sizeof *v);
    if (!v) exit(1);
    srand(seed);
    for (int64_t i = 0; i < n; i++) v[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
    clb_tensor *t = NULL;
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, v, &t));
    free(v);
    return t;
}

typedef struct inputs {
    clb_tensor *t[3];
} inputs;

/* Makes the program's inputs (host data, not timed as work: a user has them). */
static void make_inputs(clb_context *ctx, const char *prog, inputs *in)
{
    memset(in, 0, sizeof *in);
    if (strcmp(prog, "bn") == 0) {
        const int64_t s[4] = {32, 3, 64, 64};
        in->t[0] = randn(ctx, 4, s, 1);
    } else if (strncmp(prog, "knn", 3) == 0) {
        const int64_t sx[3] = {2000, 1, 64}, sy[3] = {1, 3000, 64};
        in->t[0] = randn(ctx, 3, sx, 1);
        in->t[1] = randn(ctx, 3, sy, 2);
    } else if (strcmp(prog, "attn") == 0 || strcmp(prog, "qk") == 0) {
        const int64_t s[4] = {4, 8, 128, 64};
        for (int k = 0; k < 3; k++) in->t[k] = randn(ctx, 4, s, 1 + (unsigned)k);
    } else if (strcmp(prog, "softmax") == 0) {
        const int64_t s[2] = {1000, 1000};
        in->t[0] = randn(ctx, 2, s, 1);
    } else {
        const int64_t s[1] = {4 << 20};
        in->t[0] = randn(ctx, 1, s, 1);
    }
}

/* One run of the program, up to its result on the host. */
static void run_program(clb_context *ctx, const char *prog, const inputs *in, float *sink)
{
    clb_tensor *r = NULL, *a = NULL, *b = NULL, *c = NULL;
    if (strcmp(prog, "bn") == 0) {
        const int axes[3] = {0, 2, 3};
        const char *names[3] = {"x", "m", "v"};
        CHECK(clb_reduce(CLB_MEAN, in->t[0], 3, axes, 1, &a));
        CHECK(clb_var(in->t[0], 3, axes, 0, 1, &b));
        const clb_tensor *args[3] = {in->t[0], a, b};
        CHECK(clb_eval(ctx, "(x - m) / sqrt(v + 1e-5)", 3, names, args, &r));
    } else if (strncmp(prog, "knn", 3) == 0) {
        const char *names[2] = {"x", "y"};
        const int axis[1] = {-1};
        const char *e = strcmp(prog, "knn") == 0 ? "(x - y) ** 2" : "(x - y) * (x - y)";
        CHECK(clb_eval_reduce(ctx, e, 2, names, in->t, CLB_SUM, 1, axis, 0, &a));
        CHECK(clb_argmin(a, 1, 0, &r));
    } else if (strcmp(prog, "attn") == 0) {
        const int perm[4] = {0, 1, 3, 2}; /* K^T as a view */
        CHECK(clb_permute(in->t[1], perm, &a));
        CHECK(clb_matmul(in->t[0], a, &b));
        CHECK(clb_binary_scalar(CLB_MUL, b, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = 0.125}, 0, &c));
        clb_tensor_release(b);
        CHECK(clb_softmax(c, -1, &b));
        CHECK(clb_matmul(b, in->t[2], &r));
    } else if (strcmp(prog, "qk") == 0) {
        const int perm[4] = {0, 1, 3, 2};
        CHECK(clb_permute(in->t[1], perm, &a));
        CHECK(clb_matmul(in->t[0], a, &r));
    } else if (strcmp(prog, "softmax") == 0) {
        CHECK(clb_softmax(in->t[0], -1, &r));
    } else {
        const char *names[1] = {"x"};
        CHECK(clb_eval(ctx, strcmp(prog, "pow4m") == 0 ? "x ** 2" : "x * x", 1, names, in->t, &r));
    }
    /* The first element on the host: waits for the whole result. */
    clb_tensor *flat = NULL, *one = NULL;
    const int64_t minus1[1] = {-1};
    CHECK(clb_reshape(r, 1, minus1, &flat));
    CHECK(clb_slice(flat, 0, 0, 1, 1, &one));
    int64_t v = 0;
    if (clb_tensor_dtype(one) == CLB_INT64) {
        CHECK(clb_tensor_to_host(one, &v, sizeof v));
        *sink += (float)v;
    } else {
        CHECK(clb_tensor_to_host(one, sink, sizeof *sink));
    }
    CHECK(clb_finish(ctx));
    clb_tensor_release(one);
    clb_tensor_release(flat);
    clb_tensor_release(r);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
}

static double run_timed(clb_context *ctx, const char *prog, const inputs *in)
{
    float sink = 0;
    double t0 = clbb_now();
    run_program(ctx, prog, in, &sink);
    return clbb_now() - t0;
}

/* --child first|warm PROG SEL: prints "first_s" or "best_s". */
static int child(const char *mode, const char *prog, const char *sel)
{
    double t0 = clbb_now();
    clb_context *ctx = NULL;
    CHECK(clb_context_create(sel, &ctx));
    inputs in;
    double made = clbb_now();
    make_inputs(ctx, prog, &in);
    double prep = clbb_now() - made; /* host data a user already has */
    double first = run_timed(ctx, prog, &in);
    if (strcmp(mode, "first") == 0) {
        printf("%.4f\n", clbb_now() - t0 - prep);
    } else {
        double best = 1e30;
        for (int i = 0; i < 5; i++) {
            double t = run_timed(ctx, prog, &in);
            if (t < best) best = t;
        }
        printf("%.5f\n", best);
    }
    (void)first;
    fflush(stdout);
    for (int k = 0; k < 3; k++) clb_tensor_release(in.t[k]);
    clb_context_release(ctx);
    return 0;
}

static int run_child(const char *self, const char *mode, const char *prog, const char *sel,
                     const char *dir, double *value, double *wall)
{
    char cmd[1024], line[128] = "";
    snprintf(cmd, sizeof cmd,
             "CLB_CACHE_DIR=%s/clb POCL_CACHE_DIR=%s/pocl MESA_SHADER_CACHE_DIR=%s/mesa "
             "'%s' --child %s %s '%s'",
             dir, dir, dir, self, mode, prog, sel);
    double t0 = clbb_now();
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    if (!fgets(line, (int)sizeof line, p)) line[0] = '\0';
    int rc = pclose(p);
    *wall = clbb_now() - t0;
    return rc == 0 && sscanf(line, "%lf", value) == 1 ? 0 : -1;
}

/* NumPy and PyTorch times of prog (seconds; < 0: n/a). */
static void peers(const char *prog, double *np_s, double *torch_s)
{
    char cmd[1024], line[128] = "";
    *np_s = *torch_s = -1;
    snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=2 /usr/bin/python3 '%s/first_ref.py' %s 2>/dev/null",
             CLB_BENCH_DIR, prog);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (fgets(line, (int)sizeof line, p)) sscanf(line, "%lf %lf", np_s, torch_s);
    pclose(p);
}

static void fmt_ratio(char *buf, size_t cap, double peer, double ours)
{
    if (peer > 0 && ours > 0) snprintf(buf, cap, "%.2fx", peer / ours);
    else snprintf(buf, cap, "n/a");
}

static void bench(const char *self, const char *sel, const char *prog, bool warm_only)
{
    char dir[] = "/tmp/clb-first-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    double cold = -1, cold_wall = -1, second = -1, second_wall = -1, warm = -1, w = 0;
    int bad = 0;
    if (!warm_only) {
        bad |= run_child(self, "first", prog, sel, dir, &cold, &cold_wall);
        bad |= run_child(self, "first", prog, sel, dir, &second, &second_wall);
    }
    bad |= run_child(self, "warm", prog, sel, dir, &warm, &w);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "bench_first: could not remove %s\n", dir);
    if (bad) {
        printf("%-8s %-8s a child run failed\n", sel, prog);
        return;
    }
    double np_s, torch_s;
    peers(prog, &np_s, &torch_s);
    char rn[32], rt[32];
    fmt_ratio(rn, sizeof rn, np_s, warm);
    fmt_ratio(rt, sizeof rt, torch_s, warm);
    printf("%-8s %-8s first %8.3f s cold  process %7.2f s cold  first %7.3f s second  "
           "warm %9.4f s  x NumPy %7s  x PyTorch %7s\n",
           sel, prog, cold, cold_wall, second, warm, rn, rt);
    fflush(stdout);
}

/* --pairs SEL: "** 2" against "* itself" in one process, runs interleaved (a shared
   machine's load changes between processes): best of 5 each, and the ratio. */
static int pairs(const char *sel)
{
    static const char *const pair[2][2] = {{"knn", "knn_mul"}, {"pow4m", "mul4m"}};
    clb_context *ctx = NULL;
    CHECK(clb_context_create(sel, &ctx));
    for (int p = 0; p < 2; p++) {
        inputs in;
        double best[2] = {1e30, 1e30};
        make_inputs(ctx, pair[p][0], &in);
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 2; k++) {
                double t = run_timed(ctx, pair[p][k], &in);
                if (i > 0 && t < best[k]) best[k] = t; /* run 0 builds the programs */
            }
        printf("%-8s %-8s %9.4f s  %-8s %9.4f s  ratio %.2f\n", sel, pair[p][0], best[0],
               pair[p][1], best[1], best[0] / best[1]);
        fflush(stdout);
        for (int k = 0; k < 3; k++) clb_tensor_release(in.t[k]);
    }
    clb_context_release(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0) return child(argv[2], argv[3], argv[4]);
    if (argc == 3 && strcmp(argv[1], "--pairs") == 0) return pairs(argv[2]);
    const char *devices[16], *progs[16];
    int nd = 0, np = 0;
    bool warm_only = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc && nd < 16) devices[nd++] = argv[++i];
        else if (strcmp(argv[i], "--program") == 0 && i + 1 < argc && np < 16) progs[np++] = argv[++i];
        else if (strcmp(argv[i], "--warm-only") == 0) warm_only = true;
        else {
            fprintf(stderr, "usage: bench_first [--device SEL]... [--program "
                            "bn|knn|knn_mul|attn|qk|softmax|pow4m|mul4m]... [--warm-only]\n");
            return 2;
        }
    }
    if (nd == 0) {
        devices[nd++] = "host";
        devices[nd++] = "pocl";
        if (getenv("RUSTICL_ENABLE")) devices[nd++] = "rusticl";
    }
    if (np == 0) {
        static const char *const all[] = {"bn", "knn", "knn_mul", "attn", "qk", "softmax", "pow4m", "mul4m"};
        for (int i = 0; i < 8; i++) progs[np++] = all[i];
    }
    printf("first programs: fresh processes, empty caches for 'cold'; warm = best of 5 in one "
           "process; x NumPy/PyTorch = their time / ours (2 threads)\n");
    for (int d = 0; d < nd; d++)
        for (int p = 0; p < np; p++) bench(argv[0], devices[d], progs[p], warm_only);
    return 0;
}
