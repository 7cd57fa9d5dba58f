/* clb demo [--device SEL]: the broadcasting tutorials' examples, run on one
 * device and checked step by step against the host backend. */
#include "common.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* Tensor values on the host side                                            */
/* ======================================================================== */

/* A tensor's logical values, widened to double for printing and comparing
   (exact for every integer the demo uses). */
typedef struct vals {
    clb_dtype dtype;
    int ndim;
    int64_t shape[CLB_MAX_DIMS];
    int64_t n;
    double *v;
} vals;

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static double raw_get(clb_dtype t, const void *p, int64_t i)
{
    switch (t) {
    case CLB_BOOL: return ((const uint8_t *)p)[i] != 0;
    case CLB_INT8: return ((const int8_t *)p)[i];
    case CLB_UINT8: return ((const uint8_t *)p)[i];
    case CLB_INT16: return ((const int16_t *)p)[i];
    case CLB_UINT16: return ((const uint16_t *)p)[i];
    case CLB_INT32: return ((const int32_t *)p)[i];
    case CLB_UINT32: return ((const uint32_t *)p)[i];
    case CLB_INT64: return (double)((const int64_t *)p)[i];
    case CLB_UINT64: return (double)((const uint64_t *)p)[i];
    case CLB_FLOAT16: return half_to_double(((const uint16_t *)p)[i]);
    case CLB_FLOAT32: return ((const float *)p)[i];
    case CLB_FLOAT64: return ((const double *)p)[i];
    }
    return NAN;
}

static void vals_free(vals *v)
{
    free(v->v);
    v->v = NULL;
}

static int vals_alloc(vals *v, clb_dtype dtype, int ndim, const int64_t *shape)
{
    v->dtype = dtype;
    v->ndim = ndim;
    v->n = 1;
    for (int i = 0; i < ndim; i++) {
        v->shape[i] = shape[i];
        v->n *= shape[i];
    }
    v->v = malloc((size_t)(v->n ? v->n : 1) * sizeof *v->v);
    return v->v != NULL;
}

/* Reads t back with clb_tensor_to_host (on the device the tensor lives on). */
static clb_status fetch(const clb_tensor *t, vals *out)
{
    out->v = NULL;
    if (!vals_alloc(out, clb_tensor_dtype(t), clb_tensor_ndim(t), clb_tensor_shape(t)))
        return CLB_ERR_OUT_OF_MEMORY;
    size_t bytes = (size_t)out->n * clb_dtype_size(out->dtype);
    void *raw = malloc(bytes ? bytes : 1);
    if (!raw) {
        vals_free(out);
        return CLB_ERR_OUT_OF_MEMORY;
    }
    clb_status st = clb_tensor_to_host(t, raw, bytes);
    if (st == CLB_OK)
        for (int64_t i = 0; i < out->n; i++) out->v[i] = raw_get(out->dtype, raw, i);
    else
        vals_free(out);
    free(raw);
    return st;
}

/* Prints t as NumPy prints it (clb_tensor_format: numpy.array2string with
   separator ", "), after "  label (shape) dtype =": on the same line for 0-d
   and 1-d tensors, otherwise indented on the lines below. */
static void print_tensor(const char *label, const clb_tensor *t)
{
    int ndim = clb_tensor_ndim(t);
    printf("  %s %s %s =%s", label, shape_text(ndim, clb_tensor_shape(t)).s,
           clb_dtype_name(clb_tensor_dtype(t)), ndim > 1 ? "\n    " : " ");
    size_t need = 0;
    char *text = NULL;
    clb_status st = clb_tensor_format(t, NULL, 0, &need);
    if (st == CLB_OK && (text = malloc(need)) != NULL)
        st = clb_tensor_format(t, text, need, &need);
    if (st != CLB_OK || !text) {
        printf("(clb_tensor_format: %s)\n", clb_last_error());
        free(text);
        return;
    }
    for (const char *c = text; *c; c++) {
        putchar(*c);
        if (*c == '\n' && c[1] != '\n') printf("    ");
    }
    putchar('\n');
    free(text);
}

/* The same for values held on the host: uploaded to the host backend first. */
static void print_vals(const char *label, const vals *v, int64_t max_rows)
{
    (void)max_rows; /* clb_tensor_format summarises past 1000 elements, as NumPy */
    clb_context *host = NULL;
    clb_tensor *t = NULL, *c = NULL;
    if (clb_context_create("host", &host) == CLB_OK &&
        clb_tensor_from_host(host, CLB_FLOAT64, v->ndim, v->shape, v->v, &t) == CLB_OK &&
        clb_cast(t, v->dtype, &c) == CLB_OK)
        print_tensor(label, c);
    else
        printf("  %s: %s\n", label, clb_last_error());
    clb_tensor_release(t);
    clb_tensor_release(c);
    clb_context_release(host);
}

/* ======================================================================== */
/* Demo state, verdicts and the device-versus-host runner                    */
/* ======================================================================== */

static struct {
    clb_context *dev;  /* the chosen device */
    clb_context *host; /* the reference: the plain C backend */
    int dev_is_host;
    int dev_fp64; /* the device computes float64 (cl_khr_fp64, or the host backend) */
    int checks, failures, fallbacks;
} g;

static void section(const char *title)
{
    printf("\n== %s ==\n", title);
}

