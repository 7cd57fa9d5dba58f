/* Benchmark harness (BabelStream/clpeak recipe): warm-up excluded, iterations
   calibrated to a target time, min and median reported, GB/s from logical bytes
   (GB = 1e9 bytes). */
#ifndef CLB_BENCH_HARNESS_H
#define CLB_BENCH_HARNESS_H

#include "clbroadcast.h"

#include <stddef.h>

/* One timed run of the case; returns CLB_OK or the failure of the operation. */
typedef clb_status (*clbb_run_fn)(void *user);

typedef struct clbb_result {
    clb_status status;    /* CLB_OK, or why the case could not run */
    int iterations;       /* timed runs */
    double min_s, median_s;
    double gbps;          /* logical bytes / median time / 1e9 */
} clbb_result;

/* Runs `run` once to warm up (kernel builds, first-touch), then repeatedly until
   target_s seconds or max_iters runs have been timed; each run ends with clb_finish(ctx). */
clbb_result clbb_measure(clb_context *ctx, clbb_run_fn run, void *user, double bytes,
                         double target_s, int max_iters);

/* Runs `run` `warmup` times untimed, then exactly `runs` timed runs (>= 1), each
   ending with clb_finish(ctx): the fixed-count form behind `clb bench --repeat N`. */
clbb_result clbb_measure_runs(clb_context *ctx, clbb_run_fn run, void *user, double bytes,
                              int warmup, int runs);

/* One case of an interleaved measurement. */
typedef struct clbb_timed {
    clbb_run_fn run;
    void *user;
    double bytes;
} clbb_timed;

/* Runs each case once to warm up, then `rounds` rounds that time every case
   once, in turn (each run ending with clb_finish(ctx)); results[i] gets case i's
   median and min. Cases timed side by side see the same machine load, so ratios
   between them hold on a busy machine where separate loops drift apart. */
void clbb_measure_interleaved(clb_context *ctx, int ncases, const clbb_timed *cases, int rounds,
                              clbb_result *results);

/* A float32 tensor on ctx of `shape` holding offset + uniform [0, 1) values
   (24 random bits each) from a fixed-seed LCG; *out NULL on failure. */
clb_status clbb_random_tensor(clb_context *ctx, int ndim, const int64_t *shape, uint64_t seed,
                              float offset, clb_tensor **out);

double clbb_now(void); /* monotonic seconds */
/* Sorts v[0..n) (n >= 1) in place and returns its median: the mean of the
   middle two for an even n. */
double clbb_sort_median(double *v, int n);

#endif /* CLB_BENCH_HARNESS_H */
