/* Element-wise ops (binary, binary_into, unary, where) on every device against
 * the host backend: integers and bools bit for bit, floats within a
 * dtype-scaled tolerance (OpenCL's exp, tanh, pow... may differ from libm by
 * a few ulp).
 *
 * Every distinct (op, dtypes) is an OpenCL program that PoCL compiles in 1-2 s
 * of CPU (ranks, layouts and fast paths share it), so the random cases draw their (op, dtypes) from a
 * fixed list (every op, ~50 op/dtype pairs) and vary only shapes, layouts and
 * values: a run needs about 70 programs, and the disk cache makes a second run
 * take seconds.
 *
 * White-box (links the library's objects) for the dtype rules and two knobs:
 * the plan-splitting limit (runs the 32-bit piece path on small tensors) and
 * the OpenCL driver's work split (runs the GPU path on a CPU device). */
#include "testutil.h"

#include "dtype.h"
#include "half.h"
#include "plan.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

extern _Atomic int clb__host_loops_enabled; /* src/cpu/host_loops.h */

#define RANDOM_CASES 10000
#define MAX_NUMEL 600

static clb_context *host; /* the reference backend */

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&host); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    return clbt_host_close(&host, false);
}

/* ---- the (op, dtypes) list ------------------------------------------------------------ */

typedef enum kind { UNARY, BINARY, WHERE } kind;

typedef struct combo {
    kind kind;
    int op;
    clb_dtype in[3];
} combo;

#define B(op, a, b) {BINARY, op, {a, b, CLB_BOOL}}
#define U(op, a) {UNARY, op, {a, CLB_BOOL, CLB_BOOL}}
#define W(c, a, b) {WHERE, 0, {c, a, b}}
#define F16 CLB_FLOAT16
#define F32 CLB_FLOAT32
#define F64 CLB_FLOAT64
#define I8 CLB_INT8
#define U8 CLB_UINT8
#define I16 CLB_INT16
#define U16 CLB_UINT16
#define I32 CLB_INT32
#define U32 CLB_UINT32
#define I64 CLB_INT64
#define U64 CLB_UINT64
#define BO CLB_BOOL

/* A representative promotion set: same-dtype pairs of each kind, mixed
   signedness (u32 + i32 -> i64, i8 + u8 -> i16), int + float (i32 + f32 -> f64,
   i16 + f16 -> f32), bool with numbers, each op on the dtypes it is defined for. */
static const combo combos[] = {
    B(CLB_ADD, F32, F32), B(CLB_ADD, F16, F16), B(CLB_ADD, I8, U8), B(CLB_ADD, BO, BO),
    B(CLB_ADD, I32, F32),
    B(CLB_SUB, F64, F64), B(CLB_SUB, I64, I64),
    B(CLB_MUL, I16, I16), B(CLB_MUL, U32, I32), B(CLB_MUL, BO, BO),
    B(CLB_DIV, F32, F32), B(CLB_DIV, I32, I32),
    B(CLB_FLOOR_DIV, I32, I32), B(CLB_FLOOR_DIV, F64, F64),
    B(CLB_MOD, I64, I64), B(CLB_MOD, U8, U8), B(CLB_MOD, F32, F32),
    B(CLB_POW, F32, F32), B(CLB_POW, I32, I32), B(CLB_POW, U8, U8),
    B(CLB_MAXIMUM, F32, F32), B(CLB_MAXIMUM, I8, U8),
    B(CLB_MINIMUM, F64, F64),
    B(CLB_EQ, F32, F32), B(CLB_EQ, I64, U64), B(CLB_LT, U32, I32), B(CLB_LE, F64, F64),
    B(CLB_GT, BO, BO),
    B(CLB_LOGICAL_AND, F32, I32), B(CLB_LOGICAL_OR, BO, U8), B(CLB_LOGICAL_XOR, F64, F16),
    B(CLB_BITWISE_AND, I32, I32), B(CLB_BITWISE_OR, U8, I8), B(CLB_BITWISE_XOR, BO, BO),
    U(CLB_NEG, I8), U(CLB_ABS, F16), U(CLB_ABS, I64), U(CLB_SQRT, I16),
    U(CLB_RSQRT, F32), U(CLB_EXP, F64), U(CLB_LOG, F16), U(CLB_SIN, F32),
    U(CLB_TANH, F32), U(CLB_SIGMOID, F32), U(CLB_RELU, F32), U(CLB_FLOOR, F32), U(CLB_CEIL, F16),
    U(CLB_LOGICAL_NOT, F32),
    W(BO, F32, F32), W(F32, I32, I32), W(BO, I8, F16), W(U8, U64, I64),
};
#define NCOMBOS ((int)(sizeof combos / sizeof combos[0]))

