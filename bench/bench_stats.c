/* Statistics benchmark (issue 16): per device, GB/s and % of the library's own
   copy (clb_cast float32 -> float32, bytes read + written) measured in the same
   interleaved rounds, of
     var over rows and over columns of (R, C) float32  (bytes: x read once)
     softmax along the last axis                        (x read once + written once)
     argmax over rows                                   (x read once)
     eval_reduce: pairwise squared distances (N,1,D) x (1,M,D) -> (N,M), GFLOP/s
       (3 flops per broadcast element)
     einsum "ij,ij->i" of x with itself                  (x read twice, the bytes counted)
     einsum "bij,bjk->bik" and clb_matmul on the same (B,S,S) operands (GFLOP/s)
   and, in the same rounds, NumPy's x.var(axis) for the two vars, torch.softmax(dim=-1)
   on 2 threads for the softmax and NumPy's materialised ((x - y) ** 2).sum(-1) for the
   pairwise distances, through bench/torch_ref.py (the server bench_peers drives; each
   peer times its own call); "x peer" = peer's median time / the library's, "n/a"
   where python3 with NumPy / PyTorch is missing ($CLB_BENCH_PYTHON, default
   /usr/bin/python3). Targets (issue 16): var >= 2x NumPy, softmax >= 2x torch,
   pairwise >= 5x NumPy.
   Figures, not assertions. usage: bench_stats [--device SEL] [--quick] */
#include "harness.h"
#include "peer.h"
#if CLB_BENCH_STREAM_REF
#include "stream_ref.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static clb_tensor *x, *px, *py, *ba, *bb;

