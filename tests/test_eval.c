/* clb_eval / clb_eval_into: parse errors (column, caret, known names), NumPy 2
 * result dtypes with weak Python literals, broadcasting and out= rules, and
 * random expression trees on every device checked against the same expression
 * computed op by op (clb_binary/clb_unary/clb_where/clb_cast) on the host
 * backend. White-box (links the library's objects) for the program-cache
 * counters of the caching test. */
#include "testutil.h"

#include "internal.h"
#include "plan.h"
#if CLB_HAVE_OPENCL
#include "cl_backend.h"
#include "cl_program_cache.h"
#endif

#include <malloc.h>
#include <math.h>
#include <stdbool.h>

static clb_context *host;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&host); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    return clbt_host_close(&host, true);
}

/* A tensor of `dtype` on ctx holding `vals` (doubles, converted with clb_cast's rules). */
static clb_tensor *from_doubles(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                                const double *vals)
{
    clb_tensor *d = NULL, *c = NULL;
    CLBT_OK(clb_tensor_from_host(host, CLB_FLOAT64, ndim, shape, vals, &d));
    CLBT_OK(clb_cast(d, dtype, &c));
    clb_tensor_release(d);
    if (ctx == host) return c;
    void *bytes = clbt_read(c);
    clb_tensor *t = clbt_tensor(ctx, dtype, ndim, shape, bytes);
    free(bytes);
    clb_tensor_release(c);
    return t;
}

static clb_tensor *scalar(clb_context *ctx, clb_dtype dtype, double v)
{
    return from_doubles(ctx, dtype, 0, NULL, &v);
}

/* ---- parse errors ------------------------------------------------------------------- */

typedef struct parse_case {
    const char *expr;
    clb_status status;
    const char *message; /* a substring of clb_last_error() */
    int column;          /* 0: not checked */
} parse_case;

static void test_parse_errors(void **state)
{
    (void)state;
    static const parse_case cases[] = {
        {"(x - mu / sqrt(var", CLB_ERR_INVALID_ARGUMENT, "expected ')' to close the '(' at column 15", 19},
        {"(x - mu", CLB_ERR_INVALID_ARGUMENT, "expected ')' to close the '(' at column 1", 8},
        {"x +", CLB_ERR_INVALID_ARGUMENT, "expected a number, a name, a call or '('", 4},
        {"x mu", CLB_ERR_INVALID_ARGUMENT, "unexpected 'mu' after a complete expression", 3},
        {"", CLB_ERR_INVALID_ARGUMENT, "empty expression", 1},
        {"   ", CLB_ERR_INVALID_ARGUMENT, "empty expression", 1},
        {"foo(x)", CLB_ERR_INVALID_ARGUMENT, "unknown function 'foo'; the functions are: negative", 1},
        {"x + y", CLB_ERR_INVALID_ARGUMENT, "unknown name 'y'; the inputs are: x, mu, var", 5},
        {"sqrt(x, mu)", CLB_ERR_INVALID_ARGUMENT, "sqrt() takes 1 argument (2 given)", 1},
        {"where(x, mu)", CLB_ERR_INVALID_ARGUMENT, "where() takes 3 arguments (2 given)", 1},
        {"x < mu < var", CLB_ERR_INVALID_ARGUMENT, "chained comparison", 8},
        {"x = 1", CLB_ERR_INVALID_ARGUMENT, "comparison is '=='", 3},
        {"!x", CLB_ERR_INVALID_ARGUMENT, "'not' or '~'", 1},
        {"x $ 1", CLB_ERR_INVALID_ARGUMENT, "unexpected character '$'", 3},
        {"x * 1e", CLB_ERR_INVALID_ARGUMENT, "expected digits after the exponent", 7},
        {"x * 2a", CLB_ERR_INVALID_ARGUMENT, "unexpected 'a' after a number", 6},
        {"x + 99999999999999999999", CLB_ERR_INVALID_ARGUMENT, "does not fit int64", 5},
        {"x + 1 / 0", CLB_ERR_INVALID_ARGUMENT, "division by zero", 7},
        {"x / (1 - 1)", CLB_OK, "", 0}, /* x / 0: NumPy gives inf, Python is not involved */
        {"x * (9223372036854775807 + 1)", CLB_ERR_INVALID_ARGUMENT, "overflows int64", 0},
        {"x + (1.5 & 1)", CLB_ERR_DTYPE, "bitwise operators need integer or bool", 0},
        {"x & mu", CLB_ERR_DTYPE, "bitwise_and", 3},
        {"~x", CLB_ERR_DTYPE, "invert (~) is not supported for float32", 1},
        {"sqrt(x,)", CLB_ERR_INVALID_ARGUMENT, "expected a number", 8},
        {"((((x)))", CLB_ERR_INVALID_ARGUMENT, "expected ')'", 9},
        {"x and", CLB_ERR_INVALID_ARGUMENT, "expected a number", 6},
        {"x ** x ** x ** x", CLB_OK, "", 0},
        {"-(-(-(x)))", CLB_OK, "", 0},
    };
    int64_t shape[1] = {2};
    float zeros[2] = {0, 0};
    clb_tensor *x = clbt_tensor(host, CLB_FLOAT32, 1, shape, zeros);
    clb_tensor *mu = clbt_tensor(host, CLB_FLOAT32, 1, shape, zeros);
    clb_tensor *var = clbt_tensor(host, CLB_FLOAT32, 1, shape, zeros);
    const char *names[3] = {"x", "mu", "var"};
    const clb_tensor *in[3] = {x, mu, var};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const parse_case *c = &cases[i];
        clb_tensor *out = (clb_tensor *)1;
        clb_status st = clb_eval(host, c->expr, 3, names, in, &out);
        const char *msg = clb_last_error();
        if (st != c->status || (st != CLB_OK && !strstr(msg, c->message)))
            fail_msg("\"%s\": %s \"%s\"; expected %s with \"%s\"", c->expr, clb_status_name(st),
                     msg, clb_status_name(c->status), c->message);
        if (st == CLB_OK) {
            clb_tensor_release(out);
            continue;
        }
        assert_null(out);
        /* "at column C", the text echoed, then a caret under column C. */
        if (c->column > 0) {
            char want[64];
            snprintf(want, sizeof want, "at column %d\n", c->column);
            if (!strstr(msg, want)) fail_msg("\"%s\": no \"%s\" in \"%s\"", c->expr, want, msg);
            const char *caret = strrchr(msg, '\n');
            assert_non_null(caret);
            int pad = 0;
            while (caret[1 + pad] == ' ') pad++;
            if (caret[1 + pad] != '^' || pad != c->column - 1)
                fail_msg("\"%s\": caret at %d, expected column %d: \"%s\"", c->expr, pad + 1,
                         c->column, msg);
        }
    }
    /* Length is bounded (issue 26, finding 3: positions are ints, and a text past
       INT_MAX bytes was read out of bounds): 1 MiB is accepted, one byte more is
       refused, by a message that says the limit, without reading the whole text. */
    char *longest = malloc((1 << 20) + 2);
    assert_non_null(longest);
    memset(longest, ' ', (1 << 20) + 1);
    memcpy(longest + (1 << 20) - 6, "x + mu", 6);
    longest[1 << 20] = '\0';
    clb_tensor *lo = NULL;
    CLBT_OK(clb_eval(host, longest, 3, names, in, &lo));
    clb_tensor_release(lo);
    longest[1 << 20] = ' ';
    longest[(1 << 20) + 1] = '\0';
    lo = (clb_tensor *)1;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, longest, 3, names, in, &lo));
    assert_null(lo);
    assert_non_null(strstr(clb_last_error(), "longer than 1048576 bytes"));
    free(longest);
    /* Nesting is bounded (the parser recurses), generously. */
    char deep[1024];
    int at = 0;
    for (int i = 0; i < 60; i++) at += snprintf(deep + at, sizeof deep - at, "sqrt(");
    at += snprintf(deep + at, sizeof deep - at, "x");
    for (int i = 0; i < 60; i++) at += snprintf(deep + at, sizeof deep - at, ")");
    clb_tensor *r = NULL;
    CLBT_OK(clb_eval(host, deep, 3, names, in, &r));
    clb_tensor_release(r);
    at = 0;
    for (int i = 0; i < 300; i++) at += snprintf(deep + at, sizeof deep - at, "(");
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, deep, 3, names, in, &r));
    assert_non_null(strstr(clb_last_error(), "nested more than"));
        /* Bad names and argument checks. */
    clb_tensor *out = NULL;
    const char *bad[1] = {"2x"};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "1", 1, bad, in, &out));
    const char *dup[2] = {"x", "x"};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "x", 2, dup, in, &out));
    const char *kw[1] = {"and"};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "1", 1, kw, in, &out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, NULL, 1, names, in, &out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "x", 9, names, in, &out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(NULL, "x", 1, names, in, &out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "x", 1, names, in, NULL));
    const clb_tensor *nulls[1] = {NULL};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "x", 1, names, nulls, &out));
    assert_null(out);
    clb_tensor_release(x);
    clb_tensor_release(mu);
    clb_tensor_release(var);
}

