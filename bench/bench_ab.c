/* Two builds of the library in one process, timed alternately pattern by
 * pattern: the before/after check of a change and the release check against
 * the previous release, robust to the drift of a shared machine (both builds
 * see the same minute).
 *
 * usage: bench_ab OLD/libclbroadcast.so NEW/libclbroadcast.so [--device SEL]
 *                 [--rounds N] [--tol F] [--only KEY,KEY...]
 *
 * Each library is loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND), so the two
 * keep their own symbols. Per pattern (bench_ab_cases.c): one warm-up call
 * each (kernel builds), then N rounds (default 15) of one call each, the order
 * swapped every round (ABBA: neither build always goes first), each call
 * ending with clb_finish. Prints the median time of each, the median of the
 * per-round ratios old/new (> 1: the new build is faster) and its quartiles.
 *
 * Verdict per pattern: "SLOWER" when the median ratio is below 1 - tol (default
 * 0.05), the upper quartile below 1 - tol / 2 (three rounds in four clearly
 * slower) and the rounds the new build lost are too many for a coin flip (sign
 * test, one-sided p < 0.01: 9 of 9, 13 of 15, 23 of 31 rounds); "faster" the
 * other way round; else "same". On 2 shared cores at load 15 the quartile
 * rule alone flagged 2 A/B pairs of ~60 that a rerun did not confirm; with the
 * margin and the sign test neither is flagged, a real 0.53x is.
 * A pattern that fails on the new build counts as slower; one the old build
 * lacks (an entry point that came later) is "n/a". The exit status is 1 when
 * any pattern is SLOWER, with a line on stderr naming them; 2 on bad arguments
 * or a build that cannot load. Float32 data (a pattern may cast it or draw
 * another dtype: bench_ab_cases.c); results are not checked here
 * (the test suite does that). Running the same library twice (A/A) shows the
 * noise of the machine: every pattern should say "same". */
#include "bench_ab_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* q-quantile of v[0..n) (sorted in place), by linear interpolation. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int selected(const char *only, const char *key)
{
    if (!only) return 1;
    size_t n = strlen(key);
    for (const char *s = only; (s = strstr(s, key)); s += n)
        if ((s == only || s[-1] == ',') && (s[n] == ',' || s[n] == '\0')) return 1;
    return 0;
}

typedef struct ab_run_stats {
    double t_old, t_new, q25, q50, q75;
    int lost; /* rounds the new build was slower in */
} ab_run_stats;

/* One-sided sign test: P(at least k of n fair coin flips come up one way). */
static double sign_p(int k, int n)
{
    double p = 0, c = 1; /* c = C(n, i) / 2^n built up term by term */
    for (int i = 0; i < n; i++) c *= 0.5;
    for (int i = 0; i <= n; i++) {
        if (i >= k) p += c;
        c = c * (n - i) / (i + 1);
    }
    return p;
}

/* Warm-up and `rounds` ABBA rounds of one pattern; 0, or -1 when the old build
   failed, -2 when the new one did. */
static int ab_rounds(ab_lib *L, const ab_pattern *p, const float *data, int rounds, double *t[2],
                     double *ratio, ab_run_stats *s)
{
    ab_inst in[2];
    int ok[2] = {ab_setup(&L[0], p, data, &in[0]) == 0, ab_setup(&L[1], p, data, &in[1]) == 0};
    for (int k = 0; k < 2; k++) ok[k] = ok[k] && ab_run(&L[k], p, &in[k]) == 0;
    for (int r = 0; ok[0] && ok[1] && r < rounds; r++) {
        for (int j = 0; j < 2; j++) {
            int k = (r & 1) ? 1 - j : j;
            double t0 = now();
            ok[k] = ab_run(&L[k], p, &in[k]) == 0;
            t[k][r] = now() - t0;
        }
        ratio[r] = t[0][r] / t[1][r];
    }
    s->lost = 0;
    for (int r = 0; ok[0] && ok[1] && r < rounds; r++) s->lost += ratio[r] < 1;
    ab_teardown(&L[0], &in[0]);
    ab_teardown(&L[1], &in[1]);
    if (!ok[0]) return -1;
    if (!ok[1]) return -2;
    s->t_old = quantile(t[0], rounds, 0.5);
    s->t_new = quantile(t[1], rounds, 0.5);
    s->q25 = quantile(ratio, rounds, 0.25);
    s->q50 = quantile(ratio, rounds, 0.5);
    s->q75 = quantile(ratio, rounds, 0.75);
    return 0;
}

