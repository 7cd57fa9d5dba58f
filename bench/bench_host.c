/* The host backend against a plain C loop and NumPy (issue 30), case by case,
 * every variant timed once a round in turn (the rounds share the machine's
 * load, so the ratios hold on a busy machine):
 *   bn       clb_eval_into "(x - mu) * rstd", x (65536, 1024), mu and rstd (1024,);
 *            the same op by op (clb_binary_into sub, then mul, one temporary);
 *            a plain C loop; NumPy with out=
 *   bn-sqrt  "(x - mu) / sqrt(var + 1e-5)", x (65536, 256): fused, op by op
 *            (sub, add, sqrt, div), plain C
 *   pairwise clb_eval_reduce "(x - y) * (x - y)" summed over D of x (2000,1,64),
 *            y (1,3000,64); a plain C triple loop (float sums)
 *   matmul   clb_matmul of 512^3, 1024^3, a transposed view (1024^3), a batch
 *            (8,256,256)x(256,256), float64 512^3; NumPy's a @ b; GFLOP/s
 * Single-threaded C; the library's BLAS and NumPy's use their own thread pools
 * (OPENBLAS_NUM_THREADS; the same library here). float32 unless said.
 * usage: bench_host [--rounds N] [--only KEY,...]   keys: bn bn-sqrt pairwise matmul
 * $CLB_BENCH_PYTHON names the python with NumPy (default /usr/bin/python3). */
#include "harness.h"
#include "peer.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXV = 4 };
typedef struct variant {
    const char *name;
    clb_status (*run)(void);
    const char *peer; /* NumPy variant instead of run */
} variant;

static clb_context *ctx;
static clb_tensor *T[6];
static float *H[6]; /* host copies for the C loops */
static int64_t R, C, N, M, D;

static clb_status bn_fused(void)
{
    static const char *const nm[3] = {"x", "mu", "rstd"};
    const clb_tensor *in[3] = {T[0], T[1], T[2]};
    return clb_eval_into(ctx, "(x - mu) * rstd", 3, nm, in, T[3]);
}
static clb_status bn_ops(void)
{
    clb_status st = clb_binary_into(CLB_SUB, T[0], T[1], T[4]);
    return st ? st : clb_binary_into(CLB_MUL, T[4], T[2], T[3]);
}
static clb_status bn_c(void)
{
    float *o = H[3];
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++) o[i * C + j] = (H[0][i * C + j] - H[1][j]) * H[2][j];
    return CLB_OK;
}
static clb_status bns_fused(void)
{
    static const char *const nm[3] = {"x", "mu", "var"};
    const clb_tensor *in[3] = {T[0], T[1], T[2]};
    return clb_eval_into(ctx, "(x - mu) / sqrt(var + 1e-5)", 3, nm, in, T[3]);
}
static clb_status bns_ops(void)
{
    clb_tensor *e = NULL, *v = NULL, *s = NULL;
    float eps = 1e-5f;
    clb_status st = clb_tensor_from_host(ctx, CLB_FLOAT32, 0, NULL, &eps, &e);
    if (!st) st = clb_binary(CLB_ADD, T[2], e, &v);
    if (!st) st = clb_unary(CLB_SQRT, v, &s);
    if (!st) st = clb_binary_into(CLB_SUB, T[0], T[1], T[4]);
    if (!st) st = clb_binary_into(CLB_DIV, T[4], s, T[3]);
    clb_tensor_release(e), clb_tensor_release(v), clb_tensor_release(s);
    return st;
}
static clb_status bns_c(void)
{
    float *o = H[3];
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++)
            o[i * C + j] = (H[0][i * C + j] - H[1][j]) / sqrtf(H[2][j] + 1e-5f);
    return CLB_OK;
}
static clb_status pw_lib(void)
{
    static const char *const nm[2] = {"x", "y"};
    const clb_tensor *in[2] = {T[0], T[1]};
    clb_tensor *o = NULL;
    clb_status st = clb_eval_reduce(ctx, "(x - y) * (x - y)", 2, nm, in, CLB_SUM, 1, (const int[]){2},
                                    0, &o);
    clb_tensor_release(o);
    return st;
}
static clb_status pw_c(void)
{
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < M; j++) {
            float s = 0;
            for (int64_t d = 0; d < D; d++) {
                float t = H[0][i * D + d] - H[1][j * D + d];
                s += t * t;
            }
            H[3][i * M + j] = s;
        }
    return CLB_OK;
}
static clb_status mm_lib(void)
{
    clb_tensor *o = NULL;
    clb_status st = clb_matmul(T[0], T[1], &o);
    clb_tensor_release(o);
    return st;
}