/* ---- dtypes (NumPy 2 results, NEP 50 weak literals) ----------------------------------- */

typedef struct dtype_case {
    const char *expr;
    clb_dtype x, y;
    clb_dtype want;
} dtype_case;

static void test_dtypes(void **state)
{
    (void)state;
    /* Each row is what NumPy 2 gives for the same expression on arrays x, y. */
    static const dtype_case cases[] = {
        {"x * 2", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT16},
        {"x * 2", CLB_INT8, CLB_BOOL, CLB_INT8},
        {"x * 2", CLB_UINT16, CLB_BOOL, CLB_UINT16},
        {"x * 2.5", CLB_INT8, CLB_BOOL, CLB_FLOAT64},
        {"x * 2.5", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT16},
        {"x + 1", CLB_BOOL, CLB_BOOL, CLB_INT64},
        {"x + 1.0", CLB_BOOL, CLB_BOOL, CLB_FLOAT64},
        {"x / 2", CLB_INT32, CLB_BOOL, CLB_FLOAT64},
        {"x / 2", CLB_FLOAT32, CLB_BOOL, CLB_FLOAT32},
        {"x // 2", CLB_INT16, CLB_BOOL, CLB_INT16},
        {"x % 3", CLB_UINT8, CLB_BOOL, CLB_UINT8},
        {"x ** 2", CLB_INT8, CLB_BOOL, CLB_INT8},
        {"x * 2 ** -1", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT16},
        {"x * 2 ** -1", CLB_INT8, CLB_BOOL, CLB_FLOAT64},
        {"x * (2 + 3)", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT16},
        {"x + y", CLB_INT8, CLB_UINT8, CLB_INT16},
        {"x + y", CLB_FLOAT16, CLB_INT16, CLB_FLOAT32},
        {"x + y", CLB_UINT64, CLB_INT64, CLB_FLOAT64},
        {"x * sqrt(2)", CLB_FLOAT32, CLB_BOOL, CLB_FLOAT64},
        {"x * float32(2)", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT32},
        {"x < 1", CLB_UINT8, CLB_BOOL, CLB_BOOL},
        {"x and y", CLB_FLOAT32, CLB_INT8, CLB_BOOL},
        {"not x", CLB_INT32, CLB_BOOL, CLB_BOOL},
        {"maximum(x, 1)", CLB_UINT8, CLB_BOOL, CLB_UINT8},
        {"maximum(1, 2)", CLB_UINT8, CLB_BOOL, CLB_INT64},
        {"minimum(x, 0.5)", CLB_INT8, CLB_BOOL, CLB_FLOAT64},
        {"where(y, x, 0)", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT16},
        {"where(y, 1, 2)", CLB_FLOAT16, CLB_BOOL, CLB_INT64},
        {"where(y, 1, 2.5)", CLB_FLOAT16, CLB_BOOL, CLB_FLOAT64},
        {"where(x > 0, x, y)", CLB_INT8, CLB_UINT8, CLB_INT16},
        {"float32(x) + 1", CLB_INT64, CLB_BOOL, CLB_FLOAT32},
        {"-x", CLB_UINT8, CLB_BOOL, CLB_UINT8},
        {"abs(x)", CLB_INT8, CLB_BOOL, CLB_INT8},
        {"exp(x)", CLB_INT16, CLB_BOOL, CLB_FLOAT32},
        {"sqrt(x)", CLB_UINT8, CLB_BOOL, CLB_FLOAT16},
        {"~x", CLB_INT32, CLB_BOOL, CLB_INT32},
        {"~x", CLB_BOOL, CLB_BOOL, CLB_BOOL},
        {"x & y", CLB_BOOL, CLB_BOOL, CLB_BOOL},
        {"x + True", CLB_INT8, CLB_BOOL, CLB_INT8},
        {"1 + 2", CLB_INT8, CLB_BOOL, CLB_INT64},
        {"1.5", CLB_INT8, CLB_BOOL, CLB_FLOAT64},
        {"True", CLB_INT8, CLB_BOOL, CLB_BOOL},
        {"1 < 2", CLB_INT8, CLB_BOOL, CLB_BOOL},
        {"(x - y) / sqrt(y + 1e-5)", CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16},
        {"relu(x) + y", CLB_FLOAT32, CLB_FLOAT64, CLB_FLOAT64},
    };
    const char *names[2] = {"x", "y"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const dtype_case *c = &cases[i];
        int64_t shape[1] = {3};
        double vals[3] = {1, 2, 3};
        clb_tensor *x = from_doubles(host, c->x, 1, shape, vals);
        clb_tensor *y = from_doubles(host, c->y, 1, shape, vals);
        const clb_tensor *in[2] = {x, y};
        clb_tensor *out = NULL;
        clb_status st = clb_eval(host, c->expr, 2, names, in, &out);
        if (st != CLB_OK)
            fail_msg("\"%s\" (x %s, y %s): %s %s", c->expr, clb_dtype_name(c->x),
                     clb_dtype_name(c->y), clb_status_name(st), clb_last_error());
        if (clb_tensor_dtype(out) != c->want)
            fail_msg("\"%s\" (x %s, y %s) gave %s, NumPy 2 gives %s", c->expr,
                     clb_dtype_name(c->x), clb_dtype_name(c->y),
                     clb_dtype_name(clb_tensor_dtype(out)), clb_dtype_name(c->want));
        clb_tensor_release(out);
        clb_tensor_release(x);
        clb_tensor_release(y);
    }
    /* A Python int that does not fit the integer dtype it meets: NumPy 2's OverflowError. */
    int64_t shape[1] = {1};
    double one = 1;
    clb_tensor *x = from_doubles(host, CLB_INT8, 1, shape, &one);
    const clb_tensor *in[1] = {x};
    clb_tensor *out = NULL;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_eval(host, "x + 300", 1, names, in, &out));
    assert_non_null(strstr(clb_last_error(), "Python integer 300 out of bounds for int8"));
    /* NumPy's rejections come through with the caret under the operator. */
    clb_tensor *b = from_doubles(host, CLB_BOOL, 1, shape, &one);
    const clb_tensor *bools[2] = {b, b};
    CLBT_FAILS(CLB_ERR_DTYPE, clb_eval(host, "x + (x - y)", 2, names, bools, &out));
    assert_non_null(strstr(clb_last_error(), "at column 8\n"));
    CLBT_FAILS(CLB_ERR_DTYPE, clb_eval(host, "-x", 2, names, bools, &out));
    assert_null(out);
    clb_tensor_release(b);
    clb_tensor_release(x);
}

