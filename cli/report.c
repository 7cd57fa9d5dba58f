/* Renderings of `clb bench` results (see report.h): the terminal table and
   the CSV and JSON files. The SVG chart is in plot.c. */
#include "common.h"
#include "report.h"

#include <errno.h>
#include <string.h>

const char bench_copy_method[] =
    "the faster of two copy-shaped streams of the same contiguous float32 tensor: "
    "clb_cast float32 -> float32 (the copy kernel) and x * s with a 0-d s (the element-wise "
    "kernel); output allocation included, as in every pattern";

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

static int has_numbers(const bench_row *row)
{
    return row->outcome == BENCH_OK || row->outcome == BENCH_WRONG;
}

/* ---- terminal table ----------------------------------------------------------------- */

static text time_text(double s)
{
    text t;
    if (s < 1e-3)
        snprintf(t.s, sizeof t.s, "%.1f us", s * 1e6);
    else if (s < 1.0)
        snprintf(t.s, sizeof t.s, "%.2f ms", s * 1e3);
    else
        snprintf(t.s, sizeof t.s, "%.2f s", s);
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

static void table_device(const bench_report *r, const bench_device *d, FILE *f)
{
    const char *notes[64];
    int nnotes = 0;
    int is_host = d->info.type == CLB_DEVICE_HOST;
    fprintf(f, "\ndevice %s: %s", d->info.selector, d->info.name);
    if (!is_host)
        fprintf(f, " (%s, %s, driver %s)", type_name(d->info.type), d->info.platform,
                d->info.driver_version);
    fputc('\n', f);
    if (d->copy_gbps > 0)
        fprintf(f, "copy bandwidth (the peak, from \"%s\"): %.2f GB/s\n", d->copy_case, d->copy_gbps);
    else
        fprintf(f, "copy bandwidth: not measured (both copies failed), so no %% of peak\n");
    fprintf(f, "  %-26s %-38s %10s %8s %8s %7s %8s  %s\n", "pattern", "shapes (float32)", "median",
            "GB/s", "GFLOP/s", "% copy", "x host", "check");
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
        fprintf(f, "  %-26s %-38s ", c->title, shapes);
        if (!has_numbers(row)) {
            fprintf(f, "%10s %8s %8s %7s %8s  %s\n", "-", "-", "-", "-", "-", check);
            continue;
        }
        char gflops[32] = "-", pct[32] = "-", vs[32] = "-";
        if (c->kind != CLBB_COPY) snprintf(gflops, sizeof gflops, "%.2f", row->gflops);
        if (row->pct_of_copy >= 0) snprintf(pct, sizeof pct, "%.1f%%", row->pct_of_copy);
        if (row->speedup > 0) snprintf(vs, sizeof vs, "%.2fx", row->speedup);
        fprintf(f, "%10s %8.2f %8s %7s %8s  %s\n", time_text(row->median_s).s, row->gbps, gflops,
                pct, vs, check);
    }
    for (int i = 0; i < nnotes; i++) fprintf(f, "  [%d] %s\n", i + 1, notes[i]);
}