typedef struct work {
    const char *key, *name;
    int nv;
    variant v[MAXV];
    double flops; /* 0: no GFLOP/s column */
} work;

static int64_t prod(int n, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= s[i];
    return p;
}

/* T[k] of shape s (random from seed k) with a host copy H[k]. */
static clb_status tensor(int k, int n, const int64_t *s, clb_dtype dt)
{
    clb_status st = clbb_random_tensor(ctx, n, s, (uint64_t)k + 1, k == 2 ? 0.5f : 0, &T[k]);
    if (st == CLB_OK && dt != CLB_FLOAT32) {
        clb_tensor *c = NULL;
        st = clb_cast(T[k], dt, &c);
        clb_tensor_release(T[k]);
        T[k] = c;
    }
    if (st == CLB_OK && dt == CLB_FLOAT32) {
        H[k] = malloc((size_t)prod(n, s) * sizeof(float));
        st = H[k] ? clb_tensor_to_host(T[k], H[k], (size_t)prod(n, s) * sizeof(float))
                  : CLB_ERR_OUT_OF_MEMORY;
    }
    return st;
}

static void release_all(void)
{
    for (int k = 0; k < 6; k++) {
        clb_tensor_release(T[k]);
        free(H[k]);
        T[k] = NULL, H[k] = NULL;
    }
}

static void run_work(const work *w, peer *pe, const char *peer_setup, int rounds)
{
    double t[MAXV][200];
    bool on[MAXV];
    char ans[128];
    bool peer_ok = pe->to && peer_setup && peer_ask(pe, ans, sizeof ans, "%s", peer_setup) == 0 &&
                   strncmp(ans, "ok", 2) == 0;
    for (int i = 0; i < w->nv; i++) {
        on[i] = w->v[i].run ? (w->v[i].run() == CLB_OK && clb_finish(ctx) == CLB_OK) : peer_ok;
        if (w->v[i].run && !on[i]) fprintf(stderr, "%s %s: %s\n", w->name, w->v[i].name, clb_last_error());
    }
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < w->nv; j++) {
            int i = (r + j) % w->nv;
            if (!on[i]) continue;
            double s = 0, t0 = clbb_now();
            if (w->v[i].run) {
                on[i] = w->v[i].run() == CLB_OK && clb_finish(ctx) == CLB_OK;
                s = clbb_now() - t0;
            } else if (peer_ask(pe, ans, sizeof ans, "run %s", w->v[i].peer) != 0 ||
                       sscanf(ans, "%lf", &s) != 1) {
                on[i] = false;
            }
            t[i][r] = s;
        }
    double base = on[0] ? clbb_sort_median(t[0], rounds) : 0;
    for (int i = 0; i < w->nv; i++) {
        if (!on[i]) {
            printf("%-34s %-22s %12s\n", i ? "" : w->name, w->v[i].name, "n/a");
            continue;
        }
        double med = i ? clbb_sort_median(t[i], rounds) : base;
        printf("%-34s %-22s %9.3f ms %9.3fx", i ? "" : w->name, w->v[i].name, med * 1e3, med / base);
        if (w->flops > 0) printf(" %8.1f GFLOP/s", w->flops / med / 1e9);
        printf("\n");
    }
}

