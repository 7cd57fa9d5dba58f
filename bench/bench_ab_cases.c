/* bench_ab's pattern table and how each pattern runs on one loaded build:
 * the broadcasting patterns of `clb bench` and every pattern of issue 32's
 * table (reductions over either axis, sum_to_shape, channel mean, var,
 * softmax, matmul, the fused batch norm, tensor_to_context on one device) and
 * the float32 functions that CPU devices compute with the library's own
 * straight-line code (issue 28), by clb_unary, and sin by clb_eval_into; the
 * tensors made on the device (clb_full, the float32 random draws, 2^26; the
 * float16 and float64 draws, 2^24); float16 sums and max (the host's folds). */
#include "bench_ab_cases.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define R16K 16384
#define C4K 4096

const ab_pattern ab_patterns[] = {
    {"copy", "copy (2^26,) clb_cast", K_CAST, 0, 1, {1 << 26}, 0, {0}, 0, {0}, 0, {0}, 0},
    {"same", "same-shape add 2^26", K_BINARY, 0, 1, {1 << 26}, 1, {1 << 26}, 1, {1 << 26}, 0, {0}, 0},
    {"row", "row (16384,4096)+(4096,)", K_BINARY, 0, 2, {R16K, C4K}, 1, {C4K}, 2, {R16K, C4K}, 0, {0}, 0},
    {"col", "column (16384,4096)+(16384,1)", K_BINARY, 0, 2, {R16K, C4K}, 2, {R16K, 1}, 2, {R16K, C4K}, 0,
     {0}, 0},
    {"images", "images (128,3,224,224)-(3,1,1)", K_BINARY, 0, 4, {128, 3, 224, 224}, 3, {3, 1, 1}, 4,
     {128, 3, 224, 224}, 0, {0}, 0},
    {"outer", "outer (4096,1)+(1,4096)", K_BINARY, 0, 2, {C4K, 1}, 2, {1, C4K}, 2, {C4K, C4K}, 0, {0}, 0},
    {"bn", "batch-norm eval (65536,1024)", K_EVAL, 0, 2, {65536, 1024}, 1, {1024}, 2, {65536, 1024}, 0,
     {0}, 0},
    {"rowsum", "row sums (16384,4096) axis 1 keepdim", K_REDUCE, CLB_SUM, 2, {R16K, C4K}, 0, {0}, 0, {0},
     1, {1}, 1},
    {"colsum", "column sums (16384,4096) axis 0", K_REDUCE, CLB_SUM, 2, {R16K, C4K}, 0, {0}, 0, {0}, 1,
     {0}, 0},
    {"stscol", "sum_to_shape (16384,4096)->(4096,)", K_SUM_TO, 0, 2, {R16K, C4K}, 0, {0}, 1, {C4K}, 0,
     {0}, 0},
    {"stsimg", "sum_to_shape (128,3,224,224)->(3,1,1)", K_SUM_TO, 0, 4, {128, 3, 224, 224}, 0, {0}, 3,
     {3, 1, 1}, 0, {0}, 0},
    {"chmean", "channel mean (256,3,224,224) (0,2,3) keep", K_REDUCE, CLB_MEAN, 4, {256, 3, 224, 224}, 0,
     {0}, 0, {0}, 3, {0, 2, 3}, 1},
    {"var0", "var (16384,4096) axis 0", K_VAR, 0, 2, {R16K, C4K}, 0, {0}, 0, {0}, 1, {0}, 0},
    {"var1", "var (16384,4096) axis 1", K_VAR, 0, 2, {R16K, C4K}, 0, {0}, 0, {0}, 1, {1}, 0},
    {"softmax", "softmax (16384,4096) rows", K_SOFTMAX, 0, 2, {R16K, C4K}, 0, {0}, 0, {0}, 1, {1}, 0},
    {"tocontext", "tensor_to_context 256 MiB, same device", K_TO_CONTEXT, 0, 1, {1 << 26}, 0, {0}, 0,
     {0}, 0, {0}, 0},
    {"dist", "pairwise sq. dist. (500,1,64)x(1,600,64)", K_DIST, 0, 3, {500, 1, 64}, 3, {1, 600, 64}, 0,
     {0}, 1, {2}, 0},
    {"mm64", "matmul (64,256,256)@(256,256)", K_MATMUL, 0, 3, {64, 256, 256}, 2, {256, 256}, 0, {0}, 0,
     {0}, 0},
    {"mm512", "matmul (512,512)@(512,512)", K_MATMUL, 0, 2, {512, 512}, 2, {512, 512}, 0, {0}, 0, {0}, 0},
    {"mm8", "matmul (8,512,512)@(8,512,512)", K_MATMUL, 0, 3, {8, 512, 512}, 3, {8, 512, 512}, 0, {0}, 0,
     {0}, 0},
    /* small: what a call costs besides the work */
    {"smallrow", "small row sum (64,64) axis 1", K_REDUCE, CLB_SUM, 2, {64, 64}, 0, {0}, 0, {0}, 1, {1},
     1},
    {"smallbn", "small batch-norm eval (64,64)", K_EVAL, 0, 2, {64, 64}, 1, {64}, 2, {64, 64}, 0, {0},
     0},
    /* float32 functions over 2^22 values in [0.5, 1.5): ab_fns says which */
#define FN(key, how) {key, key " (2^22,) " how, K_FN, 0, 1, {1 << 22}, 0, {0}, 1, {1 << 22}, 0, {0}, 0}
    FN("sin", "clb_unary"), FN("cos", "clb_unary"), FN("tan", "clb_unary"),
    FN("exp", "clb_unary"), FN("log", "clb_unary"), FN("tanh", "clb_unary"),
    FN("sigmoid", "clb_unary"), FN("expm1", "clb_unary"), FN("log1p", "clb_unary"),
    FN("log2", "clb_unary"), FN("log10", "clb_unary"),
#undef FN
    {"esin", "sin(x) (2^22,) clb_eval_into", K_FN, 0, 1, {1 << 22}, 0, {0}, 1, {1 << 22}, 0, {0}, 0},
    /* made on the device: the input a token (1,), the output (2^26,) float32 */
#define MADE(key, how, k) {key, how " (2^26,) float32", k, 0, 1, {1}, 0, {0}, 1, {1 << 26}, 0, {0}, 0}
    MADE("full", "clb_full", K_FULL), MADE("randu", "clb_random_uniform [0, 1)", K_UNIFORM),
    MADE("randn", "clb_random_normal (0, 1)", K_NORMAL),
#undef MADE
    /* the draws in float16 and float64, and float16 folds, 2^24 elements */
#define DRAW(key, how, k, dn) {key, how " (2^24,) " dn, k, 0, 1, {1}, 0, {0}, 1, {1 << 24}, 0, {0}, 0}
    DRAW("randu16", "clb_random_uniform [0, 1)", K_UNIFORM, "float16"),
    DRAW("randn16", "clb_random_normal (0, 1)", K_NORMAL, "float16"),
    DRAW("randu64", "clb_random_uniform [0, 1)", K_UNIFORM, "float64"),
    DRAW("randn64", "clb_random_normal (0, 1)", K_NORMAL, "float64"),
#undef DRAW
    {"sum16", "sum (2^24,) float16", K_REDUCE, CLB_SUM, 1, {1 << 24}, 0, {0}, 0, {0}, 1, {0}, 0},
    {"max16", "max (2^24,) float16", K_REDUCE, CLB_MAX, 1, {1 << 24}, 0, {0}, 0, {0}, 1, {0}, 0},
    {"colsum16", "column sums (4096,4096) axis 0 float16", K_REDUCE, CLB_SUM, 2, {C4K, C4K}, 0, {0}, 0,
     {0}, 1, {0}, 0},
};