/* The (op, dtypes) the typed host loops take (src/cpu/host_loops.c). */
static const combo loop_combos[] = {
    B(CLB_ADD, F32, F32),     B(CLB_ADD, I32, I32),     B(CLB_SUB, F64, F64),
    B(CLB_SUB, I64, I64),     B(CLB_MUL, F32, F32),     B(CLB_MUL, I32, I32),
    B(CLB_DIV, F32, F32),     B(CLB_DIV, F64, F64),     B(CLB_MAXIMUM, F32, F32),
    B(CLB_MINIMUM, F64, F64), B(CLB_MAXIMUM, I64, I64), B(CLB_MINIMUM, I32, I32),
    U(CLB_NEG, F32),          U(CLB_NEG, I64),          U(CLB_RELU, F32),
    U(CLB_RELU, F64),
};
#define NLOOP_COMBOS ((int)(sizeof loop_combos / sizeof loop_combos[0]))
#undef B
#undef U
#undef W

static int nin_of(kind k)
{
    return k == UNARY ? 1 : k == BINARY ? 2 : 3;
}

/* Whether the op reads or produces float64 (devices without cl_khr_fp64 refuse it). */
static bool uses_fp64(const combo *c)
{
    clb_dtype compute = BO, result = BO;
    for (int i = 0; i < nin_of(c->kind); i++)
        if (c->in[i] == F64) return true;
    if (c->kind == UNARY) CLBT_OK(clb__unary_types((clb_unary_op)c->op, c->in[0], &compute, &result));
    if (c->kind == BINARY)
        CLBT_OK(clb__binary_types((clb_binary_op)c->op, c->in[0], c->in[1], &compute, &result));
    if (c->kind == WHERE) CLBT_OK(clb__where_types(c->in[0], c->in[1], c->in[2], &result));
    return compute == F64 || result == F64;
}

/* ---- values ------------------------------------------------------------------------ */

static bool is_float(clb_dtype t)
{
    return t == F16 || t == F32 || t == F64;
}

/* Random bytes of one element of dtype t: mostly small values, with the edge
   values (0, -1, MIN, MAX; -0.0, inf, nan) that the scalar rules single out. */
static void random_element(clb_dtype t, uint64_t *rng, unsigned char *p)
{
    uint64_t r = clbt_rand(rng);
    unsigned pick = (unsigned)(r % 16);
    uint64_t bits = clbt_rand(rng);
    size_t sz = clb_dtype_size(t);
    if (t == BO) {
        p[0] = (unsigned char)(r >> 8 & 1);
    } else if (t == F16) {
        static const uint16_t special[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00};
        uint16_t h;
        if (pick < 2) h = special[(r >> 8) % 7];
        else h = (uint16_t)((bits & 0x83FF) | ((10 + (bits >> 20) % 10) << 10)); /* |x| in [2^-5, 2^5) */
        memcpy(p, &h, 2);
    } else if (is_float(t)) {
        static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5};
        double d;
        if (pick < 2) d = special[(r >> 8) % 8];
        else if (pick < 4) d = ldexp((double)(bits % 2001) - 1000, (int)((bits >> 32) % 40) - 20);
        else d = ((double)(int64_t)(bits % 4001) - 2000) / 128.0;
        if (t == F32) {
            float f = (float)d;
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &d, 8);
        }
    } else {
        int64_t v;
        bool is_signed = t == I8 || t == I16 || t == I32 || t == I64;
        unsigned w = (unsigned)sz * 8;
        int64_t max = (int64_t)((w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1) >> (is_signed ? 1 : 0));
        if (pick < 6) v = (int64_t)(bits % 17) - (is_signed ? 8 : 0);
        else if (pick < 8) v = pick == 6 ? 0 : (is_signed ? -1 : 1);
        else if (pick < 10) v = pick == 8 ? max : (is_signed ? -max - 1 : 0);
        else v = (int64_t)bits;
        memcpy(p, &v, sz); /* little-endian: the low bytes wrap to the dtype */
    }
}

static void *random_data(clb_dtype t, int64_t n, uint64_t *rng)
{
    size_t sz = clb_dtype_size(t);
    unsigned char *buf = malloc(n ? (size_t)n * sz : 1);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) random_element(t, rng, buf + (size_t)i * sz);
    return buf;
}

/* Device against host through the one comparison (tests/testutil.h): bool and
   integers bit for bit; floats within a few ulp of the dtype (the device's
   transcendental functions need not round as the host's libm does). */
static void assert_same_tensor(const clb_tensor *got, const clb_tensor *want, const char *what)
{
    clb_dtype t = clb_tensor_dtype(want);
    double rtol = t == F16 ? 2e-3 : t == F32 ? 2e-5 : 1e-12;
    double atol = t == F16 ? 1e-4 : t == F32 ? 1e-6 : 1e-13;
    clbt_assert_matches_host(got, want, rtol, atol, what);
}

/* ---- operands: the same logical tensor on the device and on the host --------------- */

typedef struct operand {
    clb_tensor *dev, *ref;
} operand;

static void release_operand(operand *o)
{
    clb_tensor_release(o->dev);
    clb_tensor_release(o->ref);
    o->dev = o->ref = NULL;
}

/* A tensor of `shape` with random values, laid out in one of several ways:
   contiguous, as a permuted view of a contiguous tensor, or as a broadcast
   (expanded) view of a smaller one. */
