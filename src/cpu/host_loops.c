/* Typed inner loops for the commonest element-wise maps (see host_loops.h).
 * Each expression is the reference rule of host_scalar.c for that op and
 * type, so both loops give the same bits; test_host_ops compares them. */

/* GCC's -O2 vectorises only loops that need no run-time alias or trip-count
   checks; these loops need both (out may be an input, n is anything). The
   float16 loops vectorise only without trapping math (half.h's conversions
   compute both sides of their selects; it changes no value). Before the
   includes, for half.h's functions. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif

#include "host_loops.h"

#include "half.h"

#include <tgmath.h> /* exp(x) of a float is expf, as in host_scalar.c */

_Atomic int clb__host_loops_enabled = 1;

/* Unit strides and a broadcast (stride 0) operand get loops of their own, the
   cases a compiler can vectorise; anything else takes the strided loop. */
#define DEFINE_BINARY(NAME, T, EXPR)                                                               \
    static void NAME(int64_t n, void *out, int64_t so, const void *pa, int64_t sa,                 \
                     const void *pb, int64_t sb)                                                   \
    {                                                                                              \
        T *o = out;                                                                                \
        const T *a = pa, *b = pb;                                                                  \
        if (so == 1 && sa == 1 && sb == 1) {                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i], y = b[i];                                                              \
                o[i] = (EXPR);                                                                     \
            }                                                                                      \
        } else if (so == 1 && sa == 1 && sb == 0) {                                                \
            const T y = b[0];                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i];                                                                        \
                o[i] = (EXPR);                                                                     \
            }                                                                                      \
        } else if (so == 1 && sa == 0 && sb == 1) {                                                \
            const T x = a[0];                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T y = b[i];                                                                        \
                o[i] = (EXPR);                                                                     \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i * sa], y = b[i * sb];                                                    \
                o[i * so] = (EXPR);                                                                \
            }                                                                                      \
        }                                                                                          \
    }

#define DEFINE_UNARY(NAME, T, EXPR)                                                                \
    static void NAME(int64_t n, void *out, int64_t so, const void *pa, int64_t sa,                 \
                     const void *pb, int64_t sb)                                                   \
    {                                                                                              \
        (void)pb;                                                                                  \
        (void)sb;                                                                                  \
        T *o = out;                                                                                \
        const T *a = pa;                                                                           \
        if (so == 1 && sa == 1) {                                                                  \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i];                                                                        \
                o[i] = (EXPR);                                                                     \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i * sa];                                                                   \
                o[i * so] = (EXPR);                                                                \
            }                                                                                      \
        }                                                                                          \
    }

/* Floats: IEEE arithmetic; maximum/minimum propagate a NaN from either side and
   take the second operand on ties (0.0 vs -0.0), as NumPy. BIN and UN define
   the loops (float16's convert around the same expressions). */