/* ---- values ----------------------------------------------------------------------------- */

static void test_batch_norm_values(void **state)
{
    (void)state;
    int64_t xs[2] = {3, 2}, vs[1] = {2};
    double xv[6] = {1, 2, 3, 4, 5, 6}, muv[2] = {3, 4}, varv[2] = {4, 16};
    clb_tensor *x = from_doubles(host, CLB_FLOAT32, 2, xs, xv);
    clb_tensor *mu = from_doubles(host, CLB_FLOAT32, 1, vs, muv);
    clb_tensor *var = from_doubles(host, CLB_FLOAT32, 1, vs, varv);
    const char *names[3] = {"x", "mu", "var"};
    const clb_tensor *in[3] = {x, mu, var};
    clb_tensor *out = NULL;
    CLBT_OK(clb_eval(host, "(x - mu) / sqrt(var)", 3, names, in, &out));
    clbt_assert_shape(out, 2, xs);
    assert_int_equal(clb_tensor_dtype(out), CLB_FLOAT32);
    float *r = clbt_read(out);
    float want[6] = {-1, -0.5f, 0, 0, 1, 0.5f};
    for (int i = 0; i < 6; i++) assert_float_equal(r[i], want[i], 0);
    free(r);
    clb_tensor_release(out);

    /* Shape errors name the inputs. */
    int64_t bad_shape[1] = {3};
    clb_tensor *bad = from_doubles(host, CLB_FLOAT32, 1, bad_shape, xv);
    const clb_tensor *in_bad[3] = {x, bad, var};
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_eval(host, "x - mu", 3, names, in_bad, &out));
    assert_non_null(strstr(clb_last_error(),
                           "The size of tensor x (2) must match the size of tensor mu (3) at "
                           "non-singleton dimension 1"));

    /* eval_into: in place into x, same_kind casting, aliasing. */
    CLBT_OK(clb_eval_into(host, "(x - mu) / sqrt(var)", 3, names, in, x));
    r = clbt_read(x);
    for (int i = 0; i < 6; i++) assert_float_equal(r[i], want[i], 0);
    free(r);
    clb_tensor *i32 = NULL;
    CLBT_OK(clb_tensor_empty(host, CLB_INT32, 2, xs, &i32));
    CLBT_FAILS(CLB_ERR_DTYPE, clb_eval_into(host, "x * 2", 3, names, in, i32));
    CLBT_OK(clb_eval_into(host, "int32(x * 2)", 3, names, in, i32));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_eval_into(host, "x", 3, names, in, var));
    clb_tensor *bview = NULL;
    CLBT_OK(clb_broadcast_to(var, 2, xs, &bview));
    CLBT_FAILS(CLB_ERR_ALIASING, clb_eval_into(host, "x + 1", 3, names, in, bview));
    clb_tensor *xt = NULL;
    int perm[2] = {1, 0};
    CLBT_OK(clb_permute(x, perm, &xt));
    int64_t ts[2] = {2, 3};
    clb_tensor *xt_c = NULL;
    CLBT_OK(clb_tensor_empty(host, CLB_FLOAT32, 2, ts, &xt_c));
    const char *one[1] = {"x"};
    const clb_tensor *in_t[1] = {xt};
    CLBT_OK(clb_eval_into(host, "x * 2", 1, one, in_t, xt_c)); /* strided input */
    r = clbt_read(xt_c);
    assert_float_equal(r[1], 2 * want[2], 0);
    free(r);
    /* out over x's storage in another layout than the input view: a race */
    clb_tensor *x23 = NULL;
    CLBT_OK(clb_reshape(x, 2, ts, &x23));
    assert_true(clb_tensor_shares_storage(x23, x));
    CLBT_FAILS(CLB_ERR_ALIASING, clb_eval_into(host, "x * 2", 1, one, in_t, x23));
    clb_tensor_release(x23);
    clb_tensor_release(xt_c);
    clb_tensor_release(xt);
    clb_tensor_release(bview);
    clb_tensor_release(i32);
    clb_tensor_release(bad);
    clb_tensor_release(x);
    clb_tensor_release(mu);
    clb_tensor_release(var);

    /* x (16, 2) against (2,): sqrt(var) is computed once per column into a
       temporary (a subtree over 1/8 of the output or less), same values. */
    {
        int64_t bs[2] = {16, 2};
        double bx[32];
        for (int i = 0; i < 32; i++) bx[i] = i;
        clb_tensor *x16 = from_doubles(host, CLB_FLOAT32, 2, bs, bx);
        clb_tensor *m2 = from_doubles(host, CLB_FLOAT32, 1, vs, muv);
        clb_tensor *v2 = from_doubles(host, CLB_FLOAT32, 1, vs, varv);
        const clb_tensor *in16[3] = {x16, m2, v2};
        CLBT_OK(clb_eval(host, "(x - mu) / sqrt(var) + sqrt(float32(4))", 3, names, in16, &out));
        assert_int_equal(clb_tensor_dtype(out), CLB_FLOAT32);
        r = clbt_read(out);
        for (int i = 0; i < 32; i++)
            assert_float_equal(r[i], (bx[i] - muv[i % 2]) / sqrt(varv[i % 2]) + 2, 0);
        free(r);
        clb_tensor_release(out);
        clb_tensor_release(x16);
        clb_tensor_release(m2);
        clb_tensor_release(v2);
    }

    /* No inputs at all: a 0-d result. */
    CLBT_OK(clb_eval(host, "2 ** 10 - 1", 0, NULL, NULL, &out));
    assert_int_equal(clb_tensor_ndim(out), 0);
    int64_t *v = clbt_read(out);
    assert_int_equal(*v, 1023);
    free(v);
    clb_tensor_release(out);
}