static operand make_operand(clb_context *ctx, clb_dtype t, int ndim, const int64_t *shape,
                            uint64_t *rng)
{
    operand o = {NULL, NULL};
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    unsigned layout = ndim >= 2 ? (unsigned)(clbt_rand(rng) % 4) : 0;
    if (layout == 1) { /* permuted: a contiguous tensor whose axes are shuffled into place */
        int perm[CLB_MAX_DIMS], inv[CLB_MAX_DIMS];
        for (int d = 0; d < ndim; d++) perm[d] = d;
        for (int d = ndim - 1; d > 0; d--) {
            int j = (int)(clbt_rand(rng) % (uint64_t)(d + 1));
            int tmp = perm[d];
            perm[d] = perm[j];
            perm[j] = tmp;
        }
        int64_t base_shape[CLB_MAX_DIMS];
        for (int d = 0; d < ndim; d++) base_shape[perm[d]] = shape[d], inv[perm[d]] = d;
        (void)inv;
        void *data = random_data(t, n, rng);
        clb_tensor *bd = clbt_tensor(ctx, t, ndim, base_shape, data);
        clb_tensor *br = clbt_tensor(host, t, ndim, base_shape, data);
        /* view axis d = base axis perm[d] */
        CLBT_OK(clb_permute(bd, perm, &o.dev));
        CLBT_OK(clb_permute(br, perm, &o.ref));
        clb_tensor_release(bd);
        clb_tensor_release(br);
        free(data);
    } else if (layout == 2) { /* expanded: size-1 source axes broadcast to the shape */
        int64_t small[CLB_MAX_DIMS], m = 1;
        for (int d = 0; d < ndim; d++) {
            small[d] = clbt_rand(rng) % 2 ? 1 : shape[d];
            m *= small[d];
        }
        void *data = random_data(t, m, rng);
        clb_tensor *sd = clbt_tensor(ctx, t, ndim, small, data);
        clb_tensor *sr = clbt_tensor(host, t, ndim, small, data);
        CLBT_OK(clb_expand(sd, ndim, shape, &o.dev));
        CLBT_OK(clb_expand(sr, ndim, shape, &o.ref));
        clb_tensor_release(sd);
        clb_tensor_release(sr);
        free(data);
    } else {
        void *data = random_data(t, n, rng);
        o.dev = clbt_tensor(ctx, t, ndim, shape, data);
        o.ref = clbt_tensor(host, t, ndim, shape, data);
        free(data);
    }
    return o;
}

/* ---- random broadcast-compatible shapes ---------------------------------------------- */

/* An output shape of rank 0-6 with at most MAX_NUMEL elements (a few with a
   zero-size axis), and each input's shape: a suffix of it with some axes 1. */
static int random_shapes(uint64_t *rng, int nin, int64_t *out, int *ndims,
                         int64_t shapes[3][CLB_MAX_DIMS])
{
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 33};
    int ndim = (int)(clbt_rand(rng) % 7);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        int64_t s = sizes[clbt_rand(rng) % 9];
        while (s > 1 && n * s > MAX_NUMEL) s /= 2;
        out[d] = s;
        n *= s;
    }
    if (ndim > 0 && clbt_rand(rng) % 50 == 0) out[clbt_rand(rng) % (uint64_t)ndim] = 0;
    for (int k = 0; k < nin; k++) {
        ndims[k] = ndim - (int)(clbt_rand(rng) % (uint64_t)(ndim + 1)) / 2;
        int lead = ndim - ndims[k];
        for (int d = 0; d < ndims[k]; d++)
            shapes[k][d] = clbt_rand(rng) % 3 == 0 ? 1 : out[lead + d];
    }
    /* The broadcast of the inputs must be the output: restore an axis nobody spans. */
    for (int d = 0; d < ndim; d++) {
        bool spanned = out[d] == 1;
        for (int k = 0; k < nin && !spanned; k++) {
            int at = d - (ndim - ndims[k]);
            spanned = at >= 0 && shapes[k][at] == out[d];
        }
        if (!spanned) {
            int k = (int)(clbt_rand(rng) % (uint64_t)nin);
            if (ndims[k] < ndim - d) { /* grow input k to reach axis d */
                int grow = ndim - d - ndims[k];
                memmove(shapes[k] + grow, shapes[k], (size_t)ndims[k] * sizeof(int64_t));
                for (int g = 0; g < grow; g++) shapes[k][g] = 1;
                ndims[k] = ndim - d;
            }
            shapes[k][d - (ndim - ndims[k])] = out[d];
        }
    }
    return ndim;
}

/* ---- one case ------------------------------------------------------------------------------ */

static clb_status run(const combo *c, clb_tensor *const *in, clb_tensor **out)
{
    switch (c->kind) {
    case UNARY: return clb_unary((clb_unary_op)c->op, in[0], out);
    case BINARY: return clb_binary((clb_binary_op)c->op, in[0], in[1], out);
    case WHERE: break;
    }
    return clb_where(in[0], in[1], in[2], out);
}

