/* Results of `clb bench` and their renderings: the terminal table and CSV
   (report.c), JSON (report_json.c) and an SVG chart (plot.c). The writers only
   format; bench.c measures. */
#ifndef CLB_CLI_REPORT_H
#define CLB_CLI_REPORT_H

#include <stdio.h>

#include "cases.h"
#include "clbroadcast.h"
#include "measure/measure.h"
#include "peaks/peaks.h"

/* Version of the JSON document (docs/bench-schema.md); bump on any change a
   reader must know about. */
#define BENCH_SCHEMA_VERSION 2

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
    bench_stats st;       /* runs, min/median/max, spread, load */
    double gbps;          /* distinct bytes / median / 1e9 */
    double gflops;
    double pct_of_peak;   /* against the device's limit of the case's peak kind; < 0 unknown */
    double host_median_s; /* the host backend's median on the same case; 0 when unknown */
    double speedup;       /* host_median_s / median_s; 0 when unknown */
    double max_rel_diff;  /* max |device - host| / max |host|; < 0 when not compared */
} bench_row;

/* The 100 % of one peak kind (clbb_peak) on one device. */
typedef struct bench_limit {
    double value;         /* GB/s (copy, read), GFLOP/s (fma) or us (launch); 0 when unknown */
    char source[64];      /* "peak copy", "pattern scalar_broadcast", "peak fma_float32" */
} bench_limit;

typedef struct bench_device {
    clb_device_info info;
    bench_peak peaks[PEAK_COUNT];
    bench_limit limits[CLBB_PEAK_KINDS];
    bench_row *rows;      /* clbb_case_count, in clbb_cases order */
} bench_device;

typedef struct bench_report {
    int quick;
    bench_plan plan;      /* runs 0: --repeat auto */
    int host_repeat;      /* timed runs of the host baseline when it is not a target */
    char timestamp[32];   /* ISO 8601, UTC */
    char machine[256];    /* uname: system, release, architecture */
    int ndev;
    bench_device *devs;
} bench_report;

/* How each kind's limit is chosen, for every rendering. */
extern const char *const bench_limit_method[CLBB_PEAK_KINDS];
/* "GB/s", "GB/s", "GFLOP/s", "us" */
const char *bench_limit_unit(clbb_peak k);

/* Sets every row's pct_of_peak from the device's limits: GB/s or GFLOP/s over
   the limit, or for launch-bound rows the empty-launch latency over the median. */
void bench_device_limits(bench_device *d);

void report_table(const bench_report *r, FILE *f);
/* Each writes a file; 0 on success, else prints why to stderr and returns 1. */
int report_csv(const bench_report *r, const char *path);
int report_json(const bench_report *r, const char *path);
int report_svg(const bench_report *r, const char *path);

/* Shared by the writers. */
FILE *report_open(const char *path);
int report_close(FILE *f, const char *path);
const char *bench_kind_name(clbb_kind k); /* JSON "kind": "binary", "sum", ... */

#endif /* CLB_CLI_REPORT_H */
