/* Picking, ordering and running totals (issue 29): per device, GB/s and % of the
   library's own copy (clb_cast float32 -> float32 of x, bytes read + written)
   measured in the same interleaved rounds, of
     take of T random rows of a (V, 1024) float32 table   (rows read + written, indices)
     and, to place it: a copy of the same bytes (the table's first T rows), take of
     rows 0..T-1 in order, and take of 16 rows (a call's fixed cost: index-check
     flag, launch, the flag's read-back)
     take_along_axis, one index per row of x (R, C)        (one element read + written a row
       and its index; a second line counts what the memory moves: a 64-byte line
       read a row, the output and the indices)
     sort of s (S, S) float32 along the last axis and axis 0, values and indices
     topk k = 16 over x along the last axis
     cumsum of x along each axis                            (x read + written)
   and, in the same rounds, torch.sort(stable=True) and numpy.sort(kind="stable") of s,
   torch.topk(x, 16) and torch.cumsum(x, dim) on 2 threads through bench/torch_ref.py
   ("x peer" = the peer's median time / the library's; "n/a" without python3 with
   NumPy / PyTorch). Targets (issue 29, PoCL): take and take_along_axis >= 60 % of the
   copy; sort >= 1.0x torch and >= 1.5x NumPy; topk >= 1.5x torch; cumsum >= 60 % of
   the copy and >= 1.5x torch. Figures from one run, not assertions.
   --only NAMES keeps the cases whose short names (copy take copy_take take_seq take_few
   along sort_last sort_axis0 topk cumsum0 cumsum1) are listed, comma-separated (the copy always runs: it is the
   reference), with their peers; --rounds N sets the rounds (default 5, --quick 3).
   usage: bench_index [--device SEL] [--quick] [--only NAMES] [--rounds N] */
#include "harness.h"
#include "peer.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clb_tensor *x, *s, *table, *rows_idx, *along_idx, *table_head, *seq_idx, *few_idx;

#define RUN1(name, call)                                                                           \
    static clb_status name(void *u)                                                                \
    {                                                                                              \
        (void)u;                                                                                   \
        clb_tensor *y = NULL;                                                                      \
        clb_status st = (call);                                                                    \
        clb_tensor_release(y);                                                                     \
        return st;                                                                                 \
    }
#define RUN2(name, call)                                                                           \
    static clb_status name(void *u)                                                                \
    {                                                                                              \
        (void)u;                                                                                   \
        clb_tensor *y = NULL, *z = NULL;                                                           \
        clb_status st = (call);                                                                    \
        clb_tensor_release(y);                                                                     \
        clb_tensor_release(z);                                                                     \
        return st;                                                                                 \
    }
RUN1(run_copy, clb_cast(x, CLB_FLOAT32, &y))
RUN1(run_take, clb_take(table, rows_idx, 0, &y))
RUN1(run_copy_take, clb_cast(table_head, CLB_FLOAT32, &y))
RUN1(run_take_seq, clb_take(table, seq_idx, 0, &y))
RUN1(run_take_few, clb_take(table, few_idx, 0, &y))
RUN1(run_along, clb_take_along_axis(x, along_idx, 1, &y))
RUN2(run_sort_last, clb_sort(s, -1, 0, &y, &z))
RUN2(run_sort_axis0, clb_sort(s, 0, 0, &y, &z))
RUN2(run_topk, clb_topk(x, 16, -1, 1, &y, &z))
RUN1(run_cumsum0, clb_cumsum(x, 0, &y))
RUN1(run_cumsum1, clb_cumsum(x, 1, &y))

static peer pe;
enum { MAX_CALLS = 64 };
typedef struct peer_case {
    const char *variant;
    int calls;
    double t[MAX_CALLS];
} peer_case;

static clb_status run_peer(void *u)
{
    peer_case *pc = u;
    char ans[64];
    double sec = 0;
    if (peer_ask(&pe, ans, sizeof ans, "run %s", pc->variant) != 0 ||
        sscanf(ans, "%lf", &sec) != 1)
        return CLB_ERR_UNSUPPORTED;
    if (pc->calls < MAX_CALLS) pc->t[pc->calls++] = sec;
    return CLB_OK;
}

/* The median of the timed calls (the first is the harness's warm-up); 0 if none. */
static double peer_median(peer_case *pc)
{
    int n = pc->calls - 1;
    return n < 1 ? 0 : clbb_sort_median(pc->t + 1, n);
}