/* ---- random expression trees vs the op-by-op chain ---------------------------------------- */

enum { N_INPUT, N_INT, N_FLOAT, N_UNARY, N_BINARY, N_WHERE, N_CAST, N_INVERT };

typedef struct tnode {
    int kind, op, input;
    double lit;
    struct tnode *a, *b, *c;
} tnode;

typedef struct gen {
    uint64_t rng;
    int ninputs;
    bool exact_only; /* ops whose device results equal the host's bit for bit */
    tnode pool[256];
    int used;
} gen;

static int pick(gen *g, int n)
{
    return (int)(clbt_rand(&g->rng) % (uint64_t)n);
}

static const clb_unary_op exact_unary[] = {CLB_NEG, CLB_ABS, CLB_RELU, CLB_FLOOR, CLB_CEIL,
                                           CLB_LOGICAL_NOT};
static const clb_unary_op all_unary[] = {CLB_NEG, CLB_ABS, CLB_SQRT, CLB_RSQRT, CLB_EXP,
                                         CLB_LOG, CLB_SIN, CLB_COS, CLB_TANH, CLB_SIGMOID,
                                         CLB_RELU, CLB_FLOOR, CLB_CEIL, CLB_LOGICAL_NOT};
static const char *const unary_fn[] = {
    [CLB_NEG] = "negative", [CLB_ABS] = "abs", [CLB_SQRT] = "sqrt", [CLB_RSQRT] = "rsqrt",
    [CLB_EXP] = "exp", [CLB_LOG] = "log", [CLB_SIN] = "sin", [CLB_COS] = "cos",
    [CLB_TANH] = "tanh", [CLB_SIGMOID] = "sigmoid", [CLB_RELU] = "relu",
    [CLB_FLOOR] = "floor", [CLB_CEIL] = "ceil", [CLB_LOGICAL_NOT] = "not"};
static const char *const binary_tok[] = {
    [CLB_ADD] = "+", [CLB_SUB] = "-", [CLB_MUL] = "*", [CLB_DIV] = "/", [CLB_FLOOR_DIV] = "//",
    [CLB_MOD] = "%", [CLB_POW] = "**", [CLB_MAXIMUM] = "maximum", [CLB_MINIMUM] = "minimum",
    [CLB_EQ] = "==", [CLB_NE] = "!=", [CLB_LT] = "<", [CLB_LE] = "<=", [CLB_GT] = ">",
    [CLB_GE] = ">=", [CLB_LOGICAL_AND] = "and", [CLB_LOGICAL_OR] = "or",
    [CLB_LOGICAL_XOR] = "logical_xor", [CLB_BITWISE_AND] = "&", [CLB_BITWISE_OR] = "|",
    [CLB_BITWISE_XOR] = "^"};

static tnode *gen_tree(gen *g, int depth, bool allow_literal)
{
    tnode *n = &g->pool[g->used++];
    memset(n, 0, sizeof *n);
    int r = pick(g, 10);
    if (depth == 0 || r < 2) {
        if (allow_literal && pick(g, 4) == 0) {
            bool is_int = pick(g, 2);
            n->kind = is_int ? N_INT : N_FLOAT;
            static const double floats[] = {0.5, 1.5, 2.0, -0.25, 3.0};
            n->lit = is_int ? 1 + pick(g, 5) : floats[pick(g, 5)];
        } else {
            n->kind = N_INPUT;
            n->input = pick(g, g->ninputs);
        }
        return n;
    }
    if (r < 4 && pick(g, 6) == 0) {
        n->kind = N_INVERT; /* ~ of a literal is Python's, so only of tensors */
        n->a = gen_tree(g, depth - 1, false);
    } else if (r < 4) {
        n->kind = N_UNARY;
        n->op = g->exact_only ? exact_unary[pick(g, 6)] : all_unary[pick(g, 14)];
        n->a = gen_tree(g, depth - 1, true);
    } else if (r < 8) {
        n->kind = N_BINARY;
        n->op = pick(g, CLB_BITWISE_XOR + 1);
        if (g->exact_only && (n->op == CLB_DIV || n->op == CLB_POW)) n->op = CLB_ADD;
        bool left_lit = pick(g, 2);
        n->a = gen_tree(g, depth - 1, left_lit);
        n->b = gen_tree(g, depth - 1, !left_lit); /* never two literals: Python would fold them */
    } else if (r < 9) {
        n->kind = N_WHERE;
        n->a = gen_tree(g, depth - 1, false);
        n->b = gen_tree(g, depth - 1, true);
        n->c = gen_tree(g, depth - 1, true);
    } else {
        n->kind = N_CAST;
        n->op = pick(g, 12);
        n->a = gen_tree(g, depth - 1, true);
    }
    return n;
}

static const char *const dtype_fn[] = {"bool",   "int8",   "uint8",  "int16",
                                       "uint16", "int32",  "uint32", "int64",
                                       "uint64", "float16", "float32", "float64"};

static void render(const tnode *n, char *buf, size_t cap, size_t *len)
{
#define OUT(...) (*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, __VA_ARGS__))
    switch (n->kind) {
    case N_INPUT: OUT("v%d", n->input); break;
    case N_INT: OUT("%d", (int)n->lit); break;
    case N_FLOAT: OUT("(%.17g%s)", n->lit, n->lit == floor(n->lit) ? ".0" : ""); break;
    case N_UNARY:
        OUT(n->op == CLB_LOGICAL_NOT ? "(%s (" : "%s(", unary_fn[n->op]); /* `not` binds loosely */
        if (n->op == CLB_LOGICAL_NOT) {
            render(n->a, buf, cap, len);
            OUT("))");
            break;
        }
        render(n->a, buf, cap, len);
        OUT(")");
        break;
    case N_BINARY:
        if (n->op == CLB_MAXIMUM || n->op == CLB_MINIMUM || n->op == CLB_LOGICAL_XOR) {
            OUT("%s(", binary_tok[n->op]);
            render(n->a, buf, cap, len);
            OUT(", ");
            render(n->b, buf, cap, len);
            OUT(")");
        } else {
            OUT("(");
            render(n->a, buf, cap, len);
            OUT(" %s ", binary_tok[n->op]);
            render(n->b, buf, cap, len);
            OUT(")");
        }
        break;
    case N_WHERE:
        OUT("where(");
        render(n->a, buf, cap, len);
        OUT(", ");
        render(n->b, buf, cap, len);
        OUT(", ");
        render(n->c, buf, cap, len);
        OUT(")");
        break;
    case N_INVERT:
        OUT("(~");
        render(n->a, buf, cap, len);
        OUT(")");
        break;
    case N_CAST:
        OUT("%s(", dtype_fn[n->op]);
        render(n->a, buf, cap, len);
        OUT(")");
        break;
    }
#undef OUT
}

