/* `clb bench --json F`: the versioned document of docs/bench-schema.md, one
   object per device with its peaks, limits and pattern results. */
#include "common.h"
#include "report.h"

#include <string.h>

static void json_number(FILE *f, const char *key, double v, int known)
{
    fprintf(f, ", \"%s\": ", key);
    if (known)
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_text_or_null(FILE *f, const char *key, const char *s)
{
    fprintf(f, ", \"%s\": ", key);
    if (s && s[0])
        json_string(f, s);
    else
        fputs("null", f);
}

/* runs, min/median/max, spread, noisy, stable, other_load; known 0 writes nulls. */
static void json_stats(FILE *f, const bench_stats *st, int known)
{
    fprintf(f, ", \"runs\": %d", known ? st->runs : 0);
    json_number(f, "median_s", st->median_s, known);
    json_number(f, "min_s", st->min_s, known);
    json_number(f, "max_s", st->max_s, known);
    json_number(f, "spread", st->spread, known);
    fprintf(f, ", \"noisy\": %s", known ? (st->noisy ? "true" : "false") : "null");
    fprintf(f, ", \"stable\": %s", known && st->stable >= 0 ? (st->stable ? "true" : "false") : "null");
    json_number(f, "other_load", st->other_load, known && st->other_load >= 0);
}

static void json_peaks(FILE *f, const bench_device *d)
{
    fprintf(f, ",\n     \"peaks\": [");
    for (int i = 0; i < PEAK_COUNT; i++) {
        const bench_peak *p = &d->peaks[i];
        const bench_peak_meta *m = &bench_peak_table[i];
        fprintf(f, "%s\n       {\"id\": \"%s\", \"title\": ", i ? "," : "", m->id);
        json_string(f, m->title);
        fprintf(f, ", \"unit\": \"%s\", \"status\": \"%s\"", bench_unit_name(m->unit),
                p->measured ? "ok" : p->unsupported ? "unsupported" : "failed");
        json_text_or_null(f, "reason", p->reason);
        json_text_or_null(f, "kernel", p->measured ? p->kernel : NULL);
        fprintf(f, ",\n        ");
        fprintf(f, "\"work\": ");
        if (p->measured && m->unit != UNIT_US)
            fprintf(f, "%.6g", p->work);
        else
            fputs("null", f);
        json_number(f, "value", p->value, p->measured);
        json_stats(f, &p->st, p->measured);
        fputc('}', f);
    }
    fprintf(f, "\n     ]");
}

static void json_limits(FILE *f, const bench_device *d)
{
    fprintf(f, ",\n     \"limits\": {");
    for (int k = 0; k < CLBB_PEAK_KINDS; k++) {
        const bench_limit *l = &d->limits[k];
        fprintf(f, "%s\"%s\": {\"unit\": \"%s\"", k ? ", " : "", clbb_peak_name((clbb_peak)k),
                bench_limit_unit((clbb_peak)k));
        json_number(f, "value", l->value, l->value > 0);
        json_text_or_null(f, "source", l->value > 0 ? l->source : NULL);
        fputc('}', f);
    }
    fputc('}', f);
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
    json_peaks(f, d);
    json_limits(f, d);
    fprintf(f, ",\n     \"results\": [");
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
    int num = row->outcome == BENCH_OK || row->outcome == BENCH_WRONG;
    clbb_case_shapes(c, r->quick, shapes, sizeof shapes);
    fprintf(f, "\n       {\"pattern\": ");
    json_string(f, c->id);
    fprintf(f, ", \"title\": ");
    json_string(f, c->title);
    fprintf(f, ", \"shapes\": ");
    json_string(f, shapes);
    fprintf(f, ", \"dtype\": \"float32\",\n        \"kind\": \"%s\"", bench_kind_name(c->kind));
    if (c->kind == CLBB_BINARY) fprintf(f, ", \"op\": \"%s\"", clb_binary_op_name(c->op));
    json_dims(f, "a_shape", &c->a[r->quick]);
    if (c->kind != CLBB_COPY && c->kind != CLBB_REDUCE)
        json_dims(f, c->kind == CLBB_SUM_TO_SHAPE ? "target_shape" : "b_shape", &c->b[r->quick]);
    if (c->kind == CLBB_REDUCE) {
        fprintf(f, ", \"axes\": [");
        for (int i = 0; i < c->naxes; i++) fprintf(f, i ? ", %d" : "%d", c->axes[i]);
        fputc(']', f);
    }
    fprintf(f, ", \"latency_case\": %s, \"peak\": \"%s\", \"status\": \"%s\"",
            c->latency ? "true" : "false", clbb_peak_name(clbb_case_peak(c)),
            bench_outcome_name(row->outcome));
    json_text_or_null(f, "reason", row->reason);
    fprintf(f, ",\n        \"bytes\": %.0f, \"flops\": %.0f", clbb_case_bytes(c, r->quick),
            clbb_case_flops(c, r->quick));
    json_stats(f, &row->st, num);
    fprintf(f, ",\n        ");
    fprintf(f, "\"gbps\": ");
    if (num)
        fprintf(f, "%.6g", row->gbps);
    else
        fputs("null", f);
    json_number(f, "gflops", row->gflops, num && c->kind != CLBB_COPY);
    json_number(f, "percent_of_peak", row->pct_of_peak, num && row->pct_of_peak >= 0);
    json_number(f, "host_median_s", row->host_median_s, row->host_median_s > 0);
    json_number(f, "speedup_vs_host", row->speedup, row->speedup > 0);
    json_number(f, "max_rel_diff", row->max_rel_diff, row->max_rel_diff >= 0);
    fputc('}', f);
}

int report_json(const bench_report *r, const char *path)
{
    FILE *f = report_open(path);
    if (!f) return 1;
    fprintf(f, "{\n  \"schema\": \"clb-bench\",\n  \"schema_version\": %d,\n  \"tool\": \"clb bench\","
               "\n  \"library_version\": ", BENCH_SCHEMA_VERSION);
    json_string(f, clb_version_string());
    fprintf(f, ",\n  \"timestamp\": ");
    json_string(f, r->timestamp);
    fprintf(f, ",\n  \"machine\": ");
    json_string(f, r->machine);
    fprintf(f, ",\n  \"quick\": %s,\n  \"repeat_mode\": \"%s\",\n  \"repeat\": ", r->quick ? "true" : "false",
            r->plan.runs > 0 ? "fixed" : "auto");
    if (r->plan.runs > 0)
        fprintf(f, "%d", r->plan.runs);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"repeat_budget_s\": ");
    if (r->plan.runs > 0)
        fputs("null", f);
    else
        fprintf(f, "%.6g", r->plan.budget_s);
    fprintf(f, ",\n  \"warmup\": %d,\n  \"host_baseline_repeat\": ", r->plan.warmup);
    if (r->host_repeat > 0)
        fprintf(f, "%d", r->host_repeat);
    else
        fputs("null", f); /* auto, and the host backend is a target: measured like any device */
    fprintf(f, ",\n  \"statistic\": \"median\",\n"
               "  \"gb\": 1e9,\n  \"bytes_counted\": \"distinct bytes read + bytes written\",\n"
               "  \"noisy_spread\": %.2f,\n  \"limit_methods\": {",
            BENCH_NOISY_SPREAD);
    for (int k = 0; k < CLBB_PEAK_KINDS; k++) {
        fprintf(f, "%s\n    \"%s\": ", k ? "," : "", clbb_peak_name((clbb_peak)k));
        json_string(f, bench_limit_method[k]);
    }
    fprintf(f, "\n  },\n  \"devices\": [\n");
    for (int t = 0; t < r->ndev; t++) {
        json_device(f, &r->devs[t]);
        for (int i = 0; i < clbb_case_count; i++) {
            if (i) fputc(',', f);
            json_row(f, r, &clbb_cases[i], &r->devs[t].rows[i]);
        }
        fprintf(f, "\n     ]}%s\n", t + 1 < r->ndev ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return report_close(f, path);
}