/* Whether the comma-separated list names key (every case without a list). */
static int case_listed(const char *list, const char *key)
{
    if (!list) return 1;
    const size_t n = strlen(key);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, key, n) == 0) return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* Int64 indices 0, 1, .., count - 1. */
static clb_status ordered_indices(clb_context *ctx, int64_t count, clb_tensor **out)
{
    int64_t *v = malloc((size_t)count * sizeof *v);
    if (!v) return CLB_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < count; i++) v[i] = i;
    clb_status st = clb_tensor_from_host(ctx, CLB_INT64, 1, &count, v, out);
    free(v);
    return st;
}

/* Random int64 indices in [0, n) (a fixed-seed LCG). */
static clb_status random_indices(clb_context *ctx, int ndim, const int64_t *shape, int64_t n,
                                 clb_tensor **out)
{
    int64_t count = 1;
    for (int d = 0; d < ndim; d++) count *= shape[d];
    int64_t *v = malloc((size_t)count * sizeof *v);
    if (!v) return CLB_ERR_OUT_OF_MEMORY;
    uint64_t r = 12345;
    for (int64_t i = 0; i < count; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (int64_t)((r >> 33) % (uint64_t)n);
    }
    clb_status st = clb_tensor_from_host(ctx, CLB_INT64, ndim, shape, v, out);
    free(v);
    return st;
}