#if CLB_BENCH_STREAM_REF
static clb_status run_stream_ref(void *u)
{
    clbb_stream_run(u);
    return CLB_OK;
}
#endif
static clb_status run_copy(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_cast(x, CLB_FLOAT32, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_var_rows(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_var(x, 1, (const int[]){1}, 0, 0, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_var_cols(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_var(x, 1, (const int[]){0}, 0, 0, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_softmax(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_softmax(x, -1, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_argmax(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_argmax(x, 1, 0, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_pairwise(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const char *names[2] = {"x", "y"};
    const clb_tensor *in[2] = {px, py};
    clb_status st = clb_eval_reduce(clb_tensor_context(px), "(x - y) * (x - y)", 2, names, in,
                                    CLB_SUM, 1, (const int[]){-1}, 0, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_einsum_rows(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const clb_tensor *ops[2] = {x, x};
    clb_status st = clb_einsum("ij,ij->i", 2, ops, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_einsum_bmm(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const clb_tensor *ops[2] = {ba, bb};
    clb_status st = clb_einsum("bij,bjk->bik", 2, ops, &y);
    clb_tensor_release(y);
    return st;
}
static clb_status run_matmul(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_matmul(ba, bb, &y);
    clb_tensor_release(y);
    return st;
}

/* einsum "bij,bjk->bik" against clb_matmul back to back, the order swapped
   every pair: the ratio of the medians, matmul's time over einsum's. The rounds
   above give no fair ratio: there the first of the two follows einsum ij,ij->i's
   512 MiB stream and finds the operands out of cache (with the two swapped in the
   table, matmul took 21.0 ms and einsum 17.9), so the rows show GFLOP/s only. */
static double einsum_pairs(clb_context *ctx, int pairs, double *med_e, double *med_m)
{
    double *te = malloc((size_t)pairs * sizeof *te), *tm = malloc((size_t)pairs * sizeof *tm);
    if (!te || !tm) {
        free(te);
        free(tm);
        return 0;
    }
    for (int p = 0; p < pairs; p++) {
        for (int h = 0; h < 2; h++) {
            const int einsum_now = (h == 0) == (p % 2 == 0);
            double t0 = clbb_now();
            clb_status st = einsum_now ? run_einsum_bmm(NULL) : run_matmul(NULL);
            if (st == CLB_OK) st = clb_finish(ctx);
            double dt = clbb_now() - t0;
            if (st != CLB_OK) {
                free(te);
                free(tm);
                return 0;
            }
            (einsum_now ? te : tm)[p] = dt;
        }
    }
    *med_e = clbb_sort_median(te, pairs);
    *med_m = clbb_sort_median(tm, pairs);
    free(te);
    free(tm);
    return *med_e > 0 ? *med_m / *med_e : 0;
}

/* ---- the NumPy / PyTorch server (bench/torch_ref.py, as bench_peers drives it) ---- */

static peer pe;

/* One peer case: each call runs the variant once in the server; the server's own
   time of the call is kept (the harness's wall time adds the pipe's round trip). */
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
    double s = 0;
    if (peer_ask(&pe, ans, sizeof ans, "run %s", pc->variant) != 0 || sscanf(ans, "%lf", &s) != 1)
        return CLB_ERR_UNSUPPORTED;
    if (pc->calls < MAX_CALLS) pc->t[pc->calls++] = s;
    return CLB_OK;
}

static int compare_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

/* The median of the timed calls (the first is the harness's warm-up); 0 if none. */
static double peer_median(peer_case *pc)
{
    int n = pc->calls - 1;
    if (n < 1) return 0;
    double *t = pc->t + 1;
    qsort(t, (size_t)n, sizeof *t, compare_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int main(int argc, char **argv)
{
    const char *sel = NULL;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) sel = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--quick]\n", argv[0]);
            return 2;
        }
    }
    /* PyTorch's OpenMP threads wait passively after a call (libgomp's default
       spins, taking the cores from the next case of the round): the server
       inherits this; this program loads no OpenMP itself. */
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    clb_context *ctx = NULL;
    if (clb_context_create(sel, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_stats: %s\n", clb_last_error());
        return 1;
    }
    int64_t R = quick ? 2048 : 16384, C = 4096, N = quick ? 512 : 4096, D = 64;
    int64_t B = 8, S = quick ? 256 : 512;
    const int64_t xs[2] = {R, C}, ps[3] = {N, 1, D}, qs[3] = {1, N, D}, bs[3] = {B, S, S};
    clb_status st = clbb_random_tensor(ctx, 2, xs, 42, 0, &x);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 3, ps, 43, 0, &px);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 3, qs, 44, 0, &py);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 3, bs, 45, 0, &ba);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 3, bs, 46, 0, &bb);
    if (st != CLB_OK) {
        fprintf(stderr, "bench_stats: setup: %s\n", clb_last_error());
        return 1;
    }
    const int threads = 2; /* PyTorch's (torch.set_num_threads); NumPy runs on one */
    int64_t pairN = 0;     /* the pairwise n NumPy held (N, or less) */
    if (peer_open(&pe, threads) == 0) {
        char ans[128];
        if (peer_ask(&pe, ans, sizeof ans, "setup stats %lldx%lld %lldx%lld", (long long)R,
                     (long long)C, (long long)N, (long long)D) != 0 ||
            strncmp(ans, "ok", 2) != 0) {
            peer_close(&pe);
        } else {
            const char *at = strstr(ans, "pairwise=");
            if (at) pairN = atoll(at + 9);
        }
    } else {
        peer_close(&pe);
    }
    double xb = 4.0 * (double)(R * C);
    enum { NCASES = 9, NPEER = 4 };
    const struct {
        const char *name;
        clbb_run_fn run;
        double bytes;
    } cases[NCASES] = {
        {"copy (clb_cast f32->f32, r+w)", run_copy, 2 * xb},
        {"var over rows (axis 1)", run_var_rows, xb},
        {"var over columns (axis 0)", run_var_cols, xb},
        {"softmax last axis (r+w)", run_softmax, 2 * xb},
        {"argmax over rows", run_argmax, xb},
        {"eval_reduce pairwise sq. dist.", run_pairwise, 4.0 * (double)(2 * N * D + N * N)},
        {"einsum ij,ij->i (x read twice)", run_einsum_rows, 2 * xb},
        {"einsum bij,bjk->bik", run_einsum_bmm, 4.0 * (double)(3 * B * S * S)},
        {"matmul, same operands", run_matmul, 4.0 * (double)(3 * B * S * S)},
    };
    /* The peer of each library case (index into cases), timed in the same rounds. */
    static peer_case pcs[NPEER] = {
        {"numpy_var_rows", 0, {0}}, {"numpy_var_cols", 0, {0}},
        {"torch_softmax", 0, {0}}, {"numpy_pairwise", 0, {0}}};
    const int peer_of[NPEER] = {1, 2, 3, 5};
    const char *const peer_name[NPEER] = {"NumPy", "NumPy", "torch", "NumPy"};
    int rounds = quick ? 3 : 7, ntimed = pe.to ? NCASES + NPEER : NCASES;
    clbb_timed timed[NCASES + NPEER + 1];
    for (int k = 0; k < NCASES; k++) timed[k] = (clbb_timed){cases[k].run, NULL, cases[k].bytes};
    for (int k = 0; k < NPEER; k++) timed[NCASES + k] = (clbb_timed){run_peer, &pcs[k], 0};
    /* The C read limit: OpenMP row sums of the same bytes on the host, the
       ceiling of a pass that only reads (var, argmax) on a CPU device. */
    int ref_at = -1;
#if CLB_BENCH_STREAM_REF
    clbb_stream sref;
    if (clbb_stream_setup(CLBB_S_ROWSUM, R, C, 1, 47, &sref) == 0) {
        ref_at = ntimed;
        timed[ntimed++] = (clbb_timed){run_stream_ref, &sref, clbb_stream_bytes(&sref)};
    }
#endif
    clbb_result res[NCASES + NPEER + 1];
    clbb_measure_interleaved(ctx, ntimed, timed, rounds, res);
    double peer_s[NCASES] = {0}; /* the peer's median, scaled to the library's size */
    const char *peer_by[NCASES] = {0};
    for (int k = 0; pe.to && k < NPEER; k++) {
        peer_by[peer_of[k]] = peer_name[k];
        if (res[NCASES + k].status != CLB_OK) continue;
        double s = peer_median(&pcs[k]);
        if (k == 3) /* NumPy's pairwise n may be smaller: scale by the pairs */
            s = pairN > 0 ? s * ((double)N / (double)pairN) * ((double)N / (double)pairN) : 0;
        peer_s[peer_of[k]] = s;
    }
    printf("device: %s\nx = (%lld, %lld) float32; pairwise (%lld,1,%lld) x (1,%lld,%lld)\n",
           clb_context_device_name(ctx), (long long)R, (long long)C, (long long)N, (long long)D,
           (long long)N, (long long)D);
    if (pe.to && pairN > 0)
        printf("peers (same rounds, median of %d): %s; NumPy's pairwise at (%lld,1,%lld) x "
               "(1,%lld,%lld)%s\n", rounds, pe.hello + 6, (long long)pairN, (long long)D,
               (long long)pairN, (long long)D,
               pairN == N ? "" : ", its time scaled by the pairs to the library's size");
    else if (pe.to)
        printf("peers (same rounds, median of %d): %s\n", rounds, pe.hello + 6);
    else
        printf("peers: n/a (no python3 with NumPy / PyTorch: %s/torch_ref.py)\n", CLB_BENCH_DIR);
    printf("  %-34s %10s %8s %8s %10s %13s\n", "case", "median ms", "GB/s", "% copy", "peer ms",
           "x peer");
    for (int k = 0; k < NCASES; k++) {
        if (res[k].status != CLB_OK) {
            printf("  %-34s %s: %s\n", cases[k].name, clb_status_name(res[k].status),
                   clb_last_error());
            continue;
        }
        printf("  %-34s %10.2f %8.2f %7.1f%%", cases[k].name, res[k].median_s * 1e3, res[k].gbps,
               res[0].gbps > 0 ? 100.0 * res[k].gbps / res[0].gbps : 0.0);
        int is_peer = k == 1 || k == 2 || k == 3 || k == 5;
        if (!is_peer) printf(" %10s %13s", "", "");
        else if (peer_s[k] > 0)
            printf(" %10.2f %6.2fx %-5s", peer_s[k] * 1e3, peer_s[k] / res[k].median_s, peer_by[k]);
        else printf(" %10s %13s", "n/a", "n/a");
        if (cases[k].run == run_pairwise)
            printf("  %.2f GFLOP/s", 3.0 * (double)(N * N * D) / res[k].median_s * 1e-9);
        if (cases[k].run == run_einsum_bmm || cases[k].run == run_matmul)
            printf("  %.2f GFLOP/s", 2.0 * (double)(B * S * S * S) / res[k].median_s * 1e-9);
        printf("\n");
    }
    double me = 0, mm = 0, pr = einsum_pairs(ctx, quick ? 5 : 15, &me, &mm);
    if (pr > 0)
        printf("  einsum bij,bjk->bik vs clb_matmul, %d pairs back to back (order swapped each "
               "pair): %.2f / %.2f ms, %.1f%% of matmul's time\n",
               quick ? 5 : 15, me * 1e3, mm * 1e3, 100.0 * pr);
#if CLB_BENCH_STREAM_REF
    if (ref_at >= 0 && res[ref_at].status == CLB_OK)
        printf("  %-34s %10.2f %8.2f %7.1f%%  (C, OpenMP on %d threads, on the host)\n",
               "C read limit (row sums, r)", res[ref_at].median_s * 1e3, res[ref_at].gbps,
               res[0].gbps > 0 ? 100.0 * res[ref_at].gbps / res[0].gbps : 0.0,
               clbb_stream_threads());
    if (ref_at >= 0) clbb_stream_close(&sref);
#else
    (void)ref_at;
#endif
    clb_tensor_release(x);
    clb_tensor_release(px);
    clb_tensor_release(py);
    clb_tensor_release(ba);
    clb_tensor_release(bb);
    peer_close(&pe);
    clb_context_release(ctx);
    return 0;
}