static void run_case(clb_context *ctx, const combo *c, int nin, const int *ndims,
                     int64_t shapes[3][CLB_MAX_DIMS], uint64_t *rng, const char *what)
{
    operand ops[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    clb_tensor *dev_in[3] = {NULL, NULL, NULL}, *ref_in[3] = {NULL, NULL, NULL};
    for (int k = 0; k < nin; k++) {
        ops[k] = make_operand(ctx, c->in[k], ndims[k], shapes[k], rng);
        dev_in[k] = ops[k].dev;
        ref_in[k] = ops[k].ref;
    }
    clb_tensor *got = NULL, *want = NULL;
    /* The reference is the host's element-by-element rule, whatever got uses. */
    int loops = clb__host_loops_enabled;
    clb__host_loops_enabled = 0;
    CLBT_OK(run(c, ref_in, &want));
    clb__host_loops_enabled = loops;
    clb_status st = run(c, dev_in, &got);
    if (st != CLB_OK)
        fail_msg("%s on %s: %s: %s", what, clb_context_device_name(ctx), clb_status_name(st),
                 clb_last_error());
    assert_same_tensor(got, want, what);
    clb_tensor_release(got);
    clb_tensor_release(want);
    for (int k = 0; k < nin; k++) release_operand(&ops[k]);
}

static const char *combo_name(const combo *c, char *buf, size_t cap)
{
    const char *op = c->kind == UNARY ? clb_unary_op_name((clb_unary_op)c->op)
                     : c->kind == BINARY ? clb_binary_op_name((clb_binary_op)c->op)
                                         : "where";
    snprintf(buf, cap, "%s(%s%s%s%s%s)", op, clb_dtype_name(c->in[0]),
             c->kind != UNARY ? ", " : "", c->kind != UNARY ? clb_dtype_name(c->in[1]) : "",
             c->kind == WHERE ? ", " : "", c->kind == WHERE ? clb_dtype_name(c->in[2]) : "");
    return buf;
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void random_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    uint64_t rng = 20261129;
    int ran = 0, skipped = 0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        const combo *c = &combos[i % NCOMBOS];
        int nin = nin_of(c->kind), ndims[3];
        int64_t out[CLB_MAX_DIMS], shapes[3][CLB_MAX_DIMS];
        random_shapes(&rng, nin, out, ndims, shapes);
        if (uses_fp64(c) && !info.has_fp64) {
            skipped++;
            continue;
        }
        char name[96], what[160];
        snprintf(what, sizeof what, "case %d %s", i, combo_name(c, name, sizeof name));
        run_case(ctx, c, nin, ndims, shapes, &rng, what);
        ran++;
    }
    assert_true(ran + skipped == RANDOM_CASES);
}

static void test_random_cases(void **state)
{
    (void)state;
    clbt_for_each_device(random_body);
}

/* Named layouts: 0-d, zero-size, 64-D coalescable, many non-coalescable axes. */
static void layouts_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    uint64_t rng = 7;
    combo add = {BINARY, CLB_ADD, {F32, F32, BO}};
    combo mul = {BINARY, CLB_BITWISE_AND, {I32, I32, BO}};
    int ndims[3];
    int64_t shapes[3][CLB_MAX_DIMS];

    /* 0-d + 0-d, and 0-d + (5,) */
    ndims[0] = ndims[1] = 0;
    run_case(ctx, &add, 2, ndims, shapes, &rng, "0-d + 0-d");
    ndims[1] = 1;
    shapes[1][0] = 5;
    run_case(ctx, &add, 2, ndims, shapes, &rng, "0-d + (5,)");
    /* zero-size: (0, 3) + (3,) -> (0, 3), and (4, 0) * (1, 0) */
    ndims[0] = 2, ndims[1] = 1;
    shapes[0][0] = 0, shapes[0][1] = 3, shapes[1][0] = 3;
    run_case(ctx, &add, 2, ndims, shapes, &rng, "(0, 3) + (3,)");
    ndims[1] = 2;
    shapes[0][0] = 4, shapes[0][1] = 0, shapes[1][0] = 1, shapes[1][1] = 0;
    run_case(ctx, &mul, 2, ndims, shapes, &rng, "(4, 0) & (1, 0)");
    /* 64 axes that coalesce into one: sizes 1 and 2 */
    ndims[0] = ndims[1] = CLB_MAX_DIMS;
    for (int d = 0; d < CLB_MAX_DIMS; d++) shapes[0][d] = shapes[1][d] = d % 8 == 0 ? 2 : 1;
    run_case(ctx, &mul, 2, ndims, shapes, &rng, "64-D coalescable");
    /* 64-D with a broadcast input: (2,1,2,1,...) + (1,2,1,2,...) does not coalesce much */
    for (int d = 0; d < CLB_MAX_DIMS; d++) {
        shapes[0][d] = d < 10 ? (d % 2 ? 1 : 2) : 1;
        shapes[1][d] = d < 10 ? (d % 2 ? 2 : 1) : 1;
    }
    run_case(ctx, &add, 2, ndims, shapes, &rng, "64-D outer product over 10 axes");
    /* 12 axes of 2 permuted: no coalescing, the stride table goes to __constant */
    combo neg = {UNARY, CLB_NEG, {I8, BO, BO}};
    ndims[0] = 12;
    for (int d = 0; d < 12; d++) shapes[0][d] = 2;
    for (int i = 0; i < 4; i++) run_case(ctx, &neg, 1, ndims, shapes, &rng, "12-D permuted");
}