/* The patterns in another dtype than float32: K_REDUCE's input (cast from the
   float32 data), K_UNIFORM's and K_NORMAL's output. */
static const struct {
    const char *key;
    clb_dtype dt;
} ab_dtypes[] = {{"randu16", CLB_FLOAT16}, {"randn16", CLB_FLOAT16}, {"randu64", CLB_FLOAT64},
                 {"randn64", CLB_FLOAT64}, {"sum16", CLB_FLOAT16},   {"max16", CLB_FLOAT16},
                 {"colsum16", CLB_FLOAT16}};

static clb_dtype ab_dtype(const ab_pattern *p)
{
    for (size_t i = 0; i < sizeof ab_dtypes / sizeof ab_dtypes[0]; i++)
        if (!strcmp(ab_dtypes[i].key, p->key)) return ab_dtypes[i].dt;
    return CLB_FLOAT32;
}
const int ab_npatterns = (int)(sizeof ab_patterns / sizeof ab_patterns[0]);

/* The K_FN patterns by key: clb_unary(op), a new output per call as NumPy's
   f(x), or (expr) clb_eval_into of expr over x. */
static const struct ab_fn {
    const char *key;
    clb_unary_op op;
    const char *expr;
} ab_fns[] = {
    {"sin", CLB_SIN, NULL},         {"cos", CLB_COS, NULL},     {"tan", CLB_TAN, NULL},
    {"exp", CLB_EXP, NULL},         {"log", CLB_LOG, NULL},     {"tanh", CLB_TANH, NULL},
    {"sigmoid", CLB_SIGMOID, NULL}, {"expm1", CLB_EXPM1, NULL}, {"log1p", CLB_LOG1P, NULL},
    {"log2", CLB_LOG2, NULL},       {"log10", CLB_LOG10, NULL}, {"esin", CLB_SIN, "sin(x)"},
};

