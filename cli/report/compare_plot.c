/* `clb bench --compare ... --plot F.svg`: one panel per device of the
   reference run; per pattern, one bar per compared run: its speed relative to
   the reference (median A / median B: above 1 faster), with a line over the
   range the runs' min and max allow, and the verdict. */
#include "compare_plot.h"

#include "common.h"
#include "svg.h"

#include <math.h>
#include <string.h>

enum { WIDTH = 1000, MARGIN = 12, LABEL_W = 230, BAR_W = 520, BAR_ROW = 16, BAR_H = 12, GROUP_GAP = 8 };

static const char *const palette[] = {"#e15759", "#4e79a7", "#59a14f", "#f28e2b",
                                      "#76b7b2", "#b07aa1", "#edc948", "#9c755f"};

static int comparable(const cmp_row *a, const cmp_row *b)
{
    return a && b && a->timed && b->timed && !strcmp(a->shapes, b->shapes);
}

static double bar_x(double v, double max)
{
    return LABEL_W + BAR_W * fmin(fmax(v, 0), max) / max;
}

/* One bar of a panel at row y: pattern a of the reference against b of run
   `run` (b NULL: not in that run), with its range and verdict. */
static void speed_bar(FILE *body, const cmp_row *a, const cmp_row *b, int run, int y, double max)
{
    int mid = y + BAR_ROW / 2 + 4;
    char label[128];
    if (!comparable(a, b)) {
        snprintf(label, sizeof label, "%s", !b ? "not in this run" : !b->timed ? b->status
                                            : !a->timed ? "not timed in A" : "other shapes");
        svg_text(body, LABEL_W + 4, mid, 11, "start", "fill=\"#888888\" font-style=\"italic\"",
                 WIDTH - MARGIN - LABEL_W - 4, label);
        return;
    }
    double speed = a->median_s / b->median_s;
    double lo = a->min_s / b->max_s, hi = a->max_s / b->min_s;
    cmp_verdict v = cmp_judge(a, b);
    double x1 = bar_x(speed, max);
    fprintf(body, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                  "<title>%s: A %.4g s, B %.4g s</title></rect>\n",
            LABEL_W, y + (BAR_ROW - BAR_H) / 2, x1 - LABEL_W, BAR_H, palette[(run - 1) % 8],
            a->pattern, a->median_s, b->median_s);
    fprintf(body, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222222\"/>\n",
            bar_x(lo, max), y + BAR_ROW / 2, bar_x(hi, max), y + BAR_ROW / 2);
    snprintf(label, sizeof label, "speed %.3fx: %s", speed,
             v == CMP_SLOWER ? "slower" : v == CMP_FASTER ? "faster" : "within noise");
    double lx = fmax(x1, bar_x(hi, max)) + 4;
    svg_text(body, lx, mid, 11, "start", v == CMP_SLOWER ? "fill=\"#b00000\"" : "",
             WIDTH - MARGIN - lx, label);
}

/* The panel of reference device d: its heading, the runs paired with it, the
   axis and a group of bars per pattern. Returns the y below it. */
static int device_panel(FILE *body, const cmp_run *runs, const cmp_pair *pairs, int npairs, int d,
                        double max, int y)
{
    const cmp_run *ref = &runs[0];
    int series[64], nseries = 0;
    for (int p = 0; p < npairs && nseries < 64; p++)
        if (pairs[p].ref_dev == d) series[nseries++] = p;
    if (!nseries) return y;
    const cmp_device *da = &ref->devs[d];
    y += 14;
    char head[768];
    snprintf(head, sizeof head, "A %s: %s (%s)", da->selector, da->name, da->platform);
    svg_text(body, MARGIN, y, 14, "start", "font-weight=\"bold\"", WIDTH - 2 * MARGIN, head);
    for (int s = 0; s < nseries; s++) {
        const cmp_pair *p = &pairs[series[s]];
        const cmp_device *db = &runs[p->run].devs[p->dev];
        y += 16;
        snprintf(head, sizeof head, "vs B%d %s: %s (%s, driver %s)", p->run, db->selector, db->name,
                 db->platform, db->driver);
        svg_text(body, MARGIN + 18, y, 11, "start", "fill=\"#555555\"", WIDTH - 2 * MARGIN - 18, head);
    }
    y += 30;
    int top = y - 10, bottom = top + 10 + da->nrows * (nseries * BAR_ROW + GROUP_GAP);
    svg_grid(body, top, bottom, LABEL_W, BAR_W, max, 0.5, 1, "%.1fx"); /* 1x: as fast as A */
    y = top + 10;
    for (int i = 0; i < da->nrows; i++) {
        const cmp_row *a = &da->rows[i];
        svg_text(body, LABEL_W - 8, y + BAR_ROW / 2 + 4, 12, "end", "", LABEL_W - 8 - MARGIN,
                 a->title[0] ? a->title : a->pattern);
        for (int s = 0; s < nseries; s++, y += BAR_ROW) {
            const cmp_pair *p = &pairs[series[s]];
            speed_bar(body, a, cmp_find_row(&runs[p->run].devs[p->dev], a->pattern), p->run, y, max);
        }
        y += GROUP_GAP;
    }
    return bottom + 8;
}

int compare_svg(const cmp_run *runs, int nruns, const cmp_pair *pairs, int npairs, const char *path)
{
    FILE *body = tmpfile();
    if (!body) {
        fprintf(stderr, "clb: cannot make a temporary file for %s\n", path);
        return 1;
    }
    const cmp_run *ref = &runs[0];
    double max = 2;
    for (int p = 0; p < npairs; p++) {
        const cmp_device *da = &ref->devs[pairs[p].ref_dev], *db = &runs[pairs[p].run].devs[pairs[p].dev];
        for (int i = 0; i < da->nrows; i++) {
            const cmp_row *a = &da->rows[i], *b = cmp_find_row(db, a->pattern);
            if (comparable(a, b)) max = fmax(max, a->max_s / b->min_s);
        }
    }
    max = fmin(4, ceil(max * 2) / 2);
    int y = 26;
    svg_text(body, MARGIN, y, 16, "start", "font-weight=\"bold\"", WIDTH - 2 * MARGIN,
             "clb bench --compare: speed against the reference run A (median A / median B)");
    y += 22;
    for (int k = 0; k < nruns; k++) {
        char line[1024];
        snprintf(line, sizeof line, "%s %s: clbroadcast %s, %s, %s", k ? "B" : "A (reference)",
                 runs[k].path, runs[k].library_version, runs[k].timestamp, runs[k].machine);
        if (k) {
            char tag[16];
            snprintf(tag, sizeof tag, "B%d", k);
            snprintf(line, sizeof line, "%s %s: clbroadcast %s, %s, %s", nruns == 2 ? "B" : tag,
                     runs[k].path, runs[k].library_version, runs[k].timestamp, runs[k].machine);
            fprintf(body, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", MARGIN,
                    y - 10, palette[(k - 1) % 8]);
        }
        svg_text(body, MARGIN + 18, y, 11, "start", "", WIDTH - 2 * MARGIN - 18, line);
        y += 18;
    }
    for (int d = 0; d < ref->ndev; d++) y = device_panel(body, runs, pairs, npairs, d, max, y);
    y += 6;
    y += 16 * svg_wrap(body, MARGIN, y, 11, 16, WIDTH - 2 * MARGIN, "fill=\"#555555\"",
                       "Bars: median A / median B (above 1: B is faster). The thin line: min A / max B "
                       "to max A / min B. Verdict: beyond noise (slower, faster) when the two runs' "
                       "ranges [min, max] do not overlap.");
    return svg_write(path, WIDTH, y, body);
}
