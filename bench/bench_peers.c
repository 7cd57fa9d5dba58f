/* The library against its peers and the streaming limit, pattern by pattern
 * (issue 19), every case timed side by side in each round:
 *   - the library, a new output per call and into a preallocated output
 *     (clb_binary_into / clb_eval_into; reductions have no _into in the API);
 *   - the C streaming limit: the same pattern as a plain C kernel with OpenMP
 *     on every core and non-temporal stores, reading the inputs once and
 *     writing the output once (bench/stream_ref.c);
 *   - PyTorch (new output, and out=) on as many threads, and NumPy (new, out=),
 *     through bench/torch_ref.py, a server this program drives one call at a
 *     time (PyTorch and NumPy time their own call).
 * A round times every case once, starting one case later each round; each
 * time is the median over the rounds, each ratio the median over the rounds of
 * that round's own ratio. % C: the C kernel's time over the library's (its
 * share of the C kernel's GB/s; same bytes: for the reductions the C kernel
 * reads the library's input buffer itself, mapped, marked '*'); x torch:
 * PyTorch's faster variant's time over the library's; C xT: the same over the
 * C kernel's (1 or more: the limit is at least PyTorch's speed). float32
 * throughout.
 *
 * usage: bench_peers [--device SEL] [--quick] [--rounds N] [--only KEY,KEY...]
 *   keys: same row col images outer expand rowsum colsum chmean bn var0 var1 softmax
 *   (var: against the C read limit of the same bytes, target 80 %; softmax:
 *   against the C row broadcast, a copy's bytes, target 60 %; issue 32)
 *   $CLB_BENCH_PYTHON names the python with numpy/torch (default /usr/bin/python3). */
#include "harness.h"
#include "peer.h"
#if CLBB_HAVE_REFCOPY
#include "clbroadcast_cl.h"
#endif
#include "stream_ref.h"

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef enum lib_kind { L_BINARY, L_EXPAND, L_ROWSUM, L_COLSUM, L_CHMEAN, L_BN, L_VAR0, L_VAR1, L_SOFTMAX } lib_kind;

typedef struct pattern {
    const char *key, *name;
    lib_kind lib;
    clb_binary_op op;
    int ndim_a, ndim_b;
    int64_t a[4], b[4]; /* for L_EXPAND b is the output shape */
    clbb_stream_kind ref;
    int64_t rows, cols, ch; /* the C kernel's view of it */
    double c_target;        /* the share of the C kernel's speed to reach: 0 means 90 % */
    bool no_torch_target;   /* no speed-up over PyTorch asked (issue 32: var, softmax) */
} pattern;

/* ---- the library's cases ----------------------------------------------------------- */

static clb_context *ctx;
static clb_tensor *ta, *tb, *tv, *tout;
static const pattern *cur;

static const char *const bn_names[3] = {"x", "mu", "var"};
static const char bn_expr[] = "(x - mu) / sqrt(var + 1e-5)";

static clb_status lib_new(void *u)
{
    (void)u;
    clb_tensor *r = NULL, *view = NULL;
    clb_status st = CLB_OK;
    switch (cur->lib) {
    case L_BINARY: st = clb_binary(cur->op, ta, tb, &r); break;
    case L_EXPAND:
        st = clb_expand(ta, cur->ndim_b, cur->b, &view);
        if (st == CLB_OK) st = clb_contiguous(view, &r);
        break;
    case L_ROWSUM: st = clb_sum_to_shape(ta, 2, (const int64_t[]){cur->a[0], 1}, &r); break;
    case L_COLSUM: st = clb_reduce(CLB_SUM, ta, 1, (const int[]){0}, 0, &r); break;
    case L_CHMEAN: st = clb_reduce(CLB_MEAN, ta, 3, (const int[]){0, 2, 3}, 1, &r); break;
    case L_VAR0: st = clb_var(ta, 1, (const int[]){0}, 0, 0, &r); break;
    case L_VAR1: st = clb_var(ta, 1, (const int[]){1}, 0, 0, &r); break;
    case L_SOFTMAX: st = clb_softmax(ta, 1, &r); break;
    case L_BN: {
        const clb_tensor *in[3] = {ta, tb, tv};
        st = clb_eval(ctx, bn_expr, 3, bn_names, in, &r);
        break;
    }
    }
    clb_tensor_release(view);
    clb_tensor_release(r);
    return st;
}

