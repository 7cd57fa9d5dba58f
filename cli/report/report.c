/* Renderings of `clb bench` results (see report.h): the limits every row is
   measured against, the terminal table and the CSV file. JSON is in
   report_json.c, the SVG chart in plot.c. */
#include "common.h"
#include "report.h"

#include <errno.h>
#include <string.h>

/* Each entry in parentheses: clang's -Wstring-concatenation reads adjacent
   literals in an array initializer as a missing comma. */
const char *const bench_limit_method[CLBB_PEAK_KINDS] = {
    [CLBB_PEAK_COPY] = ("the fastest of the copy peak kernel and the two copy-shaped patterns "
                        "(copy: clb_cast float32 -> float32; scalar broadcast: x * s with a 0-d s), "
                        "so a slow copy can flatter no pattern"),
    [CLBB_PEAK_READ] = "the read-only peak (for reductions: they read n elements and write few)",
    [CLBB_PEAK_FMA] = "the float32 FMA peak, 2 flops per fused multiply-add (for matmul)",
    [CLBB_PEAK_LAUNCH] = ("the empty-kernel launch round trip (enqueue + finish): the floor of any "
                          "call that waits for its result; % = that latency / the pattern's median"),
};

const char *bench_limit_unit(clbb_peak k)
{
    return k == CLBB_PEAK_FMA ? "GFLOP/s" : k == CLBB_PEAK_LAUNCH ? "us" : "GB/s";
}

const char *bench_outcome_name(bench_outcome o)
{
    switch (o) {
    case BENCH_OK: return "ok";
    case BENCH_UNSUPPORTED: return "unsupported";
    case BENCH_FAILED: return "failed";
    case BENCH_WRONG: return "wrong";
    }
    return "failed";
}

const char *bench_kind_name(clbb_kind k)
{
    switch (k) {
    case CLBB_COPY: return "copy";
    case CLBB_BINARY: return "binary";
    case CLBB_NORMALIZE: return "normalize";
    case CLBB_REDUCE: return "sum";
    case CLBB_SUM_TO_SHAPE: return "sum_to_shape";
    case CLBB_MATMUL: return "matmul";
    }
    return "unknown";
}

static int has_numbers(const bench_row *row)
{
    return row->outcome == BENCH_OK || row->outcome == BENCH_WRONG;
}

static void set_limit(bench_limit *l, double value, const char *what, const char *id)
{
    l->value = value;
    snprintf(l->source, sizeof l->source, "%s %s", what, id);
}

void bench_device_limits(bench_device *d)
{
    memset(d->limits, 0, sizeof d->limits);
    const bench_peak *pk = d->peaks;
    if (pk[PEAK_COPY].measured) set_limit(&d->limits[CLBB_PEAK_COPY], pk[PEAK_COPY].value, "peak", "copy");
    for (int i = 0; i < clbb_case_count; i++)
        if (clbb_cases[i].peak && d->rows[i].outcome == BENCH_OK &&
            d->rows[i].gbps > d->limits[CLBB_PEAK_COPY].value)
            set_limit(&d->limits[CLBB_PEAK_COPY], d->rows[i].gbps, "pattern", clbb_cases[i].id);
    if (pk[PEAK_READ].measured) set_limit(&d->limits[CLBB_PEAK_READ], pk[PEAK_READ].value, "peak", "read");
    if (pk[PEAK_FMA_F32].measured)
        set_limit(&d->limits[CLBB_PEAK_FMA], pk[PEAK_FMA_F32].value, "peak", "fma_float32");
    if (pk[PEAK_LAUNCH_ROUND_TRIP].measured)
        set_limit(&d->limits[CLBB_PEAK_LAUNCH], pk[PEAK_LAUNCH_ROUND_TRIP].value, "peak",
                  "launch_round_trip");
    for (int i = 0; i < clbb_case_count; i++) {
        bench_row *row = &d->rows[i];
        clbb_peak k = clbb_case_peak(&clbb_cases[i]);
        double lim = d->limits[k].value;
        row->pct_of_peak = -1;
        if (row->outcome != BENCH_OK || !(lim > 0)) continue;
        if (k == CLBB_PEAK_LAUNCH)
            row->pct_of_peak = 100.0 * lim * 1e-6 / row->st.median_s;
        else
            row->pct_of_peak = 100.0 * (k == CLBB_PEAK_FMA ? row->gflops : row->gbps) / lim;
    }
}