static void test_layouts(void **state)
{
    (void)state;
    clbt_for_each_device(layouts_body);
}

/* float16 add, subtract and multiply bit for bit against the host, on rows long
   enough for CPU devices' 16-lane form (cl/elementwise.cl's CLB_VECTOR_HALF):
   half bit patterns from the whole range (subnormals, NaN payloads, sums past
   65504, products below 2^-24), the layouts with a vector path (same shape,
   row and column broadcast, outer product, a reversed input) and a row tail. */
static void half_exact_body(clb_context *ctx, const char *selector)
{
    const int64_t rows = 3, cols = 70, n = rows * cols;
    uint16_t *a = malloc((size_t)n * 2), *b = malloc((size_t)n * 2);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t rng = 11;
    for (int64_t i = 0; i < n; i++) {
        a[i] = (uint16_t)clbt_rand(&rng);
        b[i] = (uint16_t)clbt_rand(&rng);
    }
    const int64_t full[2] = {rows, cols}, row[1] = {cols}, col[2] = {rows, 1}, lead[2] = {1, cols};
    const int64_t *shapes[5][2] = {{full, full}, {full, row}, {full, col}, {col, lead}, {full, full}};
    const int nd[5][2] = {{2, 2}, {2, 1}, {2, 2}, {2, 2}, {2, 2}};
    const clb_binary_op ops[3] = {CLB_ADD, CLB_SUB, CLB_MUL};
    for (int l = 0; l < 5; l++) {
        clb_tensor *d[2], *h[2];
        for (int k = 0; k < 2; k++) {
            d[k] = clbt_tensor(ctx, F16, nd[l][k], shapes[l][k], k ? b : a);
            h[k] = clbt_tensor(host, F16, nd[l][k], shapes[l][k], k ? b : a);
        }
        if (l == 4) { /* the first operand reversed along its rows */
            clb_tensor *dv = NULL, *hv = NULL;
            CLBT_OK(clb_slice(d[0], 1, cols - 1, -cols - 1, -1, &dv));
            CLBT_OK(clb_slice(h[0], 1, cols - 1, -cols - 1, -1, &hv));
            clb_tensor_release(d[0]), clb_tensor_release(h[0]);
            d[0] = dv, h[0] = hv;
        }
        for (int o = 0; o < 3; o++) {
            clb_tensor *got = NULL, *want = NULL;
            char what[96];
            snprintf(what, sizeof what, "float16 %s, layout %d, on %s", clb_binary_op_name(ops[o]),
                     l, selector);
            CLBT_OK(clb_binary(ops[o], h[0], h[1], &want));
            CLBT_OK(clb_binary(ops[o], d[0], d[1], &got));
            clbt_assert_matches_host(got, want, CLBT_EXACT, 0, what);
            clb_tensor_release(got), clb_tensor_release(want);
        }
        for (int k = 0; k < 2; k++) clb_tensor_release(d[k]), clb_tensor_release(h[k]);
    }
    free(a);
    free(b);
}

static void test_half_exact(void **state)
{
    (void)state;
    clbt_for_each_device(half_exact_body);
}

