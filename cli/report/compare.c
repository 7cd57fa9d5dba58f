/* `clb bench --compare` and `--baseline` (see compare.h): the reference run
   against each other run, device by device and pattern by pattern.
 *
 * Devices are paired by name and platform; the ones left over are paired in
 * the order they appear (two machines' GPUs). A pattern is compared only when
 * both runs timed it on the same shapes. */
#include "compare.h"

#include "common.h"
#include "compare_plot.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 17

static const char *verdict_name(cmp_verdict v)
{
    return v == CMP_SLOWER ? "slower" : v == CMP_FASTER ? "faster" : "within noise";
}

/* Pairs every device of run k with one of the reference run; -1 for none. */
static void pair_devices(const cmp_run *ref, const cmp_run *run, int *partner)
{
    int used[256] = {0};
    for (int j = 0; j < run->ndev; j++) {
        partner[j] = -1;
        for (int i = 0; i < ref->ndev && i < 256; i++)
            if (!used[i] && !strcmp(ref->devs[i].name, run->devs[j].name) &&
                !strcmp(ref->devs[i].platform, run->devs[j].platform)) {
                partner[j] = i;
                used[i] = 1;
                break;
            }
    }
    for (int j = 0; j < run->ndev; j++) {
        if (partner[j] >= 0) continue;
        for (int i = 0; i < ref->ndev && i < 256; i++)
            if (!used[i]) {
                partner[j] = i;
                used[i] = 1;
                break;
            }
    }
}

static void describe(const cmp_run *r, const char *tag)
{
    printf("  %s %s: clbroadcast %s, %s, %s, %s sizes\n", tag, r->path, r->library_version,
           r->timestamp, r->machine, r->quick ? "quick" : "full");
}

/* One pattern of a pair: the compared run's columns. Returns the verdict, or
   -1 when the pattern cannot be compared. */
static int compare_row(const cmp_row *a, const cmp_row *b, char *out, size_t cap)
{
    if (!b) {
        snprintf(out, cap, "%10s %7s %8s  %-14s", "-", "-", "-", "not in this run");
        return -1;
    }
    if (!b->timed || !a->timed) {
        snprintf(out, cap, "%10s %7s %8s  %-14s", b->timed ? time_text(b->median_s).s : "-", "-", "-",
                 !b->timed ? b->status : "not timed in A");
        return -1;
    }
    double spread = (b->max_s - b->min_s) / b->median_s;
    if (strcmp(a->shapes, b->shapes)) {
        snprintf(out, cap, "%10s %6.1f%% %8s  %-14s", time_text(b->median_s).s, 100 * spread, "-",
                 "other shapes");
        return -1;
    }
    cmp_verdict v = cmp_judge(a, b);
    snprintf(out, cap, "%10s %6.1f%% %7.3fx  %-14s", time_text(b->median_s).s, 100 * spread,
             b->median_s / a->median_s, verdict_name(v));
    return (int)v;
}

/* Counts of the comparisons made, by verdict. */
typedef struct tally {
    int compared, slower, within, faster;
} tally;

/* The table of reference device i against its partners in the other runs
   (partner[k][j]: run k's device j pairs with reference device partner[k][j]);
   appends the pairs to the plot's list and counts the verdicts. */
