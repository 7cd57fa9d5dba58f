/* Results of `clb bench` and their four renderings: the terminal table, CSV,
   JSON and an SVG bar chart. The writers only format; bench.c measures. */
#ifndef CLB_CLI_REPORT_H
#define CLB_CLI_REPORT_H

#include <stdio.h>

#include "cases.h"
#include "clbroadcast.h"

typedef enum bench_outcome {
    BENCH_OK,          /* measured, and the result matches the host backend */
    BENCH_UNSUPPORTED, /* CLB_ERR_UNSUPPORTED: the device cannot run it (yet); not a failure */
    BENCH_FAILED,      /* any other error */
    BENCH_WRONG        /* measured, but the result differs from the host backend */
} bench_outcome;

const char *bench_outcome_name(bench_outcome o); /* "ok", "unsupported", "failed", "wrong" */

typedef struct bench_row {
    bench_outcome outcome;
    char reason[512];     /* status name and message, or the difference; "" when ok */
    int runs;             /* timed runs */
    double median_s, min_s;
    double gbps;          /* distinct bytes / median / 1e9 */
    double gflops;
    double pct_of_copy;   /* gbps / the device's copy GB/s * 100; < 0 when unknown */
    double host_median_s; /* the host backend's median on the same case; 0 when unknown */
    double speedup;       /* host_median_s / median_s; 0 when unknown */
    double max_rel_diff;  /* max |device - host| / max |host|; < 0 when not compared */
} bench_row;

typedef struct bench_device {
    clb_device_info info;
    double copy_gbps;     /* the peak: the best GB/s of the `peak` cases; 0 when none ran */
    const char *copy_case; /* id of the case that set it; NULL when none ran */
    bench_row *rows;      /* clbb_case_count, in clbb_cases order */
} bench_device;

typedef struct bench_report {
    int quick, repeat, warmup, host_repeat;
    char timestamp[32];   /* ISO 8601, UTC */
    char machine[256];    /* uname: system, release, architecture */
    int ndev;
    bench_device *devs;
} bench_report;

/* How the peak is measured, for every rendering. */
extern const char bench_copy_method[];

void report_table(const bench_report *r, FILE *f);
/* Each writes a file; 0 on success, else prints why to stderr and returns 1. */
int report_csv(const bench_report *r, const char *path);
int report_json(const bench_report *r, const char *path);
int report_svg(const bench_report *r, const char *path);

#endif /* CLB_CLI_REPORT_H */
