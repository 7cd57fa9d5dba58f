/* examples/starpu_split.c: one operation over every device StarPU sees.
 *
 * X (N, C) float32 is cut by StarPU (starpu_data_partition along the first axis)
 * into P blocks of rows; mu and sigma (1, C) are not cut: StarPU replicates them,
 * read-only, onto every device that runs a block. Two operations run as tasks:
 *
 *   Y = (X - mu) / sigma * tanh(X)                   a broadcast expression, block by block
 *   V = sum over rows of (X - mu) ** 2               a reduction: clb_eval_reduce per block
 *                                                    into one row of a (P, C) tensor of
 *                                                    partial sums, then one clb_reduce task
 *
 * with StarPU's scheduler choosing the worker (CPU cores running the host backend,
 * OpenCL devices running kernels on StarPU's own context and queue). Both results
 * are checked against one device doing the whole: the host backend, directly.
 * Then the cost of a task: many small tasks through StarPU against the same
 * operation called directly on one context.
 *
 *   STARPU_OPENCL_ON_CPUS=1 RUSTICL_ENABLE=llvmpipe build/examples/starpu_split [N C P T]
 *
 * (default 65536 256, P = 4 blocks per worker, T = 256 small tasks per worker timed). STARPU_OPENCL_ON_CPUS=1 is set here
 * if unset: StarPU skips OpenCL CPU devices otherwise (PoCL, rusticl on llvmpipe).
 * Exit status 0 when every result matches. */
#include "clbroadcast_starpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "%s failed: %s: %s\n", #call, clb_status_name(st_), clb_last_error()); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double worst_difference(const float *a, const float *b, size_t n)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs((double)a[i] - b[i]) / fmax(1.0, fabs((double)b[i])));
    return worst;
}

/* The whole of both operations on one device, directly (the reference, on "host");
   returns the seconds of the second of two runs (the first builds the programs). */
static double direct(const char *selector, int64_t N, int64_t C, const float *x, const float *mu,
                     const float *sigma, float *y, float *v)
{
    clb_context *ctx = NULL;
    CHECK(clb_context_create(selector, &ctx));
    int64_t xs[2] = {N, C}, rs[2] = {1, C};
    clb_tensor *tx = NULL, *tmu = NULL, *ts = NULL, *ty = NULL, *tv = NULL;
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, xs, x, &tx));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, rs, mu, &tmu));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, rs, sigma, &ts));
    const char *names[] = {"x", "mu", "sigma"};
    const clb_tensor *in[] = {tx, tmu, ts};
    int axis0 = 0;
    double t0 = 0;
    for (int run = 0; run < 2; run++) {
        clb_tensor_release(ty);
        clb_tensor_release(tv);
        t0 = now();
        CHECK(clb_eval(ctx, "(x - mu) / sigma * tanh(x)", 3, names, in, &ty));
        CHECK(clb_eval_reduce(ctx, "(x - mu) ** 2", 2, names, in, CLB_SUM, 1, &axis0, 0, &tv));
        CHECK(clb_finish(ctx));
    }
    double seconds = now() - t0;
    CHECK(clb_tensor_to_host(ty, y, (size_t)(N * C) * sizeof *y));
    CHECK(clb_tensor_to_host(tv, v, (size_t)C * sizeof *v));
    clb_tensor *all[] = {tx, tmu, ts, ty, tv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    clb_context_release(ctx);
    return seconds;
}

/* Both operations as tasks over P blocks; returns the seconds they took. */
static double split(clb_starpu *sp, int64_t N, int64_t C, int P, float *x, float *mu, float *sigma,
                    float *y, float *v)
{
    int64_t xs[2] = {N, C}, rs[2] = {1, C}, ps[2] = {P, C}, vs[1] = {C};
    float *partial = calloc((size_t)(P * C), sizeof *partial);
    clb_starpu_tensor X, MU, S, Y, PART, V;
    clb_starpu_tensor *xp = calloc((size_t)P, sizeof *xp), *yp = calloc((size_t)P, sizeof *yp),
                      *pp = calloc((size_t)P, sizeof *pp);
    if (!partial || !xp || !yp || !pp) exit(1);
    CHECK(clb_starpu_register(x, CLB_FLOAT32, 2, xs, &X));
    CHECK(clb_starpu_register(mu, CLB_FLOAT32, 2, rs, &MU));
    CHECK(clb_starpu_register(sigma, CLB_FLOAT32, 2, rs, &S));
    CHECK(clb_starpu_register(y, CLB_FLOAT32, 2, xs, &Y));
    CHECK(clb_starpu_register(partial, CLB_FLOAT32, 2, ps, &PART));
    CHECK(clb_starpu_register(v, CLB_FLOAT32, 1, vs, &V));
    CHECK(clb_starpu_partition(&X, P, xp));
    CHECK(clb_starpu_partition(&Y, P, yp));
    CHECK(clb_starpu_partition(&PART, P, pp));

    double t0 = now();
    const char *names[] = {"x", "mu", "sigma"};
    int axis0 = 0;
    for (int p = 0; p < P; p++) {
        const clb_starpu_tensor *in[] = {&xp[p], &MU, &S};
        CHECK(clb_starpu_eval(sp, "(x - mu) / sigma * tanh(x)", 3, names, in, &yp[p]));
        CHECK(clb_starpu_eval_reduce(sp, "(x - mu) ** 2", 2, names, in, CLB_SUM, 1, &axis0, 1, &pp[p]));
    }
    clb_starpu_unpartition(&PART); /* the partial sums, gathered, feed one more task */
    CHECK(clb_starpu_reduce(sp, CLB_SUM, &PART, 1, &axis0, 0, &V));
    CHECK(clb_starpu_wait(sp));
    double seconds = now() - t0;

    clb_starpu_unpartition(&X);
    clb_starpu_unpartition(&Y);
    clb_starpu_tensor *all[] = {&X, &MU, &S, &Y, &PART, &V};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_starpu_unregister(all[i]);
    free(xp);
    free(yp);
    free(pp);
    free(partial);
    return seconds;
}