static bool is_lit(const tnode *n)
{
    return n->kind == N_INT || n->kind == N_FLOAT;
}

static bool is_float_dtype(clb_dtype t)
{
    return t == CLB_FLOAT16 || t == CLB_FLOAT32 || t == CLB_FLOAT64;
}

static clb_status reference(const tnode *n, clb_tensor *const *inputs, clb_tensor **out);

/* A literal as the 0-d tensor NumPy 2 makes of it next to a tensor of dtype
   `partner` (-1: no typed partner, so int64/float64). */
static clb_tensor *literal(const tnode *n, int partner)
{
    clb_dtype t;
    if (partner < 0) t = n->kind == N_INT ? CLB_INT64 : CLB_FLOAT64;
    else if (n->kind == N_INT) t = partner == CLB_BOOL ? CLB_INT64 : (clb_dtype)partner;
    else t = is_float_dtype((clb_dtype)partner) ? (clb_dtype)partner : CLB_FLOAT64;
    return scalar(host, t, n->lit);
}

/* Both operands of a binary node or of where's values, literals typed by their partner. */
static clb_status operands(const tnode *a, const tnode *b, clb_tensor *const *inputs,
                           clb_tensor **ta, clb_tensor **tb)
{
    clb_status st = CLB_OK;
    *ta = *tb = NULL;
    if (is_lit(a) && is_lit(b)) {
        *ta = literal(a, -1);
        *tb = literal(b, -1);
    } else if (is_lit(a)) {
        if ((st = reference(b, inputs, tb)) == CLB_OK) *ta = literal(a, clb_tensor_dtype(*tb));
    } else if (is_lit(b)) {
        if ((st = reference(a, inputs, ta)) == CLB_OK) *tb = literal(b, clb_tensor_dtype(*ta));
    } else if ((st = reference(a, inputs, ta)) == CLB_OK) {
        st = reference(b, inputs, tb);
    }
    if (st != CLB_OK) {
        clb_tensor_release(*ta);
        clb_tensor_release(*tb);
        *ta = *tb = NULL;
    }
    return st;
}

/* The expression computed op by op on the host backend. */
static clb_status reference(const tnode *n, clb_tensor *const *inputs, clb_tensor **out)
{
    clb_tensor *a = NULL, *b = NULL, *c = NULL;
    clb_status st = CLB_OK;
    *out = NULL;
    switch (n->kind) {
    case N_INPUT:
        clb_tensor_retain(inputs[n->input]);
        *out = inputs[n->input];
        return CLB_OK;
    case N_INT:
    case N_FLOAT:
        *out = literal(n, -1);
        return CLB_OK;
    case N_UNARY:
        st = is_lit(n->a) ? (a = literal(n->a, -1), CLB_OK) : reference(n->a, inputs, &a);
        if (st == CLB_OK) st = clb_unary((clb_unary_op)n->op, a, out);
        break;
    case N_CAST:
        st = is_lit(n->a) ? (a = literal(n->a, -1), CLB_OK) : reference(n->a, inputs, &a);
        if (st == CLB_OK) st = clb_cast(a, (clb_dtype)n->op, out);
        break;
    case N_BINARY:
        st = operands(n->a, n->b, inputs, &a, &b);
        if (st == CLB_OK) st = clb_binary((clb_binary_op)n->op, a, b, out);
        break;
    case N_INVERT: /* NumPy's invert: logical not of bool, xor with all ones otherwise */
        st = reference(n->a, inputs, &a);
        if (st == CLB_OK && clb_tensor_dtype(a) == CLB_BOOL) {
            st = clb_unary(CLB_LOGICAL_NOT, a, out);
        } else if (st == CLB_OK) {
            uint64_t ones = UINT64_MAX;
            int64_t scalar_shape[1] = {1};
            clb_dtype t = clb_tensor_dtype(a);
            /* the first itemsize bytes of all-ones are all-ones (floats: rejected below) */
            b = clbt_tensor(host, t, 0, scalar_shape, &ones);
            st = clb_binary(CLB_BITWISE_XOR, a, b, out);
        }
        break;
    case N_WHERE:
        st = reference(n->a, inputs, &c);
        if (st == CLB_OK) st = operands(n->b, n->c, inputs, &a, &b);
        if (st == CLB_OK) st = clb_where(c, a, b, out);
        break;
    }
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
    return st;
}

/* Random input dtype, shape (broadcastable to `shape`) and values. */
static clb_tensor *random_input(gen *g, int ndim, const int64_t *shape, clb_dtype dtype)
{
    int nd = pick(g, ndim + 1);
    int64_t s[8];
    int64_t numel = 1;
    for (int i = 0; i < nd; i++) {
        s[i] = pick(g, 3) == 0 ? 1 : shape[ndim - nd + i];
        numel *= s[i];
    }
    double *v = malloc(sizeof(double) * (size_t)(numel ? numel : 1));
    for (int64_t i = 0; i < numel; i++) {
        int r = pick(g, 41);
        if (dtype == CLB_BOOL) v[i] = r & 1;
        else if (is_float_dtype(dtype)) v[i] = (r - 20) / 4.0;
        else if (dtype >= CLB_INT8 && (dtype == CLB_UINT8 || dtype == CLB_UINT16 || dtype == CLB_UINT32 || dtype == CLB_UINT64)) v[i] = r / 2;
        else v[i] = (r - 20) / 2;
    }
    clb_tensor *t = from_doubles(host, dtype, nd, s, v);
    free(v);
    return t;
}

/* Compares a result with the host reference through the one comparison
   (tests/testutil.h): integers and bools exactly; floats bit for bit (any NaN
   matching any NaN) when `exact`, else within a dtype-scaled tolerance. */
static bool same_values(const clb_tensor *got, const clb_tensor *want, bool exact, char *why,
                        size_t cap)
{
    clb_dtype t = clb_tensor_dtype(want);
    double tol = t == CLB_FLOAT16 ? 4e-3 : t == CLB_FLOAT32 ? 1e-5 : 1e-12;
    return clbt_matches_host(got, want, exact ? CLBT_EXACT : tol, tol, why, cap);
}

typedef struct random_stats {
    int compared, errors_matched;
} random_stats;

/* One random expression on ctx against the host's op-by-op chain, over `shapes`
   sets of inputs: the same dtypes and ranks with new sizes each time. */
