/* `clb bench --plot F.svg`: a horizontal bar chart, written as plain SVG so
   any browser shows it without a plotting package. One bar group per device;
   in each, one bar per pattern: its effective bandwidth as % of that
   device's own copy bandwidth, so devices of any speed share one axis. */
#include "common.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

enum {
    WIDTH = 980,
    LABEL_W = 250,  /* pattern names, right-aligned before the bars */
    BAR_W = 560,    /* the axis from 0 to the scale's maximum */
    ROW_H = 20,
    BAR_H = 14,
    HEAD_H = 30,    /* a device group's title line */
    TOP = 78,       /* title, subtitle and axis labels */
    BOTTOM = 44
};

static const char *const palette[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b",
                                      "#76b7b2", "#b07aa1", "#edc948", "#9c755f"};

/* Text content and attribute values: the five XML specials escaped. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* Control characters are not allowed in XML 1.0 at all. */
            if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);
        }
    }
}

/* The axis runs to 100 % at least, further in steps of 50 % when a pattern
   beats the copy (caches at small sizes), but never past 400 %. */
static double axis_max(const bench_report *r, double *step)
{
    double most = 100;
    for (int t = 0; t < r->ndev; t++)
        for (int i = 0; i < clbb_case_count; i++)
            if (r->devs[t].rows[i].outcome == BENCH_OK && r->devs[t].rows[i].pct_of_copy > most)
                most = r->devs[t].rows[i].pct_of_copy;
    most = fmin(400, ceil(most / 50) * 50);
    *step = most <= 100 ? 20 : most <= 200 ? 25 : 50;
    return most;
}

static double bar_x(double pct, double max)
{
    return LABEL_W + BAR_W * fmin(pct, max) / max;
}

int report_svg(const bench_report *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clb: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    double step = 20, max = axis_max(r, &step);
    int height = TOP + BOTTOM + r->ndev * (HEAD_H + clbb_case_count * ROW_H);
    int chart_top = TOP, chart_bottom = height - BOTTOM;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            WIDTH, height, WIDTH, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", WIDTH, height);
    fprintf(f, "<text x=\"12\" y=\"22\" font-size=\"16\" font-weight=\"bold\">clbroadcast %s: "
               "broadcast patterns as %% of each device's copy bandwidth</text>\n",
            clb_version_string());
    fprintf(f, "<text x=\"12\" y=\"40\" fill=\"#555555\">%s sizes, median of %d run%s, "
               "effective GB/s = distinct bytes read + written / time; ",
            r->quick ? "quick" : "full", r->repeat, r->repeat == 1 ? "" : "s");
    xml_text(f, r->timestamp);
    fputs(", ", f);
    xml_text(f, r->machine);
    fputs("</text>\n", f);

    /* Grid and axis labels first, so the bars draw over them. */
    for (double v = 0; v <= max + 1e-9; v += step) {
        double x = bar_x(v, max);
        int is_peak = fabs(v - 100) < 1e-9;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"%s/>\n", x,
                chart_top - 8, x, chart_bottom, is_peak ? "#333333" : "#dddddd",
                is_peak ? " stroke-dasharray=\"4 3\"" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%.0f%%</text>\n",
                x, chart_top - 12, v);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">100%% = the "
               "device's copy bandwidth (the faster of clb_cast and x * scalar)</text>\n",
            bar_x(100, max), chart_bottom + 18);

    int y = TOP;
    for (int t = 0; t < r->ndev; t++) {
        const bench_device *d = &r->devs[t];
        const char *color = palette[t % (int)(sizeof palette / sizeof palette[0])];
        fprintf(f, "<g>\n<text x=\"12\" y=\"%d\" font-weight=\"bold\" fill=\"%s\">", y + 20, color);
        xml_text(f, d->info.selector);
        fputs(": ", f);
        xml_text(f, d->info.name);
        if (d->info.type != CLB_DEVICE_HOST) {
            fputs(" (", f);
            xml_text(f, d->info.platform);
            fputs(")", f);
        }
        if (d->copy_gbps > 0) fprintf(f, ", copy %.2f GB/s", d->copy_gbps);
        fputs("</text>\n", f);
        y += HEAD_H;
        for (int i = 0; i < clbb_case_count; i++, y += ROW_H) {
            const bench_row *row = &d->rows[i];
            int mid = y + ROW_H / 2 + 4;
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 8, mid);
            xml_text(f, clbb_cases[i].title);
            fputs("</text>\n", f);
            if (row->outcome != BENCH_OK || row->pct_of_copy < 0) {
                fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#888888\" font-style=\"italic\">%s</text>\n",
                        LABEL_W + 4, mid, row->outcome == BENCH_OK ? "no copy bandwidth to compare with"
                                                                   : bench_outcome_name(row->outcome));
                continue;
            }
            double x1 = bar_x(row->pct_of_copy, max);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                       "<title>%.1f%% of copy, %.2f GB/s, median %.3g s</title></rect>\n",
                    LABEL_W, y + (ROW_H - BAR_H) / 2, x1 - LABEL_W, BAR_H, color, row->pct_of_copy,
                    row->gbps, row->median_s);
            fprintf(f, "<text x=\"%.1f\" y=\"%d\">%.1f%%%s (%.2f GB/s)</text>\n", x1 + 4, mid,
                    row->pct_of_copy, row->pct_of_copy > max ? " &gt;" : "", row->gbps);
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "clb: writing %s failed: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}