int main(int argc, char **argv)
{
    const char *sel = NULL, *only = NULL;
    int quick = 0, rounds = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) sel = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--quick] [--only NAMES] [--rounds N]\n",
                    argv[0]);
            return 2;
        }
    }
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    signal(SIGPIPE, SIG_IGN); /* a peer server that failed to start: its pipe's write fails */
    clb_context *ctx = NULL;
    if (clb_context_create(sel, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_index: %s\n", clb_last_error());
        return 1;
    }
    const int64_t R = quick ? 2048 : 16384, C = 4096, S = quick ? 1024 : 4096;
    const int64_t V = quick ? 8192 : 65536, W = 1024, T = quick ? 2048 : 16384;
    const int64_t xs[2] = {R, C}, ss[2] = {S, S}, ts[2] = {V, W}, ti[1] = {T}, ai[2] = {R, 1};
    clb_status st = clbb_random_tensor(ctx, 2, xs, 42, 0, &x);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, ss, 43, 0, &s);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, ts, 44, 0, &table);
    if (st == CLB_OK) st = random_indices(ctx, 1, ti, V, &rows_idx);
    if (st == CLB_OK) st = random_indices(ctx, 2, ai, C, &along_idx);
    if (st == CLB_OK) st = ordered_indices(ctx, T, &seq_idx);
    if (st == CLB_OK) st = random_indices(ctx, 1, (int64_t[]){16}, V, &few_idx);
    if (st == CLB_OK) st = clb_slice(table, 0, 0, T, 1, &table_head);
    if (st != CLB_OK) {
        fprintf(stderr, "bench_index: setup: %s\n", clb_last_error());
        return 1;
    }
    if (peer_open(&pe, 2) == 0) {
        char ans[128];
        if (peer_ask(&pe, ans, sizeof ans, "setup index %lldx%lld %lldx%lld", (long long)R,
                     (long long)C, (long long)S, (long long)S) != 0 ||
            strncmp(ans, "ok", 2) != 0)
            peer_close(&pe);
    } else {
        peer_close(&pe);
    }
    const double xb = 4.0 * (double)(R * C), sb = 4.0 * (double)(S * S);
    enum { NCASES = 11, NPEER = 7 };
    const struct {
        const char *key, *name;
        clbb_run_fn run;
        double bytes;
    } cases[NCASES] = {
        {"copy", "copy (clb_cast f32->f32, r+w)", run_copy, 2 * xb},
        {"take", "take rows (r+w + indices)", run_take, 8.0 * (double)(T * W) + 8.0 * (double)T},
        {"copy_take", "copy of take's bytes (r+w)", run_copy_take, 8.0 * (double)(T * W)},
        {"take_seq", "take rows 0..T-1 in order", run_take_seq, 8.0 * (double)(T * W) + 8.0 * (double)T},
        {"take_few", "take 16 rows (fixed cost)", run_take_few, 8.0 * 16 * (double)W + 8.0 * 16},
        {"along", "take_along_axis 1 a row", run_along, (4.0 + 4.0 + 8.0) * (double)R},
        {"sort_last", "sort last axis (values+indices)", run_sort_last, sb * 4},
        {"sort_axis0", "sort axis 0 (values+indices)", run_sort_axis0, sb * 4},
        {"topk", "topk k=16 last axis", run_topk, xb},
        {"cumsum0", "cumsum axis 0 (r+w)", run_cumsum0, 2 * xb},
        {"cumsum1", "cumsum axis 1 (r+w)", run_cumsum1, 2 * xb},
    };
    static peer_case pcs[NPEER] = {{"torch_sort_last", 0, {0}},  {"numpy_sort_last", 0, {0}},
                                   {"torch_sort_axis0", 0, {0}}, {"numpy_sort_axis0", 0, {0}},
                                   {"torch_topk", 0, {0}},       {"torch_cumsum_0", 0, {0}},
                                   {"torch_cumsum_1", 0, {0}}};
    const int peer_of[NPEER] = {6, 6, 7, 7, 8, 9, 10};
    const char *const peer_name[NPEER] = {"torch", "NumPy", "torch", "NumPy",
                                          "torch", "torch", "torch"};
    /* slot[k]: case k's place among the timed runs, -1 when --only leaves it out. */
    int slot[NCASES + NPEER], ntimed = 0;
    clbb_timed timed[NCASES + NPEER];
    for (int k = 0; k < NCASES; k++) {
        slot[k] = k == 0 || case_listed(only, cases[k].key) ? ntimed++ : -1;
        if (slot[k] >= 0) timed[slot[k]] = (clbb_timed){cases[k].run, NULL, cases[k].bytes};
    }
    for (int p = 0; p < NPEER; p++) {
        slot[NCASES + p] = pe.to && slot[peer_of[p]] >= 0 ? ntimed++ : -1;
        if (slot[NCASES + p] >= 0) timed[slot[NCASES + p]] = (clbb_timed){run_peer, &pcs[p], 0};
    }
    if (rounds < 1) rounds = quick ? 3 : 5;
    clbb_result res[NCASES + NPEER];
    clbb_measure_interleaved(ctx, ntimed, timed, rounds, res);
    printf("device: %s\nx = (%lld, %lld), s = (%lld, %lld), table (%lld, %lld), %lld rows "
           "taken; float32\n",
           clb_context_device_name(ctx), (long long)R, (long long)C, (long long)S, (long long)S,
           (long long)V, (long long)W, (long long)T);
    printf("peers (same rounds, median of %d): %s\n", rounds, pe.to ? pe.hello + 6 : "n/a");
    printf("  %-34s %10s %8s %8s  %s\n", "case", "median ms", "GB/s", "% copy", "x peer");
    for (int k = 0; k < NCASES; k++) {
        if (slot[k] < 0) continue;
        const clbb_result *r = &res[slot[k]];
        if (r->status != CLB_OK) {
            printf("  %-34s %s: %s\n", cases[k].name, clb_status_name(r->status),
                   clb_last_error());
            continue;
        }
        printf("  %-34s %10.2f %8.2f %7.1f%% ", cases[k].name, r->median_s * 1e3, r->gbps,
               res[0].gbps > 0 ? 100.0 * r->gbps / res[0].gbps : 0.0);
        for (int p = 0; p < NPEER; p++) {
            const int ps = slot[NCASES + p];
            if (peer_of[p] != k || ps < 0) continue;
            double m = res[ps].status == CLB_OK ? peer_median(&pcs[p]) : 0;
            if (m > 0)
                printf(" %.2fx %s (%.1f ms)", m / r->median_s, peer_name[p], m * 1e3);
            else
                printf(" n/a %s", peer_name[p]);
        }
        printf("\n");
    }
    /* take_along_axis by what the memory moves: a 64-byte line read a row (the rows
       are 16 KiB apart), the output and the indices (lines of both filled whole). */
    for (int k = 0; k < NCASES; k++) {
        const clbb_result *r = slot[k] >= 0 ? &res[slot[k]] : NULL;
        if (strcmp(cases[k].key, "along") != 0 || !r || r->status != CLB_OK) continue;
        const double lines = (64.0 + 4.0 + 8.0) * (double)R / r->median_s / 1e9;
        printf("  %-34s %10.2f %8.2f %7.1f%%\n", "  the same, by cache lines", r->median_s * 1e3,
               lines, res[0].gbps > 0 ? 100.0 * lines / res[0].gbps : 0.0);
    }
    clb_tensor *const all[] = {x, s, table, rows_idx, along_idx, table_head, seq_idx, few_idx};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) clb_tensor_release(all[i]);
    peer_close(&pe);
    clb_context_release(ctx);
    return 0;
}