static void verdict(int ok, const char *fmt, ...)
{
    va_list ap;
    g.checks++;
    if (!ok) g.failures++;
    printf("  [%s] ", ok ? "OK" : "FAILED");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static void unexpected(const char *what, clb_status st)
{
    verdict(0, "%s -> %s: %s", what, clb_status_name(st), clb_last_error());
}

/* Data for a tensor the demo uploads; shape has room for every case here. */
typedef struct operand {
    clb_dtype dtype;
    int ndim;
    int64_t shape[4];
    const void *data;
} operand;

static clb_status upload(clb_context *ctx, const operand *o, clb_tensor **out)
{
    return clb_tensor_from_host(ctx, o->dtype, o->ndim, o->shape, o->data, out);
}

static vals operand_vals(const operand *o)
{
    vals v;
    if (vals_alloc(&v, o->dtype, o->ndim, o->shape))
        for (int64_t i = 0; i < v.n; i++) v.v[i] = raw_get(o->dtype, o->data, i);
    return v;
}

static void print_operand(const char *label, const operand *o, int64_t max_rows)
{
    vals v = operand_vals(o);
    if (v.v) print_vals(label, &v, max_rows);
    vals_free(&v);
}

/* One computed step: builds its inputs on ctx and computes a result there. */
typedef clb_status (*step_fn)(clb_context *ctx, const void *arg, clb_tensor **out);

/* Compares two results: same shape and dtype; integers and bools exactly,
   floats within a tolerance scaled to the data, since backends may sum in a
   different order. Prints the verdict. */
static void compare(const char *what, const vals *got, const vals *ref, const char *agrees)
{
    if (got->dtype != ref->dtype || got->ndim != ref->ndim ||
        memcmp(got->shape, ref->shape, (size_t)got->ndim * sizeof got->shape[0]) != 0) {
        verdict(0, "%s: device gives %s %s, host backend %s %s", what,
                shape_text(got->ndim, got->shape).s, clb_dtype_name(got->dtype),
                shape_text(ref->ndim, ref->shape).s, clb_dtype_name(ref->dtype));
        return;
    }
    double scale = 1.0;
    for (int64_t i = 0; i < ref->n; i++)
        if (fabs(ref->v[i]) > scale) scale = fabs(ref->v[i]);
    double tol = got->dtype == CLB_FLOAT16 ? 1e-2 : got->dtype == CLB_FLOAT32 ? 1e-4
                 : got->dtype == CLB_FLOAT64 ? 1e-10 : 0.0;
    double worst = 0.0;
    int64_t at = -1;
    for (int64_t i = 0; i < ref->n; i++) {
        double a = got->v[i], b = ref->v[i];
        if (isnan(a) && isnan(b)) continue;
        double d = a == b ? 0.0 : fabs(a - b);
        if (isnan(d)) d = INFINITY;
        if (d > worst) {
            worst = d;
            at = i;
        }
    }
    if (worst <= tol * scale)
        verdict(1, "%s %s", what, agrees);
    else
        verdict(0, "%s: differs from the host backend: max |diff| %g at flat index %" PRId64
                   " (device %g, host %g)", what, worst, at, got->v[at], ref->v[at]);
}

/* Checks a result computed on the chosen device against the host backend. */
static void check_vs_host(const char *what, const clb_tensor *got, step_fn fn, const void *arg)
{
    clb_tensor *ref = NULL;
    vals a = {0}, b = {0};
    clb_status st = fn(g.host, arg, &ref);
    if (st != CLB_OK) {
        unexpected("host backend", st);
        return;
    }
    if ((st = fetch(got, &a)) != CLB_OK)
        unexpected("clb_tensor_to_host", st);
    else if ((st = fetch(ref, &b)) != CLB_OK)
        unexpected("clb_tensor_to_host (host backend)", st);
    else
        compare(what, &a, &b,
                g.dev_is_host ? "matches a second host-backend run" : "matches the host backend");
    vals_free(&a);
    vals_free(&b);
    clb_tensor_release(ref);
}

/* Runs a step on the chosen device and checks it against the host backend.
   Where the device does not support an operation yet (CLB_ERR_UNSUPPORTED),
   says so and computes the step on the host backend instead. Returns the
   result (a new reference) or NULL after an unexpected error, reported. */
static clb_tensor *compute(const char *what, step_fn fn, const void *arg)
{
    clb_tensor *got = NULL;
    clb_status st = fn(g.dev, arg, &got);
    if (st == CLB_ERR_UNSUPPORTED && !g.dev_is_host) {
        printf("  note: %s -> CLB_ERR_UNSUPPORTED on this device; computed on the host backend\n"
               "        (%s)\n", what, clb_last_error());
        g.fallbacks++;
        st = fn(g.host, arg, &got);
        if (st != CLB_OK) {
            unexpected(what, st);
            return NULL;
        }
        return got;
    }
    if (st != CLB_OK) {
        unexpected(what, st);
        return NULL;
    }
    check_vs_host(what, got, fn, arg);
    return got;
}

/* Fetches and prints a result; NULL-safe so sections can chain after errors. */
static int show(const char *label, const clb_tensor *t, int64_t max_rows, vals *keep)
{
    vals v = {0};
    if (!t) return 0;
    clb_status st = fetch(t, &v);
    if (st != CLB_OK) {
        unexpected("clb_tensor_to_host", st);
        return 0;
    }
    (void)max_rows; /* clb_tensor_format summarises past 1000 elements, as NumPy */
    if (label) print_tensor(label, t);
    if (keep)
        *keep = v;
    else
        vals_free(&v);
    return 1;
}

/* Checks values against the ones the tutorial prints (or that follow from it by hand). */
static void expect_values(const char *source, const vals *v, const double *want, int64_t n)
{
    if (v->n != n) {
        verdict(0, "%" PRId64 " values, %s has %" PRId64, v->n, source, n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        if (v->v[i] != want[i]) {
            verdict(0, "flat index %" PRId64 " is %g, %s says %g", i, v->v[i], source, want[i]);
            return;
        }
    verdict(1, "values equal %s", source);
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        if ((st = (expr)) != CLB_OK) goto done;                                                    \
    } while (0)

/* ======================================================================== */
/* Steps                                                                      */
/* ======================================================================== */

typedef struct binop {
    int matmul; /* clb_matmul instead of clb_binary */
    clb_binary_op op;
    operand a, b;
} binop;

static clb_status step_binary(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const binop *c = arg;
    clb_tensor *a = NULL, *b = NULL;
    clb_status st;
    TRY(upload(ctx, &c->a, &a));
    TRY(upload(ctx, &c->b, &b));
    st = c->matmul ? clb_matmul(a, b, out) : clb_binary(c->op, a, b, out);
done:
    clb_tensor_release(a);
    clb_tensor_release(b);
    return st;
}

typedef struct shape_arg {
    operand x;
    int ndim;
    int64_t shape[4]; /* target shape, or repeat counts */
} shape_arg;

static clb_status step_broadcast_to(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const shape_arg *c = arg;
    clb_tensor *x = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    st = clb_broadcast_to(x, c->ndim, c->shape, out);
done:
    clb_tensor_release(x);
    return st;
}

static clb_status step_repeat(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const shape_arg *c = arg;
    clb_tensor *x = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    st = clb_repeat(x, c->ndim, c->shape, out);
done:
    clb_tensor_release(x);
    return st;
}

static clb_status step_sum_to_shape(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const shape_arg *c = arg;
    clb_tensor *x = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    st = clb_sum_to_shape(x, c->ndim, c->shape, out);
done:
    clb_tensor_release(x);
    return st;
}

typedef struct pair_arg {
    operand a, b;
    int which; /* which output of broadcast_tensors */
} pair_arg;

static clb_status step_broadcast_tensors(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const pair_arg *c = arg;
    clb_tensor *in[2] = {NULL, NULL}, *res[2] = {NULL, NULL};
    clb_status st;
    TRY(upload(ctx, &c->a, &in[0]));
    TRY(upload(ctx, &c->b, &in[1]));
    TRY(clb_broadcast_tensors(2, (const clb_tensor *const *)in, res));
    *out = res[c->which];
    res[c->which] = NULL;
done:
    clb_tensor_release(in[0]);
    clb_tensor_release(in[1]);
    clb_tensor_release(res[0]);
    clb_tensor_release(res[1]);
    return st;
}

typedef struct reduce_arg {
    operand x;
    clb_reduce_op op;
    int naxes;
    int axes[4];
    int keepdim;
    int subtract; /* return x - reduction instead of the reduction */
} reduce_arg;

static clb_status step_reduce(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const reduce_arg *c = arg;
    clb_tensor *x = NULL, *r = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    if (!c->subtract) {
        st = clb_reduce(c->op, x, c->naxes, c->axes, c->keepdim, out);
        goto done;
    }
    TRY(clb_reduce(c->op, x, c->naxes, c->axes, c->keepdim, &r));
    st = clb_binary(CLB_SUB, x, r, out);
done:
    clb_tensor_release(x);
    clb_tensor_release(r);
    return st;
}

/* Batch normalisation of x (B, C) with per-feature statistics (C,):
   x_hat = (x - mu) / sqrt(var + eps), written as a multiply by rsqrt. */
enum { BN_MEAN, BN_VAR, BN_XHAT };
typedef struct bn_arg {
    operand x;
    int which;
} bn_arg;

static clb_status step_batchnorm(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const bn_arg *c = arg;
    static const float eps_value = 1e-5f;
    static const int batch_axis[1] = {0};
    int64_t unused_shape[1] = {1};
    clb_tensor *x = NULL, *mu = NULL, *d = NULL, *sq = NULL, *var = NULL, *eps = NULL, *ve = NULL,
               *rs = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    TRY(clb_reduce(CLB_MEAN, x, 1, batch_axis, 0, &mu));
    if (c->which == BN_MEAN) {
        *out = mu;
        mu = NULL;
        goto done;
    }
    TRY(clb_binary(CLB_SUB, x, mu, &d));
    TRY(clb_binary(CLB_MUL, d, d, &sq));
    TRY(clb_reduce(CLB_MEAN, sq, 1, batch_axis, 0, &var));
    if (c->which == BN_VAR) {
        *out = var;
        var = NULL;
        goto done;
    }
    TRY(clb_tensor_from_host(ctx, CLB_FLOAT32, 0, unused_shape, &eps_value, &eps));
    TRY(clb_binary(CLB_ADD, var, eps, &ve));
    TRY(clb_unary(CLB_RSQRT, ve, &rs));
    st = clb_binary(CLB_MUL, d, rs, out);
done:
    clb_tensor_release(x);
    clb_tensor_release(mu);
    clb_tensor_release(d);
    clb_tensor_release(sq);
    clb_tensor_release(var);
    clb_tensor_release(eps);
    clb_tensor_release(ve);
    clb_tensor_release(rs);
    return st;
}

/* ======================================================================== */
/* Sections                                                                   */
/* ======================================================================== */

typedef struct shape_lit {
    int ndim;
    int64_t d[4];
} shape_lit;

typedef struct table_row {
    shape_lit a, b;
    int compatible;
    shape_lit want;
    const char *note;
} table_row;

static void shape_table(const char *title, const table_row *rows, int n)
{
    printf("\n  %s\n  %-8s %-16s %-14s    %s\n", title, "", "A", "B", "result");
    for (int i = 0; i < n; i++) {
        const table_row *r = &rows[i];
        const int ndims[2] = {r->a.ndim, r->b.ndim};
        const int64_t *const shapes[2] = {r->a.d, r->b.d};
        int out_ndim = -1;
        int64_t out_shape[CLB_MAX_DIMS];
        clb_status st = clb_broadcast_shapes(2, ndims, shapes, &out_ndim, out_shape);
        int ok;
        char result[600];
        if (st == CLB_OK) {
            ok = r->compatible && out_ndim == r->want.ndim &&
                 memcmp(out_shape, r->want.d, (size_t)out_ndim * sizeof out_shape[0]) == 0;
            snprintf(result, sizeof result, "%s", shape_text(out_ndim, out_shape).s);
        } else {
            ok = !r->compatible && st == CLB_ERR_SHAPE_MISMATCH && clb_last_error()[0];
            snprintf(result, sizeof result, "error: %s", clb_last_error());
        }
        g.checks++;
        if (!ok) g.failures++;
        printf("  %-8s %-16s %-14s -> %s\n", ok ? "[OK]" : "[FAILED]",
               shape_text(r->a.ndim, r->a.d).s, shape_text(r->b.ndim, r->b.d).s, result);
        if (r->note) printf("%46s%s\n", "", r->note);
        if (!ok)
            printf("%46sexpected %s\n", "",
                   r->compatible ? shape_text(r->want.ndim, r->want.d).s : "a shape mismatch error");
    }
}

static void demo_shape_tables(void)
{
    section("1. Which shapes broadcast (clb_broadcast_shapes, pure shape algebra)");
    printf("  Align shapes on the right; each pair of sizes must be equal or contain a 1;\n"
           "  the result takes the larger size. Every row is checked against the tutorial.\n");
    static const table_row seed_a[] = {
        {{2, {3, 4}}, {1, {4}}, 1, {2, {3, 4}}, NULL},
        {{2, {3, 4}}, {2, {3, 1}}, 1, {2, {3, 4}}, NULL},
        {{3, {2, 3, 4}}, {2, {3, 4}}, 1, {3, {2, 3, 4}}, NULL},
        {{3, {5, 1, 4}}, {3, {1, 3, 1}}, 1, {3, {5, 3, 4}}, NULL},
        {{2, {3, 4}}, {2, {4, 3}}, 0, {0, {0}}, NULL},
        {{2, {2, 3}}, {2, {2, 4}}, 0, {0, {0}}, NULL},
    };
    static const table_row seed_b[] = {
        {{1, {3}}, {1, {3}}, 1, {1, {3}}, NULL},
        {{2, {3, 4}}, {1, {4}}, 1, {2, {3, 4}}, NULL},
        {{2, {3, 1}}, {2, {1, 4}}, 1, {2, {3, 4}}, NULL},
        {{3, {2, 3, 4}}, {2, {3, 4}}, 1, {3, {2, 3, 4}}, NULL},
        {{3, {2, 3, 4}}, {3, {1, 1, 4}}, 1, {3, {2, 3, 4}}, NULL},
        {{2, {3, 4}}, {2, {3, 5}}, 0, {0, {0}}, NULL},
        {{2, {2, 3}}, {1, {2}}, 0, {0, {0}}, NULL},
        {{3, {2, 3, 4}}, {2, {2, 4}}, 0, {0, {0}}, NULL},
    };
    static const table_row seed_c[] = {
        {{0, {0}}, {2, {3, 4}}, 1, {2, {3, 4}}, NULL},
        {{1, {3}}, {2, {4, 3}}, 1, {2, {4, 3}}, NULL},
        {{4, {5, 1, 4, 1}}, {3, {3, 1, 1}}, 1, {4, {5, 3, 4, 1}}, NULL},
        {{2, {5, 4}}, {1, {3}}, 0, {0, {0}}, NULL},
        {{2, {3, 1}}, {1, {2}}, 1, {2, {3, 2}},
         "(the tutorial's comment expects a failure here; NumPy and PyTorch give (3, 2))"},
        {{4, {10, 3, 32, 32}}, {1, {3}}, 0, {0, {0}}, "(mean without keepdim: see section 10)"},
        {{4, {10, 3, 32, 32}}, {4, {1, 3, 1, 1}}, 1, {4, {10, 3, 32, 32}}, NULL},
        {{4, {100, 3, 32, 32}}, {3, {3, 1, 1}}, 1, {4, {100, 3, 32, 32}}, NULL},
    };
    shape_table("Table from \"28.20 Broadcasting rules and the expansion mechanism\":", seed_a,
                (int)(sizeof seed_a / sizeof seed_a[0]));
    shape_table("Table from \"Broadcasting rules\" (compatible / incompatible):", seed_b,
                (int)(sizeof seed_b / sizeof seed_b[0]));
    shape_table("Further cases from the tutorials' code:", seed_c,
                (int)(sizeof seed_c / sizeof seed_c[0]));
}

static void demo_scalar(void)
{
    section("2. A 0-d tensor broadcasts to anything: [1, 2, 3] + 2");
    static const int64_t a[] = {1, 2, 3}, b[] = {2};
    const binop c = {0, CLB_ADD, {CLB_INT64, 1, {3}, a}, {CLB_INT64, 0, {0}, b}};
    print_operand("a", &c.a, 8);
    print_operand("b", &c.b, 8);
    clb_tensor *r = compute("a + b", step_binary, &c);
    vals v;
    if (show("a + b", r, 8, &v)) {
        static const double want[] = {3, 4, 5};
        expect_values("the tutorial's tensor([3, 4, 5])", &v, want, 3);
        vals_free(&v);
    }
    clb_tensor_release(r);
}

static void demo_row_vector(void)
{
    section("3. (4, 3) + (3,): B is added to every row of A");
    static const float ones[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, b[] = {10, 20, 30};
    const binop c = {0, CLB_ADD, {CLB_FLOAT32, 2, {4, 3}, ones}, {CLB_FLOAT32, 1, {3}, b}};
    print_operand("A = ones", &c.a, 8);
    print_operand("B", &c.b, 8);
    printf("  rule 1: B (3,) -> (1, 3); rule 2: (1, 3) -> (4, 3)\n");
    clb_tensor *r = compute("A + B", step_binary, &c);
    vals v;
    if (show("A + B", r, 8, &v)) {
        static const double want[] = {11, 21, 31, 11, 21, 31, 11, 21, 31, 11, 21, 31};
        expect_values("the tutorial's printed matrix", &v, want, 12);
        vals_free(&v);
    }
    clb_tensor_release(r);
}

static void demo_outer(void)
{
    section("4. (3, 1) + (1, 4): both sides expand (the outer-product pattern)");
    static const int64_t a[] = {1, 2, 3}, b[] = {10, 20, 30, 40};
    const binop c = {0, CLB_ADD, {CLB_INT64, 2, {3, 1}, a}, {CLB_INT64, 2, {1, 4}, b}};
    print_operand("A", &c.a, 8);
    print_operand("B", &c.b, 8);
    clb_tensor *r = compute("A + B", step_binary, &c);
    vals v;
    if (show("A + B", r, 8, &v)) {
        static const double want[] = {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43};
        expect_values("the tutorial's printed matrix", &v, want, 12);
        vals_free(&v);
    }
    clb_tensor_release(r);
}

static void demo_four_dims(void)
{
    section("5. (5, 1, 4, 1) * (3, 1, 1) -> (5, 3, 4, 1)");
    static float a[20], b[3] = {1, 10, 100};
    for (int i = 0; i < 20; i++) a[i] = (float)i;
    const binop c = {0, CLB_MUL, {CLB_FLOAT32, 4, {5, 1, 4, 1}, a}, {CLB_FLOAT32, 3, {3, 1, 1}, b}};
    printf("  A = arange(20) as (5, 1, 4, 1); B = [1, 10, 100] as (3, 1, 1)\n"
           "  B is padded to (1, 3, 1, 1); dims: 5 vs 1 -> 5, 1 vs 3 -> 3, 4 vs 1 -> 4, 1 vs 1 -> 1\n");
    clb_tensor *r = compute("A * B", step_binary, &c);
    vals v;
    if (show(NULL, r, 0, &v)) {
        printf("  A * B %s; result[:2, ..., 0]:\n", shape_text(v.ndim, v.shape).s);
        clb_tensor *first = NULL, *flat = NULL;
        const int64_t block[3] = {5, 3, 4};
        if (clb_reshape(r, 3, block, &flat) == CLB_OK && clb_slice(flat, 0, 0, 2, 1, &first) == CLB_OK)
            print_tensor("result[:2, ..., 0]", first);
        clb_tensor_release(first);
        clb_tensor_release(flat);
        double want[60];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 4; k++) want[(i * 3 + j) * 4 + k] = a[i * 4 + k] * b[j];
        if (v.ndim != 4 || v.shape[0] != 5 || v.shape[1] != 3 || v.shape[2] != 4 || v.shape[3] != 1)
            verdict(0, "shape %s, expected (5, 3, 4, 1)", shape_text(v.ndim, v.shape).s);
        else
            expect_values("A[i, 0, k, 0] * B[j, 0, 0] for every (i, j, k)", &v, want, 60);
        vals_free(&v);
    }
    clb_tensor_release(r);
}

/* Prints a view's shape, strides and whether it allocated anything. */
static void describe_view(const char *label, const clb_tensor *view, const clb_tensor *base,
                          size_t mem_before)
{
    size_t mem_after = clb_memory_allocated(g.dev);
    printf("  %s: shape %s, strides %s (elements), shares storage: %s, allocated: +%s bytes\n",
           label, tensor_shape_text(view).s, tensor_strides_text(view).s,
           clb_tensor_shares_storage(view, base) ? "yes" : "no",
           count_text(mem_after - mem_before).s);
    int zero_copy = mem_after == mem_before && clb_tensor_shares_storage(view, base);
    verdict(zero_copy, "%s is a zero-copy view", label);
}

static void demo_views(void)
{
    section("6. broadcast_to and broadcast_tensors: views with stride 0, no copies");
    clb_status st;
    clb_tensor *t = NULL, *bt = NULL, *a = NULL, *c = NULL, *res[2] = {NULL, NULL};
    vals v = {0};

    static const int64_t t_data[] = {1, 2, 3};
    const shape_arg to = {{CLB_INT64, 1, {3}, t_data}, 2, {2, 3}};
    print_operand("t", &to.x, 8);
    TRY(upload(g.dev, &to.x, &t));
    size_t before = clb_memory_allocated(g.dev);
    TRY(clb_broadcast_to(t, to.ndim, to.shape, &bt));
    describe_view("broadcast_to(t, (2, 3))", bt, t, before);
    if (show("broadcast_to(t, (2, 3))", bt, 8, &v)) {
        static const double want[] = {1, 2, 3, 1, 2, 3};
        expect_values("the tutorial's [[1, 2, 3], [1, 2, 3]]", &v, want, 6);
        vals_free(&v);
    }
    check_vs_host("broadcast_to read back", bt, step_broadcast_to, &to);

    static const int64_t a_data[] = {1, 2, 3}, c_data[] = {7, 8, 9};
    pair_arg pa = {{CLB_INT64, 2, {3, 1}, a_data}, {CLB_INT64, 1, {3}, c_data}, 0};
    print_operand("a", &pa.a, 8);
    print_operand("c", &pa.b, 8);
    TRY(upload(g.dev, &pa.a, &a));
    TRY(upload(g.dev, &pa.b, &c));
    before = clb_memory_allocated(g.dev);
    const clb_tensor *in[2] = {a, c};
    TRY(clb_broadcast_tensors(2, in, res));
    describe_view("broadcast_tensors(a, c)[0]", res[0], a, before);
    describe_view("broadcast_tensors(a, c)[1]", res[1], c, before);
    static const double want0[] = {1, 1, 1, 2, 2, 2, 3, 3, 3}, want1[] = {7, 8, 9, 7, 8, 9, 7, 8, 9};
    for (int i = 0; i < 2; i++) {
        pa.which = i;
        if (show(i ? "c broadcast" : "a broadcast", res[i], 8, &v)) {
            expect_values(i ? "c's row repeated three times" : "a's column repeated three times", &v,
                          i ? want1 : want0, 9);
            vals_free(&v);
        }
        check_vs_host(i ? "broadcast_tensors[1] read back" : "broadcast_tensors[0] read back", res[i],
                      step_broadcast_tensors, &pa);
    }
done:
    if (st != CLB_OK) unexpected("views", st);
    clb_tensor_release(t);
    clb_tensor_release(bt);
    clb_tensor_release(a);
    clb_tensor_release(c);
    clb_tensor_release(res[0]);
    clb_tensor_release(res[1]);
}

static void demo_expand_vs_repeat(void)
{
    section("7. expand versus repeat: what each costs in memory (clb_memory_allocated)");
    clb_status st;
    clb_tensor *t = NULL, *e = NULL, *r = NULL;
    static float t_data[256];
    for (int i = 0; i < 256; i++) t_data[i] = (float)i * 0.5f;
    const int64_t big[4] = {32, 256, 224, 224};
    const shape_arg rep = {{CLB_FLOAT32, 4, {1, 256, 1, 1}, t_data}, 4, {32, 1, 8, 8}};

    size_t base = clb_memory_allocated(g.dev);
    TRY(upload(g.dev, &rep.x, &t));
    size_t m0 = clb_memory_allocated(g.dev);
    printf("  t = (1, 256, 1, 1) float32: %s bytes allocated\n", count_text(m0 - base).s);

    TRY(clb_expand(t, 4, big, &e));
    size_t m1 = clb_memory_allocated(g.dev);
    printf("  expand(t, (32, 256, 224, 224)): %s -> %s bytes (+%s), strides %s\n",
           count_text(m0).s, count_text(m1).s, count_text(m1 - m0).s, tensor_strides_text(e).s);
    verdict(m1 == m0 && clb_tensor_shares_storage(e, t), "expand allocated 0 bytes");
    uint64_t full = (uint64_t)clb_tensor_numel(e) * sizeof(float);
    printf("  repeat(t, 32, 1, 224, 224) would need %s elements x 4 = %s bytes (%.2f GB, %.2f GiB);\n"
           "  not allocated here. (repeat takes counts per dimension, not the target shape.)\n",
           count_text((uint64_t)clb_tensor_numel(e)).s, count_text(full).s, (double)full / 1e9,
           (double)full / (1024.0 * 1024.0 * 1024.0));

    TRY(clb_repeat(t, rep.ndim, rep.shape, &r));
    size_t m2 = clb_memory_allocated(g.dev);
    uint64_t want = (uint64_t)clb_tensor_numel(r) * sizeof(float);
    printf("  repeat(t, 32, 1, 8, 8) -> %s: %s -> %s bytes (+%s)\n", tensor_shape_text(r).s,
           count_text(m1).s, count_text(m2).s, count_text(m2 - m1).s);
    verdict(m2 - m1 == want, "repeat allocated exactly numel x 4 = %s bytes", count_text(want).s);
    check_vs_host("repeat", r, step_repeat, &rep);

    clb_tensor_release(r);
    r = NULL;
    clb_tensor_release(e);
    e = NULL;
    clb_tensor_release(t);
    t = NULL;
    size_t m3 = clb_memory_allocated(g.dev);
    verdict(m3 == base, "after releasing all three: %s bytes, as before", count_text(m3).s);
done:
    if (st != CLB_OK) unexpected("expand/repeat", st);
    clb_tensor_release(t);
    clb_tensor_release(e);
    clb_tensor_release(r);
}

static void demo_mismatch(void)
{
    section("8. (3, 4) + (2, 4): incompatible shapes");
    static const float a[12] = {0}, b[8] = {0};
    const binop c = {0, CLB_ADD, {CLB_FLOAT32, 2, {3, 4}, a}, {CLB_FLOAT32, 2, {2, 4}, b}};
    static const char want[] =
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0";
    clb_tensor *out = NULL;
    clb_status st = step_binary(g.dev, &c, &out);
    if (st == CLB_ERR_UNSUPPORTED && !g.dev_is_host) {
        printf("  note: a + b -> CLB_ERR_UNSUPPORTED on this device; asking the host backend\n"
               "        (%s)\n", clb_last_error());
        g.fallbacks++;
        st = step_binary(g.host, &c, &out);
    }
    printf("  clb_binary(CLB_ADD, a, b) -> %s\n  clb_last_error(): \"%s\"\n", clb_status_name(st),
           clb_last_error());
    /* The message names the function first ("clb_binary: "), then PyTorch's text. */
    verdict(st == CLB_ERR_SHAPE_MISMATCH && out == NULL && strstr(clb_last_error(), want) != NULL,
            "CLB_ERR_SHAPE_MISMATCH, *out == NULL, PyTorch's message");
    clb_tensor_release(out);
}

/* Deterministic pseudo-random floats in [0, 1), so every run shows the same numbers. */
static uint32_t rng_state = 12345u;
static float urand(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}

static void demo_images(void)
{
    section("9. Images (100, 3, 32, 32) minus a per-channel mean (3, 1, 1)");
    enum { N = 100, C = 3, H = 32, W = 32 };
    float *img = malloc(sizeof(float) * N * C * H * W);
    static const float mean[3] = {0.485f, 0.456f, 0.406f};
    if (!img) {
        unexpected("malloc", CLB_ERR_OUT_OF_MEMORY);
        return;
    }
    for (int i = 0; i < N * C * H * W; i++) img[i] = urand();
    const binop c = {0, CLB_SUB, {CLB_FLOAT32, 4, {N, C, H, W}, img}, {CLB_FLOAT32, 3, {C, 1, 1}, mean}};
    print_operand("mean", &c.b, 8);
    clb_tensor *r = compute("images - mean", step_binary, &c);
    vals v;
    if (show(NULL, r, 0, &v)) {
        printf("  images - mean -> %s %s\n", shape_text(v.ndim, v.shape).s, clb_dtype_name(v.dtype));
        printf("  pixel (0, :, 0, 0): ");
        for (int ch = 0; ch < C; ch++)
            printf("%s%.4f - %.4f = %.4f", ch ? ", " : "", img[ch * H * W], mean[ch], v.v[ch * H * W]);
        putchar('\n');
        /* float32 minus float32 is one correctly rounded subtraction on every backend. */
        double *want = malloc(sizeof(double) * N * C * H * W);
        if (want) {
            for (int i = 0; i < N * C * H * W; i++) want[i] = (float)(img[i] - mean[(i / (H * W)) % C]);
            expect_values("images[n, c, h, w] - mean[c] for every element", &v, want, N * C * H * W);
            free(want);
        } else {
            unexpected("malloc", CLB_ERR_OUT_OF_MEMORY);
        }
        vals_free(&v);
    }
    clb_tensor_release(r);
    free(img);
}

static void demo_keepdim(void)
{
    section("10. keepdim: a per-channel mean over (0, 2, 3) that broadcasts back");
    enum { N = 10, C = 3, H = 32, W = 32 };
    float *data = malloc(sizeof(float) * N * C * H * W);
    if (!data) {
        unexpected("malloc", CLB_ERR_OUT_OF_MEMORY);
        return;
    }
    /* Channel c holds values around c + 0.5, so the means are easy to read. */
    for (int i = 0; i < N * C * H * W; i++) data[i] = (float)((i / (H * W)) % C) + urand();
    reduce_arg ra = {{CLB_FLOAT32, 4, {N, C, H, W}, data}, CLB_MEAN, 3, {0, 2, 3}, 0, 0};
    printf("  data (10, 3, 32, 32) float32, channel c uniform in [c, c + 1)\n");
    clb_tensor *wrong = compute("mean(data, dim=(0, 2, 3))", step_reduce, &ra);
    show("mean without keepdim", wrong, 8, NULL);
    ra.keepdim = 1;
    clb_tensor *right = compute("mean(data, dim=(0, 2, 3), keepdim=True)", step_reduce, &ra);
    show("mean with keepdim", right, 8, NULL);
    if (right)
        verdict(clb_tensor_ndim(right) == 4 && clb_tensor_shape(right)[0] == 1 &&
                    clb_tensor_shape(right)[1] == 3 && clb_tensor_shape(right)[2] == 1 &&
                    clb_tensor_shape(right)[3] == 1,
                "keepdim mean has shape (1, 3, 1, 1)");
    printf("  without keepdim, (10, 3, 32, 32) - (3,) would align 3 with W = 32: a shape\n"
           "  mismatch (section 1). With keepdim, (1, 3, 1, 1) lines up with the channels.\n");
    ra.subtract = 1;
    clb_tensor *centred = compute("data - mean(keepdim=True)", step_reduce, &ra);
    vals v;
    if (show(NULL, centred, 0, &v)) {
        double sum[C] = {0};
        for (int64_t i = 0; i < v.n; i++) sum[(i / (H * W)) % C] += v.v[i];
        printf("  data - mean -> %s; per-channel mean afterwards: %.2e, %.2e, %.2e\n",
               shape_text(v.ndim, v.shape).s, sum[0] / (N * H * W), sum[1] / (N * H * W),
               sum[2] / (N * H * W));
        int ok = 1;
        for (int ch = 0; ch < C; ch++) ok &= fabs(sum[ch] / (N * H * W)) < 1e-4;
        verdict(ok, "every channel is centred");
        vals_free(&v);
    }
    clb_tensor_release(wrong);
    clb_tensor_release(right);
    clb_tensor_release(centred);
    free(data);
}

static void demo_batchnorm(void)
{
    section("11. Batch normalisation: x (128, 10) with statistics of shape (10,)");
    enum { B = 128, C = 10 };
    static float x[B * C];
    /* Feature c: offset c, spread growing with c, so each needs its own statistics. */
    for (int b = 0; b < B; b++)
        for (int ch = 0; ch < C; ch++) x[b * C + ch] = (float)ch + (float)(ch + 1) * urand();
    bn_arg ba = {{CLB_FLOAT32, 2, {B, C}, x}, BN_MEAN};
    printf("  x_hat = (x - mu) / sqrt(var + 1e-5); mu and var (10,) broadcast to (128, 10)\n");
    clb_tensor *mu = compute("mu = mean(x, dim=0)", step_batchnorm, &ba);
    show("mu", mu, 8, NULL);
    ba.which = BN_VAR;
    clb_tensor *var = compute("var = mean((x - mu)^2, dim=0)", step_batchnorm, &ba);
    show("var", var, 8, NULL);
    ba.which = BN_XHAT;
    clb_tensor *xhat = compute("x_hat", step_batchnorm, &ba);
    vals v;
    if (show(NULL, xhat, 0, &v)) {
        double worst_mean = 0, worst_var = 0;
        for (int ch = 0; ch < C; ch++) {
            double s = 0, s2 = 0;
            for (int b = 0; b < B; b++) s += v.v[b * C + ch];
            for (int b = 0; b < B; b++) s2 += (v.v[b * C + ch] - s / B) * (v.v[b * C + ch] - s / B);
            worst_mean = fmax(worst_mean, fabs(s / B));
            worst_var = fmax(worst_var, fabs(s2 / B - 1.0));
        }
        printf("  x_hat -> %s; per feature: max |mean| %.1e, max |var - 1| %.1e\n",
               shape_text(v.ndim, v.shape).s, worst_mean, worst_var);
        verdict(worst_mean < 1e-4 && worst_var < 1e-3, "every feature has mean 0 and variance 1");
        vals_free(&v);
    }
    clb_tensor_release(mu);
    clb_tensor_release(var);
    clb_tensor_release(xhat);
}

static void demo_backward(void)
{
    section("12. The backward of z = x + y: sum_to_shape reduces the broadcast axes");
    static const float xv[3] = {1, 2, 3}, yv[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    static float w[24];
    for (int i = 0; i < 24; i++) w[i] = (float)i;
    const binop z = {0, CLB_ADD, {CLB_FLOAT32, 2, {3, 1}, xv}, {CLB_FLOAT32, 3, {2, 1, 4}, yv}};
    clb_tensor *zt = compute("z = x + y", step_binary, &z);
    if (zt) printf("  x (3, 1) + y (2, 1, 4) -> z %s\n", tensor_shape_text(zt).s);
    printf("  upstream gradient dL/dz = arange(24) as (2, 3, 4) (L = sum(w * z))\n");

    const shape_arg gx = {{CLB_FLOAT32, 3, {2, 3, 4}, w}, 2, {3, 1}};
    const shape_arg gy = {{CLB_FLOAT32, 3, {2, 3, 4}, w}, 3, {2, 1, 4}};
    clb_tensor *dx = compute("sum_to_shape(dL/dz, (3, 1))", step_sum_to_shape, &gx);
    clb_tensor *dy = compute("sum_to_shape(dL/dz, (2, 1, 4))", step_sum_to_shape, &gy);
    vals v;
    if (show("dL/dx", dx, 8, &v)) {
        /* dL/dx[j] = sum over i, k of (12 i + 4 j + k) = 60 + 32 j */
        static const double want[] = {60, 92, 124};
        expect_values("the sum over the broadcast axes 0 and 2", &v, want, 3);
        vals_free(&v);
    }
    if (show("dL/dy", dy, 8, &v)) {
        /* dL/dy[i, k] = sum over j of (12 i + 4 j + k) = 36 i + 12 + 3 k */
        static const double want[] = {12, 15, 18, 21, 48, 51, 54, 57};
        expect_values("the sum over the broadcast axis 1", &v, want, 8);
        vals_free(&v);
    }
    clb_tensor_release(zt);
    clb_tensor_release(dx);
    clb_tensor_release(dy);
}

static void demo_matmul(void)
{
    section("13. Broadcast batched matmul: (2, 1, 5, 6) @ (3, 6, 7) -> (2, 3, 5, 7)");
    static float a[2 * 5 * 6], b[3 * 6 * 7];
    /* Small integers, so float32 products are exact on every backend. */
    for (int i = 0; i < 2 * 5 * 6; i++) a[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < 3 * 6 * 7; i++) b[i] = (float)((i * 5) % 9 - 4);
    const binop c = {1, CLB_ADD, {CLB_FLOAT32, 4, {2, 1, 5, 6}, a}, {CLB_FLOAT32, 3, {3, 6, 7}, b}};
    printf("  batch dims (2, 1) and (3,) broadcast to (2, 3); each product is (5, 6) @ (6, 7)\n");
    clb_tensor *r = compute("a @ b", step_binary, &c);
    vals v;
    if (show(NULL, r, 0, &v)) {
        printf("  a @ b -> %s %s; block [1, 2] = a[1, 0] @ b[2]:\n", shape_text(v.ndim, v.shape).s,
               clb_dtype_name(v.dtype));
        clb_tensor *row = NULL, *block = NULL;
        if (v.n == 2 * 3 * 5 * 7 && clb_slice(r, 0, 1, 2, 1, &row) == CLB_OK &&
            clb_slice(row, 1, 2, 3, 1, &block) == CLB_OK)
            print_tensor("(a @ b)[1:2, 2:3]", block);
        clb_tensor_release(row);
        clb_tensor_release(block);
        double want[2 * 3 * 5 * 7];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                for (int m = 0; m < 5; m++)
                    for (int n = 0; n < 7; n++) {
                        double s = 0;
                        for (int k = 0; k < 6; k++) s += a[(i * 5 + m) * 6 + k] * b[(j * 6 + k) * 7 + n];
                        want[((i * 3 + j) * 5 + m) * 7 + n] = s;
                    }
        expect_values("a plain triple loop", &v, want, 2 * 3 * 5 * 7);
        vals_free(&v);
    }
    clb_tensor_release(r);
}

/* std normalisation with clb_std, and a batched product written as einsum. */
typedef struct stats_arg {
    operand a, b;
    int which; /* 0: std(x, dim=0), 1: (x - mean) / std, 2: einsum("bij,bjk->bik", a, b) */
} stats_arg;

static clb_status step_stats(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const stats_arg *c = arg;
    static const int batch_axis[1] = {0};
    clb_tensor *x = NULL, *y = NULL, *mu = NULL, *sd = NULL;
    clb_status st;
    TRY(upload(ctx, &c->a, &x));
    if (c->which == 2) {
        TRY(upload(ctx, &c->b, &y));
        const clb_tensor *ops[2] = {x, y};
        st = clb_einsum("bij,bjk->bik", 2, ops, out);
        goto done;
    }
    TRY(clb_std(x, 1, batch_axis, 0, 0, &sd));
    if (c->which == 0) {
        *out = sd;
        sd = NULL;
        goto done;
    }
    TRY(clb_reduce(CLB_MEAN, x, 1, batch_axis, 0, &mu));
    const char *names[3] = {"x", "mu", "sd"};
    const clb_tensor *in[3] = {x, mu, sd};
    st = clb_eval(ctx, "(x - mu) / sd", 3, names, in, out);
done:
    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_tensor_release(mu);
    clb_tensor_release(sd);
    return st;
}

static void demo_stats(void)
{
    section("15. The seeds' std normalisation (clb_std) and einsum(\"bij,bjk->bik\")");
    enum { B = 64, C = 6 };
    static float x[B * C];
    for (int b = 0; b < B; b++)
        for (int ch = 0; ch < C; ch++) x[b * C + ch] = (float)(10 * ch) + (float)(ch + 1) * urand();
    stats_arg sa = {{CLB_FLOAT32, 2, {B, C}, x}, {0}, 0};
    clb_tensor *sd = compute("sd = std(x, dim=0)", step_stats, &sa);
    show("sd", sd, 8, NULL);
    sa.which = 1;
    clb_tensor *z = compute("(x - mean(x, dim=0)) / std(x, dim=0)", step_stats, &sa);
    vals v;
    if (show(NULL, z, 0, &v)) {
        double worst = 0;
        for (int ch = 0; ch < C; ch++) {
            double s = 0, s2 = 0;
            for (int b = 0; b < B; b++) s += v.v[b * C + ch];
            for (int b = 0; b < B; b++) s2 += (v.v[b * C + ch] - s / B) * (v.v[b * C + ch] - s / B);
            worst = fmax(worst, fmax(fabs(s / B), fabs(s2 / B - 1.0)));
        }
        verdict(worst < 1e-4, "every feature has mean 0 and standard deviation 1 (worst %.1e)",
                worst);
        vals_free(&v);
    }
    static float a[3 * 4 * 5], b[3 * 5 * 2];
    for (int i = 0; i < 3 * 4 * 5; i++) a[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < 3 * 5 * 2; i++) b[i] = (float)((i * 5) % 9 - 4);
    stats_arg ea = {{CLB_FLOAT32, 3, {3, 4, 5}, a}, {CLB_FLOAT32, 3, {3, 5, 2}, b}, 2};
    clb_tensor *e = compute("einsum(\"bij,bjk->bik\", a, b)", step_stats, &ea);
    if (show(NULL, e, 0, &v)) {
        double want[3 * 4 * 2];
        for (int bb = 0; bb < 3; bb++)
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 2; k++) {
                    double s = 0;
                    for (int j = 0; j < 5; j++) s += a[(bb * 4 + i) * 5 + j] * b[(bb * 5 + j) * 2 + k];
                    want[(bb * 4 + i) * 2 + k] = s;
                }
        printf("  einsum -> %s (a batched matmul through clb_matmul)\n", shape_text(v.ndim, v.shape).s);
        expect_values("a plain triple loop", &v, want, 3 * 4 * 2);
        vals_free(&v);
    }
    clb_tensor_release(sd);
    clb_tensor_release(z);
    clb_tensor_release(e);
}

/* The float16/float64 policy (docs/platforms.md, "Every OpenCL implementation"): float16
   everywhere; float64, and NumPy's rules that produce it from integers,
   computed where the device has it and refused with CLB_ERR_DTYPE elsewhere. */
static void demo_dtypes(void)
{
    section("14. float16 on every device; float64 where the device has it");
    static const uint16_t h[] = {0x3c00, 0x4000, 0x3800}; /* 1, 2, 0.5 */
    static const int32_t i[] = {1, 2, 7}, two[] = {2};
    const binop half = {0, CLB_MUL, {CLB_FLOAT16, 1, {3}, h}, {CLB_FLOAT16, 1, {3}, h}};
    print_operand("h", &half.a, 8);
    clb_tensor *r = compute("h * h (float16, computed in float32)", step_binary, &half);
    vals v;
    if (show("h * h", r, 8, &v)) {
        static const double want[] = {1, 4, 0.25};
        expect_values("[1, 4, 0.25]", &v, want, 3);
        vals_free(&v);
    }
    clb_tensor_release(r);

    const binop div = {0, CLB_DIV, {CLB_INT32, 1, {3}, i}, {CLB_INT32, 1, {1}, two}};
    print_operand("i", &div.a, 8);
    if (g.dev_fp64) {
        printf("  int32 / int32 is true division, float64 as in NumPy; this device computes it\n");
        r = compute("i / 2", step_binary, &div);
        if (show("i / 2", r, 8, &v)) {
            static const double want[] = {0.5, 1, 3.5};
            expect_values("NumPy's [0.5, 1., 3.5] (float64)", &v, want, 3);
            vals_free(&v);
        }
        clb_tensor_release(r);
        return;
    }
    printf("  int32 / int32 is true division, float64 as in NumPy; this device has no float64:\n");
    r = NULL;
    clb_status st = step_binary(g.dev, &div, &r);
    printf("  i / 2 -> %s: %s\n", clb_status_name(st), clb_last_error());
    verdict(st == CLB_ERR_DTYPE && r == NULL && strstr(clb_last_error(), "float64"),
            "refused with CLB_ERR_DTYPE naming float64 (no silent float32 result)");
    clb_tensor_release(r);
}

/* ---- 16. made, drawn and printed on the device ---------------------------- */

/* One step of section 16, by number: made on the device, a view, functions. */
static clb_status step_everyday(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const int which = *(const int *)arg;
    const int64_t s34[2] = {3, 4}, s24[2] = {2, 4}, s23[2] = {2, 3}, big[2] = {1000, 1000};
    const clb_scalar v = {.kind = CLB_SCALAR_FLOAT, .f = 7.5};
    clb_tensor *x = NULL, *y = NULL;
    clb_status st = CLB_OK;
    const char *names[1] = {"x"};
    *out = NULL;
    switch (which) {
    case 0: return clb_full(ctx, CLB_FLOAT32, 2, s34, v, out);
    case 1: return clb_arange(ctx, CLB_INT32, 0, 10, 3, out);
    case 2: return clb_linspace(ctx, CLB_FLOAT32, 0, 1, 5, 1, out);
    case 3: return clb_random_uniform(ctx, CLB_FLOAT32, 2, s24, 42, 0, 0, 1, out);
    case 4: return clb_random_normal(ctx, CLB_FLOAT32, 2, big, 42, 0, 0, 1, out);
    case 5:
        TRY(clb_arange(ctx, CLB_INT64, 0, 6, 1, &x));
        TRY(clb_reshape(x, 2, s23, &y));
        TRY(clb_swapaxes(y, 0, -1, out));
        break;
    default:
        TRY(clb_linspace(ctx, CLB_FLOAT32, -2, 2, 5, 1, &x));
        TRY(clb_eval(ctx, which == 6 ? "sign(x) * square(x) + logaddexp(x, 0)" : "isfinite(1 / x)",
                     1, names, (const clb_tensor *const *)&x, out));
        break;
    }
done:
    clb_tensor_release(x);
    clb_tensor_release(y);
    return st;
}

static void demo_everyday(void)
{
    section("16. Made, drawn and printed on the device; the array API's functions");
    printf("  clb_full / clb_arange / clb_linspace write with a kernel (no upload);\n"
           "  clb_random_* are Philox4x32-10 streams, the same values on every device;\n"
           "  every tensor here prints with clb_tensor_format (numpy.array2string).\n");
    static const char *const what[] = {
        "full((3, 4), 7.5)", "arange(0, 10, 3, int32)", "linspace(0, 1, 5)",
        "random_uniform((2, 4), seed 42)", "random_normal((1000, 1000), seed 42)",
        "swapaxes(arange(6).reshape(2, 3), 0, -1)", "sign(x) * square(x) + logaddexp(x, 0)",
        "isfinite(1 / x)"};
    for (int i = 0; i < 8; i++) {
        if (i == 6) printf("  x = linspace(-2, 2, 5):\n");
        clb_tensor *r = compute(what[i], step_everyday, &i);
        show(what[i], r, 0, NULL);
        clb_tensor_release(r);
    }
}

/* k-nearest neighbours without leaving the device: squared distances by a
   broadcast reduction (no (N, M, D) intermediate), the k smallest per query
   with clb_topk, and the neighbours' rows fetched with clb_take. */
typedef struct knn_arg {
    operand x, y; /* queries (N, 1, D), database (M, D) */
    int64_t k;
    int which; /* 0: distances of the k nearest, 1: their indices, 2: their rows */
} knn_arg;

static clb_status step_knn(clb_context *ctx, const void *arg, clb_tensor **out)
{
    const knn_arg *c = arg;
    clb_tensor *x = NULL, *y = NULL, *d = NULL, *dist = NULL, *idx = NULL;
    clb_status st;
    TRY(upload(ctx, &c->x, &x));
    TRY(upload(ctx, &c->y, &y));
    const char *names[2] = {"x", "y"};
    const clb_tensor *in[2] = {x, y};
    static const int last[1] = {-1};
    TRY(clb_eval_reduce(ctx, "(x - y) ** 2", 2, names, in, CLB_SUM, 1, last, 0, &d));
    TRY(clb_topk(d, c->k, 1, 0, &dist, &idx));
    if (c->which == 0) {
        *out = dist;
        dist = NULL;
    } else if (c->which == 1) {
        *out = idx;
        idx = NULL;
    } else {
        st = clb_take(y, idx, 0, out);
    }
done:
    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_tensor_release(d);
    clb_tensor_release(dist);
    clb_tensor_release(idx);
    return st;
}

static void demo_knn(void)
{
    section("17. k-nearest neighbours on the device: clb_eval_reduce, clb_topk, clb_take");
    enum { N = 5, M = 64, D = 3, K = 8 };
    static float x[N * D], y[M * D];
    for (int i = 0; i < N * D; i++) x[i] = (float)((i * 37) % 17) / 4.0f;
    for (int i = 0; i < M * D; i++) y[i] = (float)((i * 53) % 29) / 8.0f; /* sums exact in float32 */
    knn_arg ka = {{CLB_FLOAT32, 3, {N, 1, D}, x}, {CLB_FLOAT32, 2, {M, D}, y}, K, 0};
    printf("  queries x (%d, 1, %d), database y (%d, %d): d = sum((x - y) ** 2, axis=-1) is\n"
           "  (%d, %d), never (%d, %d, %d); topk(d, %d, largest=0); take(y, idx, axis=0)\n",
           N, D, M, D, N, M, N, M, D, K);
    clb_tensor *dist = compute("the k smallest distances", step_knn, &ka);
    ka.which = 1;
    clb_tensor *idx = compute("their indices", step_knn, &ka);
    ka.which = 2;
    clb_tensor *rows = compute("their rows (take)", step_knn, &ka);
    vals dv, iv, rv;
    if (show("idx", idx, 5, &iv)) {
        int ok = 1;
        double want[N * K];
        for (int q = 0; q < N; q++) { /* brute force: stable order of (distance, index) */
            double dd[M];
            int used[M] = {0};
            for (int m = 0; m < M; m++) {
                dd[m] = 0;
                for (int j = 0; j < D; j++) {
                    double t = (double)x[q * D + j] - (double)y[m * D + j];
                    dd[m] += t * t;
                }
            }
            for (int r = 0; r < K; r++) {
                int best = -1;
                for (int m = 0; m < M; m++)
                    if (!used[m] && (best < 0 || dd[m] < dd[best])) best = m;
                used[best] = 1;
                want[q * K + r] = best;
            }
        }
        for (int i = 0; i < N * K; i++) ok &= iv.v[i] == want[i];
        verdict(ok, "the neighbours equal a brute-force search (ties by lower index)");
        if (show(NULL, rows, 0, &rv)) {
            int same = 1;
            for (int i = 0; i < N * K; i++)
                for (int j = 0; j < D; j++)
                    same &= rv.v[i * D + j] == y[(int)iv.v[i] * D + j];
            printf("  rows -> %s\n", shape_text(rv.ndim, rv.shape).s);
            verdict(same, "take(y, idx, 0) gives each neighbour's row");
            vals_free(&rv);
        }
        vals_free(&iv);
    }
    if (show("dist", dist, 5, &dv)) vals_free(&dv);
    clb_tensor_release(dist);
    clb_tensor_release(idx);
    clb_tensor_release(rows);
}

int cmd_demo(int argc, char **argv)
{
    const char *selector = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--device")) {
            if (i + 1 >= argc) return usage_error("demo: --device needs a selector");
            selector = argv[++i];
        } else if (!strncmp(argv[i], "--device=", 9)) {
            selector = argv[i] + 9;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            return usage_error("demo: unexpected argument '%s'", argv[i]);
        }
    }
    if (selector && !selector[0]) return usage_error("demo: --device needs a selector");

    int rc = open_context(NULL, selector, &g.dev);
    if (rc) return rc;
    clb_status st = clb_context_create("host", &g.host);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: the host backend: %s: %s\n", clb_status_name(st), clb_last_error());
        clb_context_release(g.dev);
        return 1;
    }
    clb_device_info info;
    st = clb_context_get_info(g.dev, &info);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: %s: %s\n", clb_status_name(st), clb_last_error());
        clb_context_release(g.dev);
        clb_context_release(g.host);
        return 1;
    }
    terminate_strings(&info);
    g.dev_is_host = info.type == CLB_DEVICE_HOST;
    g.dev_fp64 = info.has_fp64;

    printf("clbroadcast %s demo: the broadcasting tutorials' examples\n", clb_version_string());
    printf("device:    %s\n           selector %s, type %s", clb_context_device_name(g.dev),
           info.selector, type_name(info.type));
    if (!g.dev_is_host)
        printf(", %s, driver %s, %s", info.platform, info.driver_version, info.opencl_c_version);
    printf("\ndtypes:    float16 yes (stored as half, computed in float32); float64 %s\n",
           info.has_fp64 ? "yes" : "refused (no cl_khr_fp64: CLB_ERR_DTYPE)");
    if (info.quirks[0]) printf("quirks:    %s (docs/platforms.md, \"Every OpenCL implementation\")\n", info.quirks);
    printf("reference: the host backend; every computed step is checked against it\n");

    demo_shape_tables();
    demo_scalar();
    demo_row_vector();
    demo_outer();
    demo_four_dims();
    demo_views();
    demo_expand_vs_repeat();
    demo_mismatch();
    demo_images();
    demo_keepdim();
    demo_batchnorm();
    demo_backward();
    demo_matmul();
    demo_dtypes();
    demo_stats();
    demo_everyday();
    demo_knn();

    clb_context_release(g.dev);
    clb_context_release(g.host);

    printf("\n%d checks, %d failed", g.checks, g.failures);
    if (g.fallbacks)
        printf("; %d step%s ran on the host backend because this device does not support %s yet",
               g.fallbacks, g.fallbacks == 1 ? "" : "s", g.fallbacks == 1 ? "it" : "them");
    printf(".\n");
    if (g.failures) {
        fflush(stdout);
        fprintf(stderr, "clb demo: %d of %d checks FAILED\n", g.failures, g.checks);
        return 1;
    }
    return 0;
}