/* ---- terminal table ----------------------------------------------------------------- */

static text load_text(double load)
{
    text t;
    if (load < 0)
        snprintf(t.s, sizeof t.s, "-");
    else
        snprintf(t.s, sizeof t.s, "%.0f%%", 100 * load);
    return t;
}

static text spread_text(const bench_stats *st)
{
    text t;
    snprintf(t.s, sizeof t.s, "%.1f%%%s", 100 * st->spread, st->noisy ? "!" : "");
    return t;
}

/* Number of a reason in the notes list, adding it when new (1-based). */
static int note_number(const char **notes, int *nnotes, int cap, const char *reason)
{
    for (int i = 0; i < *nnotes; i++)
        if (!strcmp(notes[i], reason)) return i + 1;
    if (*nnotes == cap) return 0;
    notes[(*nnotes)++] = reason;
    return *nnotes;
}

static void table_peaks(const bench_device *d, FILE *f)
{
    fprintf(f, "peaks (the best of their runs; %s):\n", d->info.type == CLB_DEVICE_HOST
                                    ? "plain C loops over host memory, as this build compiled them"
                                    : "raw OpenCL from cli/peaks/peaks.cl, outside the library");
    fprintf(f, "  %-26s %14s %10s %10s %7s %5s  %s\n", "peak", "best run", "median", "slowest",
            "spread", "load", "kernel");
    for (int i = 0; i < PEAK_COUNT; i++) {
        const bench_peak *p = &d->peaks[i];
        const bench_peak_meta *m = &bench_peak_table[i];
        if (!p->measured) {
            fprintf(f, "  %-26s %14s %10s %10s %7s %5s  %s: %s\n", m->title, "-", "-", "-", "-", "-",
                    p->unsupported ? "n/a" : "FAILED", p->reason);
            continue;
        }
        char val[32], med[32], slow[32];
        if (m->unit == UNIT_US) {
            snprintf(val, sizeof val, "%.2f us", p->value);
            snprintf(med, sizeof med, "%.2f", p->st.median_s * 1e6);
            snprintf(slow, sizeof slow, "%.2f", p->st.max_s * 1e6);
        } else {
            snprintf(val, sizeof val, "%.2f %s", p->value, bench_unit_name(m->unit));
            snprintf(med, sizeof med, "%.2f", p->work / p->st.median_s / 1e9);
            snprintf(slow, sizeof slow, "%.2f", p->work / p->st.max_s / 1e9);
        }
        fprintf(f, "  %-26s %14s %10s %10s %7s %5s  %s\n", m->title, val, med, slow,
                spread_text(&p->st).s, load_text(p->st.other_load).s, p->kernel);
    }
}