#define REAL_OPS(BIN, UN, P, T)                                                                    \
    BIN(P##_add, T, x + y)                                                                         \
    BIN(P##_sub, T, x - y)                                                                         \
    BIN(P##_mul, T, x * y)                                                                         \
    BIN(P##_div, T, x / y)                                                                         \
    BIN(P##_max, T, isnan(x) || x > y ? x : y)                                                     \
    BIN(P##_min, T, isnan(x) || x < y ? x : y)                                                     \
    UN(P##_neg, T, -x)                                                                             \
    UN(P##_relu, T, x > 0 || isnan(x) ? x : 0)

/* Signed integers wrap: the arithmetic is done unsigned, where C defines it. */
#define DEFINE_INT(P, T, U)                                                                        \
    DEFINE_BINARY(P##_add, T, (T)((U)x + (U)y))                                                    \
    DEFINE_BINARY(P##_sub, T, (T)((U)x - (U)y))                                                    \
    DEFINE_BINARY(P##_mul, T, (T)((U)x * (U)y))                                                    \
    DEFINE_BINARY(P##_max, T, x >= y ? x : y)                                                      \
    DEFINE_BINARY(P##_min, T, x <= y ? x : y)                                                      \
    DEFINE_UNARY(P##_neg, T, (T)(0 - (U)x))

REAL_OPS(DEFINE_BINARY, DEFINE_UNARY, f32, float)
REAL_OPS(DEFINE_BINARY, DEFINE_UNARY, f64, double)

/* The unary functions of the math library, each the expression of
   host_scalar.c's reference rule (the same <tgmath.h> function: expf for a
   float), so the loop gives its bits without the reference loop's
   per-element conversions. */
#define MATH_OPS(UN, P, T)                                                                         \
    UN(P##_abs, T, fabs(x))                                                                        \
    UN(P##_sqrt, T, sqrt(x))                                                                       \
    UN(P##_rsqrt, T, 1 / sqrt(x))                                                                  \
    UN(P##_exp, T, exp(x))                                                                         \
    UN(P##_log, T, log(x))                                                                         \
    UN(P##_sin, T, sin(x))                                                                         \
    UN(P##_cos, T, cos(x))                                                                         \
    UN(P##_tan, T, tan(x))                                                                         \
    UN(P##_tanh, T, tanh(x))                                                                       \
    UN(P##_sigmoid, T, x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)))                         \
    UN(P##_floor, T, floor(x))                                                                     \
    UN(P##_ceil, T, ceil(x))                                                                       \
    UN(P##_round, T, rint(x))                                                                      \
    UN(P##_trunc, T, trunc(x))                                                                     \
    UN(P##_expm1, T, expm1(x))                                                                     \
    UN(P##_log1p, T, log1p(x))                                                                     \
    UN(P##_log2, T, log2(x))                                                                       \
    UN(P##_log10, T, log10(x))                                                                     \
    UN(P##_square, T, x * x)                                                                       \
    UN(P##_erf, T, erf(x))

MATH_OPS(DEFINE_UNARY, f32, float)
MATH_OPS(DEFINE_UNARY, f64, double)

/* float16: each element converted to float, the float32 expression, the
   result rounded to half once (host_scalar.c's real_result), through half.h's
   branch-free conversions so the loops vectorise. x (and y) are the operands
   as floats, EXPR the float expression (T is float, unused: the signature of
   DEFINE_BINARY / DEFINE_UNARY). */
#define DEFINE_HALF_BINARY(NAME, T, EXPR)                                                          \
    static void NAME(int64_t n, void *out, int64_t so, const void *pa, int64_t sa,                 \
                     const void *pb, int64_t sb)                                                   \
    {                                                                                              \
        uint16_t *o = out;                                                                         \
        const uint16_t *a = pa, *b = pb;                                                           \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = clb__h2f(a[i * sa]), y = clb__h2f(b[i * sb]);                              \
            o[i * so] = clb__f2h(EXPR);                                                            \
        }                                                                                          \
    }
#define DEFINE_HALF_UNARY(NAME, T, EXPR)                                                           \
    static void NAME(int64_t n, void *out, int64_t so, const void *pa, int64_t sa,                 \
                     const void *pb, int64_t sb)                                                   \
    {                                                                                              \
        (void)pb;                                                                                  \
        (void)sb;                                                                                  \
        uint16_t *o = out;                                                                         \
        const uint16_t *a = pa;                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const T x = clb__h2f(a[i * sa]);                                                       \
            o[i * so] = clb__f2h(EXPR);                                                            \
        }                                                                                          \
    }

REAL_OPS(DEFINE_HALF_BINARY, DEFINE_HALF_UNARY, h16, float)
MATH_OPS(DEFINE_HALF_UNARY, h16, float)

/* The math loop of a float16 / float32 / float64 unary op, or NULL. */
#define MATH_CASES(P)                                                                              \
    case CLB_ABS: return P##_abs;                                                                  \
    case CLB_SQRT: return P##_sqrt;                                                                \
    case CLB_RSQRT: return P##_rsqrt;                                                              \
    case CLB_EXP: return P##_exp;                                                                  \
    case CLB_LOG: return P##_log;                                                                  \
    case CLB_SIN: return P##_sin;                                                                  \
    case CLB_COS: return P##_cos;                                                                  \
    case CLB_TAN: return P##_tan;                                                                  \
    case CLB_TANH: return P##_tanh;                                                                \
    case CLB_SIGMOID: return P##_sigmoid;                                                          \
    case CLB_FLOOR: return P##_floor;                                                              \
    case CLB_CEIL: return P##_ceil;                                                                \
    case CLB_ROUND: return P##_round;                                                              \
    case CLB_TRUNC: return P##_trunc;                                                              \
    case CLB_EXPM1: return P##_expm1;                                                              \
    case CLB_LOG1P: return P##_log1p;                                                              \
    case CLB_LOG2: return P##_log2;                                                                \
    case CLB_LOG10: return P##_log10;                                                              \
    case CLB_SQUARE: return P##_square;                                                            \
    case CLB_ERF: return P##_erf;                                                                  \
    default: return NULL

static clb__host_loop_fn math_loop(clb_unary_op op, clb_dtype t)
{
    if (t == CLB_FLOAT32) {
        switch (op) { MATH_CASES(f32); }
    }
    if (t == CLB_FLOAT64) {
        switch (op) { MATH_CASES(f64); }
    }
    if (t == CLB_FLOAT16) {
        switch (op) { MATH_CASES(h16); }
    }
    return NULL;
}
DEFINE_INT(i32, int32_t, uint32_t)
DEFINE_INT(i64, int64_t, uint64_t)

/* Bit copies (one dtype on both sides), by element size. */
DEFINE_UNARY(copy1, uint8_t, x)
DEFINE_UNARY(copy2, uint16_t, x)
DEFINE_UNARY(copy4, uint32_t, x)
DEFINE_UNARY(copy8, uint64_t, x)

/* Row of each table: ADD SUB MUL DIV MAXIMUM MINIMUM, then NEG RELU. */
enum { LOOP_ADD, LOOP_SUB, LOOP_MUL, LOOP_DIV, LOOP_MAX, LOOP_MIN, LOOP_NEG, LOOP_RELU, LOOPS };

static const clb__host_loop_fn f32_loops[LOOPS] = {f32_add, f32_sub, f32_mul, f32_div,
                                                   f32_max, f32_min, f32_neg, f32_relu};
static const clb__host_loop_fn h16_loops[LOOPS] = {h16_add, h16_sub, h16_mul, h16_div,
                                                   h16_max, h16_min, h16_neg, h16_relu};
static const clb__host_loop_fn f64_loops[LOOPS] = {f64_add, f64_sub, f64_mul, f64_div,
                                                   f64_max, f64_min, f64_neg, f64_relu};
/* Integer division is done in float64 (never a same-dtype map) and relu of an
   integer is not among the ops the loops take. */
static const clb__host_loop_fn i32_loops[LOOPS] = {i32_add, i32_sub, i32_mul, NULL,
                                                   i32_max, i32_min, i32_neg, NULL};
static const clb__host_loop_fn i64_loops[LOOPS] = {i64_add, i64_sub, i64_mul, NULL,
                                                   i64_max, i64_min, i64_neg, NULL};

static int loop_index(const clb__map_op *op)
{
    if (op->kind == CLB__MAP_BINARY) {
        switch ((clb_binary_op)op->op) {
        case CLB_ADD: return LOOP_ADD;
        case CLB_SUB: return LOOP_SUB;
        case CLB_MUL: return LOOP_MUL;
        case CLB_DIV: return LOOP_DIV;
        case CLB_MAXIMUM: return LOOP_MAX;
        case CLB_MINIMUM: return LOOP_MIN;
        default: return -1;
        }
    }
    if (op->kind == CLB__MAP_UNARY) {
        switch ((clb_unary_op)op->op) {
        case CLB_NEG: return LOOP_NEG;
        case CLB_RELU: return LOOP_RELU;
        default: return -1;
        }
    }
    return -1;
}

clb__host_loop_fn clb__host_loop_find(const clb__map_op *op)
{
    int idx = loop_index(op);
    clb_dtype t = op->out;
    int nin = op->kind == CLB__MAP_BINARY ? 2 : 1;
    if (op->compute != t) return NULL;
    for (int k = 0; k < nin; k++)
        if (op->in[k] != t) return NULL;
    if (idx < 0) return op->kind == CLB__MAP_UNARY ? math_loop((clb_unary_op)op->op, t) : NULL;
    switch (t) {
    case CLB_FLOAT32: return f32_loops[idx];
    case CLB_FLOAT64: return f64_loops[idx];
    case CLB_FLOAT16: return h16_loops[idx];
    case CLB_INT32: return i32_loops[idx];
    case CLB_INT64: return i64_loops[idx];
    default: return NULL;
    }
}

clb__host_loop_fn clb__host_copy_loop(size_t itemsize)
{
    switch (itemsize) {
    case 1: return copy1;
    case 2: return copy2;
    case 4: return copy4;
    case 8: return copy8;
    default: return NULL;
    }
}

void clb__host_loop_run(clb__host_loop_fn fn, size_t isz, const clb__plan *plan,
                        void *const *bases)
{
    const int nd = plan->ndim, nops = plan->nops;
    const int64_t inner = nd > 0 ? plan->shape[nd - 1] : 1;
    int64_t inner_stride[3] = {0, 0, 0}, off[3] = {0, 0, 0};
    for (int k = 0; k < nops; k++) {
        inner_stride[k] = nd > 0 ? plan->strides[k][nd - 1] : 0;
        off[k] = plan->offsets[k];
    }
    const char *in1 = nops > 2 ? bases[2] : bases[1]; /* unary loops ignore it */
    int64_t idx[CLB__PLAN_MAX_DIMS] = {0};
    for (int64_t row = 0, rows = plan->numel / inner; row < rows; row++) {
        fn(inner, (char *)bases[0] + off[0] * isz, inner_stride[0],
           (const char *)bases[1] + off[1] * isz, inner_stride[1],
           in1 + (nops > 2 ? off[2] : 0) * isz, inner_stride[2]);
        /* Odometer over the outer axes, innermost first. */
        for (int d = nd - 2; d >= 0; d--) {
            for (int k = 0; k < nops; k++) off[k] += plan->strides[k][d];
            if (++idx[d] < plan->shape[d]) break;
            for (int k = 0; k < nops; k++) off[k] -= plan->strides[k][d] * plan->shape[d];
            idx[d] = 0;
        }
    }
}
