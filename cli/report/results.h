/* The results of `clb bench` runs read back from their --json files
   (docs/bench-schema.md): the model that --compare and --baseline (compare.c)
   print and compare_plot.c draws, loaded by results.c. */
#ifndef CLB_CLI_RESULTS_H
#define CLB_CLI_RESULTS_H

#include <stddef.h>

/* One pattern of one device of a results file. */
typedef struct cmp_row {
    char pattern[64], title[96], shapes[160], peak[16], status[16];
    int timed;                     /* median, min and max known */
    double median_s, min_s, max_s; /* seconds */
    double other_load;             /* < 0 unknown */
    int runs;
} cmp_row;

typedef struct cmp_device {
    char selector[64], name[256], platform[256], driver[128];
    int nrows;
    cmp_row *rows;
} cmp_device;

typedef struct cmp_run {
    char path[512];
    char library_version[32], timestamp[32], machine[256];
    int quick;
    int ndev;
    cmp_device *devs;
} cmp_run;

/* Reads a `clb bench --json` file (docs/bench-schema.md); 0 on success, else
   1 with why filled (then nothing to free). Needs json-c. */
int cmp_run_load(const char *path, cmp_run *run, char *why, size_t cap);
void cmp_run_free(cmp_run *run);

/* The verdict on two timings of one pattern, from the runs' spreads: slower
   (faster) beyond noise when B's fastest run is slower than A's slowest (B's
   slowest faster than A's fastest), i.e. the ranges [min, max] do not overlap;
   else within noise. */
typedef enum cmp_verdict { CMP_WITHIN_NOISE, CMP_SLOWER, CMP_FASTER } cmp_verdict;
cmp_verdict cmp_judge(const cmp_row *a, const cmp_row *b);

/* The row of `pattern` in d, or NULL. */
const cmp_row *cmp_find_row(const cmp_device *d, const char *pattern);

#endif /* CLB_CLI_RESULTS_H */
