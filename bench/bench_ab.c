/* Two builds of the library in one process, timed alternately pattern by
 * pattern: the before/after comparison of a change, robust to the drift of a
 * shared machine (both builds see the same minute).
 *
 * usage: bench_ab OLD/libclbroadcast.so NEW/libclbroadcast.so [--device SEL] [--rounds N]
 *
 * Each library is loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND), so the two
 * keep their own symbols. Per pattern: one warm-up call each (kernel builds),
 * then N rounds (default 15) of old, new, each call ending with clb_finish;
 * prints the median time of each and the median of the per-round ratios
 * old/new (> 1: the new build is faster). Float32 data, the sizes of
 * `clb bench`; results are not checked here (the test suite does that). */
#include <clbroadcast.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lib {
    void *h;
    clb_status (*context_create)(const char *, clb_context **);
    void (*context_release)(clb_context *);
    clb_status (*finish)(clb_context *);
    clb_status (*from_host)(clb_context *, clb_dtype, int, const int64_t *, const void *, clb_tensor **);
    clb_status (*empty)(clb_context *, clb_dtype, int, const int64_t *, clb_tensor **);
    void (*release)(clb_tensor *);
    clb_status (*binary_into)(clb_binary_op, const clb_tensor *, const clb_tensor *, clb_tensor *);
    clb_status (*cast)(const clb_tensor *, clb_dtype, clb_tensor **);
    clb_status (*reduce)(clb_reduce_op, const clb_tensor *, int, const int *, int, clb_tensor **);
    clb_status (*sum_to_shape)(const clb_tensor *, int, const int64_t *, clb_tensor **);
    clb_status (*eval_into)(clb_context *, const char *, int, const char *const *,
                            const clb_tensor *const *, clb_tensor *);
    clb_status (*eval_reduce)(clb_context *, const char *, int, const char *const *,
                              const clb_tensor *const *, clb_reduce_op, int, const int *, int,
                              clb_tensor **);
    clb_status (*matmul)(const clb_tensor *, const clb_tensor *, clb_tensor **);
    const char *(*last_error)(void);
    clb_context *ctx;
} lib;

static int load(const char *path, lib *l)
{
    l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!l->h) return fprintf(stderr, "bench_ab: %s\n", dlerror()), -1;
#define SYM(field, name)                                                                           \
    if (!(*(void **)&l->field = dlsym(l->h, name))) return fprintf(stderr, "bench_ab: %s: no %s\n", path, name), -1
    SYM(context_create, "clb_context_create");
    SYM(context_release, "clb_context_release");
    SYM(finish, "clb_finish");
    SYM(from_host, "clb_tensor_from_host");
    SYM(empty, "clb_tensor_empty");
    SYM(release, "clb_tensor_release");
    SYM(binary_into, "clb_binary_into");
    SYM(cast, "clb_cast");
    SYM(reduce, "clb_reduce");
    SYM(sum_to_shape, "clb_sum_to_shape");
    SYM(eval_into, "clb_eval_into");
    SYM(eval_reduce, "clb_eval_reduce");
    SYM(matmul, "clb_matmul");
    SYM(last_error, "clb_last_error");
#undef SYM
    return 0;
}

typedef enum kind { K_CAST, K_BINARY, K_EVAL, K_SUM_ROWS, K_SUM_COLS, K_SUM_TO, K_DIST, K_MATMUL } kind;
typedef struct pattern {
    const char *name;
    kind k;
    int nd;
    int64_t a[4], b[4], c[4]; /* input shapes (b, c unused by some) */
    int ndb, ndc;
    int64_t out[4];
    int ndo;
} pattern;

