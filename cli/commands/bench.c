/* clb bench: the vendor-neutral broadcasting benchmark.
 *
 * Recipe (BabelStream/clpeak): per device, first the peaks (peaks.h): copy,
 * read-only and write-only bandwidth, FMA throughput, empty-launch latency and
 * transfers, each with random data and its kernel stated; then each pattern
 * of bench/cases.c, measured against the peak that limits it (copy or read
 * bandwidth, FMA, launch: clbb_case_peak). Every measurement is one warm-up
 * run (kernel builds, first touch) and then --repeat timed runs or, with
 * --repeat auto, runs until the median is stable (measure.h), each pattern
 * run ending with clb_finish; min, median and max are reported with the load
 * of other processes. Effective GB/s counts distinct bytes read + written
 * (GB = 1e9). The host backend runs every case as well: its time gives the
 * speed-up column and its result checks every device's.
 *
 * Patterns run in the outer loop and devices in the inner one, so only one
 * reference result is held at a time; the tables are printed at the end.
 * --compare and --baseline read such results back (compare.c). */
#include "common.h"
#include "report/compare.h"
#include "report/results.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES 64
#define WARMUP 1
/* The host backend is a plain C loop: at full size one run of a pattern takes
   seconds there, so as a mere baseline it is timed at most this often. */
#define HOST_BASELINE_MAX_RUNS 3
#define MAX_COMPARE 16

typedef struct options {
    const char *device, *csv, *json, *plot, *baseline;
    int quick, repeat; /* repeat 0: auto */
    double budget_s;   /* 0: the default */
    const char *compare[MAX_COMPARE];
    int ncompare, run_options; /* run_options: an option that only a run takes was given */
} options;

static int parse_count(const char *a, const char *v, options *o)
{
    if (!strcmp(v, "auto")) {
        o->repeat = 0;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || !end || *end || end == v || n < 1 || n > 100000)
        return usage_error("bench: %s takes a count from 1 to 100000 or 'auto', not '%s'", a, v);
    o->repeat = (int)n;
    return 0;
}

static int parse_budget(const char *v, options *o)
{
    char *end = NULL;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || !end || *end || end == v || !(s > 0) || s > 3600)
        return usage_error("bench: --budget takes seconds above 0 and up to 3600, not '%s'", v);
    o->budget_s = s;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->device = "all";
    o->repeat = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **target = !strcmp(a, "--device")     ? &o->device
                              : !strcmp(a, "--csv")      ? &o->csv
                              : !strcmp(a, "--json")     ? &o->json
                              : !strcmp(a, "--plot")     ? &o->plot
                              : !strcmp(a, "--baseline") ? &o->baseline
                                                         : NULL;
        if (target) {
            if (i + 1 >= argc || !argv[i + 1][0]) return usage_error("bench: %s needs a value", a);
            *target = argv[++i];
            o->run_options |= target != &o->plot && target != &o->baseline;
        } else if (!strncmp(a, "--device=", 9)) { /* the form clb demo accepts too */
            if (!a[9]) return usage_error("bench: --device needs a value");
            o->device = a + 9;
            o->run_options = 1;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
            o->run_options = 1;
        } else if (!strcmp(a, "--repeat")) {
            if (i + 1 >= argc) return usage_error("bench: --repeat needs a count or 'auto'");
            if (parse_count(a, argv[++i], o)) return EXIT_USAGE;
            o->run_options = 1;
        } else if (!strcmp(a, "--budget")) {
            if (i + 1 >= argc) return usage_error("bench: --budget needs seconds");
            if (parse_budget(argv[++i], o)) return EXIT_USAGE;
            o->run_options = 1;
        } else if (!strcmp(a, "--compare")) {
            /* every following argument up to the next option is a results file */
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
                if (o->ncompare == MAX_COMPARE)
                    return usage_error("bench: --compare takes at most %d files", MAX_COMPARE);
                o->compare[o->ncompare++] = argv[++i];
            }
            if (!o->ncompare) return usage_error("bench: --compare needs results files (A.json B.json ...)");
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return -1;
        } else {
            return usage_error("bench: unexpected argument '%s'", a);
        }
    }
    if (o->ncompare) {
        if (o->run_options)
            return usage_error("bench: --compare reads results files; it takes only --baseline and --plot");
        if (o->ncompare + (o->baseline != NULL) < 2)
            return usage_error("bench: --compare needs two results files at least (or one and --baseline)");
    }
    if (o->baseline && o->json && !strcmp(o->baseline, o->json))
        return usage_error("bench: --json %s would overwrite the --baseline file", o->json);
    if (o->budget_s > 0 && o->repeat != 0)
        return usage_error("bench: --budget goes with --repeat auto");
    if (o->repeat < 0) o->repeat = o->quick ? 5 : 10;
    if (!(o->budget_s > 0)) o->budget_s = o->quick ? 0.5 : 3.0;
    return 0;
}