static void compare_device(const cmp_run *runs, int npaths, int i, int (*partner)[256], cmp_pair *pairs,
                           int *npairs, tally *t)
{
    const cmp_run *ref = &runs[0];
    const cmp_device *da = &ref->devs[i];
    printf("\ndevice %s: %s (%s, driver %s)\n", da->selector, da->name, da->platform, da->driver);
    int cols[MAX_RUNS], ncols = 0;
    for (int k = 1; k < npaths; k++)
        for (int j = 0; j < runs[k].ndev && j < 256; j++)
            if (partner[k][j] == i) {
                const cmp_device *db = &runs[k].devs[j];
                printf("  vs B%d device %s: %s (%s, driver %s)\n", k, db->selector, db->name,
                       db->platform, db->driver);
                cols[ncols++] = k * 256 + j;
                if (pairs) pairs[(*npairs)++] = (cmp_pair){i, k, j};
                break;
            }
    if (!ncols) {
        printf("  (no device of the other runs pairs with it)\n");
        return;
    }
    printf("  %-26s %-6s %10s %7s", "pattern", "peak", "A median", "spread");
    for (int c = 0; c < ncols; c++) {
        char med[24], ratio[24];
        if (npaths == 2) {
            snprintf(med, sizeof med, "B median");
            snprintf(ratio, sizeof ratio, "time B/A");
        } else {
            snprintf(med, sizeof med, "B%d median", cols[c] / 256);
            snprintf(ratio, sizeof ratio, "B%d/A", cols[c] / 256);
        }
        printf(" | %10s %7s %8s  %-14s", med, "spread", ratio, "verdict");
    }
    putchar('\n');
    for (int r = 0; r < da->nrows; r++) {
        const cmp_row *a = &da->rows[r];
        printf("  %-26s %-6s ", a->title[0] ? a->title : a->pattern, a->peak);
        if (a->timed)
            printf("%10s %6.1f%%", time_text(a->median_s).s, 100 * (a->max_s - a->min_s) / a->median_s);
        else
            printf("%10s %7s", a->status, "-");
        for (int c = 0; c < ncols; c++) {
            const cmp_device *db = &runs[cols[c] / 256].devs[cols[c] % 256];
            char cell[1400];
            int v = compare_row(a, cmp_find_row(db, a->pattern), cell, sizeof cell);
            printf(" | %s", cell);
            if (v < 0) continue;
            t->compared++;
            t->slower += v == CMP_SLOWER;
            t->faster += v == CMP_FASTER;
            t->within += v == CMP_WITHIN_NOISE;
        }
        putchar('\n');
    }
}

int bench_compare(int nfiles, const char *const *files, const char *baseline, const char *plot)
{
    const char *paths[MAX_RUNS];
    int npaths = 0;
    if (baseline) paths[npaths++] = baseline;
    for (int i = 0; i < nfiles && npaths < MAX_RUNS; i++)
        if (!baseline || strcmp(files[i], baseline)) paths[npaths++] = files[i];
    if (npaths < 2) {
        fprintf(stderr, "clb: --compare needs two different results files\n");
        return EXIT_USAGE;
    }
    cmp_run runs[MAX_RUNS];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < npaths; i++) {
        char why[1024];
        if (cmp_run_load(paths[i], &runs[i], why, sizeof why)) {
            fprintf(stderr, "clb: %s\n", why);
            for (int k = 0; k < i; k++) cmp_run_free(&runs[k]);
            return EXIT_USAGE;
        }
    }
    const cmp_run *ref = &runs[0];
    printf("clb bench --compare: time B / A = the ratio of medians (above 1: B is slower); verdict: "
           "beyond noise (slower, faster)\nwhen the two runs' ranges [min, max] do not overlap, else "
           "within noise; spread: (max - min) / median\n");
    describe(ref, baseline ? "A (baseline)" : "A");
    for (int k = 1; k < npaths; k++) {
        char tag[16];
        snprintf(tag, sizeof tag, "B%d", k);
        describe(&runs[k], npaths == 2 ? "B" : tag);
    }

    /* pairs[]: (reference device, run, device), for the plot */
    cmp_pair *pairs = calloc((size_t)MAX_RUNS * 256, sizeof *pairs);
    int npairs = 0;
    int partner[MAX_RUNS][256];
    for (int k = 1; k < npaths; k++) pair_devices(ref, &runs[k], partner[k]);
    tally t = {0};
    for (int i = 0; i < ref->ndev; i++) compare_device(runs, npaths, i, partner, pairs, &npairs, &t);
    printf("\n%d comparisons: %d within noise, %d faster, %d slower beyond noise\n", t.compared, t.within,
           t.faster, t.slower);
    int rc = 0;
    if (baseline && t.slower) {
        printf("clb bench: %d pattern%s slower than the baseline %s beyond noise: exit 1\n", t.slower,
               t.slower == 1 ? "" : "s", baseline);
        rc = 1;
    }
    if (plot && pairs) rc |= compare_svg(runs, npaths, pairs, npairs, plot);
    if (!pairs) {
        fprintf(stderr, "clb: out of memory\n");
        rc = 1;
    }
    free(pairs);
    for (int k = 0; k < npaths; k++) cmp_run_free(&runs[k]);
    return rc;
}