static const struct ab_fn *ab_fn_of(const ab_pattern *p)
{
    for (size_t i = 0; i < sizeof ab_fns / sizeof ab_fns[0]; i++)
        if (!strcmp(ab_fns[i].key, p->key)) return &ab_fns[i];
    return NULL;
}

int ab_load(const char *path, ab_lib *l)
{
    l->path = path;
    l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!l->h) return fprintf(stderr, "bench_ab: %s\n", dlerror()), -1;
#define SYM(field, name)                                                                           \
    if (!(*(void **)&l->field = dlsym(l->h, name)))                                                \
    return fprintf(stderr, "bench_ab: %s: no %s\n", path, name), -1
#define OPT(field, name) (*(void **)&l->field = dlsym(l->h, name))
    SYM(context_create, "clb_context_create");
    SYM(context_release, "clb_context_release");
    SYM(finish, "clb_finish");
    SYM(from_host, "clb_tensor_from_host");
    SYM(empty, "clb_tensor_empty");
    SYM(release, "clb_tensor_release");
    SYM(binary_into, "clb_binary_into");
    SYM(cast, "clb_cast");
    SYM(unary, "clb_unary");
    SYM(reduce, "clb_reduce");
    SYM(sum_to_shape, "clb_sum_to_shape");
    SYM(eval_into, "clb_eval_into");
    SYM(matmul, "clb_matmul");
    SYM(last_error, "clb_last_error");
    OPT(eval_reduce, "clb_eval_reduce");
    OPT(var, "clb_var");
    OPT(softmax, "clb_softmax");
    OPT(to_context, "clb_tensor_to_context");
    OPT(full, "clb_full");
    OPT(random_uniform, "clb_random_uniform");
    OPT(random_normal, "clb_random_normal");
#undef SYM
#undef OPT
    return 0;
}

const char *ab_missing(const ab_lib *l, const ab_pattern *p)
{
    switch (p->k) {
    case K_DIST: return l->eval_reduce ? NULL : "clb_eval_reduce";
    case K_VAR: return l->var ? NULL : "clb_var";
    case K_SOFTMAX: return l->softmax ? NULL : "clb_softmax";
    case K_TO_CONTEXT: return l->to_context ? NULL : "clb_tensor_to_context";
    case K_FULL: return l->full ? NULL : "clb_full";
    case K_UNIFORM: return l->random_uniform ? NULL : "clb_random_uniform";
    case K_NORMAL: return l->random_normal ? NULL : "clb_random_normal";
    default: return NULL;
    }
}

int64_t ab_max_numel(void)
{
    int64_t max = 0;
    for (int i = 0; i < ab_npatterns; i++) {
        int64_t n = 1;
        for (int d = 0; d < ab_patterns[i].nd; d++) n *= ab_patterns[i].a[d];
        if (n > max) max = n;
    }
    return max;
}