/* ---- devices ------------------------------------------------------------- */

typedef struct target {
    clb_context *ctx;
    bench_device *dev;
} target;

static int open_device(const char *selector, target *t, bench_device *d)
{
    int rc = open_context(NULL, selector, &t->ctx);
    if (rc) return rc;
    clb_status st = clb_context_get_info(t->ctx, &d->info);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: %s: %s\n", clb_status_name(st), clb_last_error());
        if (st == CLB_ERR_NO_DEVICE) print_selectors(stderr);
        clb_context_release(t->ctx);
        t->ctx = NULL;
        return st == CLB_ERR_NO_DEVICE ? EXIT_USAGE : 1;
    }
    terminate_strings(&d->info);
    t->dev = d;
    return 0;
}

/* ---- one measurement --------------------------------------------------------- */

static void set_reason(bench_row *row, clb_status st)
{
    row->outcome = st == CLB_ERR_UNSUPPORTED ? BENCH_UNSUPPORTED : BENCH_FAILED;
    snprintf(row->reason, sizeof row->reason, "%s: %s", clb_status_name(st), clb_last_error());
}

/* The result as host floats; NULL (with the reason set) when it cannot be read. */
static float *fetch_result(const clbb_instance *inst, bench_row *row, int64_t *n)
{
    *n = clb_tensor_numel(inst->out);
    if (clb_tensor_dtype(inst->out) != CLB_FLOAT32) {
        row->outcome = BENCH_WRONG;
        snprintf(row->reason, sizeof row->reason, "result is %s, expected float32",
                 clb_dtype_name(clb_tensor_dtype(inst->out)));
        return NULL;
    }
    float *v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    clb_status st = v ? clb_tensor_to_host(inst->out, v, (size_t)*n * sizeof *v) : CLB_ERR_OUT_OF_MEMORY;
    if (st != CLB_OK) {
        set_reason(row, st);
        free(v);
        return NULL;
    }
    return v;
}

/* One timed run of a pattern: the operation and clb_finish. */
typedef struct pattern_run {
    clbb_instance *inst;
    clb_context *ctx;
    clb_status st;
} pattern_run;

static int run_pattern(void *user)
{
    pattern_run *p = user;
    p->st = clbb_instance_run(p->inst);
    if (p->st == CLB_OK) p->st = clb_finish(p->ctx);
    return p->st != CLB_OK;
}

/* Measures case c on one context; fills row and, when keep is given, hands
   the result over as host floats. */