static const pattern patterns[] = {
    {"copy (2^26,)", K_CAST, 1, {1 << 26}, {0}, {0}, 0, 0, {1 << 26}, 1},
    {"same-shape add 2^26", K_BINARY, 1, {1 << 26}, {1 << 26}, {0}, 1, 0, {1 << 26}, 1},
    {"row (16384,4096)+(4096,)", K_BINARY, 2, {16384, 4096}, {4096}, {0}, 1, 0, {16384, 4096}, 2},
    {"column (16384,4096)+(16384,1)", K_BINARY, 2, {16384, 4096}, {16384, 1}, {0}, 2, 0, {16384, 4096}, 2},
    {"images (128,3,224,224)-(3,1,1)", K_BINARY, 4, {128, 3, 224, 224}, {3, 1, 1}, {0}, 3, 0, {128, 3, 224, 224}, 4},
    {"outer (4096,1)+(1,4096)", K_BINARY, 2, {4096, 1}, {1, 4096}, {0}, 2, 0, {4096, 4096}, 2},
    {"batch-norm eval (65536,1024)", K_EVAL, 2, {65536, 1024}, {1024}, {1024}, 1, 1, {65536, 1024}, 2},
    {"row sum (16384,4096) axis 1", K_SUM_ROWS, 2, {16384, 4096}, {0}, {0}, 0, 0, {0}, 0},
    {"column sum (16384,4096) axis 0", K_SUM_COLS, 2, {16384, 4096}, {0}, {0}, 0, 0, {0}, 0},
    {"sum_to_shape (128,3,224,224)->(3,1,1)", K_SUM_TO, 4, {128, 3, 224, 224}, {0}, {0}, 0, 0, {3, 1, 1}, 3},
    {"pairwise sq. dist. (500,1,64)x(1,600,64)", K_DIST, 3, {500, 1, 64}, {1, 600, 64}, {0}, 3, 0, {0}, 0},
    {"matmul (512,512)x(512,512)", K_MATMUL, 2, {512, 512}, {512, 512}, {0}, 2, 0, {0}, 0},
    {"matmul (8,256,256)x(256,256)", K_MATMUL, 3, {8, 256, 256}, {256, 256}, {0}, 2, 0, {0}, 0},
    /* small: what a call costs besides the work */
    {"small row sum (64,64) axis 1", K_SUM_ROWS, 2, {64, 64}, {0}, {0}, 0, 0, {0}, 0},
    {"small batch-norm eval (64,64)", K_EVAL, 2, {64, 64}, {64}, {64}, 1, 1, {64, 64}, 2},
};

typedef struct inst {
    clb_tensor *a, *b, *c, *o;
} inst;

static int64_t numel(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= s[i];
    return n;
}

static int setup(lib *l, const pattern *p, const float *data, inst *t)
{
    memset(t, 0, sizeof *t);
    if (l->from_host(l->ctx, CLB_FLOAT32, p->nd, p->a, data, &t->a)) return -1;
    if (p->ndb && l->from_host(l->ctx, CLB_FLOAT32, p->ndb, p->b, data, &t->b)) return -1;
    if (p->ndc && l->from_host(l->ctx, CLB_FLOAT32, p->ndc, p->c, data, &t->c)) return -1;
    if ((p->k == K_BINARY || p->k == K_EVAL) && l->empty(l->ctx, CLB_FLOAT32, p->ndo, p->out, &t->o))
        return -1;
    return 0;
}