static void table_device(const bench_report *r, const bench_device *d, FILE *f)
{
    const char *notes[64];
    int nnotes = 0, noisy = 0;
    int is_host = d->info.type == CLB_DEVICE_HOST;
    fprintf(f, "\ndevice %s: %s", d->info.selector, d->info.name);
    if (!is_host)
        fprintf(f, " (%s, %s, driver %s)", type_name(d->info.type), d->info.platform,
                d->info.driver_version);
    fputc('\n', f);
    table_peaks(d, f);
    fprintf(f, "limits (the 100 %% of each row):");
    for (int k = 0; k < CLBB_PEAK_KINDS; k++) {
        const bench_limit *l = &d->limits[k];
        if (l->value > 0)
            fprintf(f, "%s %s %.2f %s (%s)", k ? "," : "", clbb_peak_name((clbb_peak)k), l->value,
                    bench_limit_unit((clbb_peak)k), l->source);
        else
            fprintf(f, "%s %s not measured", k ? "," : "", clbb_peak_name((clbb_peak)k));
    }
    fputc('\n', f);
    fprintf(f, "  %-26s %-36s %10s %10s %10s %7s %5s %8s %8s %-6s %7s %8s  %s\n", "pattern",
            "shapes (float32)", "median", "min", "max", "spread", "load", "GB/s", "GFLOP/s", "peak",
            "% peak", "x host", "check");
    for (int i = 0; i < clbb_case_count; i++) {
        const clbb_case *c = &clbb_cases[i];
        const bench_row *row = &d->rows[i];
        char shapes[160], check[48];
        clbb_case_shapes(c, r->quick, shapes, sizeof shapes);
        if (row->outcome == BENCH_OK)
            snprintf(check, sizeof check, "%s", is_host ? "reference" : "ok");
        else
            snprintf(check, sizeof check, "%s [%d]", bench_outcome_name(row->outcome),
                     note_number(notes, &nnotes, 64, row->reason));
        fprintf(f, "  %-26s %-36s ", c->title, shapes);
        const char *peak = clbb_peak_name(clbb_case_peak(c));
        if (!has_numbers(row)) {
            fprintf(f, "%10s %10s %10s %7s %5s %8s %8s %-6s %7s %8s  %s\n", "-", "-", "-", "-", "-",
                    "-", "-", peak, "-", "-", check);
            continue;
        }
        noisy |= row->st.noisy;
        char gflops[32] = "-", pct[32] = "-", vs[32] = "-";
        if (c->kind != CLBB_COPY) snprintf(gflops, sizeof gflops, "%.2f", row->gflops);
        if (row->pct_of_peak >= 0) snprintf(pct, sizeof pct, "%.1f%%", row->pct_of_peak);
        if (row->speedup > 0) snprintf(vs, sizeof vs, "%.2fx", row->speedup);
        fprintf(f, "%10s %10s %10s %7s %5s %8.2f %8s %-6s %7s %8s  %s\n", time_text(row->st.median_s).s,
                time_text(row->st.min_s).s, time_text(row->st.max_s).s, spread_text(&row->st).s,
                load_text(row->st.other_load).s, row->gbps, gflops, peak, pct, vs, check);
    }
    if (noisy) fprintf(f, "  ! spread (max - min) / median above 10 %%: compare such rows with care\n");
    for (int i = 0; i < clbb_case_count; i++)
        if (clbb_case_peak(&clbb_cases[i]) == CLBB_PEAK_LAUNCH && d->rows[i].pct_of_peak > 100) {
            fprintf(f, "  %s: above 100 %%: the call returned sooner than an empty launch's round trip "
                       "(no kernel launched: a CPU device with SVM storage runs maps of up to "
                       "CLB_HOST_TINY elements on the calling thread)\n", clbb_cases[i].title);
            break;
        }
    for (int i = 0; i < nnotes; i++) fprintf(f, "  [%d] %s\n", i + 1, notes[i]);
}

void report_table(const bench_report *r, FILE *f)
{
    fprintf(f, "clbroadcast %s bench: %s sizes, ", clb_version_string(), r->quick ? "quick" : "full");
    if (r->plan.runs > 0)
        fprintf(f, "%d timed run%s", r->plan.runs, r->plan.runs == 1 ? "" : "s");
    else
        fprintf(f, "--repeat auto (until the median is stable within 2 %%, at least 5 runs, "
                   "budget %.3g s per row)", r->plan.budget_s);
    fprintf(f, " after %d warm-up", r->plan.warmup);
    if (r->host_repeat != r->plan.runs) fprintf(f, " (host baseline: %d runs)", r->host_repeat);
    fprintf(f, "\nGB/s: distinct bytes read + written / median time, GB = 1e9 bytes; min/max: the"
               " fastest and slowest run; spread: (max - min) / median;\n"
               "load: other processes' share of all CPUs during the row (/proc/stat); peak: what the"
               " row is measured against (copy or read bandwidth,\nFMA float32, empty launch), %% peak"
               " its share; x host: speed-up over the host backend; check: the result against the"
               " host backend's\n");
    for (int t = 0; t < r->ndev; t++) table_device(r, &r->devs[t], f);
}