static void measure(const clbb_case *c, int quick, clb_context *ctx, const float *data,
                    const bench_plan *plan, bench_row *row, float **keep, int64_t *keep_n)
{
    clbb_instance inst;
    memset(row, 0, sizeof *row);
    row->pct_of_peak = -1;
    row->max_rel_diff = -1;
    row->st.other_load = -1;
    clb_status st = clbb_instance_setup(&inst, c, quick, ctx, data);
    if (st != CLB_OK) {
        set_reason(row, st);
        return;
    }
    pattern_run pr = {&inst, ctx, CLB_OK};
    int rc = bench_sample(plan, run_pattern, &pr, 1, &row->st);
    if (rc) {
        set_reason(row, pr.st != CLB_OK ? pr.st : CLB_ERR_OUT_OF_MEMORY);
        row->st.runs = 0;
    } else {
        row->outcome = BENCH_OK;
        row->gbps = clbb_case_bytes(c, quick) / row->st.median_s / 1e9;
        row->gflops = clbb_case_flops(c, quick) / row->st.median_s / 1e9;
        if (keep) *keep = fetch_result(&inst, row, keep_n);
    }
    clbb_instance_release(&inst);
}

/* Element-wise results are one correctly rounded operation on every backend;
   sums and products may add in another order (the host adds in double). */
static double tolerance(const clbb_case *c)
{
    return c->kind == CLBB_REDUCE || c->kind == CLBB_SUM_TO_SHAPE || c->kind == CLBB_MATMUL ? 1e-3
                                                                                             : 1e-6;
}

static void validate(const clbb_case *c, bench_row *row, const float *got, int64_t n,
                     const float *ref, int64_t ref_n)
{
    if (n != ref_n) {
        row->outcome = BENCH_WRONG;
        snprintf(row->reason, sizeof row->reason, "%lld result elements, the host backend has %lld",
                 (long long)n, (long long)ref_n);
        return;
    }
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs((double)ref[i]));
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)ref[i]);
        if (!(d <= worst)) worst = isnan(d) ? INFINITY : d; /* NaN counts as the worst */
    }
    row->max_rel_diff = scale > 0 ? worst / scale : worst;
    if (row->max_rel_diff > tolerance(c)) {
        row->outcome = BENCH_WRONG;
        snprintf(row->reason, sizeof row->reason,
                 "differs from the host backend: max |diff| / max |host| = %.3g (tolerance %.0e)",
                 row->max_rel_diff, tolerance(c));
    }
}

static void progress(const clbb_case *c, int index, const char *selector, const bench_row *row)
{
    fprintf(stderr, "clb bench: [%2d/%d] %-26s on %-5s ", index + 1, clbb_case_count, c->title,
            selector);
    if (row->outcome == BENCH_OK || row->outcome == BENCH_WRONG)
        fprintf(stderr, "%10.3f ms %8.2f GB/s  spread %5.1f%%%s%s\n", row->st.median_s * 1e3, row->gbps,
                100 * row->st.spread, row->st.noisy ? " (noisy)" : "",
                row->outcome == BENCH_WRONG ? "  WRONG" : "");
    else
        fprintf(stderr, "%s\n", bench_outcome_name(row->outcome));
}

/* ---- the run ------------------------------------------------------------------ */

/* The patterns' shared input: uniform in [0, 1), 24 random bits each. */
static float *random_data(int64_t n)
{
    float *v = malloc((size_t)n * sizeof *v);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; v && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)(s >> 40) / 16777216.0f;
    }
    return v;
}