static int run(lib *l, const pattern *p, inst *t)
{
    clb_tensor *r = NULL;
    clb_status st = CLB_OK;
    static const int ax1 = 1, ax0 = 0;
    static const char *const names[3] = {"x", "mu", "rstd"};
    switch (p->k) {
    case K_CAST: st = l->cast(t->a, CLB_FLOAT32, &r); break;
    case K_BINARY: st = l->binary_into(CLB_ADD, t->a, t->b, t->o); break;
    case K_EVAL: {
        const clb_tensor *in[3] = {t->a, t->b, t->c};
        st = l->eval_into(l->ctx, "(x - mu) * rstd", 3, names, in, t->o);
        break;
    }
    case K_DIST: {
        static const char *const xy[2] = {"x", "y"};
        static const int ax2 = 2;
        const clb_tensor *in[2] = {t->a, t->b};
        st = l->eval_reduce(l->ctx, "(x - y) * (x - y)", 2, xy, in, CLB_SUM, 1, &ax2, 0, &r);
        break;
    }
    case K_MATMUL: st = l->matmul(t->a, t->b, &r); break;
    case K_SUM_ROWS: st = l->reduce(CLB_SUM, t->a, 1, &ax1, 1, &r); break;
    case K_SUM_COLS: st = l->reduce(CLB_SUM, t->a, 1, &ax0, 1, &r); break;
    case K_SUM_TO: st = l->sum_to_shape(t->a, p->ndo, p->out, &r); break;
    }
    if (st == CLB_OK) st = l->finish(l->ctx);
    l->release(r);
    if (st != CLB_OK) fprintf(stderr, "bench_ab: %s: %s\n", p->name, l->last_error());
    return st == CLB_OK ? 0 : -1;
}

static void teardown(lib *l, inst *t)
{
    l->release(t->a), l->release(t->b), l->release(t->c), l->release(t->o);
}

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

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    const char *sel = "pocl";
    int rounds = 15;
    if (argc < 3) return fprintf(stderr, "usage: bench_ab OLD.so NEW.so [--device SEL] [--rounds N]\n"), 2;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device")) sel = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
    }
    if (rounds < 1 || rounds > 200) rounds = 15;
    lib L[2];
    memset(L, 0, sizeof L);
    for (int k = 0; k < 2; k++) {
        if (load(argv[1 + k], &L[k])) return 1;
        if (L[k].context_create(sel, &L[k].ctx))
            return fprintf(stderr, "bench_ab: %s: %s\n", argv[1 + k], L[k].last_error()), 1;
    }
    size_t max = 0;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        size_t n = (size_t)numel(patterns[i].nd, patterns[i].a);
        if (n > max) max = n;
    }
    float *data = malloc(max * sizeof *data);
    if (!data) return 1;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < max; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (float)(x >> 40) / (float)(1 << 24) + 0.5f;
    }
    printf("bench_ab: %s (old) vs %s (new) on %s, %d alternating rounds\n", argv[1], argv[2], sel,
           rounds);
    printf("%-40s %12s %12s %14s\n", "pattern", "old median", "new median", "old/new (med)");
    double *t[2] = {malloc(sizeof(double) * (size_t)rounds), malloc(sizeof(double) * (size_t)rounds)};
    double *ratio = malloc(sizeof(double) * (size_t)rounds);
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        const pattern *p = &patterns[i];
        inst in[2];
        int ok = setup(&L[0], p, data, &in[0]) == 0 && setup(&L[1], p, data, &in[1]) == 0 &&
                 run(&L[0], p, &in[0]) == 0 && run(&L[1], p, &in[1]) == 0;
        for (int r = 0; ok && r < rounds; r++) {
            for (int k = 0; k < 2 && ok; k++) {
                int first = (r & 1) ? 1 - k : k; /* ABBA order: neither side always goes first */
                double t0 = now();
                ok = run(&L[first], p, &in[first]) == 0;
                t[first][r] = now() - t0;
            }
            ratio[r] = t[0][r] / t[1][r];
        }
        if (ok)
            printf("%-40s %9.3f ms %9.3f ms %13.3fx\n", p->name, median(t[0], rounds) * 1e3,
                   median(t[1], rounds) * 1e3, median(ratio, rounds));
        else
            printf("%-40s failed\n", p->name);
        teardown(&L[0], &in[0]);
        teardown(&L[1], &in[1]);
    }
    free(ratio), free(t[0]), free(t[1]), free(data);
    for (int k = 0; k < 2; k++) L[k].context_release(L[k].ctx);
    return 0;
}
