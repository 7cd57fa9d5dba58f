/* Timing of one row (see measure.h). */
#include "measure.h"

#include "harness.h"
#include "load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* auto: the medians after each of the last BENCH_AUTO_WINDOW runs agree. */
static int settled(const double *recent, int n)
{
    if (n < BENCH_AUTO_WINDOW) return 0;
    double lo = INFINITY, hi = 0, last = recent[(n - 1) % BENCH_AUTO_WINDOW];
    for (int i = 0; i < BENCH_AUTO_WINDOW; i++) {
        lo = fmin(lo, recent[i]);
        hi = fmax(hi, recent[i]);
    }
    return last > 0 && (hi - lo) / last <= BENCH_AUTO_TOLERANCE;
}

int bench_sample(const bench_plan *plan, bench_run_fn run, void *user, double divisor,
                 bench_stats *st)
{
    memset(st, 0, sizeof *st);
    st->other_load = -1;
    for (int i = 0; i < plan->warmup; i++) {
        int rc = run(user);
        if (rc) return rc;
    }
    int cap = plan->runs > 0 ? plan->runs : BENCH_AUTO_MAX_RUNS;
    double *times = malloc((size_t)cap * sizeof *times), *scratch = malloc((size_t)cap * sizeof *scratch);
    double recent[BENCH_AUTO_WINDOW] = {0};
    int n = 0, rc = 0;
    if (!times || !scratch) {
        free(times);
        free(scratch);
        return -1;
    }
    bench_load load;
    bench_load_begin(&load);
    double start = clbb_now();
    st->stable = plan->runs > 0 ? -1 : 0;
    while (n < cap) {
        double t0 = clbb_now();
        rc = run(user);
        if (rc) break;
        times[n++] = (clbb_now() - t0) / divisor;
        if (plan->runs > 0) continue;
        if (n >= BENCH_AUTO_MIN_RUNS - BENCH_AUTO_WINDOW + 1) {
            memcpy(scratch, times, (size_t)n * sizeof *times);
            recent[(n - 1) % BENCH_AUTO_WINDOW] = clbb_sort_median(scratch, n);
            if (n >= BENCH_AUTO_MIN_RUNS && settled(recent, n)) {
                st->stable = 1;
                break;
            }
        }
        if (n >= BENCH_AUTO_MIN_RUNS && clbb_now() - start >= plan->budget_s) break;
    }
    if (!rc) {
        st->other_load = bench_load_end(&load);
        st->runs = n;
        st->median_s = clbb_sort_median(times, n); /* sorts */
        st->min_s = times[0];
        st->max_s = times[n - 1];
        st->spread = st->median_s > 0 ? (st->max_s - st->min_s) / st->median_s : 0;
        st->noisy = st->spread > BENCH_NOISY_SPREAD;
    }
    free(times);
    free(scratch);
    return rc;
}