static clb_status random_case(clb_context *ctx, gen *g, bool exact, int shapes,
                              random_stats *stats)
{
    static const clb_dtype pool[] = {CLB_BOOL,   CLB_INT8,    CLB_UINT8,   CLB_INT16,
                                     CLB_UINT16, CLB_INT32,   CLB_UINT32,  CLB_INT64,
                                     CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64,
                                     CLB_FLOAT32, CLB_INT32};
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    g->used = 0;
    g->ninputs = 1 + pick(g, 6);
    int ndim = pick(g, 5);
    clb_dtype dtypes[6];
    for (int k = 0; k < g->ninputs; k++) {
        dtypes[k] = pool[pick(g, 14)];
        if (dtypes[k] == CLB_FLOAT64 && !info.has_fp64) dtypes[k] = CLB_FLOAT32;
    }
    tnode *root = gen_tree(g, 1 + pick(g, 5), false);
    char text[4096];
    size_t len = 0;
    render(root, text, sizeof text, &len);
    assert_true(len < sizeof text);
    const char *names[6] = {"v0", "v1", "v2", "v3", "v4", "v5"};
    clb_status st = CLB_OK;
    for (int rep = 0; rep < shapes; rep++) {
        int64_t shape[8];
        for (int d = 0; d < ndim; d++) shape[d] = 1 + pick(g, rep == 0 ? 4 : ndim > 2 ? 12 : 100);
        clb_tensor *hin[6] = {0}, *din[6] = {0};
        for (int k = 0; k < g->ninputs; k++) {
            hin[k] = random_input(g, ndim, shape, dtypes[k]);
            void *bytes = clbt_read(hin[k]);
            din[k] = clbt_tensor(ctx, dtypes[k], clb_tensor_ndim(hin[k]),
                                 clb_tensor_shape(hin[k]), bytes);
            free(bytes);
        }
        clb_tensor *want = NULL, *got = NULL;
        clb_status ref = reference(root, hin, &want);
        st = clb_eval(ctx, text, g->ninputs, names, (const clb_tensor *const *)din, &got);
        if (ref == CLB_OK && st == CLB_OK) {
            /* The chain only broadcasts the inputs it uses; clb_eval all of them. */
            clb_tensor *wb = NULL;
            CLBT_OK(clb_broadcast_to(want, clb_tensor_ndim(got), clb_tensor_shape(got), &wb));
            char why[256];
            if (!same_values(got, wb, exact, why, sizeof why))
                fail_msg("device %s, \"%s\": %s", info.name, text, why);
            clb_tensor_release(wb);
            stats->compared++;
        } else if (st == CLB_ERR_DTYPE && ref == CLB_OK && !info.has_fp64) {
            /* float64 arithmetic (a float literal next to integers) on a device without it */
        } else if (ref == st) {
            stats->errors_matched++; /* the same rejection */
        } else {
            fail_msg("device %s, \"%s\": clb_eval %s (%s), op by op %s", info.name, text,
                     clb_status_name(st), st ? clb_last_error() : "", clb_status_name(ref));
        }
        clb_tensor_release(want);
        clb_tensor_release(got);
        for (int k = 0; k < g->ninputs; k++) {
            clb_tensor_release(hin[k]);
            clb_tensor_release(din[k]);
        }
        if (st != CLB_OK) break; /* a rejection does not depend on sizes */
    }
    return st;
}

static void random_on_device(clb_context *ctx, const char *selector)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    bool is_host = info.type == CLB_DEVICE_HOST;
    /* Each distinct expression is a kernel compile on OpenCL devices (0.1-1 s on
       PoCL): few expressions there, each over several sizes (one compile per
       expression and coalesced rank). */
    int cases = is_host ? 400 : 30, shapes = is_host ? 1 : 4;
    gen g = {.rng = 0x5eed0000u + (uint64_t)(unsigned char)selector[0], .exact_only = !is_host};
    random_stats stats = {0, 0};
    for (int i = 0; i < cases; i++) {
        random_case(ctx, &g, is_host, shapes, &stats);
    }
    print_message("%s: %d random expressions equal to the op-by-op chain, %d rejected alike\n",
                  info.name, stats.compared, stats.errors_matched);
    assert_true(stats.compared > cases * shapes / 3);
}

static void test_random_trees(void **state)
{
    (void)state;
    clbt_for_each_device(random_on_device);
}

/* ---- layouts and float math on every device ---------------------------------------------- */

/* Rank 10 with a permutation that no coalescing undoes (the __constant table path,
   past 8 axes), eight inputs (every kernel slot), and each float function once,
   against the host backend's clb_eval (which the random trees tie to the op-by-op
   chain); float math within a tolerance, as device libm differs. */
