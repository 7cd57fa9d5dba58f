/* Benchmark harness: see harness.h. */
#include "harness.h"

#include <stdlib.h>
#include <time.h>

double clbb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double clbb_sort_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

clbb_result clbb_measure(clb_context *ctx, clbb_run_fn run, void *user, double bytes,
                         double target_s, int max_iters)
{
    clbb_result r = {0};
    r.status = run(user);
    if (r.status == CLB_OK) r.status = clb_finish(ctx);
    if (r.status != CLB_OK) return r;

    double *times = malloc((size_t)max_iters * sizeof *times);
    if (!times) {
        r.status = CLB_ERR_OUT_OF_MEMORY;
        return r;
    }
    double start = clbb_now();
    int n = 0;
    while (n < max_iters && (n < 3 || clbb_now() - start < target_s)) {
        double t0 = clbb_now();
        r.status = run(user);
        if (r.status == CLB_OK) r.status = clb_finish(ctx);
        if (r.status != CLB_OK) break;
        times[n++] = clbb_now() - t0;
    }
    if (n > 0) {
        qsort(times, (size_t)n, sizeof *times, compare_double);
        r.iterations = n;
        r.min_s = times[0];
        r.median_s = times[n / 2];
        r.gbps = bytes / r.median_s / 1e9;
    }
    free(times);
    return r;
}

clbb_result clbb_measure_runs(clb_context *ctx, clbb_run_fn run, void *user, double bytes,
                              int warmup, int runs)
{
    clbb_result r = {0};
    for (int i = 0; i < warmup && r.status == CLB_OK; i++) {
        r.status = run(user);
        if (r.status == CLB_OK) r.status = clb_finish(ctx);
    }
    if (r.status != CLB_OK) return r;
    if (runs < 1) runs = 1;
    double *times = malloc((size_t)runs * sizeof *times);
    if (!times) {
        r.status = CLB_ERR_OUT_OF_MEMORY;
        return r;
    }
    int n = 0;
    while (n < runs) {
        double t0 = clbb_now();
        r.status = run(user);
        if (r.status == CLB_OK) r.status = clb_finish(ctx);
        if (r.status != CLB_OK) break;
        times[n++] = clbb_now() - t0;
    }
    if (r.status == CLB_OK) {
        r.median_s = clbb_sort_median(times, n);
        r.iterations = n;
        r.min_s = times[0];
        r.gbps = bytes / r.median_s / 1e9;
    }
    free(times);
    return r;
}

void clbb_measure_interleaved(clb_context *ctx, int ncases, const clbb_timed *cases, int rounds,
                              clbb_result *results)
{
    if (rounds < 1) rounds = 1;
    double *times = malloc((size_t)ncases * (size_t)rounds * sizeof *times);
    for (int c = 0; c < ncases; c++) {
        results[c] = (clbb_result){0};
        results[c].status = times ? cases[c].run(cases[c].user) : CLB_ERR_OUT_OF_MEMORY;
        if (results[c].status == CLB_OK) results[c].status = clb_finish(ctx);
    }
    if (!times) return;
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < ncases; c++) {
            if (results[c].status != CLB_OK) continue;
            double t0 = clbb_now();
            results[c].status = cases[c].run(cases[c].user);
            if (results[c].status == CLB_OK) results[c].status = clb_finish(ctx);
            times[c * rounds + r] = clbb_now() - t0;
        }
    }
    for (int c = 0; c < ncases; c++) {
        if (results[c].status != CLB_OK) continue;
        double *t = times + c * rounds;
        results[c].median_s = clbb_sort_median(t, rounds);
        results[c].iterations = rounds;
        results[c].min_s = t[0];
        results[c].gbps = cases[c].bytes / results[c].median_s / 1e9;
    }
    free(times);
}

clb_status clbb_random_tensor(clb_context *ctx, int ndim, const int64_t *shape, uint64_t seed,
                              float offset, clb_tensor **out)
{
    *out = NULL;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *data = malloc((size_t)n * sizeof *data);
    if (!data) return CLB_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        data[i] = offset + (float)(seed >> 40) / (float)(1 << 24);
    }
    clb_status st = clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, data, out);
    free(data);
    return st;
}