static void describe_run(bench_report *r)
{
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(r->timestamp, sizeof r->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(r->machine, sizeof r->machine, "%.60s %.100s %.60s", u.sysname, u.release, u.machine);
}

static void measure_peaks(const bench_report *rep, target *targets, int ntargets)
{
    for (int t = 0; t < ntargets; t++) {
        bench_device *d = targets[t].dev;
        fprintf(stderr, "clb bench: peaks of %s (%s)\n", d->info.selector, d->info.name);
        if (d->info.type == CLB_DEVICE_HOST) {
            bench_peaks_host(&rep->plan, rep->quick, d->peaks);
        } else {
#ifdef CLB_CLI_HAVE_OPENCL
            bench_peaks_cl(targets[t].ctx, &d->info, &rep->plan, rep->quick, d->peaks);
#else
            for (int i = 0; i < PEAK_COUNT; i++)
                bench_peak_skip(&d->peaks[i], 0, "this clb was built without OpenCL");
#endif
        }
        for (int i = 0; i < PEAK_COUNT; i++) {
            const bench_peak *p = &d->peaks[i];
            if (p->measured)
                fprintf(stderr, "clb bench:   %-26s %10.2f %s\n", bench_peak_table[i].title, p->value,
                        bench_unit_name(bench_peak_table[i].unit));
            else
                fprintf(stderr, "clb bench:   %-26s %s\n", bench_peak_table[i].title,
                        p->unsupported ? "n/a" : "FAILED");
        }
    }
}

static int run_all(bench_report *rep, target *targets, int ntargets, clb_context *host,
                   int host_is_target)
{
    float *data = random_data(clbb_max_input_numel(rep->quick));
    if (!data) {
        fprintf(stderr, "clb: out of memory for the input data\n");
        return 1;
    }
    measure_peaks(rep, targets, ntargets);
    bench_plan host_plan = rep->plan;
    if (!host_is_target) host_plan.runs = rep->host_repeat;
    for (int i = 0; i < clbb_case_count; i++) {
        const clbb_case *c = &clbb_cases[i];
        bench_row host_row;
        float *ref = NULL;
        int64_t ref_n = 0;
        measure(c, rep->quick, host, data, &host_plan, &host_row, &ref, &ref_n);
        progress(c, i, "host", &host_row);
        for (int t = 0; t < ntargets; t++) {
            bench_row *row = &targets[t].dev->rows[i];
            if (targets[t].ctx == host) {
                *row = host_row;
            } else {
                float *got = NULL;
                int64_t n = 0;
                measure(c, rep->quick, targets[t].ctx, data, &rep->plan, row, ref ? &got : NULL, &n);
                if (got) validate(c, row, got, n, ref, ref_n);
                free(got);
                progress(c, i, targets[t].dev->info.selector, row);
            }
            if (host_row.outcome == BENCH_OK && row->outcome == BENCH_OK) {
                row->host_median_s = host_row.st.median_s;
                row->speedup = host_row.st.median_s / row->st.median_s;
            }
        }
        free(ref);
    }
    free(data);
    for (int t = 0; t < ntargets; t++) bench_device_limits(targets[t].dev);
    return 0;
}

/* --baseline without --compare: this run's JSON (the --json file, else a
   temporary one) against the baseline. */
static int compare_with_baseline(const options *o, const bench_report *rep)
{
    char tmp[] = "/tmp/clb-bench-XXXXXX";
    const char *path = o->json;
    if (!path) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            fprintf(stderr, "clb: cannot create a temporary file for --baseline: %s\n", strerror(errno));
            return 1;
        }
        close(fd);
        path = tmp;
        if (report_json(rep, path)) {
            unlink(tmp);
            return 1;
        }
    }
    const char *files[1] = {path};
    printf("\n");
    int rc = bench_compare(1, files, o->baseline, NULL);
    if (!o->json) unlink(tmp);
    return rc;
}

/* The contexts to measure: the host backend and every OpenCL device for
   "all", else the one device. A device of "all" that cannot even make a
   context is skipped (its error printed, *skipped set: the exit status
   becomes 1) and the others still get measured. Returns 0 or the exit status. */
static int open_targets(const char *device, target *targets, bench_device *devs, int *ntargets,
                        int *skipped)
{
    if (strcmp(device, "all")) {
        int rc = open_device(device, &targets[0], &devs[0]);
        if (!rc) *ntargets = 1;
        return rc;
    }
    int count = 0;
    if (clb_device_count(&count) != CLB_OK) count = 0;
    if (count > MAX_DEVICES) count = MAX_DEVICES;
    int rc = open_device("host", &targets[*ntargets], &devs[*ntargets]);
    if (!rc) (*ntargets)++;
    for (int i = 0; i < count && !rc; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        if (open_device(sel, &targets[*ntargets], &devs[*ntargets]) == 0)
            (*ntargets)++;
        else
            *skipped = 1;
    }
    return rc;
}