static void layouts_on_device(clb_context *ctx, const char *selector)
{
    (void)selector;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    int64_t shape[10] = {2, 3, 2, 2, 2, 3, 2, 2, 2, 3};
    int64_t numel = 1;
    for (int d = 0; d < 10; d++) numel *= shape[d];
    double *v = malloc(sizeof(double) * (size_t)numel);
    for (int64_t i = 0; i < numel; i++) v[i] = (double)((i * 7) % 23) / 4.0 - 2.0;
    clb_tensor *base_h = from_doubles(host, CLB_FLOAT32, 10, shape, v);
    clb_tensor *base_d = from_doubles(ctx, CLB_FLOAT32, 10, shape, v);
    int perm[10] = {9, 0, 8, 1, 7, 2, 6, 3, 5, 4};
    clb_tensor *xh = NULL, *xd = NULL;
    CLBT_OK(clb_permute(base_h, perm, &xh));
    CLBT_OK(clb_permute(base_d, perm, &xd));
    const int64_t *ps = clb_tensor_shape(xh);
    int64_t last[1] = {ps[9]};
    double lv[3] = {0.5, -1.5, 2.25};
    clb_tensor *yh = from_doubles(host, CLB_FLOAT32, 1, last, lv);
    clb_tensor *yd = from_doubles(ctx, CLB_FLOAT32, 1, last, lv);

    static const char *const exprs[] = {
        "x * 2 + y", "maximum(x, y) - floor(x)", "where(x > y, x, -y)", "sqrt(abs(x)) + y",
        "exp(x) - log(abs(y))", "sin(x) * cos(y)", "tanh(x) + sigmoid(y)", "rsqrt(abs(x) + 1)",
        "x / y", "x ** 2 + y % 1.5", "x // y", "int32(x * 4) % 3",
    };
    const char *names[2] = {"x", "y"};
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        const clb_tensor *hin[2] = {xh, yh}, *din[2] = {xd, yd};
        clb_tensor *want = NULL, *got = NULL;
        CLBT_OK(clb_eval(host, exprs[i], 2, names, hin, &want));
        clb_status st = clb_eval(ctx, exprs[i], 2, names, din, &got);
        CLBT_OK(st);
        char why[256];
        if (!same_values(got, want, info.type == CLB_DEVICE_HOST, why, sizeof why))
            fail_msg("device %s, \"%s\" over a rank-10 permuted view: %s", info.name, exprs[i], why);
        clb_tensor_release(want);
        clb_tensor_release(got);
    }

    /* 32-bit pieces: with the piece limit lowered, a plan that does not fit runs as
       several launches with 64-bit base offsets (the path of tensors over 2^31). */
    {
        int64_t big[2] = {37, 211};
        double *bv = malloc(sizeof(double) * 37 * 211);
        for (int i = 0; i < 37 * 211; i++) bv[i] = (double)(i % 101) - 50;
        clb_tensor *bh = from_doubles(host, CLB_INT32, 2, big, bv);
        clb_tensor *bd = from_doubles(ctx, CLB_INT32, 2, big, bv);
        clb_tensor *bth = NULL, *btd = NULL;
        int tperm[2] = {1, 0};
        CLBT_OK(clb_permute(bh, tperm, &bth));
        CLBT_OK(clb_permute(bd, tperm, &btd));
        int64_t row_shape[1] = {37}, col_shape[1] = {211};
        clb_tensor *rh = from_doubles(host, CLB_INT32, 1, row_shape, bv);
        clb_tensor *rd = from_doubles(ctx, CLB_INT32, 1, row_shape, bv);
        clb_tensor *ch = from_doubles(host, CLB_INT32, 1, col_shape, bv);
        clb_tensor *cd = from_doubles(ctx, CLB_INT32, 1, col_shape, bv);
        const char *bn[2] = {"x", "r"};
        /* (211, 37) transposed + (37,): a short innermost axis, the 1-D launch;
           (37, 211) + (211,): the 2-D launch. Both split into pieces. */
        const clb_tensor *cases_h[2][2] = {{bth, rh}, {bh, ch}};
        const clb_tensor *cases_d[2][2] = {{btd, rd}, {bd, cd}};
        for (int c = 0; c < 2; c++) {
            clb_tensor *bwant = NULL, *bgot = NULL;
            int64_t saved = clb__plan_piece_limit;
            clb__plan_piece_limit = 1000;
            CLBT_OK(clb_eval(host, "x * 3 - (x // 7) + r", 2, bn, cases_h[c], &bwant));
            clb_status bst = clb_eval(ctx, "x * 3 - (x // 7) + r", 2, bn, cases_d[c], &bgot);
            clb__plan_piece_limit = saved;
            CLBT_OK(bst);
            char why[256];
            if (!same_values(bgot, bwant, true, why, sizeof why))
                fail_msg("device %s, pieces, case %d: %s", info.name, c, why);
            clb_tensor_release(bwant);
            clb_tensor_release(bgot);
        }
        clb_tensor_release(rh);
        clb_tensor_release(rd);
        clb_tensor_release(ch);
        clb_tensor_release(cd);
        clb_tensor_release(bth);
        clb_tensor_release(btd);
        clb_tensor_release(bh);
        clb_tensor_release(bd);
        free(bv);
    }

    /* No inputs (a 0-d result), and a zero-size input (nothing to launch). */
    clb_tensor *z = NULL;
    CLBT_OK(clb_eval(ctx, "2 ** 10 - 1", 0, NULL, NULL, &z));
    int64_t *zv = clbt_read(z);
    assert_int_equal(*zv, 1023);
    free(zv);
    clb_tensor_release(z);
    int64_t empty_shape[2] = {0, last[0]};
    clb_tensor *e0 = from_doubles(ctx, CLB_FLOAT32, 2, empty_shape, NULL);
    const clb_tensor *ein[2] = {e0, yd};
    CLBT_OK(clb_eval(ctx, "x * y", 2, names, ein, &z));
    assert_int_equal(clb_tensor_numel(z), 0);
    clb_tensor_release(z);
    clb_tensor_release(e0);

    /* Eight inputs, different dtypes and broadcast shapes. */
    const char *n8[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    static const clb_dtype t8[8] = {CLB_FLOAT32, CLB_INT8, CLB_UINT8, CLB_INT32,
                                    CLB_FLOAT16, CLB_BOOL, CLB_INT16, CLB_FLOAT32};
    int64_t s8[8][2] = {{4, 5}, {5, 0}, {4, 1}, {1, 5}, {5, 0}, {4, 5}, {1, 1}, {5, 0}};
    int nd8[8] = {2, 1, 2, 2, 1, 2, 2, 1};
    clb_tensor *h8[8], *d8[8];
    double vals[20];
    for (int k = 0; k < 8; k++) {
        for (int i = 0; i < 20; i++) vals[i] = (double)((i * (k + 3)) % 7) - 2;
        h8[k] = from_doubles(host, t8[k], nd8[k], s8[k], vals);
        d8[k] = from_doubles(ctx, t8[k], nd8[k], s8[k], vals);
    }
    const char *e8 = "where(f, a * b + c, d - e) + g * h";
    clb_tensor *want = NULL, *got = NULL;
    CLBT_OK(clb_eval(host, e8, 8, n8, (const clb_tensor *const *)h8, &want));
    /* int32 with float32 computes in float64 (NumPy 2). */
    if (CLBT_F64(ctx, clb_eval(ctx, e8, 8, n8, (const clb_tensor *const *)d8, &got))) {
        char why[256];
        if (!same_values(got, want, true, why, sizeof why))
            fail_msg("device %s, \"%s\": %s", info.name, e8, why);
    }
    clb_tensor_release(want);
    clb_tensor_release(got);
    for (int k = 0; k < 8; k++) {
        clb_tensor_release(h8[k]);
        clb_tensor_release(d8[k]);
    }
    free(v);
    clb_tensor_release(base_h);
    clb_tensor_release(base_d);
    clb_tensor_release(xh);
    clb_tensor_release(xd);
    clb_tensor_release(yh);
    clb_tensor_release(yd);
}

