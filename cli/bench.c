/* clb bench: the vendor-neutral broadcasting benchmark.
 *
 * Recipe (BabelStream/clpeak): per device, first the copy bandwidth, the
 * practical limit of memory-bound work: the faster of two copy-shaped streams,
 * a plain contiguous copy (clb_cast float32 -> float32, the copy kernel) and
 * x * s with a 0-d s (the element-wise kernel), output allocation included as
 * in every pattern; then each pattern of bench/cases.c. Every measurement is one warm-up run (kernel
 * builds, first touch) and then --repeat timed runs, each ending with
 * clb_finish; the median is reported. Effective GB/s counts distinct bytes
 * read + written (GB = 1e9). The host backend runs every case as well: its
 * time gives the speed-up column and its result checks every device's.
 *
 * Patterns run in the outer loop and devices in the inner one, so only one
 * reference result is held at a time; the tables are printed at the end. */
#include "common.h"
#include "harness.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#define MAX_DEVICES 64
#define WARMUP 1
/* The host backend is a plain C loop: at full size one run of a pattern takes
   seconds there, so as a mere baseline it is timed at most this often. */
#define HOST_BASELINE_MAX_RUNS 3

typedef struct options {
    const char *device, *csv, *json, *plot;
    int quick, repeat;
} options;

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){"all", NULL, NULL, NULL, 0, 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **target = !strcmp(a, "--device") ? &o->device
                              : !strcmp(a, "--csv")  ? &o->csv
                              : !strcmp(a, "--json") ? &o->json
                              : !strcmp(a, "--plot") ? &o->plot
                                                     : NULL;
        if (target) {
            if (i + 1 >= argc || !argv[i + 1][0]) return usage_error("bench: %s needs a value", a);
            *target = argv[++i];
        } else if (!strncmp(a, "--device=", 9)) { /* the form clb demo accepts too */
            if (!a[9]) return usage_error("bench: --device needs a value");
            o->device = a + 9;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--repeat")) {
            char *end = NULL;
            if (i + 1 >= argc) return usage_error("bench: --repeat needs a count");
            errno = 0;
            long n = strtol(argv[++i], &end, 10);
            if (errno || !end || *end || end == argv[i] || n < 1 || n > 100000)
                return usage_error("bench: --repeat takes a count from 1 to 100000, not '%s'", argv[i]);
            o->repeat = (int)n;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return -1;
        } else {
            return usage_error("bench: unexpected argument '%s'", a);
        }
    }
    if (!o->repeat) o->repeat = o->quick ? 5 : 10;
    return 0;
}

/* ---- devices ------------------------------------------------------------- */

typedef struct target {
    clb_context *ctx;
    bench_device *dev;
} target;

