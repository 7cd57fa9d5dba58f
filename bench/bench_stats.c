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
   Figures, not assertions. usage: bench_stats [--device SEL] [--quick] */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clb_tensor *x, *px, *py, *ba, *bb;

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
    double xb = 4.0 * (double)(R * C);
    enum { NCASES = 9 };
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
    clbb_timed timed[NCASES];
    for (int k = 0; k < NCASES; k++) timed[k] = (clbb_timed){cases[k].run, NULL, cases[k].bytes};
    clbb_result res[NCASES];
    clbb_measure_interleaved(ctx, NCASES, timed, quick ? 3 : 7, res);
    printf("device: %s\nx = (%lld, %lld) float32; pairwise (%lld,1,%lld) x (1,%lld,%lld)\n",
           clb_context_device_name(ctx), (long long)R, (long long)C, (long long)N, (long long)D,
           (long long)N, (long long)D);
    printf("  %-34s %10s %8s %8s\n", "case", "median ms", "GB/s", "% copy");
    for (int k = 0; k < NCASES; k++) {
        if (res[k].status != CLB_OK) {
            printf("  %-34s %s: %s\n", cases[k].name, clb_status_name(res[k].status),
                   clb_last_error());
            continue;
        }
        printf("  %-34s %10.2f %8.2f %7.1f%%", cases[k].name, res[k].median_s * 1e3, res[k].gbps,
               res[0].gbps > 0 ? 100.0 * res[k].gbps / res[0].gbps : 0.0);
        if (cases[k].run == run_pairwise)
            printf("  %.2f GFLOP/s", 3.0 * (double)(N * N * D) / res[k].median_s * 1e-9);
        if (cases[k].run == run_einsum_bmm || cases[k].run == run_matmul)
            printf("  %.2f GFLOP/s", 2.0 * (double)(B * S * S * S) / res[k].median_s * 1e-9);
        if (cases[k].run == run_einsum_bmm && res[k + 1].status == CLB_OK)
            printf("  (%.1f%% of matmul's time)", 100.0 * res[k + 1].median_s / res[k].median_s);
        printf("\n");
    }
    clb_tensor_release(x);
    clb_tensor_release(px);
    clb_tensor_release(py);
    clb_tensor_release(ba);
    clb_tensor_release(bb);
    clb_context_release(ctx);
    return 0;
}