/* ---- CSV ------------------------------------------------------------------------------- */

/* RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled. */
static void csv_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static void csv_number(FILE *f, double v, int known)
{
    if (known)
        fprintf(f, "%.6g,", v);
    else
        fputc(',', f);
}

FILE *report_open(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clb: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int report_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "clb: writing %s failed: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int report_csv(const bench_report *r, const char *path)
{
    FILE *f = report_open(path);
    if (!f) return 1;
    fprintf(f, "schema_version,library_version,timestamp,machine,quick,repeat,device_selector,"
               "device_type,device_name,device_vendor,platform,driver_version,opencl_c_version,"
               "compute_units,global_mem_bytes,pattern,title,shapes,dtype,bytes,flops,runs,median_s,"
               "min_s,max_s,spread,noisy,other_load,gbps,gflops,peak,peak_value,peak_unit,peak_source,"
               "percent_of_peak,host_median_s,speedup_vs_host,max_rel_diff,status,reason\n");
    char repeat[16];
    if (r->plan.runs > 0)
        snprintf(repeat, sizeof repeat, "%d", r->plan.runs);
    else
        snprintf(repeat, sizeof repeat, "auto");
    for (int t = 0; t < r->ndev; t++) {
        const bench_device *d = &r->devs[t];
        for (int i = 0; i < clbb_case_count; i++) {
            const clbb_case *c = &clbb_cases[i];
            const bench_row *row = &d->rows[i];
            clbb_peak k = clbb_case_peak(c);
            char shapes[160];
            clbb_case_shapes(c, r->quick, shapes, sizeof shapes);
            int num = has_numbers(row);
            fprintf(f, "%d,", BENCH_SCHEMA_VERSION);
            csv_field(f, clb_version_string(), 0);
            csv_field(f, r->timestamp, 0);
            csv_field(f, r->machine, 0);
            fprintf(f, "%d,%s,", r->quick, repeat);
            csv_field(f, d->info.selector, 0);
            csv_field(f, type_name(d->info.type), 0);
            csv_field(f, d->info.name, 0);
            csv_field(f, d->info.vendor, 0);
            csv_field(f, d->info.platform, 0);
            csv_field(f, d->info.driver_version, 0);
            csv_field(f, d->info.opencl_c_version, 0);
            fprintf(f, "%u,%llu,", (unsigned)d->info.compute_units,
                    (unsigned long long)d->info.global_mem_bytes);
            csv_field(f, c->id, 0);
            csv_field(f, c->title, 0);
            csv_field(f, shapes, 0);
            fprintf(f, "float32,%.0f,%.0f,", clbb_case_bytes(c, r->quick), clbb_case_flops(c, r->quick));
            fprintf(f, "%d,", row->st.runs);
            csv_number(f, row->st.median_s, num);
            csv_number(f, row->st.min_s, num);
            csv_number(f, row->st.max_s, num);
            csv_number(f, row->st.spread, num);
            if (num)
                fprintf(f, "%d,", row->st.noisy);
            else
                fputc(',', f);
            csv_number(f, row->st.other_load, num && row->st.other_load >= 0);
            csv_number(f, row->gbps, num);
            csv_number(f, row->gflops, num && c->kind != CLBB_COPY);
            csv_field(f, clbb_peak_name(k), 0);
            csv_number(f, d->limits[k].value, d->limits[k].value > 0);
            csv_field(f, bench_limit_unit(k), 0);
            csv_field(f, d->limits[k].source, 0);
            csv_number(f, row->pct_of_peak, num && row->pct_of_peak >= 0);
            csv_number(f, row->host_median_s, row->host_median_s > 0);
            csv_number(f, row->speedup, row->speedup > 0);
            csv_number(f, row->max_rel_diff, row->max_rel_diff >= 0);
            csv_field(f, bench_outcome_name(row->outcome), 0);
            csv_field(f, row->reason, 1);
        }
    }
    return report_close(f, path);
}