/* The outputs of a finished run (table, CSV, JSON, plot, the baseline's
   verdict) and its exit status: 1 when a device was skipped, a pattern failed
   or differed from the host backend, a peak could not be measured, a file
   could not be written or the baseline got slower. */
static int report_run(const options *o, const bench_report *rep, int skipped)
{
    int rc = skipped ? 1 : 0;
    report_table(rep, stdout);
    fflush(stdout);
    if (o->csv) rc |= report_csv(rep, o->csv);
    if (o->json) rc |= report_json(rep, o->json);
    if (o->plot) rc |= report_svg(rep, o->plot);
    for (int t = 0; t < rep->ndev; t++) {
        const bench_device *d = &rep->devs[t];
        for (int i = 0; i < clbb_case_count; i++)
            if (d->rows[i].outcome == BENCH_FAILED || d->rows[i].outcome == BENCH_WRONG) rc = 1;
        for (int i = 0; i < PEAK_COUNT; i++)
            if (!d->peaks[i].measured && !d->peaks[i].unsupported) rc = 1;
    }
    if (o->baseline) rc |= compare_with_baseline(o, rep);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (o.ncompare) return bench_compare(o.ncompare, o.compare, o.baseline, o.plot);
    if (o.baseline) { /* read it before a run of minutes, not after */
        cmp_run before;
        char why[1024];
        if (cmp_run_load(o.baseline, &before, why, sizeof why)) {
            fprintf(stderr, "clb: --baseline %s\n", why);
            return EXIT_USAGE;
        }
        cmp_run_free(&before);
    }

    static bench_device devs[MAX_DEVICES + 1];
    target targets[MAX_DEVICES + 1] = {{0}};
    int ntargets = 0, host_is_target = 0, skipped = 0;
    clb_context *host = NULL;

    rc = open_targets(o.device, targets, devs, &ntargets, &skipped);
    for (int t = 0; t < ntargets && !rc; t++) {
        devs[t].rows = calloc((size_t)clbb_case_count, sizeof *devs[t].rows);
        if (!devs[t].rows) {
            fprintf(stderr, "clb: out of memory\n");
            rc = 1;
        }
        if (devs[t].info.type == CLB_DEVICE_HOST) {
            host = targets[t].ctx;
            host_is_target = 1;
        }
    }
    if (!rc && !host) {
        clb_status st = clb_context_create("host", &host);
        if (st != CLB_OK) {
            fprintf(stderr, "clb: the host backend: %s: %s\n", clb_status_name(st), clb_last_error());
            rc = 1;
        }
    }

    if (!rc) {
        bench_report rep = {.quick = o.quick, .plan = {WARMUP, o.repeat, o.budget_s},
                            .ndev = ntargets, .devs = devs};
        rep.host_repeat = host_is_target || (o.repeat > 0 && o.repeat < HOST_BASELINE_MAX_RUNS)
                              ? o.repeat
                              : HOST_BASELINE_MAX_RUNS;
        describe_run(&rep);
        if (o.repeat > 0)
            fprintf(stderr, "clb bench: %s sizes, median of %d run%s after %d warm-up on %d device%s\n",
                    o.quick ? "quick" : "full", o.repeat, o.repeat == 1 ? "" : "s", WARMUP, ntargets,
                    ntargets == 1 ? "" : "s");
        else
            fprintf(stderr, "clb bench: %s sizes, --repeat auto (budget %.3g s per row) on %d device%s\n",
                    o.quick ? "quick" : "full", o.budget_s, ntargets, ntargets == 1 ? "" : "s");
        rc = run_all(&rep, targets, ntargets, host, host_is_target);
        if (!rc) rc = report_run(&o, &rep, skipped);
    }
    for (int t = 0; t < ntargets; t++) {
        if (targets[t].ctx != host) clb_context_release(targets[t].ctx);
        free(devs[t].rows);
    }
    clb_context_release(host);
    return rc;
}