static void test_layouts(void **state)
{
    (void)state;
    clbt_for_each_device(layouts_on_device);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_map_blocked;              /* src/opencl/cl_launch.h */
extern _Atomic int64_t clb__cl_streaming_min_bytes; /* src/opencl/cl_launch.h */
#endif

/* The launch paths a device does not take by itself: blocks of rows and chunks
   per work item (CPU devices) and the grid (GPUs), and streaming stores forced
   on for every size; rows that are multiples of the chunk and rows that are not,
   a contiguous and a strided output. */
static void work_splits_on_device(clb_context *ctx, const char *selector)
{
    (void)selector;
    const char *names[3] = {"x", "mu", "var"};
    const char *expr = "(x - mu) / sqrt(var + 1e-5) * 2 + x";
    for (int mode = 0; mode < 3; mode++) {
#if CLB_HAVE_OPENCL
        clb__cl_map_blocked = mode < 2 ? mode : -1;
        clb__cl_streaming_min_bytes = mode == 2 ? 0 : -1;
#endif
        for (int64_t inner = 16; inner <= 21; inner += 5) {
            int64_t xs[2] = {6, inner}, vs[1] = {inner};
            double xv[6 * 21], vv[21];
            for (int i = 0; i < 6 * inner; i++) xv[i] = (i * 7) % 11 - 5;
            for (int i = 0; i < inner; i++) vv[i] = 1 + i % 3;
            clb_tensor *hin[3] = {from_doubles(host, CLB_FLOAT32, 2, xs, xv),
                                  from_doubles(host, CLB_FLOAT32, 1, vs, vv),
                                  from_doubles(host, CLB_FLOAT32, 1, vs, vv)};
            clb_tensor *din[3] = {from_doubles(ctx, CLB_FLOAT32, 2, xs, xv),
                                  from_doubles(ctx, CLB_FLOAT32, 1, vs, vv),
                                  from_doubles(ctx, CLB_FLOAT32, 1, vs, vv)};
            clb_tensor *want = NULL, *got = NULL, *base = NULL, *view = NULL;
            char why[256];
            CLBT_OK(clb_eval(host, expr, 3, names, (const clb_tensor *const *)hin, &want));
            CLBT_OK(clb_eval(ctx, expr, 3, names, (const clb_tensor *const *)din, &got));
            if (!same_values(got, want, false, why, sizeof why))
                fail_msg("mode %d, rows of %lld: %s", mode, (long long)inner, why);
            /* into the transpose of an (inner, 6) tensor: a strided output */
            int64_t ts[2] = {inner, 6};
            CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, ts, &base));
            CLBT_OK(clb_permute(base, (const int[]){1, 0}, &view));
            CLBT_OK(clb_eval_into(ctx, expr, 3, names, (const clb_tensor *const *)din, view));
            if (!same_values(view, want, false, why, sizeof why))
                fail_msg("mode %d, strided output, rows of %lld: %s", mode, (long long)inner, why);
            clb_tensor_release(view);
            clb_tensor_release(base);
            clb_tensor_release(got);
            clb_tensor_release(want);
            for (int k = 0; k < 3; k++) {
                clb_tensor_release(hin[k]);
                clb_tensor_release(din[k]);
            }
        }
    }
#if CLB_HAVE_OPENCL
    clb__cl_map_blocked = -1;
    clb__cl_streaming_min_bytes = -1;
#endif
}

static void test_work_splits(void **state)
{
    (void)state;
    clbt_for_each_device(work_splits_on_device);
}

/* ---- a refusal leaks nothing ---------------------------------------------------------- */

/* Issue 26, finding 11: on a device without float64, clb_eval's refusal of an
   expression computing in float64 once leaked the generated kernel body
   (~0.5 KB a call: 100 KB here). 400 refusals must not grow the heap by 40 KB (glibc's
   mallinfo2; LeakSanitizer reports the same leak in the asan stage). */
static void refusal_on_device(clb_context *ctx, const char *selector)
{
    (void)selector;
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    if (info.has_fp64) return;
    const int64_t shape[1] = {4};
    const int32_t v[4] = {1, 2, 3, 4};
    clb_tensor *x = NULL, *r = NULL;
    CLBT_OK(clb_tensor_from_host(ctx, CLB_INT32, 1, shape, v, &x));
    const char *names[1] = {"x"};
    const clb_tensor *in[1] = {x};
    CLBT_FAILS(CLB_ERR_DTYPE, clb_eval(ctx, "x * 2.5 + exp(x)", 1, names, in, &r));
    size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 200; i++) {
        CLBT_FAILS(CLB_ERR_DTYPE, clb_eval(ctx, "x * 2.5 + exp(x)", 1, names, in, &r));
        CLBT_FAILS(CLB_ERR_DTYPE,
                   clb_eval_reduce(ctx, "x * 2.5 + exp(x)", 1, names, in, CLB_SUM, 0, NULL, 0, &r));
    }
    size_t after = mallinfo2().uordblks;
    if (after > before + 40000)
        fail_msg("%s: 400 refused float64 expressions grew the heap by %zu bytes", info.name,
                 after - before);
    clb_tensor_release(x);
}

static void test_refusal_leaks_nothing(void **state)
{
    (void)state;
    clbt_for_each_device(refusal_on_device);
}

/* ---- caching ------------------------------------------------------------------------------ */

static void caching_on_device(clb_context *ctx, const char *selector)
{
    (void)selector;
#if CLB_HAVE_OPENCL
    clb__program_cache *cache = clb__cl_context_programs(ctx);
    if (!cache) return; /* host: nothing is compiled */
    const char *names[3] = {"x", "mu", "var"};
    clb__program_cache_stats before, after;
    for (int round = 0; round < 4; round++) {
        /* Same rank (2) after coalescing in every round, different sizes. */
        int64_t xs[2] = {3 + round, 5 + 2 * round}, vs[1] = {xs[1]};
        double *xv = calloc((size_t)(xs[0] * xs[1]), sizeof(double));
        double *vv = calloc((size_t)xs[1], sizeof(double));
        for (int i = 0; i < xs[0] * xs[1]; i++) xv[i] = i;
        for (int i = 0; i < xs[1]; i++) vv[i] = 1 + i;
        clb_tensor *x = from_doubles(ctx, CLB_FLOAT32, 2, xs, xv);
        clb_tensor *mu = from_doubles(ctx, CLB_FLOAT32, 1, vs, vv);
        clb_tensor *var = from_doubles(ctx, CLB_FLOAT32, 1, vs, vv);
        const clb_tensor *in[3] = {x, mu, var};
        clb_tensor *out = NULL;
        clb__program_cache_get_stats(cache, &before);
        clb_status st = clb_eval(ctx, "(x - mu) / sqrt(var + 1e-5)", 3, names, in, &out);
        clb__program_cache_get_stats(cache, &after);
        free(xv);
        free(vv);
        clb_tensor_release(x);
        clb_tensor_release(mu);
        clb_tensor_release(var);
        CLBT_OK(st);
        clb_tensor_release(out);
        if (round == 0) {
            /* The options no test shape reaches: 64-bit indexing (over 2^31 elements)
               with by-value and with table strides. They must build. */
            cl_program prog = NULL;
            CLBT_OK(clb__program_cache_get(cache, CLB__KERNEL_EVAL, "-DCLB_INDEX64=1", &prog));
            CLBT_OK(clb__program_cache_get(cache, CLB__KERNEL_EVAL,
                                           "-DCLB_INDEX64=1 -DCLB_NDIM=9 -DCLB_NIN=1", &prog));
            clb__program_cache_get_stats(cache, &after);
        }
        if (round > 0 && (after.source_builds != before.source_builds ||
                          after.binary_loads != before.binary_loads))
            fail_msg("round %d compiled or loaded a program again (%lu builds, %lu loads)", round,
                     after.source_builds - before.source_builds,
                     after.binary_loads - before.binary_loads);
    }
#else
    (void)ctx;
#endif
}

static void test_caching(void **state)
{
    (void)state;
    clbt_for_each_device(caching_on_device);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dtypes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_norm_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_trees, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_splits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_caching, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusal_leaks_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