static int open_device(const char *selector, target *t, bench_device *d)
{
    clb_status st = clb_context_create(selector, &t->ctx);
    if (st == CLB_OK) st = clb_context_get_info(t->ctx, &d->info);
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

/* Measures case c on one context; fills row and, when keep is given, hands
   the result over as host floats. */
static void measure(const clbb_case *c, int quick, clb_context *ctx, const float *data, int runs,
                    bench_row *row, float **keep, int64_t *keep_n)
{
    clbb_instance inst;
    memset(row, 0, sizeof *row);
    row->pct_of_copy = -1;
    row->max_rel_diff = -1;
    clb_status st = clbb_instance_setup(&inst, c, quick, ctx, data);
    if (st != CLB_OK) {
        set_reason(row, st);
        return;
    }
    clbb_result r = clbb_measure_runs(ctx, clbb_instance_run, &inst, clbb_case_bytes(c, quick),
                                      WARMUP, runs);
    if (r.status != CLB_OK) {
        set_reason(row, r.status);
    } else {
        row->outcome = BENCH_OK;
        row->runs = r.iterations;
        row->median_s = r.median_s;
        row->min_s = r.min_s;
        row->gbps = r.gbps;
        row->gflops = clbb_case_flops(c, quick) / r.median_s / 1e9;
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
        fprintf(stderr, "%10.3f ms %8.2f GB/s%s\n", row->median_s * 1e3, row->gbps,
                row->outcome == BENCH_WRONG ? "  WRONG" : "");
    else
        fprintf(stderr, "%s\n", bench_outcome_name(row->outcome));
}

/* ---- the run ------------------------------------------------------------------ */

static float *random_data(int64_t n)
{
    float *v = malloc((size_t)n * sizeof *v);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; v && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)(s >> 40) / 16777216.0f; /* uniform in [0, 1), 24 random bits */
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

static int run_all(bench_report *rep, target *targets, int ntargets, clb_context *host,
                   int host_is_target)
{
    float *data = random_data(clbb_max_input_numel(rep->quick));
    if (!data) {
        fprintf(stderr, "clb: out of memory for the input data\n");
        return 1;
    }
    for (int i = 0; i < clbb_case_count; i++) {
        const clbb_case *c = &clbb_cases[i];
        bench_row host_row;
        float *ref = NULL;
        int64_t ref_n = 0;
        measure(c, rep->quick, host, data, host_is_target ? rep->repeat : rep->host_repeat,
                &host_row, &ref, &ref_n);
        progress(c, i, "host", &host_row);
        for (int t = 0; t < ntargets; t++) {
            bench_row *row = &targets[t].dev->rows[i];
            if (targets[t].ctx == host) {
                *row = host_row;
            } else {
                float *got = NULL;
                int64_t n = 0;
                measure(c, rep->quick, targets[t].ctx, data, rep->repeat, row, ref ? &got : NULL, &n);
                if (got) validate(c, row, got, n, ref, ref_n);
                free(got);
                progress(c, i, targets[t].dev->info.selector, row);
            }
            if (host_row.outcome == BENCH_OK && row->outcome == BENCH_OK) {
                row->host_median_s = host_row.median_s;
                row->speedup = host_row.median_s / row->median_s;
            }
        }
        free(ref);
    }
    free(data);
    for (int t = 0; t < ntargets; t++) {
        bench_device *d = targets[t].dev;
        for (int i = 0; i < clbb_case_count; i++)
            if (clbb_cases[i].peak && d->rows[i].outcome == BENCH_OK && d->rows[i].gbps > d->copy_gbps) {
                d->copy_gbps = d->rows[i].gbps;
                d->copy_case = clbb_cases[i].id;
            }
        for (int i = 0; i < clbb_case_count; i++)
            if (d->copy_gbps > 0 && d->rows[i].outcome == BENCH_OK)
                d->rows[i].pct_of_copy = 100.0 * d->rows[i].gbps / d->copy_gbps;
    }
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;

    static bench_device devs[MAX_DEVICES + 1];
    target targets[MAX_DEVICES + 1] = {{0}};
    int ntargets = 0, host_is_target = 0, skipped = 0;
    clb_context *host = NULL;

    if (!strcmp(o.device, "all")) {
        int count = 0;
        if (clb_device_count(&count) != CLB_OK) count = 0;
        if (count > MAX_DEVICES) count = MAX_DEVICES;
        rc = open_device("host", &targets[ntargets], &devs[ntargets]);
        if (!rc) ntargets++;
        /* A device that cannot even make a context is skipped (its error is
           printed and the exit status becomes 1): the others still get measured. */
        for (int i = 0; i < count && !rc; i++) {
            char sel[16];
            snprintf(sel, sizeof sel, "%d", i);
            if (open_device(sel, &targets[ntargets], &devs[ntargets]) == 0)
                ntargets++;
            else
                skipped = 1;
        }
    } else {
        rc = open_device(o.device, &targets[0], &devs[0]);
        if (!rc) ntargets = 1;
    }
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
        bench_report rep = {o.quick, o.repeat, WARMUP, 0, "", "", ntargets, devs};
        rep.host_repeat = host_is_target || o.repeat < HOST_BASELINE_MAX_RUNS ? o.repeat
                                                                               : HOST_BASELINE_MAX_RUNS;
        describe_run(&rep);
        fprintf(stderr, "clb bench: %s sizes, median of %d run%s after %d warm-up on %d device%s\n",
                o.quick ? "quick" : "full", o.repeat, o.repeat == 1 ? "" : "s", WARMUP, ntargets,
                ntargets == 1 ? "" : "s");
        rc = run_all(&rep, targets, ntargets, host, host_is_target);
        if (!rc) {
            report_table(&rep, stdout);
            fflush(stdout);
            if (o.csv) rc |= report_csv(&rep, o.csv);
            if (o.json) rc |= report_json(&rep, o.json);
            if (o.plot) rc |= report_svg(&rep, o.plot);
            if (skipped) rc = 1;
            for (int t = 0; t < ntargets; t++)
                for (int i = 0; i < clbb_case_count; i++)
                    if (devs[t].rows[i].outcome == BENCH_FAILED || devs[t].rows[i].outcome == BENCH_WRONG)
                        rc = 1;
        }
    }
    for (int t = 0; t < ntargets; t++) {
        if (targets[t].ctx != host) clb_context_release(targets[t].ctx);
        free(devs[t].rows);
    }
    clb_context_release(host);
    return rc;
}