static bool wanted(const char *only, const char *key)
{
    if (!only) return true;
    size_t n = strlen(key);
    for (const char *p = only; (p = strstr(p, key)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
    return false;
}

static void bench_bn(peer *pe, int rounds, bool sq)
{
    R = 65536, C = sq ? 256 : 1024;
    int64_t sx[2] = {R, C}, sv[1] = {C};
    char setup[96];
    snprintf(setup, sizeof setup, "setup bnmul %lldx%lld %lld", (long long)R, (long long)C, (long long)C);
    if (tensor(0, 2, sx, CLB_FLOAT32) || tensor(1, 1, sv, CLB_FLOAT32) ||
        tensor(2, 1, sv, CLB_FLOAT32) || tensor(3, 2, sx, CLB_FLOAT32) || tensor(4, 2, sx, CLB_FLOAT32)) {
        fprintf(stderr, "bench_host: setup: %s\n", clb_last_error());
        release_all();
        return;
    }
    work w = {"bn", sq ? "bn-sqrt (65536,256)" : "bn (65536,1024) (x-mu)*rstd", sq ? 3 : 5,
              {{"clb_eval_into (host)", sq ? bns_fused : bn_fused, NULL},
               {"op by op (host)", sq ? bns_ops : bn_ops, NULL},
               {"plain C loop", sq ? bns_c : bn_c, NULL},
               {"numpy out=", NULL, "numpy_out"}},
              0};
    if (sq) w.nv = 3;
    else w.nv = 4;
    run_work(&w, pe, sq ? NULL : setup, rounds);
    release_all();
}

static void bench_pairwise(peer *pe, int rounds)
{
    N = 2000, M = 3000, D = 64;
    int64_t sx[3] = {N, 1, D}, sy[3] = {1, M, D}, so[2] = {N, M};
    if (tensor(0, 3, sx, CLB_FLOAT32) || tensor(1, 3, sy, CLB_FLOAT32) || tensor(3, 2, so, CLB_FLOAT32)) {
        fprintf(stderr, "bench_host: setup: %s\n", clb_last_error());
        release_all();
        return;
    }
    work w = {"pairwise", "pairwise (2000,1,64)x(1,3000,64)", 2,
              {{"clb_eval_reduce (host)", pw_lib, NULL}, {"plain C loop", pw_c, NULL}},
              3.0 * (double)(N * M * D)};
    run_work(&w, pe, NULL, rounds < 5 ? rounds : 5);
    release_all();
}

static void bench_matmul(peer *pe, int rounds)
{
    static const struct {
        const char *name, *key;
        int nda;
        int64_t a[3], b[2];
        bool trans;
        clb_dtype dt;
    } cases[] = {
        {"matmul 512^3", "matmul", 2, {512, 512}, {512, 512}, false, CLB_FLOAT32},
        {"matmul 1024^3", "matmul", 2, {1024, 1024}, {1024, 1024}, false, CLB_FLOAT32},
        {"matmul a.T 1024^3 (view)", "matmulT", 2, {1024, 1024}, {1024, 1024}, true, CLB_FLOAT32},
        {"matmul (8,256,256)x(256,256)", "matmul", 3, {8, 256, 256}, {256, 256}, false, CLB_FLOAT32},
        {"matmul float64 512^3", "matmul64", 2, {512, 512}, {512, 512}, false, CLB_FLOAT64},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (tensor(0, cases[c].nda, cases[c].a, cases[c].dt) || tensor(1, 2, cases[c].b, cases[c].dt)) {
            fprintf(stderr, "bench_host: setup: %s\n", clb_last_error());
            release_all();
            return;
        }
        if (cases[c].trans) {
            clb_tensor *v = NULL;
            clb_permute(T[0], (const int[]){1, 0}, &v); /* a square: the view of its transpose */
            clb_tensor_release(T[0]);
            T[0] = v;
        }
        char setup[96], sa[32];
        if (cases[c].nda == 3)
            snprintf(sa, sizeof sa, "%lldx%lldx%lld", (long long)cases[c].a[0], (long long)cases[c].a[1],
                     (long long)cases[c].a[2]);
        else
            snprintf(sa, sizeof sa, "%lldx%lld", (long long)cases[c].a[0], (long long)cases[c].a[1]);
        snprintf(setup, sizeof setup, "setup %s %s %lldx%lld", cases[c].key, sa, (long long)cases[c].b[0],
                 (long long)cases[c].b[1]);
        int64_t batch = cases[c].nda == 3 ? cases[c].a[0] : 1;
        work w = {"matmul", cases[c].name, 2,
                  {{"clb_matmul (host)", mm_lib, NULL}, {"numpy a @ b", NULL, "numpy_new"}},
                  2.0 * (double)(batch * cases[c].a[cases[c].nda - 2] * cases[c].a[cases[c].nda - 1] *
                                 cases[c].b[1])};
        run_work(&w, pe, setup, rounds);
        release_all();
    }
}

int main(int argc, char **argv)
{
    int rounds = 9;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--only")) only = argv[i + 1];
    }
    if (rounds < 1 || rounds > 200) rounds = 9;
    if (clb_context_create("host", &ctx) != CLB_OK)
        return fprintf(stderr, "bench_host: %s\n", clb_last_error()), 1;
    peer pe;
    if (peer_open(&pe, 1) != 0) {
        fprintf(stderr, "bench_host: no NumPy peer (%s); its rows read n/a\n", pe.hello);
        peer_close(&pe);
        memset(&pe, 0, sizeof pe);
    }
    printf("bench_host: host backend vs plain C vs NumPy (%s), %d interleaved rounds, medians; "
           "x = median / the first row's\n", pe.to ? pe.hello : "no peer", rounds);
    if (wanted(only, "bn")) bench_bn(&pe, rounds, false);
    if (wanted(only, "bn-sqrt")) bench_bn(&pe, rounds, true);
    if (wanted(only, "pairwise")) bench_pairwise(&pe, rounds);
    if (wanted(only, "matmul")) bench_matmul(&pe, rounds);
    if (pe.to) peer_close(&pe);
    clb_context_release(ctx);
    return 0;
}