/* The integer-division rules against literal values (NumPy's results), int8..int64. */
static void division_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    static const int64_t a[] = {7, -7, 7, -7, 5, -5, 0, 3, INT64_MIN, INT64_MIN, -1};
    static const int64_t b[] = {2, 2, -2, -2, 0, 0, 0, -1, -1, 1, INT64_MIN};
    static const int64_t fd[] = {3, -4, -4, 3, 0, 0, 0, -3, INT64_MIN, INT64_MIN, 0};
    static const int64_t md[] = {1, 1, -1, -1, 0, 0, 0, 0, 0, 0, -1};
    enum { N = 11 };
    int64_t shape[1] = {N};
    clb_tensor *ta = clbt_tensor(ctx, I64, 1, shape, a), *tb = clbt_tensor(ctx, I64, 1, shape, b);
    clb_tensor *q = NULL, *r = NULL;
    CLBT_OK(clb_binary(CLB_FLOOR_DIV, ta, tb, &q));
    CLBT_OK(clb_binary(CLB_MOD, ta, tb, &r));
    int64_t gq[N], gr[N];
    CLBT_OK(clb_tensor_to_host(q, gq, sizeof gq));
    CLBT_OK(clb_tensor_to_host(r, gr, sizeof gr));
    for (int i = 0; i < N; i++) {
        if (gq[i] != fd[i] || gr[i] != md[i])
            fail_msg("int64 %lld // %lld = %lld, %% = %lld; expected %lld, %lld", (long long)a[i],
                     (long long)b[i], (long long)gq[i], (long long)gr[i], (long long)fd[i],
                     (long long)md[i]);
    }
    clb_tensor_release(q);
    clb_tensor_release(r);
    clb_tensor_release(ta);
    clb_tensor_release(tb);

    /* The narrow types: MIN // -1 = MIN, x // 0 = 0, against the host for each. */
    static const clb_dtype ints[] = {I8, U32};
    for (int t = 0; t < 2; t++) {
        combo c = {BINARY, CLB_FLOOR_DIV, {ints[t], ints[t], BO}};
        int ndims[2] = {1, 1};
        int64_t shapes[3][CLB_MAX_DIMS] = {{64}, {64}};
        uint64_t rng = (uint64_t)t + 99;
        run_case(ctx, &c, 2, ndims, shapes, &rng, "floor_divide edge values");
        c.op = CLB_MOD;
        run_case(ctx, &c, 2, ndims, shapes, &rng, "remainder edge values");
    }
    /* Mixed types with int64 results (issue 26, finding 9: on rusticl they truncated,
       -7 (int32) // 2 (int64) gave -3; quirk sext-compare), and a power whose int32
       exponent widens to int64. */
    static const clb_dtype mixed[4][2] = {{I32, I64}, {I64, I32}, {U32, I32}, {I32, U32}};
    static const int ops[3] = {CLB_FLOOR_DIV, CLB_MOD, CLB_POW};
    for (int m = 0; m < 4; m++) {
        for (int o = 0; o < 3; o++) {
            if (ops[o] == CLB_POW && m > 1) continue;
            combo c = {BINARY, ops[o], {mixed[m][0], mixed[m][1], BO}};
            int ndims[2] = {1, 1};
            int64_t shapes[3][CLB_MAX_DIMS] = {{64}, {64}};
            uint64_t rng = (uint64_t)(m * 3 + o) + 7;
            run_case(ctx, &c, 2, ndims, shapes, &rng, "mixed-type integer division");
        }
    }
}

/* tanh(+-inf) = +-1 exactly, and so is tanh of every |x| > 20 in float32 (issue 26,
   finding 15: PoCL 3.1 gave +-0.99999994; quirk tanh-inf). */
static void tanh_edges_body(clb_context *ctx, const char *selector)
{
    const float x[8] = {INFINITY, -INFINITY, 20.5f, -25.0f, 1e30f, NAN, 0.0f, -0.0f};
    const float want[8] = {1.0f, -1.0f, 1.0f, -1.0f, 1.0f, NAN, 0.0f, -0.0f};
    int64_t shape[1] = {8};
    clb_tensor *t = clbt_tensor(ctx, F32, 1, shape, x), *r = NULL;
    CLBT_OK(clb_unary(CLB_TANH, t, &r));
    float got[8];
    CLBT_OK(clb_tensor_to_host(r, got, sizeof got));
    for (int i = 0; i < 8; i++) {
        bool ok = isnan(want[i]) ? isnan(got[i])
                                 : got[i] == want[i] && signbit(got[i]) == signbit(want[i]);
        if (!ok)
            fail_msg("%s: float32 tanh(%g) = %.9g, expected %g", selector, x[i], got[i], want[i]);
    }
    clb_tensor_release(r);
    clb_tensor_release(t);
}

static void test_tanh_edges(void **state)
{
    (void)state;
    clbt_for_each_device(tanh_edges_body);
}

static void test_integer_division(void **state)
{
    (void)state;
    clbt_for_each_device(division_body);
}

/* clb_binary_into: in place, into a wider out (float16 results keep their
   rounding), and the aliasing errors. */
