/* `clb bench --plot F.svg`: horizontal bar charts, written as plain SVG so any
   browser shows them without a plotting package. One panel per kind of peak
   (copy bandwidth, read bandwidth, FMA, launch); in each, per pattern of that
   kind, one bar per device: the pattern as % of that device's limit of the
   kind, with a line from the slowest to the fastest run. A legend names the
   devices and their limits. Every text is fitted to the width (svg.h). */
#include "common.h"
#include "report.h"
#include "svg.h"

#include <math.h>
#include <string.h>

enum {
    WIDTH = 1000,
    MARGIN = 12,
    LABEL_W = 230, /* pattern names, right-aligned before the bars */
    BAR_W = 520,   /* the axis from 0 to the panel's maximum */
    BAR_ROW = 16,  /* one device's bar */
    BAR_H = 12,
    GROUP_GAP = 8
};

static const char *const palette[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b",
                                      "#76b7b2", "#b07aa1", "#edc948", "#9c755f"};

static const char *const panel_title[CLBB_PEAK_KINDS] = {
    [CLBB_PEAK_COPY] = "Memory-bound patterns: % of each device's copy bandwidth",
    [CLBB_PEAK_READ] = "Reductions: % of each device's read-only bandwidth",
    [CLBB_PEAK_FMA] = "Arithmetic-bound patterns: % of each device's float32 FMA throughput",
    [CLBB_PEAK_LAUNCH] = "Latency case: the empty-launch round trip as % of the pattern's time",
};

static const char *color_of(int t)
{
    return palette[t % (int)(sizeof palette / sizeof palette[0])];
}

/* The axis runs to 100 % at least, further in steps of 50 % when a pattern
   beats its peak (caches at small sizes), but never past 400 %. */
static double axis_max(const bench_report *r, clbb_peak k, double *step)
{
    double most = 100;
    for (int t = 0; t < r->ndev; t++)
        for (int i = 0; i < clbb_case_count; i++)
            if (clbb_case_peak(&clbb_cases[i]) == k && r->devs[t].rows[i].pct_of_peak > most)
                most = r->devs[t].rows[i].pct_of_peak;
    most = fmin(400, ceil(most / 50) * 50);
    *step = most <= 100 ? 20 : most <= 200 ? 25 : 50;
    return most;
}

static double bar_x(double pct, double max)
{
    return LABEL_W + BAR_W * fmin(fmax(pct, 0), max) / max;
}

static void legend(FILE *f, const bench_report *r, int *y)
{
    for (int t = 0; t < r->ndev; t++) {
        const bench_device *d = &r->devs[t];
        char line[768], lim[512];
        snprintf(line, sizeof line, "%s: %s%s%s%s", d->info.selector, d->info.name,
                 d->info.type == CLB_DEVICE_HOST ? "" : " (", d->info.type == CLB_DEVICE_HOST ? "" : d->info.platform,
                 d->info.type == CLB_DEVICE_HOST ? " (peaks: plain C loops)" : ")");
        size_t len = 0;
        lim[0] = '\0';
        for (int k = 0; k < CLBB_PEAK_KINDS && len < sizeof lim - 64; k++) {
            const bench_limit *l = &d->limits[k];
            if (l->value > 0)
                len += (size_t)snprintf(lim + len, sizeof lim - len, "%s%s %.3g %s", len ? ", " : "",
                                        clbb_peak_name((clbb_peak)k), l->value, bench_limit_unit((clbb_peak)k));
            else
                len += (size_t)snprintf(lim + len, sizeof lim - len, "%s%s n/a", len ? ", " : "",
                                        clbb_peak_name((clbb_peak)k));
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", MARGIN, *y - 10,
                color_of(t));
        svg_text(f, MARGIN + 18, *y, 12, "start", "font-weight=\"bold\"", WIDTH - 2 * MARGIN - 18, line);
        svg_text(f, MARGIN + 18, *y + 15, 11, "start", "fill=\"#555555\"", WIDTH - 2 * MARGIN - 18, lim);
        *y += 34;
    }
}

static void bar_label(char *buf, size_t cap, clbb_peak k, const bench_row *row)
{
    const char *noisy = row->st.noisy ? ", noisy" : "";
    switch (k) {
    case CLBB_PEAK_COPY:
    case CLBB_PEAK_READ:
        snprintf(buf, cap, "%.1f%% (%.2f GB/s%s)", row->pct_of_peak, row->gbps, noisy);
        break;
    case CLBB_PEAK_FMA:
        snprintf(buf, cap, "%.1f%% (%.2f GFLOP/s%s)", row->pct_of_peak, row->gflops, noisy);
        break;
    case CLBB_PEAK_LAUNCH:
        snprintf(buf, cap, "%.1f%% (%.1f us%s)", row->pct_of_peak, row->st.median_s * 1e6, noisy);
        break;
    }
}