int ab_setup(ab_lib *l, const ab_pattern *p, const float *data, ab_inst *t)
{
    memset(t, 0, sizeof *t);
    if (l->from_host(l->ctx, CLB_FLOAT32, p->nd, p->a, data, &t->a)) return -1;
    if (p->k == K_REDUCE && ab_dtype(p) != CLB_FLOAT32) { /* the input in the pattern's dtype */
        clb_tensor *f = t->a;
        t->a = NULL;
        const clb_status st = l->cast(f, ab_dtype(p), &t->a);
        l->release(f);
        if (st != CLB_OK) return fprintf(stderr, "bench_ab: %s: %s\n", p->name, l->last_error()), -1;
    }
    if (p->ndb && l->from_host(l->ctx, CLB_FLOAT32, p->ndb, p->b, data, &t->b)) return -1;
    if (p->k == K_EVAL && l->from_host(l->ctx, CLB_FLOAT32, p->ndb, p->b, data + 7, &t->c)) return -1;
    t->fn = p->k == K_FN ? ab_fn_of(p) : NULL;
    if (p->k == K_FN && !t->fn) return fprintf(stderr, "bench_ab: no function for %s\n", p->key), -1;
    const int into = p->k == K_BINARY || p->k == K_EVAL || (t->fn && t->fn->expr);
    if (into && l->empty(l->ctx, CLB_FLOAT32, p->ndo, p->out, &t->o)) return -1;
    if (p->k == K_TO_CONTEXT && !l->twin && l->context_create(l->sel, &l->twin))
        return -1;
    return 0;
}

static clb_status ab_call(ab_lib *l, const ab_pattern *p, ab_inst *t, clb_tensor **r)
{
    static const char *const bn[3] = {"x", "mu", "rstd"}, *const xy[2] = {"x", "y"};
    switch (p->k) {
    case K_CAST: return l->cast(t->a, CLB_FLOAT32, r);
    case K_BINARY: return l->binary_into(CLB_ADD, t->a, t->b, t->o);
    case K_EVAL: {
        const clb_tensor *in[3] = {t->a, t->b, t->c};
        return l->eval_into(l->ctx, "(x - mu) * rstd", 3, bn, in, t->o);
    }
    case K_DIST: {
        const clb_tensor *in[2] = {t->a, t->b};
        return l->eval_reduce(l->ctx, "(x - y) * (x - y)", 2, xy, in, CLB_SUM, p->naxes, p->axes, 0, r);
    }
    case K_FN: {
        const struct ab_fn *f = t->fn;
        static const char *const x[1] = {"x"};
        const clb_tensor *in[1] = {t->a};
        return f->expr ? l->eval_into(l->ctx, f->expr, 1, x, in, t->o) : l->unary(f->op, t->a, r);
    }
    case K_MATMUL: return l->matmul(t->a, t->b, r);
    case K_REDUCE: return l->reduce(p->op, t->a, p->naxes, p->axes, p->keepdim, r);
    case K_SUM_TO: return l->sum_to_shape(t->a, p->ndo, p->out, r);
    case K_VAR: return l->var(t->a, p->naxes, p->axes, 0, p->keepdim, r);
    case K_SOFTMAX: return l->softmax(t->a, p->axes[0], r);
    case K_TO_CONTEXT: return l->to_context(t->a, l->twin, r);
    case K_FULL: {
        const clb_scalar v = {CLB_SCALAR_FLOAT, 0, 1.5};
        return l->full(l->ctx, CLB_FLOAT32, p->ndo, p->out, v, r);
    }
    case K_UNIFORM: return l->random_uniform(l->ctx, ab_dtype(p), p->ndo, p->out, 1, 0, 0, 1, r);
    case K_NORMAL: return l->random_normal(l->ctx, ab_dtype(p), p->ndo, p->out, 1, 0, 0, 1, r);
    }
    return CLB_ERR_INVALID_ARGUMENT;
}

int ab_run(ab_lib *l, const ab_pattern *p, ab_inst *t)
{
    clb_tensor *r = NULL;
    clb_status st = ab_call(l, p, t, &r);
    if (st == CLB_OK) st = l->finish(p->k == K_TO_CONTEXT ? l->twin : l->ctx);
    l->release(r);
    if (st != CLB_OK) fprintf(stderr, "bench_ab: %s: %s: %s\n", l->path, p->name, l->last_error());
    return st == CLB_OK ? 0 : -1;
}

void ab_teardown(ab_lib *l, ab_inst *t)
{
    l->release(t->a), l->release(t->b), l->release(t->c), l->release(t->o);
    memset(t, 0, sizeof *t);
}