static clb_status lib_into(void *u)
{
    (void)u;
    switch (cur->lib) {
    case L_BINARY: return clb_binary_into(cur->op, ta, tb, tout);
    case L_EXPAND: {
        const char *names[1] = {"a"};
        const clb_tensor *in[1] = {ta};
        return clb_eval_into(ctx, "a", 1, names, in, tout);
    }
    case L_BN: {
        const clb_tensor *in[3] = {ta, tb, tv};
        return clb_eval_into(ctx, bn_expr, 3, bn_names, in, tout);
    }
    default: return CLB_ERR_UNSUPPORTED; /* no _into for reductions in the API */
    }
}

static bool has_into(const pattern *p)
{
    return p->lib == L_BINARY || p->lib == L_EXPAND || p->lib == L_BN;
}

/* ---- helpers ------------------------------------------------------------------------ */

static void shape_text(char *buf, size_t cap, int ndim, const int64_t *s)
{
    size_t at = 0;
    buf[0] = 0;
    if (ndim == 0) snprintf(buf, cap, "-");
    for (int d = 0; d < ndim && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, d ? "x%lld" : "%lld", (long long)s[d]);
}

/* ---- one pattern ------------------------------------------------------------------- */

enum { C_NEW, C_INTO, C_REF, C_TNEW, C_TOUT, C_NNEW, C_NOUT, NCASE };
static const char *const peer_variant[NCASE] = {NULL, NULL, NULL, "torch_new", "torch_out",
                                                "numpy_new", "numpy_out"};

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#if CLBB_HAVE_REFCOPY
/* The read-only patterns' C limit reads the library's own input: ta's buffer
   mapped for reading (on CPU drivers the buffer's own memory), held while the
   rounds run (kernels may read a buffer that is mapped for reading). Returns
   the mapped pointer, NULL where there is none (the host backend, a map that
   fails or is not 64-byte aligned): the C kernel then reads its own bytes. */
static void *map_input(const clb_tensor *t, size_t bytes)
{
    cl_command_queue q = NULL;
    cl_mem buf = NULL;
    size_t off = 0;
    cl_int err = CL_SUCCESS;
    if (clb_context_get_cl(ctx, NULL, NULL, &q) != CLB_OK ||
        clb_tensor_get_cl_buffer(t, &buf, &off) != CLB_OK)
        return NULL;
    void *p = clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, off, bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS || !p) return NULL;
    if ((uintptr_t)p % 64 == 0) return p;
    clEnqueueUnmapMemObject(q, buf, p, 0, NULL, NULL);
    clFinish(q);
    return NULL;
}

static void unmap_input(const clb_tensor *t, void *p)
{
    cl_command_queue q = NULL;
    cl_mem buf = NULL;
    size_t off = 0;
    if (!p || clb_context_get_cl(ctx, NULL, NULL, &q) != CLB_OK ||
        clb_tensor_get_cl_buffer(t, &buf, &off) != CLB_OK)
        return;
    clEnqueueUnmapMemObject(q, buf, p, 0, NULL, NULL);
    clFinish(q);
}
#else
static void *map_input(const clb_tensor *t, size_t bytes) { (void)t, (void)bytes; return NULL; }
static void unmap_input(const clb_tensor *t, void *p) { (void)t, (void)p; }
#endif

static bool read_only(const pattern *p)
{
    return p->ref == CLBB_S_ROWSUM || p->ref == CLBB_S_COLSUM || p->ref == CLBB_S_CHMEAN;
}

/* The median of x[0..n) (sorts x). */
static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, compare_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Paired ratios: for k = C_NEW, C_INTO, the median over rounds of that round's
   C time over the library's (ratio[k]) and of that round's faster PyTorch
   variant over the library's (ratio[2 + k]); ratio[4] the same PyTorch time
   over the C kernel's (1 or more: the C limit is at least PyTorch's speed);
   0 where a side is missing. The
   cases of a round run back to back, so load that comes and goes (other
   programs on the machine) weighs on both sides of each ratio alike. */
