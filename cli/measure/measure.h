/* How `clb bench` times anything (a pattern, a peak kernel, a transfer): one
   warm-up, then a fixed number of timed runs or, with --repeat auto, runs until
   the median is stable within 2 % or a time budget is spent; min, median and
   max of the runs, and the load other processes put on the machine meanwhile
   (load.c). */
#ifndef CLB_CLI_MEASURE_H
#define CLB_CLI_MEASURE_H

/* A spread (max - min) / median above this flags a row as noisy. */
#define BENCH_NOISY_SPREAD 0.10
/* --repeat auto: stable when the medians after each of the last
   BENCH_AUTO_WINDOW runs lie within this fraction of the latest one. */
#define BENCH_AUTO_TOLERANCE 0.02
#define BENCH_AUTO_WINDOW 3
#define BENCH_AUTO_MIN_RUNS 5
#define BENCH_AUTO_MAX_RUNS 1000

typedef struct bench_plan {
    int warmup;      /* untimed runs first (kernel builds, first touch) */
    int runs;        /* timed runs; 0: auto */
    double budget_s; /* auto: stop after this much timed wall time */
} bench_plan;

typedef struct bench_stats {
    int runs;                      /* timed runs */
    double min_s, median_s, max_s; /* per unit of work (a run / its divisor) */
    double spread;                 /* (max - min) / median */
    int noisy;                     /* spread > BENCH_NOISY_SPREAD */
    int stable;                    /* auto: 1 when the median settled, 0 when the budget ran out;
                                      fixed counts: -1 */
    double other_load;             /* busy fraction of all CPUs not spent by this process, while
                                      the timed runs ran; < 0 unknown */
} bench_stats;

/* One run of the work; 0 on success, else a nonzero code the caller explains. */
typedef int (*bench_run_fn)(void *user);

/* Times run(user) by plan; each run counts as `divisor` units (a run of 32
   launches: 32), so the times are per unit. Returns 0, or the first nonzero
   code of run (then *st holds nothing useful). */
int bench_sample(const bench_plan *plan, bench_run_fn run, void *user, double divisor,
                 bench_stats *st);


#endif /* CLB_CLI_MEASURE_H */