void report_table(const bench_report *r, FILE *f)
{
    fprintf(f, "clbroadcast %s bench: %s sizes, median of %d timed run%s after %d warm-up",
            clb_version_string(), r->quick ? "quick" : "full", r->repeat, r->repeat == 1 ? "" : "s",
            r->warmup);
    if (r->host_repeat != r->repeat)
        fprintf(f, " (host baseline: %d runs)", r->host_repeat);
    fprintf(f, "\nGB/s: distinct bytes read + written / median time, GB = 1e9 bytes;"
               " %% copy: of the device's copy bandwidth;\nx host: speed-up over the host backend;"
               " check: the result compared with the host backend's\n");
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

static FILE *open_output(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clb: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int close_output(FILE *f, const char *path)
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
    FILE *f = open_output(path);
    if (!f) return 1;
    fputs("library_version,timestamp,machine,quick,repeat,device_selector,device_type,device_name,"
          "device_vendor,platform,driver_version,opencl_c_version,compute_units,global_mem_bytes,"
          "copy_gbps,pattern,title,shapes,dtype,bytes,flops,runs,median_s,min_s,gbps,gflops,"
          "percent_of_copy,host_median_s,speedup_vs_host,max_rel_diff,status,reason\n",
          f);
    for (int t = 0; t < r->ndev; t++) {
        const bench_device *d = &r->devs[t];
        for (int i = 0; i < clbb_case_count; i++) {
            const clbb_case *c = &clbb_cases[i];
            const bench_row *row = &d->rows[i];
            char shapes[160];
            clbb_case_shapes(c, r->quick, shapes, sizeof shapes);
            int num = has_numbers(row);
            csv_field(f, clb_version_string(), 0);
            csv_field(f, r->timestamp, 0);
            csv_field(f, r->machine, 0);
            fprintf(f, "%d,%d,", r->quick, r->repeat);
            csv_field(f, d->info.selector, 0);
            csv_field(f, type_name(d->info.type), 0);
            csv_field(f, d->info.name, 0);
            csv_field(f, d->info.vendor, 0);
            csv_field(f, d->info.platform, 0);
            csv_field(f, d->info.driver_version, 0);
            csv_field(f, d->info.opencl_c_version, 0);
            fprintf(f, "%u,%llu,", (unsigned)d->info.compute_units,
                    (unsigned long long)d->info.global_mem_bytes);
            csv_number(f, d->copy_gbps, d->copy_gbps > 0);
            csv_field(f, c->id, 0);
            csv_field(f, c->title, 0);
            csv_field(f, shapes, 0);
            fprintf(f, "float32,%.0f,%.0f,", clbb_case_bytes(c, r->quick), clbb_case_flops(c, r->quick));
            fprintf(f, "%d,", row->runs);
            csv_number(f, row->median_s, num);
            csv_number(f, row->min_s, num);
            csv_number(f, row->gbps, num);
            csv_number(f, row->gflops, num && c->kind != CLBB_COPY);
            csv_number(f, row->pct_of_copy, num && row->pct_of_copy >= 0);
            csv_number(f, row->host_median_s, row->host_median_s > 0);
            csv_number(f, row->speedup, row->speedup > 0);
            csv_number(f, row->max_rel_diff, row->max_rel_diff >= 0);
            csv_field(f, bench_outcome_name(row->outcome), 0);
            csv_field(f, row->reason, 1);
        }
    }
    return close_output(f, path);
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_number(FILE *f, const char *key, double v, int known)
{
    fprintf(f, ", \"%s\": ", key);
    if (known)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_device(FILE *f, const bench_device *d)
{
    const clb_device_info *in = &d->info;
    fprintf(f, "    {\"selector\": ");
    json_string(f, in->selector);
    fprintf(f, ", \"index\": %d, \"type\": \"%s\", \"name\": ", in->index, type_name(in->type));
    json_string(f, in->name);
    fprintf(f, ", \"vendor\": ");
    json_string(f, in->vendor);
    fprintf(f, ", \"platform\": ");
    json_string(f, in->platform);
    fprintf(f, ", \"driver_version\": ");
    json_string(f, in->driver_version);
    fprintf(f, ", \"opencl_c_version\": ");
    json_string(f, in->opencl_c_version);
    fprintf(f, ",\n     \"compute_units\": %u, \"global_mem_bytes\": %llu, \"max_alloc_bytes\": %llu"
               ", \"fp16\": %s, \"fp64\": %s, \"host_unified_memory\": %s",
            (unsigned)in->compute_units, (unsigned long long)in->global_mem_bytes,
            (unsigned long long)in->max_alloc_bytes, in->has_fp16 ? "true" : "false",
            in->has_fp64 ? "true" : "false", in->host_unified_memory ? "true" : "false");
    json_number(f, "copy_gbps", d->copy_gbps, d->copy_gbps > 0);
    fprintf(f, ", \"copy_pattern\": ");
    if (d->copy_case)
        json_string(f, d->copy_case);
    else
        fputs("null", f);
    fprintf(f, ",\n     \"results\": [");
}

/* What numpy_ref.py needs to rebuild the case: kind, operation and shapes. */
static const char *kind_name(clbb_kind k)
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

static void json_dims(FILE *f, const char *key, const clbb_shape *s)
{
    fprintf(f, ", \"%s\": [", key);
    for (int i = 0; i < s->ndim; i++) fprintf(f, i ? ", %lld" : "%lld", (long long)s->dims[i]);
    fputc(']', f);
}

static void json_row(FILE *f, const bench_report *r, const clbb_case *c, const bench_row *row)
{
    char shapes[160];
    int num = has_numbers(row);
    clbb_case_shapes(c, r->quick, shapes, sizeof shapes);
    fprintf(f, "\n       {\"pattern\": ");
    json_string(f, c->id);
    fprintf(f, ", \"title\": ");
    json_string(f, c->title);
    fprintf(f, ", \"shapes\": ");
    json_string(f, shapes);
    fprintf(f, ", \"dtype\": \"float32\",\n        \"kind\": \"%s\"", kind_name(c->kind));
    if (c->kind == CLBB_BINARY) fprintf(f, ", \"op\": \"%s\"", clb_binary_op_name(c->op));
    json_dims(f, "a_shape", &c->a[r->quick]);
    if (c->kind != CLBB_COPY && c->kind != CLBB_REDUCE)
        json_dims(f, c->kind == CLBB_SUM_TO_SHAPE ? "target_shape" : "b_shape", &c->b[r->quick]);
    if (c->kind == CLBB_REDUCE) {
        fprintf(f, ", \"axes\": [");
        for (int i = 0; i < c->naxes; i++) fprintf(f, i ? ", %d" : "%d", c->axes[i]);
        fputc(']', f);
    }
    fprintf(f, ", \"latency_case\": %s, \"status\": \"%s\", \"reason\": ",
            c->latency ? "true" : "false", bench_outcome_name(row->outcome));
    if (row->reason[0])
        json_string(f, row->reason);
    else
        fputs("null", f);
    fprintf(f, ",\n        \"bytes\": %.0f, \"flops\": %.0f, \"runs\": %d", clbb_case_bytes(c, r->quick),
            clbb_case_flops(c, r->quick), row->runs);
    json_number(f, "median_s", row->median_s, num);
    json_number(f, "min_s", row->min_s, num);
    json_number(f, "gbps", row->gbps, num);
    json_number(f, "gflops", row->gflops, num && c->kind != CLBB_COPY);
    json_number(f, "percent_of_copy", row->pct_of_copy, num && row->pct_of_copy >= 0);
    json_number(f, "host_median_s", row->host_median_s, row->host_median_s > 0);
    json_number(f, "speedup_vs_host", row->speedup, row->speedup > 0);
    json_number(f, "max_rel_diff", row->max_rel_diff, row->max_rel_diff >= 0);
    fputc('}', f);
}

int report_json(const bench_report *r, const char *path)
{
    FILE *f = open_output(path);
    if (!f) return 1;
    fprintf(f, "{\n  \"tool\": \"clb bench\",\n  \"library_version\": ");
    json_string(f, clb_version_string());
    fprintf(f, ",\n  \"timestamp\": ");
    json_string(f, r->timestamp);
    fprintf(f, ",\n  \"machine\": ");
    json_string(f, r->machine);
    fprintf(f, ",\n  \"quick\": %s,\n  \"repeat\": %d,\n  \"warmup\": %d,\n  \"host_baseline_repeat\": %d,\n"
               "  \"statistic\": \"median\",\n  \"gb\": 1e9,\n  \"bytes_counted\": "
               "\"distinct bytes read + bytes written\",\n  \"peak_method\": ",
            r->quick ? "true" : "false", r->repeat, r->warmup, r->host_repeat);
    json_string(f, bench_copy_method);
    fprintf(f, ",\n  \"devices\": [\n");
    for (int t = 0; t < r->ndev; t++) {
        json_device(f, &r->devs[t]);
        for (int i = 0; i < clbb_case_count; i++) {
            if (i) fputc(',', f);
            json_row(f, r, &clbb_cases[i], &r->devs[t].rows[i]);
        }
        fprintf(f, "\n     ]}%s\n", t + 1 < r->ndev ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return close_output(f, path);
}