static int parse(int argc, char **argv, const char **sel, int *rounds, double *tol, const char **only)
{
    if (argc < 3) return -1;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 >= argc) return -1;
        if (!strcmp(argv[i], "--device")) *sel = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds")) *rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tol")) *tol = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--only")) *only = argv[i + 1];
        else return -1;
    }
    return *rounds >= 4 && *rounds <= 200 && *tol > 0 && *tol < 1 ? 0 : -1;
}

static float *make_data(void)
{
    size_t max = (size_t)ab_max_numel() + 8;
    float *data = malloc(max * sizeof *data);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; data && i < max; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (float)(x >> 40) / (float)(1 << 24) + 0.5f;
    }
    return data;
}

int main(int argc, char **argv)
{
    const char *sel = "pocl", *only = NULL;
    int rounds = 15;
    double tol = 0.05;
    if (parse(argc, argv, &sel, &rounds, &tol, &only))
        return fprintf(stderr, "usage: bench_ab OLD.so NEW.so [--device SEL] [--rounds N (4..200)] "
                               "[--tol F (0..1)] [--only KEY,KEY...]\n"),
               2;
    ab_lib L[2];
    memset(L, 0, sizeof L);
    for (int k = 0; k < 2; k++) {
        L[k].sel = sel;
        if (ab_load(argv[1 + k], &L[k])) return 2;
        if (L[k].context_create(sel, &L[k].ctx))
            return fprintf(stderr, "bench_ab: %s: %s\n", argv[1 + k], L[k].last_error()), 2;
    }
    float *data = make_data();
    double *t[2] = {malloc(sizeof(double) * (size_t)rounds), malloc(sizeof(double) * (size_t)rounds)};
    double *ratio = malloc(sizeof(double) * (size_t)rounds);
    if (!data || !t[0] || !t[1] || !ratio) return fprintf(stderr, "bench_ab: out of memory\n"), 2;
    printf("bench_ab: %s (old) vs %s (new) on %s, %d ABBA rounds, tolerance %.0f %%\n", argv[1], argv[2],
           sel, rounds, tol * 100);
    printf("%-8s %-42s %11s %11s %8s %15s %7s %s\n", "key", "pattern", "old median", "new median",
           "old/new", "quartiles", "lost", "verdict");
    char slower[1024] = "";
    int nslower = 0;
    for (int i = 0; i < ab_npatterns; i++) {
        const ab_pattern *p = &ab_patterns[i];
        if (!selected(only, p->key)) continue;
        const char *miss = ab_missing(&L[1], p) ? ab_missing(&L[1], p) : ab_missing(&L[0], p);
        if (miss) {
            printf("%-8s %-42s n/a: %s lacks %s\n", p->key, p->name,
                   ab_missing(&L[1], p) ? "new" : "old", miss);
            continue;
        }
        ab_run_stats s;
        int rc = ab_rounds(L, p, data, rounds, t, ratio, &s);
        const char *verdict = rc == -2 ? "SLOWER (new failed)" : rc ? "old failed" : "same";
        if (rc == 0 && s.q50 < 1 - tol && s.q75 < 1 - tol / 2 && sign_p(s.lost, rounds) < 0.01)
            verdict = "SLOWER";
        if (rc == 0 && s.q50 > 1 + tol && s.q25 > 1 + tol / 2 && sign_p(rounds - s.lost, rounds) < 0.01)
            verdict = "faster";
        if (rc == 0)
            printf("%-8s %-42s %8.3f ms %8.3f ms %7.3fx  [%5.3f, %5.3f] %3d/%-3d %s\n", p->key, p->name,
                   s.t_old * 1e3, s.t_new * 1e3, s.q50, s.q25, s.q75, s.lost, rounds, verdict);
        else
            printf("%-8s %-42s %s\n", p->key, p->name, verdict);
        fflush(stdout);
        if (!strncmp(verdict, "SLOWER", 6) && strlen(slower) + strlen(p->key) + 2 < sizeof slower) {
            strcat(strcat(slower, " "), p->key);
            nslower++;
        }
    }
    free(ratio), free(t[0]), free(t[1]), free(data);
    for (int k = 0; k < 2; k++) {
        if (L[k].twin) L[k].context_release(L[k].twin);
        L[k].context_release(L[k].ctx);
    }
    if (nslower)
        fprintf(stderr, "bench_ab: FAIL: %d pattern(s) slower in the new build beyond noise:%s\n", nslower,
                slower);
    return nslower ? 1 : 0;
}