/* A task that does nothing with its two buffers: StarPU's own cost. */
static void nothing(void *buffers[], void *arg)
{
    (void)buffers, (void)arg;
}
static struct starpu_codelet empty_codelet = {
    .cpu_funcs = {nothing}, .opencl_funcs = {nothing}, .nbuffers = 2,
    .modes = {STARPU_R, STARPU_W}, .name = "empty"};

/* Microseconds per task of `count` small evaluations through StarPU, pinned to
   worker w, and per call of the same directly on a context of w's device (the
   tasks and the calls both end with a wait). direct_us < 0: no such context. */
static void overhead(clb_starpu *sp, int w, int count, double *task_us, double *submit_us,
                     double *empty_us, double *direct_us)
{
    enum { ROW = 256 };
    int64_t shape[2] = {count, ROW}, row[2] = {1, ROW};
    float *a = calloc((size_t)count * ROW, sizeof *a), *b = calloc((size_t)count * ROW, sizeof *b);
    clb_starpu_tensor A, B;
    clb_starpu_tensor *ap = calloc((size_t)count, sizeof *ap), *bp = calloc((size_t)count, sizeof *bp);
    if (!a || !b || !ap || !bp) exit(1);
    CHECK(clb_starpu_register(a, CLB_FLOAT32, 2, shape, &A));
    CHECK(clb_starpu_register(b, CLB_FLOAT32, 2, shape, &B));
    CHECK(clb_starpu_partition(&A, count, ap));
    CHECK(clb_starpu_partition(&B, count, bp));
    const char *names[] = {"x"};
    CHECK(clb_starpu_pin(sp, w));
    /* The fastest of 3 rounds after one that places the data on w's memory (the
       machine may be shared: the minimum is the cost, the rest is noise). */
    double best = 1e30, best_submit = 1e30, t0 = 0;
    for (int round = 0; round < 4; round++) {
        t0 = now();
        for (int i = 0; i < count; i++) {
            const clb_starpu_tensor *in[] = {&ap[i]};
            CHECK(clb_starpu_eval(sp, "x * 2 + 1", 1, names, in, &bp[i]));
        }
        double submitted = now();
        CHECK(clb_starpu_wait(sp));
        if (round > 0) best = fmin(best, now() - t0), best_submit = fmin(best_submit, submitted - t0);
    }
    *task_us = best * 1e6 / count;
    *submit_us = best_submit * 1e6 / count;
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        t0 = now();
        for (int i = 0; i < count; i++)
            if (starpu_task_insert(&empty_codelet, STARPU_R, ap[i].handle, STARPU_W, bp[i].handle,
                                   STARPU_EXECUTE_ON_WORKER, w, 0) != 0)
                exit(1);
        starpu_task_wait_for_all();
        best = fmin(best, now() - t0);
    }
    *empty_us = best * 1e6 / count;
    CHECK(clb_starpu_pin(sp, -1));
    clb_starpu_unpartition(&A);
    clb_starpu_unpartition(&B);
    clb_starpu_unregister(&A);
    clb_starpu_unregister(&B);

    clb_context *wctx = NULL, *ctx = NULL;
    clb_device_info info;
    *direct_us = -1;
    CHECK(clb_starpu_worker_context(sp, w, &wctx));
    CHECK(clb_context_get_info(wctx, &info));
    if (info.selector[0] && clb_context_create(info.selector, &ctx) == CLB_OK) {
        clb_tensor *x = NULL, *out = NULL;
        CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, row, a, &x));
        CHECK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, row, &out));
        const clb_tensor *in[] = {x};
        CHECK(clb_eval_into(ctx, "x * 2 + 1", 1, names, in, out));
        CHECK(clb_finish(ctx));
        best = 1e30;
        for (int round = 0; round < 3; round++) {
            t0 = now();
            for (int i = 0; i < count; i++) CHECK(clb_eval_into(ctx, "x * 2 + 1", 1, names, in, out));
            CHECK(clb_finish(ctx));
            best = fmin(best, now() - t0);
        }
        *direct_us = best * 1e6 / count;
        clb_tensor_release(x);
        clb_tensor_release(out);
        clb_context_release(ctx);
    }
    free(ap);
    free(bp);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    int64_t N = argc > 1 ? atoll(argv[1]) : 65536, C = argc > 2 ? atoll(argv[2]) : 256;
    setenv("STARPU_OPENCL_ON_CPUS", "1", 0);
    if (starpu_init(NULL) != 0) {
        fprintf(stderr, "starpu_split: starpu_init failed (no worker?)\n");
        return 1;
    }
    clb_starpu *sp = NULL;
    CHECK(clb_starpu_create(&sp));
    unsigned workers = starpu_worker_get_count();
    int P = argc > 3 ? atoi(argv[3]) : (int)(4 * workers), T = argc > 4 ? atoi(argv[4]) : 256;
    if (N < P || C < 1 || P < 1 || T < 1) {
        fprintf(stderr, "usage: starpu_split [N >= P] [C >= 1] [P >= 1] [T >= 1]\n");
        return 2;
    }
    size_t n = (size_t)(N * C);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *ref_y = malloc(n * sizeof *y);
    float *mu = malloc((size_t)C * sizeof *mu), *sigma = malloc((size_t)C * sizeof *sigma);
    float *v = calloc((size_t)C, sizeof *v), *ref_v = calloc((size_t)C, sizeof *v);
    float *y2 = malloc(n * sizeof *y2), *v2 = calloc((size_t)C, sizeof *v2);
    if (!x || !y || !ref_y || !mu || !sigma || !v || !ref_v || !y2 || !v2) return 1;
    for (size_t i = 0; i < n; i++) x[i] = (float)((i * 7919 % 2003) / 1001.0 - 1.0);
    for (int64_t j = 0; j < C; j++) {
        mu[j] = (float)(0.01 * (j % 17));
        sigma[j] = (float)(1.0 + 0.1 * (j % 5));
    }

    double cold = split(sp, N, C, P, x, mu, sigma, y, v); /* programs built or loaded */
    unsigned long before[STARPU_NMAXWORKERS] = {0};
    for (unsigned w = 0; w < workers; w++) before[w] = clb_starpu_worker_tasks(sp, (int)w);
    double warm = split(sp, N, C, P, x, mu, sigma, y, v);
    direct("host", N, C, x, mu, sigma, ref_y, ref_v);
    double dy = worst_difference(y, ref_y, n), dv = worst_difference(v, ref_v, (size_t)C);

    printf("X (%lld, %lld) float32 in %d blocks; %u StarPU workers:\n", (long long)N, (long long)C, P,
           workers);
    for (unsigned w = 0; w < workers; w++) {
        char name[64];
        clb_context *ctx = NULL;
        starpu_worker_get_name((int)w, name, sizeof name);
        if (clb_starpu_worker_context(sp, (int)w, &ctx) != CLB_OK) continue;
        clb_device_info info;
        CHECK(clb_context_get_info(ctx, &info));
        double alone = info.selector[0] ? direct(info.selector, N, C, x, mu, sigma, y2, v2) : 0;
        printf("  worker %u %s: %lu of the %d tasks; the whole on this device alone, directly: "
               "%.1f ms\n", w, name, clb_starpu_worker_tasks(sp, (int)w) - before[w], 2 * P + 1,
               alone * 1e3);
    }
    printf("split over all workers: %.1f ms (first run, with program builds: %.1f ms)\n",
           warm * 1e3, cold * 1e3);
    printf("Y = (X - mu) / sigma * tanh(X): largest relative difference to one device %.3g\n", dy);
    printf("V = sum((X - mu) ** 2, axis 0): largest relative difference to one device %.3g\n", dv);

    printf("cost of a small (1, 256) float32 eval, %d of them, pinned to each worker in turn "
           "(fastest of 3 rounds):\n", T);
    for (unsigned w = 0; w < workers; w++) {
        char name[64];
        double task_us = 0, submit_us = 0, empty_us = 0, direct_us = 0;
        starpu_worker_get_name((int)w, name, sizeof name);
        overhead(sp, (int)w, T, &task_us, &submit_us, &empty_us, &direct_us);
        printf("  worker %u %s: %.1f us per task (submitting %.1f us; an empty StarPU task on the "
               "same data %.1f us), %.1f us per direct call\n", w, name, task_us, submit_us,
               empty_us, direct_us);
    }
    int ok = dy < 1e-5 && dv < 1e-4;
    printf("%s\n", ok ? "OK: the split results equal one device's" : "MISMATCH");
    clb_starpu_release(sp);
    starpu_shutdown();
    free(x);
    free(y);
    free(ref_y);
    free(mu);
    free(sigma);
    free(v);
    free(ref_v);
    free(y2);
    free(v2);
    return ok ? 0 : 1;
}