static void into_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    uint64_t rng = 3;
    int64_t shape[2] = {6, 5}, row[1] = {5};
    void *da = random_data(F32, 30, &rng), *db = random_data(F32, 5, &rng);
    clb_tensor *a = clbt_tensor(ctx, F32, 2, shape, da), *b = clbt_tensor(ctx, F32, 1, row, db);
    clb_tensor *ra = clbt_tensor(host, F32, 2, shape, da), *rb = clbt_tensor(host, F32, 1, row, db);
    /* a += b, in place, on both backends */
    CLBT_OK(clb_binary_into(CLB_ADD, a, b, a));
    CLBT_OK(clb_binary_into(CLB_ADD, ra, rb, ra));
    assert_same_tensor(a, ra, "in-place a += b");
    /* out with a stride-0 axis, and out overlapping a without being it */
    clb_tensor *bcast = NULL, *t = NULL;
    CLBT_OK(clb_expand(b, 2, shape, &bcast));
    CLBT_FAILS(CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, a, b, bcast));
    int64_t square[2] = {5, 5};
    void *ds = random_data(F32, 25, &rng);
    clb_tensor *s = clbt_tensor(ctx, F32, 2, square, ds);
    int perm[2] = {1, 0};
    CLBT_OK(clb_permute(s, perm, &t));
    CLBT_FAILS(CLB_ERR_ALIASING, clb_binary_into(CLB_MUL, s, b, t));
    clb_tensor_release(t);
    clb_tensor_release(s);
    clb_tensor_release(bcast);

    /* float16 inputs into float32 and float64 outs: the half rounding survives */
    void *h1 = random_data(F16, 30, &rng), *h2 = random_data(F16, 30, &rng);
    clb_tensor *x = clbt_tensor(ctx, F16, 2, shape, h1), *y = clbt_tensor(ctx, F16, 2, shape, h2);
    clb_tensor *rx = clbt_tensor(host, F16, 2, shape, h1), *ry = clbt_tensor(host, F16, 2, shape, h2);
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    for (int w = 0; w < (info.has_fp64 ? 2 : 1); w++) {
        clb_dtype wide = w ? F64 : F32;
        clb_tensor *o = NULL, *ro = NULL;
        CLBT_OK(clb_tensor_empty(ctx, wide, 2, shape, &o));
        CLBT_OK(clb_tensor_empty(host, wide, 2, shape, &ro));
        CLBT_OK(clb_binary_into(CLB_DIV, x, y, o));
        CLBT_OK(clb_binary_into(CLB_DIV, rx, ry, ro));
        assert_same_tensor(o, ro, "float16 / float16 into a wider out");
        clb_tensor_release(o);
        clb_tensor_release(ro);
    }
    /* into a permuted (non-contiguous) out: the inner stride is not 1 */
    clb_tensor *base = NULL, *rbase = NULL, *o = NULL, *ro = NULL;
    int64_t tshape[2] = {5, 6};
    CLBT_OK(clb_tensor_empty(ctx, F32, 2, tshape, &base));
    CLBT_OK(clb_tensor_empty(host, F32, 2, tshape, &rbase));
    CLBT_OK(clb_permute(base, perm, &o));
    CLBT_OK(clb_permute(rbase, perm, &ro));
    CLBT_OK(clb_binary_into(CLB_ADD, a, b, o));
    CLBT_OK(clb_binary_into(CLB_ADD, ra, rb, ro));
    assert_same_tensor(o, ro, "a + b into a transposed out");
    clb_tensor_release(o);
    clb_tensor_release(ro);
    clb_tensor_release(base);
    clb_tensor_release(rbase);

    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_tensor_release(rx);
    clb_tensor_release(ry);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(ra);
    clb_tensor_release(rb);
    free(da);
    free(db);
    free(ds);
    free(h1);
    free(h2);
}

static void test_binary_into(void **state)
{
    (void)state;
    clbt_for_each_device(into_body);
}

/* The 32-bit piece path: with the piece limit lowered, ordinary tensors are
   split into many pieces, each launched with its own offsets. */
static void split_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    uint64_t rng = 11;
    combo add = {BINARY, CLB_ADD, {F32, F32, BO}};
    combo where = {WHERE, 0, {BO, I16, I16}};
    int64_t saved = clb__plan_piece_limit;
    clb__plan_piece_limit = 50;
    for (int i = 0; i < 40; i++) {
        int ndims[3];
        int64_t out[CLB_MAX_DIMS], shapes[3][CLB_MAX_DIMS];
        const combo *c = i % 2 ? &add : &where;
        random_shapes(&rng, nin_of(c->kind), out, ndims, shapes);
        run_case(ctx, c, nin_of(c->kind), ndims, shapes, &rng, "split into pieces");
    }
    clb__plan_piece_limit = saved;
}

static void test_split_pieces(void **state)
{
    (void)state;
    clbt_for_each_device(split_body);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_map_blocked;              /* src/opencl/cl_launch.h */
extern _Atomic int64_t clb__cl_streaming_min_bytes; /* src/opencl/cl_launch.h */

/* The other device class's work split (grid stride on a CPU device, blocks on
   a GPU) gives the same results: layouts and pieces again with it forced. So do
   streaming stores, forced on for every output size: aligned chunks take the
   vector store, rows off alignment and tails the plain one. */
static void test_other_work_split(void **state)
{
    (void)state;
    for (int forced = 0; forced < 2; forced++) {
        clb__cl_map_blocked = forced;
        clbt_for_each_device(layouts_body);
        clbt_for_each_device(split_body);
    }
    clb__cl_map_blocked = -1;
    clb__cl_streaming_min_bytes = 0;
    clbt_for_each_device(layouts_body);
    clbt_for_each_device(split_body);
    clb__cl_streaming_min_bytes = -1;
}
#endif

/* ---- typed host loops and tiny maps run on the host ------------------------------------ */

/* Random cases of the ops the typed loops take: on the host backend (loops
   against its element-by-element rule) and on OpenCL CPU devices with SVM
   storage, where maps of up to CLB_HOST_TINY elements run those loops on the
   calling thread (against the same rule). */
static void loops_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    uint64_t rng = 20261130;
    for (int i = 0; i < 40 * NLOOP_COMBOS; i++) {
        const combo *c = &loop_combos[i % NLOOP_COMBOS];
        if (uses_fp64(c) && !info.has_fp64) continue;
        int nin = nin_of(c->kind), ndims[3];
        int64_t out[CLB_MAX_DIMS], shapes[3][CLB_MAX_DIMS];
        random_shapes(&rng, nin, out, ndims, shapes);
        char name[96], what[160];
        snprintf(what, sizeof what, "loop case %d %s", i, combo_name(c, name, sizeof name));
        run_case(ctx, c, nin, ndims, shapes, &rng, what);
    }
}