static void paired(const double *t, int rounds, const bool on[NCASE], double ratio[5])
{
    double *x = malloc((size_t)rounds * sizeof *x);
    memset(ratio, 0, 5 * sizeof *ratio);
    for (int k = C_NEW; x && k <= C_REF; k++) {
        if (!on[k]) continue;
        const double *lib = t + k * rounds;
        if (k == C_REF) { /* PyTorch against the C kernel */
            if (!on[C_TNEW] || !on[C_TOUT]) break;
            for (int r = 0; r < rounds; r++) {
                double a = t[C_TNEW * rounds + r], b = t[C_TOUT * rounds + r];
                x[r] = (a < b ? a : b) / lib[r];
            }
            ratio[4] = median(x, rounds);
            break;
        }
        if (on[C_REF]) {
            for (int r = 0; r < rounds; r++) x[r] = t[C_REF * rounds + r] / lib[r];
            ratio[k] = median(x, rounds);
        }
        if (on[C_TNEW] && on[C_TOUT]) {
            for (int r = 0; r < rounds; r++) {
                double a = t[C_TNEW * rounds + r], b = t[C_TOUT * rounds + r];
                x[r] = (a < b ? a : b) / lib[r];
            }
            ratio[2 + k] = median(x, rounds);
        }
    }
    free(x);
}

/* Medians in seconds of every case (0: not measured) and the paired ratios. */
static int measure(const pattern *p, peer *pe, int rounds, double med[NCASE], double ratio[5],
                   double *bytes, bool *shared)
{
    int rc = 0;
    clbb_stream ref;
    cur = p;
    memset(med, 0, NCASE * sizeof *med);
    memset(ratio, 0, 5 * sizeof *ratio);
    *shared = false;
    clb_status st = clbb_random_tensor(ctx, p->ndim_a, p->a, 1, 0, &ta);
    if (st == CLB_OK && p->lib != L_EXPAND && p->ndim_b > 0)
        st = clbb_random_tensor(ctx, p->ndim_b, p->b, 2, 0, &tb);
    if (st == CLB_OK && p->lib == L_BN) st = clbb_random_tensor(ctx, p->ndim_b, p->b, 3, 0.5f, &tv);
    if (st == CLB_OK && has_into(p)) {
        /* The output: the broadcast shape (the expand's target shape is b). */
        int on = p->ndim_a > p->ndim_b ? p->ndim_a : p->ndim_b;
        int64_t os[4];
        for (int d = 0; d < on; d++) {
            int da = d - (on - p->ndim_a), db = d - (on - p->ndim_b);
            int64_t x = da >= 0 ? p->a[da] : 1, y = db >= 0 ? p->b[db] : 1;
            os[d] = x > y ? x : y;
        }
        st = clb_tensor_empty(ctx, CLB_FLOAT32, on, os, &tout);
    }
    if (st != CLB_OK || clbb_stream_setup(p->ref, p->rows, p->cols, p->ch, 7, &ref) != 0) {
        fprintf(stderr, "%s: setup failed: %s\n", p->name, st != CLB_OK ? clb_last_error() : "C");
        rc = 1;
        goto done;
    }
    *bytes = clbb_stream_bytes(&ref);
    bool peer_ok = false;
    char ans[128], sa[64], sb[64];
    shape_text(sa, sizeof sa, p->ndim_a, p->a);
    shape_text(sb, sizeof sb, p->ndim_b, p->b);
    if (pe->to && peer_ask(pe, ans, sizeof ans, "setup %s %s %s", p->key, sa, sb) == 0)
        peer_ok = strcmp(ans, "ok") == 0;

    bool on[NCASE] = {true, has_into(p), true, peer_ok, peer_ok, peer_ok, peer_ok};
    /* Warm-up: builds, first touch. */
    if (lib_new(NULL) != CLB_OK || clb_finish(ctx) != CLB_OK ||
        (on[C_INTO] && (lib_into(NULL) != CLB_OK || clb_finish(ctx) != CLB_OK))) {
        fprintf(stderr, "%s: %s\n", p->name, clb_last_error());
        rc = 1;
        goto done_ref;
    }
    void *mapped = NULL;
    if (read_only(p)) {
        size_t n = 1;
        for (int d = 0; d < p->ndim_a; d++) n *= (size_t)p->a[d];
        mapped = map_input(ta, n * sizeof(float));
        clbb_stream_read_from(&ref, mapped);
        *shared = mapped != NULL;
    }
    clbb_stream_run(&ref);
    double *t = calloc((size_t)NCASE * (size_t)rounds, sizeof *t);
    if (!t) { rc = 1; goto done_map; }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NCASE; i++) {
            int c = (r + i) % NCASE;
            if (!on[c]) continue;
            double t0 = clbb_now(), s = 0;
            switch (c) {
            case C_NEW: st = lib_new(NULL); break;
            case C_INTO: st = lib_into(NULL); break;
            case C_REF: clbb_stream_run(&ref); break;
            default:
                if (peer_ask(pe, ans, sizeof ans, "run %s", peer_variant[c]) != 0 ||
                    sscanf(ans, "%lf", &s) != 1)
                    on[c] = false;
                break;
            }
            if (c <= C_INTO && st == CLB_OK) st = clb_finish(ctx);
            if (c <= C_INTO && st != CLB_OK) {
                fprintf(stderr, "%s: %s\n", p->name, clb_last_error());
                on[c] = false, rc = 1;
            }
            t[c * rounds + r] = c >= C_TNEW ? s : clbb_now() - t0;
        }
    }
    paired(t, rounds, on, ratio);
    for (int c = 0; c < NCASE; c++)
        if (on[c]) med[c] = median(t + c * rounds, rounds);
    free(t);