static void panel(FILE *f, const bench_report *r, clbb_peak k, int *y)
{
    int count = 0;
    for (int i = 0; i < clbb_case_count; i++) count += clbb_case_peak(&clbb_cases[i]) == k;
    if (!count) return;
    double step = 20, max = axis_max(r, k, &step);
    *y += 10;
    svg_text(f, MARGIN, *y, 14, "start", "font-weight=\"bold\"", WIDTH - 2 * MARGIN, panel_title[k]);
    *y += 16;
    char method[512];
    snprintf(method, sizeof method, "100 %% = %s.", bench_limit_method[k]);
    *y += 16 * (svg_wrap(f, MARGIN, *y, 11, 16, WIDTH - 2 * MARGIN, "fill=\"#555555\"", method) - 1);
    *y += 34; /* the tick labels sit 14 above the first bar */
    int top = *y - 10, bottom = top + 10 + count * (r->ndev * BAR_ROW + GROUP_GAP);
    svg_grid(f, top, bottom, LABEL_W, BAR_W, max, step, 100, "%.0f%%"); /* 100 %: the peak */
    *y = top + 10;
    for (int i = 0; i < clbb_case_count; i++) {
        if (clbb_case_peak(&clbb_cases[i]) != k) continue;
        svg_text(f, LABEL_W - 8, *y + BAR_ROW / 2 + 4, 12, "end", "", LABEL_W - 8 - MARGIN,
                 clbb_cases[i].title);
        for (int t = 0; t < r->ndev; t++, *y += BAR_ROW) {
            const bench_row *row = &r->devs[t].rows[i];
            int mid = *y + BAR_ROW / 2 + 4;
            double label_x = LABEL_W + 4;
            char label[160];
            if (row->outcome != BENCH_OK || row->pct_of_peak < 0) {
                snprintf(label, sizeof label, "%s", row->outcome == BENCH_OK ? "no peak to compare with"
                                                                             : bench_outcome_name(row->outcome));
                svg_text(f, label_x, mid, 11, "start", "fill=\"#888888\" font-style=\"italic\"",
                         WIDTH - MARGIN - label_x, label);
                continue;
            }
            double x1 = bar_x(row->pct_of_peak, max);
            /* the runs' range: a rate is work / time, so the fastest run gives the highest % */
            double lo = row->pct_of_peak * row->st.median_s / row->st.max_s;
            double hi = row->pct_of_peak * row->st.median_s / row->st.min_s;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                       "<title>%s on %s: %.1f%% of %s, median %.4g s (min %.4g, max %.4g)</title></rect>\n",
                    LABEL_W, *y + (BAR_ROW - BAR_H) / 2, x1 - LABEL_W, BAR_H, color_of(t),
                    clbb_cases[i].id, r->devs[t].info.selector, row->pct_of_peak, clbb_peak_name(k),
                    row->st.median_s, row->st.min_s, row->st.max_s);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222222\"/>\n",
                    bar_x(lo, max), *y + BAR_ROW / 2, bar_x(hi, max), *y + BAR_ROW / 2);
            bar_label(label, sizeof label, k, row);
            label_x = fmax(x1, bar_x(hi, max)) + 4;
            svg_text(f, label_x, mid, 11, "start", "", WIDTH - MARGIN - label_x, label);
        }
        *y += GROUP_GAP;
    }
    *y = bottom + 8;
}

int report_svg(const bench_report *r, const char *path)
{
    FILE *body = tmpfile();
    if (!body) {
        fprintf(stderr, "clb: cannot make a temporary file for %s\n", path);
        return 1;
    }
    int y = 26;
    char text_buf[1024];
    snprintf(text_buf, sizeof text_buf, "clbroadcast %s: broadcast patterns against each device's measured peaks",
             clb_version_string());
    svg_text(body, MARGIN, y, 16, "start", "font-weight=\"bold\"", WIDTH - 2 * MARGIN, text_buf);
    y += 20;
    char runs[96];
    if (r->plan.runs > 0)
        snprintf(runs, sizeof runs, "median of %d run%s", r->plan.runs, r->plan.runs == 1 ? "" : "s");
    else
        snprintf(runs, sizeof runs, "median of --repeat auto (stable within 2 %%)");
    snprintf(text_buf, sizeof text_buf, "%s sizes, %s after %d warm-up; %s; %s", r->quick ? "quick" : "full",
             runs, r->plan.warmup, r->timestamp, r->machine);
    y += 16 * svg_wrap(body, MARGIN, y, 11, 16, WIDTH - 2 * MARGIN, "fill=\"#555555\"", text_buf);
    y += 8;
    legend(body, r, &y);
    for (int k = 0; k < CLBB_PEAK_KINDS; k++) panel(body, r, (clbb_peak)k, &y);
    y += 6;
    y += 16 * svg_wrap(body, MARGIN, y, 11, 16, WIDTH - 2 * MARGIN, "fill=\"#555555\"",
                       "Bars: the median run; the thin line: from the slowest to the fastest run. "
                       "Effective GB/s = distinct bytes read + written / time, GB = 1e9 bytes; "
                       "GFLOP/s counts 2 M N K for matmul. Peaks are measured first on every device "
                       "with random data: OpenCL devices with the raw kernels of cli/peaks/peaks.cl, the host "
                       "backend with plain C loops. Full numbers: clb bench --json.");
    int height = y;

    return svg_write(path, WIDTH, height, body);
}