/* Runs, on ctx, tiny maps (t2, r2, acc: 64 elements) between kernels that
   write their inputs or read their outputs (big2 and the column sum r: 32768
   elements), so a host loop must wait for the kernels before it and be seen by
   the kernels after it. Returns r2 and acc, 64 floats each. Small integers:
   every sum is exact in float32, whatever order a device adds in. */
static void mixed_sequence(clb_context *ctx, float *r2_out, float *acc_out)
{
    enum { ROWS = 512, COLS = 64 };
    static float big_data[ROWS * COLS];
    float small_data[COLS];
    for (int i = 0; i < ROWS * COLS; i++) big_data[i] = (float)(i % 7);
    for (int j = 0; j < COLS; j++) small_data[j] = (float)(j % 5);
    int64_t big_shape[2] = {ROWS, COLS}, small_shape[1] = {COLS};
    clb_tensor *big = clbt_tensor(ctx, F32, 2, big_shape, big_data);
    clb_tensor *t = clbt_tensor(ctx, F32, 1, small_shape, small_data);
    clb_tensor *acc = clbt_tensor(ctx, F32, 1, small_shape, small_data);
    clb_tensor *t2 = NULL, *big2 = NULL, *r = NULL, *r2 = NULL;
    CLBT_OK(clb_binary(CLB_ADD, t, t, &t2));        /* tiny */
    CLBT_OK(clb_binary(CLB_ADD, big, t2, &big2));   /* a kernel reads t2 */
    int axis0 = 0;
    CLBT_OK(clb_reduce(CLB_SUM, big2, 1, &axis0, 0, &r)); /* a kernel writes r */
    CLBT_OK(clb_binary(CLB_SUB, r, t2, &r2));       /* tiny, after the reduction */
    for (int i = 0; i < 30; i++) {
        CLBT_OK(clb_binary_into(CLB_ADD, acc, t, acc)); /* tiny, in place */
        if (i % 10 == 9) { /* a kernel writes acc's input, a tiny op reads it */
            clb_tensor *sum = NULL;
            CLBT_OK(clb_binary_into(CLB_ADD, big2, acc, big2));
            CLBT_OK(clb_reduce(CLB_MAX, big2, 1, &axis0, 0, &sum));
            CLBT_OK(clb_binary_into(CLB_MINIMUM, acc, sum, acc));
            clb_tensor_release(sum);
        }
    }
    CLBT_OK(clb_tensor_to_host(r2, r2_out, COLS * sizeof(float)));
    CLBT_OK(clb_tensor_to_host(acc, acc_out, COLS * sizeof(float)));
    clb_tensor *all[] = {big, t, acc, t2, big2, r, r2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
}

static void ordering_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    float r2[64], acc[64], want_r2[64], want_acc[64];
    mixed_sequence(ctx, r2, acc);
    mixed_sequence(host, want_r2, want_acc);
    for (int j = 0; j < 64; j++) {
        if (r2[j] != want_r2[j] || acc[j] != want_acc[j])
            fail_msg("on %s, element %d: r2 %g (want %g), acc %g (want %g)",
                     clb_context_device_name(ctx), j, r2[j], want_r2[j], acc[j], want_acc[j]);
    }
}

static void test_host_loops(void **state)
{
    (void)state;
    const char *was = getenv("CLB_HOST_TINY");
    char saved[32];
    snprintf(saved, sizeof saved, "%s", was ? was : "");
    setenv("CLB_HOST_TINY", "8192", 1); /* read when a context is created */
    clbt_for_each_device(loops_body);
    clbt_for_each_device(ordering_body);
    if (was)
        setenv("CLB_HOST_TINY", saved, 1);
    else
        unsetenv("CLB_HOST_TINY");
}

/* float64 on a device without cl_khr_fp64 is CLB_ERR_DTYPE naming the device. */
static void fp64_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    if (info.has_fp64) return;
    double v[2] = {1, 2};
    int64_t shape[1] = {2};
    clb_tensor *a = clbt_tensor(ctx, F64, 1, shape, v), *out = NULL;
    CLBT_FAILS(CLB_ERR_DTYPE, clb_unary(CLB_EXP, a, &out));
    assert_null(out);
    assert_non_null(strstr(clb_last_error(), info.name));
    clb_tensor_release(a);
}

static void test_fp64_support(void **state)
{
    (void)state;
    clbt_for_each_device(fp64_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integer_division), cmocka_unit_test(test_binary_into),
        cmocka_unit_test(test_tanh_edges),
        cmocka_unit_test(test_layouts),          cmocka_unit_test(test_split_pieces),
        cmocka_unit_test(test_half_exact),
        cmocka_unit_test(test_fp64_support),     cmocka_unit_test(test_host_loops),
#if CLB_HAVE_OPENCL
        cmocka_unit_test(test_other_work_split),
#endif
        cmocka_unit_test(test_random_cases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