done_map:
    clbb_stream_read_from(&ref, NULL);
    unmap_input(ta, mapped);
done_ref:
    clbb_stream_close(&ref);
done:
    clb_tensor_release(ta), clb_tensor_release(tb), clb_tensor_release(tv),
        clb_tensor_release(tout);
    ta = tb = tv = tout = NULL;
    return rc;
}

/* ---- main -------------------------------------------------------------------------- */

static void ms(double s)
{
    if (s > 0) printf(" %8.2f", 1e3 * s);
    else printf(" %8s", "-");
}

int main(int argc, char **argv)
{
    const char *device = NULL, *only = NULL;
    int quick = 0, rounds = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--quick] [--rounds N] [--only KEY,...]\n",
                    argv[0]);
            return 2;
        }
    }
    if (rounds < 1) rounds = quick ? 5 : 11;
    /* OpenMP threads that spin after a parallel region (libgomp's default, the
       C kernel's and PyTorch's) take the cores from the next case of the round:
       every runtime here waits passively. libgomp reads this when it loads, so
       the program starts again with it set (the python server inherits it). */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "bench_peers: OMP_WAIT_POLICY not set (re-exec failed): spinning threads\n");
    }
    const int64_t s = quick ? 4 : 1; /* --quick divides the large axes */
    const int64_t n26 = ((int64_t)1 << 26) / s, R = 16384 / s, N = 256 / s, O = 8192 / s,
                  E = 32 / s, B = 65536 / s;
    const pattern patterns[] = {
        {"same", "same shape 2^26 + 2^26", L_BINARY, CLB_ADD, 1, 1, {n26}, {n26}, CLBB_S_SAME, 1, n26,
         1, 0, false},
        {"row", "row (16384,4096) + (4096,)", L_BINARY, CLB_ADD, 2, 1, {R, 4096}, {4096}, CLBB_S_ROW, R,
         4096, 1, 0, false},
        {"col", "column (16384,4096) + (16384,1)", L_BINARY, CLB_ADD, 2, 2, {R, 4096}, {R, 1},
         CLBB_S_COL, R, 4096, 1, 0, false},
        {"images", "images (256,3,224,224) - (3,1,1)", L_BINARY, CLB_SUB, 4, 3, {N, 3, 224, 224},
         {3, 1, 1}, CLBB_S_CHANNEL, N * 3, 224 * 224, 3, 0, false},
        {"outer", "outer (8192,1) + (1,8192)", L_BINARY, CLB_ADD, 2, 2, {O, 1}, {1, 8192}, CLBB_S_OUTER,
         O, 8192, 1, 0, false},
        {"expand", "expand (1,256,1,1)->(32,256,224,224)", L_EXPAND, CLB_ADD, 4, 4, {1, 256, 1, 1},
         {E, 256, 224, 224}, CLBB_S_EXPAND, E * 256, 224 * 224, 256, 0, false},
        {"rowsum", "row sums (16384,4096)->(16384,1)", L_ROWSUM, CLB_ADD, 2, 0, {R, 4096}, {0},
         CLBB_S_ROWSUM, R, 4096, 1, 0, false},
        {"colsum", "column sums (16384,4096)->(4096,)", L_COLSUM, CLB_ADD, 2, 0, {R, 4096}, {0},
         CLBB_S_COLSUM, R, 4096, 1, 0, false},
        {"chmean", "channel mean (256,3,224,224)->(1,3,1,1)", L_CHMEAN, CLB_ADD, 4, 0,
         {N, 3, 224, 224}, {0}, CLBB_S_CHMEAN, N * 3, 224 * 224, 3, 0, false},
        {"bn", "batch-norm (65536,256) clb_eval", L_BN, CLB_ADD, 2, 1, {B, 256}, {256}, CLBB_S_BATCHNORM,
         B, 256, 1, 0, false},
        {"var0", "var (16384,4096) axis 0", L_VAR0, CLB_ADD, 2, 0, {R, 4096}, {0}, CLBB_S_COLSUM, R,
         4096, 1, 0.8, true},
        {"var1", "var (16384,4096) axis 1", L_VAR1, CLB_ADD, 2, 0, {R, 4096}, {0}, CLBB_S_ROWSUM, R,
         4096, 1, 0.8, true},
        {"softmax", "softmax (16384,4096) axis 1 (C: copy)", L_SOFTMAX, CLB_ADD, 2, 0, {R, 4096}, {0},
         CLBB_S_ROW, R, 4096, 1, 0.6, true},
    };
    enum { NPAT = sizeof patterns / sizeof patterns[0] };
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_peers: %s\n", clb_last_error());
        return 2;
    }
    int threads = clbb_stream_threads();
    peer pe;
    if (peer_open(&pe, threads) != 0) {
        fprintf(stderr, "bench_peers: no PyTorch/NumPy server (%s/torch_ref.py): those columns are '-'\n",
                CLB_BENCH_DIR);
        peer_close(&pe);
    }
    printf("device: %s\n", clb_context_device_name(ctx));
    printf("C limit: OpenMP, %d threads, %s stores; peers: %s; OMP_WAIT_POLICY=%s\n", threads,
           clbb_stream_nt() ? "non-temporal" : "plain", pe.hello[0] ? pe.hello + 6 : "none",
           getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "(unset)");
    printf("median of %d interleaved rounds, ms; ratios are medians over the rounds of each "
           "round's own ratio:\n%% C = C kernel time / library time (GB/s share); "
           "x torch = min(torch new, torch out=) / library; C xT = the same / C kernel\n\n",
           rounds);
    printf("%-40s %8s %8s %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s\n", "pattern (float32)", "new",
           "into", "C", "C GB/s", "t new", "t out=", "np new", "np out=", "new %C", "into %C",
           "new xT", "into xT", "C xT");
    int rc = 0, missed = 0, met = 0;
    for (int c = 0; c < NPAT; c++) {
        const pattern *p = &patterns[c];
        if (only) {
            const char *at = strstr(only, p->key);
            size_t len = strlen(p->key);
            if (!at || (at != only && at[-1] != ',') || (at[len] && at[len] != ',')) continue;
        }
        double med[NCASE], ratio[5], bytes = 0;
        bool shared = false;
        rc |= measure(p, &pe, rounds, med, ratio, &bytes, &shared);
        printf("%-39s%c", p->name, shared ? '*' : ' ');
        ms(med[C_NEW]), ms(med[C_INTO]), ms(med[C_REF]);
        printf(" %8.2f", med[C_REF] > 0 ? bytes / med[C_REF] / 1e9 : 0.0);
        for (int k = C_TNEW; k < NCASE; k++) ms(med[k]);
        printf(" |");
        for (int k = C_NEW; k <= C_INTO; k++) {
            if (ratio[k] > 0) printf(" %6.1f%%", 100 * ratio[k]);
            else printf(" %7s", "-");
        }
        for (int k = 2; k < 5; k++) {
            if (ratio[k] > 0) printf(" %6.2fx", ratio[k]);
            else printf(" %7s", "-");
        }
        printf("\n");
        for (int k = C_NEW; k <= C_INTO; k++) {
            if (med[k] <= 0) continue;
            bool ok = ratio[k] >= (p->c_target > 0 ? p->c_target : 0.9) &&
                      (p->no_torch_target || ratio[2 + k] <= 0 || ratio[2 + k] >= 1.1);
            if (ok) met++;
            else missed++;
        }
        fflush(stdout);
    }
    printf("\n* the C kernel read the library's own input buffer (mapped for reading)\n");
    printf("targets (>= 90 %% of C and >= 1.1x PyTorch's faster variant; var >= 80 %% and softmax "
           ">= 60 %% of C): %d met, %d not met\n",
           met, missed);
    peer_close(&pe);
    clb_context_release(ctx);
    return rc;
}
