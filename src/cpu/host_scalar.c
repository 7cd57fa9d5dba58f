/* Scalar semantics of every operation (see host_scalar.h for the rules). */
#include "host_scalar.h"

#include "dtype.h"
#include "half.h"

#include <stdbool.h>
#include <string.h>
#include <tgmath.h>

/* Which member of clb__value a dtype uses. */
typedef enum value_kind { KIND_INT, KIND_UINT, KIND_FLOAT, KIND_DOUBLE } value_kind;

static value_kind kind_of(clb_dtype t)
{
    if (t == CLB_FLOAT64)
        return KIND_DOUBLE;
    if (clb__dtype_is_float(t))
        return KIND_FLOAT;
    return clb__dtype_is_unsigned(t) ? KIND_UINT : KIND_INT;
}

static unsigned width_of(clb_dtype t)
{
    return (unsigned)(8 * clb_dtype_size(t));
}

static clb__value int_value(int64_t i)
{
    clb__value v;
    v.i = i;
    return v;
}

static clb__value uint_value(uint64_t u)
{
    clb__value v;
    v.u = u;
    return v;
}

static clb__value float_value(float f)
{
    clb__value v;
    v.f = f;
    return v;
}

static clb__value double_value(double d)
{
    clb__value v;
    v.d = d;
    return v;
}

static clb__value bool_value(bool b)
{
    return int_value(b ? 1 : 0);
}

/* ---- memory access -------------------------------------------------------- */

/* memcpy keeps the accesses free of alignment and aliasing assumptions. */
#define DEFINE_ACCESSORS(name, ctype, member)                                                      \
    static clb__value load_##name(const void *src)                                                 \
    {                                                                                              \
        ctype x;                                                                                   \
        memcpy(&x, src, sizeof x);                                                                 \
        clb__value v;                                                                              \
        v.member = x;                                                                              \
        return v;                                                                                  \
    }                                                                                              \
    static void store_##name(void *dst, clb__value v)                                              \
    {                                                                                              \
        ctype x = (ctype)v.member;                                                                 \
        memcpy(dst, &x, sizeof x);                                                                 \
    }

DEFINE_ACCESSORS(int8, int8_t, i)
DEFINE_ACCESSORS(uint8, uint8_t, u)
DEFINE_ACCESSORS(int16, int16_t, i)
DEFINE_ACCESSORS(uint16, uint16_t, u)
DEFINE_ACCESSORS(int32, int32_t, i)
DEFINE_ACCESSORS(uint32, uint32_t, u)
DEFINE_ACCESSORS(int64, int64_t, i)
DEFINE_ACCESSORS(uint64, uint64_t, u)
DEFINE_ACCESSORS(float32, float, f)
DEFINE_ACCESSORS(float64, double, d)

static clb__value load_bool(const void *src)
{
    uint8_t byte;
    memcpy(&byte, src, 1);
    return bool_value(byte != 0);
}

static void store_bool(void *dst, clb__value v)
{
    uint8_t byte = v.i != 0;
    memcpy(dst, &byte, 1);
}

static clb__value load_float16(const void *src)
{
    uint16_t h;
    memcpy(&h, src, sizeof h);
    return float_value(clb__half_to_float(h));
}

static void store_float16(void *dst, clb__value v)
{
    uint16_t h = clb__half_from_float(v.f);
    memcpy(dst, &h, sizeof h);
}

static const clb__load_fn loaders[CLB__NUM_DTYPES] = {
    [CLB_BOOL] = load_bool,       [CLB_INT8] = load_int8,       [CLB_UINT8] = load_uint8,
    [CLB_INT16] = load_int16,     [CLB_UINT16] = load_uint16,   [CLB_INT32] = load_int32,
    [CLB_UINT32] = load_uint32,   [CLB_INT64] = load_int64,     [CLB_UINT64] = load_uint64,
    [CLB_FLOAT16] = load_float16, [CLB_FLOAT32] = load_float32, [CLB_FLOAT64] = load_float64,
};

static const clb__store_fn storers[CLB__NUM_DTYPES] = {
    [CLB_BOOL] = store_bool,       [CLB_INT8] = store_int8,       [CLB_UINT8] = store_uint8,
    [CLB_INT16] = store_int16,     [CLB_UINT16] = store_uint16,   [CLB_INT32] = store_int32,
    [CLB_UINT32] = store_uint32,   [CLB_INT64] = store_int64,     [CLB_UINT64] = store_uint64,
    [CLB_FLOAT16] = store_float16, [CLB_FLOAT32] = store_float32, [CLB_FLOAT64] = store_float64,
};

clb__load_fn clb__loader(clb_dtype t)
{
    return clb__dtype_valid(t) ? loaders[t] : NULL;
}

clb__store_fn clb__storer(clb_dtype t)
{
    return clb__dtype_valid(t) ? storers[t] : NULL;
}

/* ---- casts ------------------------------------------------------------------ */

/* The two's-complement value of the low `bits` bits of x, computed without
   relying on implementation-defined unsigned -> signed conversion. */
static int64_t sign_extend(uint64_t x, unsigned bits)
{
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t sign = UINT64_C(1) << (bits - 1);
    x &= mask;
    if (x & sign)
        return -(int64_t)(~x & mask) - 1;
    return (int64_t)x;
}

/* An integer bit pattern wrapped to integer (or bool) dtype `to`. */
static clb__value wrap_bits(uint64_t bits, clb_dtype to)
{
    unsigned w = width_of(to);
    if (to == CLB_BOOL)
        return bool_value(bits != 0);
    if (clb__dtype_is_unsigned(to))
        return uint_value(w == 64 ? bits : bits & ((UINT64_C(1) << w) - 1));
    return int_value(sign_extend(bits, w));
}

/* Truncation toward zero, saturating at the range of integer dtype `to`; NaN -> 0. */
static clb__value saturate(double x, clb_dtype to)
{
    unsigned w = width_of(to);
    if (isnan(x))
        return clb__dtype_is_unsigned(to) ? uint_value(0) : int_value(0);
    if (clb__dtype_is_unsigned(to)) {
        uint64_t max = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
        if (x <= 0)
            return uint_value(0);
        if (x >= ldexp(1.0, (int)w))
            return uint_value(max);
        return uint_value((uint64_t)x);
    }
    double limit = ldexp(1.0, (int)w - 1);
    int64_t max = (int64_t)((UINT64_C(1) << (w - 1)) - 1);
    if (x >= limit)
        return int_value(max);
    if (x <= -limit)
        return int_value(-max - 1);
    return int_value((int64_t)x);
}

static double as_double(clb__value v, value_kind k)
{
    switch (k) {
    case KIND_INT: return (double)v.i;
    case KIND_UINT: return (double)v.u;
    case KIND_FLOAT: return (double)v.f;
    case KIND_DOUBLE: break;
    }
    return v.d;
}

static bool truthy(clb__value v, value_kind k)
{
    switch (k) {
    case KIND_INT: return v.i != 0;
    case KIND_UINT: return v.u != 0;
    case KIND_FLOAT: return v.f != 0;
    case KIND_DOUBLE: break;
    }
    return v.d != 0;
}

static clb__value to_float32(clb__value v, value_kind from)
{
    switch (from) {
    case KIND_INT: return float_value((float)v.i);
    case KIND_UINT: return float_value((float)v.u);
    case KIND_FLOAT: return v;
    case KIND_DOUBLE: break;
    }
    return float_value((float)v.d);
}

static clb__value to_float16(clb__value v, value_kind from)
{
    /* Integers reach double exactly up to 2^53, and everything beyond is far
       past float16's range (inf either way), so this is a single rounding. */
    uint16_t h = from == KIND_FLOAT ? clb__half_from_float(v.f)
                                    : clb__half_from_double(as_double(v, from));
    return float_value(clb__half_to_float(h));
}

clb__value clb__convert(clb__value v, clb_dtype from, clb_dtype to)
{
    value_kind kf = kind_of(from);
    if (from == to)
        return v;
    if (to == CLB_BOOL)
        return bool_value(truthy(v, kf));
    switch (kind_of(to)) {
    case KIND_INT:
    case KIND_UINT:
        if (kf == KIND_FLOAT || kf == KIND_DOUBLE)
            return saturate(as_double(v, kf), to);
        return wrap_bits(kf == KIND_INT ? (uint64_t)v.i : v.u, to);
    case KIND_FLOAT:
        return to == CLB_FLOAT16 ? to_float16(v, kf) : to_float32(v, kf);
    case KIND_DOUBLE:
        break;
    }
    return double_value(as_double(v, kf));
}

/* ---- binary operations ----------------------------------------------------- */


clb_dtype clb__binary_eval_dtype(clb_binary_op op, clb_dtype compute)
{
    return clb__binary_op_is_comparison(op) || clb__binary_op_is_logical(op) ? CLB_BOOL : compute;
}

clb_dtype clb__unary_eval_dtype(clb_unary_op op, clb_dtype compute)
{
    return clb__unary_op_gives_bool(op) ? CLB_BOOL : compute;
}

/* -1, 0 or 1 as a <, ==, > b in the compute dtype; 2 when unordered (NaN). */
static int order(clb_dtype compute, clb__value a, clb__value b)
{
    switch (kind_of(compute)) {
    case KIND_INT: return (a.i > b.i) - (a.i < b.i);
    case KIND_UINT: return (a.u > b.u) - (a.u < b.u);
    case KIND_FLOAT:
    case KIND_DOUBLE: break;
    }
    /* float -> double is exact, so comparing in double is comparing in float. */
    double x = as_double(a, kind_of(compute)), y = as_double(b, kind_of(compute));
    if (isnan(x) || isnan(y))
        return 2;
    return (x > y) - (x < y);
}

static bool comparison_holds(clb_binary_op op, int o)
{
    switch (op) {
    case CLB_EQ: return o == 0;
    case CLB_NE: return o != 0;
    case CLB_LT: return o == -1;
    case CLB_LE: return o == -1 || o == 0;
    case CLB_GT: return o == 1;
    default: return o == 1 || o == 0; /* CLB_GE */
    }
}

static bool logical(clb_binary_op op, bool a, bool b)
{
    switch (op) {
    case CLB_LOGICAL_AND: return a && b;
    case CLB_LOGICAL_OR: return a || b;
    default: return a != b; /* CLB_LOGICAL_XOR */
    }
}

/* base ** exp modulo 2^64 by repeated squaring. */
static uint64_t pow_wrap(uint64_t base, uint64_t exp)
{
    uint64_t r = 1;
    while (exp) {
        if (exp & 1)
            r *= base;
        base *= base;
        exp >>= 1;
    }
    return r;
}

/* Python floor division; x // 0 = 0; INT64_MIN // -1 wraps to INT64_MIN. */
static int64_t floor_div_i64(int64_t a, int64_t b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return sign_extend(0 - (uint64_t)a, 64);
    int64_t q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0))
        q--;
    return q;
}

/* Python remainder (sign of the divisor); x % 0 = 0; x % -1 = 0. */
static int64_t mod_i64(int64_t a, int64_t b)
{
    if (b == 0 || b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        r += b;
    return r;
}

/* NumPy's integer pow has no negative exponents (it raises); ours gives the
   limit of the exact result truncated toward zero. */
static int64_t pow_i64(int64_t base, int64_t exp)
{
    if (exp >= 0)
        return sign_extend(pow_wrap((uint64_t)base, (uint64_t)exp), 64);
    if (base == 1)
        return 1;
    if (base == -1)
        return ((uint64_t)exp & 1) ? -1 : 1;
    return 0;
}

/* NumPy's npy_rshift for a signed value: an arithmetic shift; a count that is
   negative or the width or more gives -1 for a negative value, 0 otherwise. */
static int64_t shift_right_i64(int64_t a, uint64_t count, unsigned width)
{
    if (count >= width)
        return a < 0 ? -1 : 0;
    return a < 0 ? ~(~a >> count) : a >> count;
}

/* Signed integers and bool: arithmetic on the 64-bit pattern, then wrapped to
   the compute width (for bool that is x != 0, hence add = or, mul = and). */
static clb__value int_binary(clb_binary_op op, clb_dtype compute, int64_t a, int64_t b)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
    switch (op) {
    case CLB_ADD: r = ua + ub; break;
    case CLB_SUB: r = ua - ub; break;
    case CLB_MUL: r = ua * ub; break;
    case CLB_DIV: /* never chosen for integers (they divide in float64): floor division */
    case CLB_FLOOR_DIV: r = (uint64_t)floor_div_i64(a, b); break;
    case CLB_MOD: r = (uint64_t)mod_i64(a, b); break;
    case CLB_POW: r = (uint64_t)pow_i64(a, b); break;
    case CLB_MAXIMUM: r = (uint64_t)(a >= b ? a : b); break;
    case CLB_MINIMUM: r = (uint64_t)(a <= b ? a : b); break;
    case CLB_BITWISE_AND: r = ua & ub; break;
    case CLB_BITWISE_OR: r = ua | ub; break;
    case CLB_LEFT_SHIFT: r = ub < width_of(compute) ? ua << ub : 0; break;
    case CLB_RIGHT_SHIFT: r = (uint64_t)shift_right_i64(a, ub, width_of(compute)); break;
    default: r = ua ^ ub; break; /* CLB_BITWISE_XOR; comparisons and logical ops are done earlier */
    }
    return wrap_bits(r, compute);
}

static clb__value uint_binary(clb_binary_op op, clb_dtype compute, uint64_t a, uint64_t b)
{
    uint64_t r;
    switch (op) {
    case CLB_ADD: r = a + b; break;
    case CLB_SUB: r = a - b; break;
    case CLB_MUL: r = a * b; break;
    case CLB_DIV: /* never chosen for integers (they divide in float64): floor division */
    case CLB_FLOOR_DIV: r = b ? a / b : 0; break;
    case CLB_MOD: r = b ? a % b : 0; break;
    case CLB_POW: r = pow_wrap(a, b); break;
    case CLB_MAXIMUM: r = a >= b ? a : b; break;
    case CLB_MINIMUM: r = a <= b ? a : b; break;
    case CLB_BITWISE_AND: r = a & b; break;
    case CLB_BITWISE_OR: r = a | b; break;
    /* NumPy's npy_lshift/npy_rshift: a count of the width or more gives 0 */
    case CLB_LEFT_SHIFT: r = b < width_of(compute) ? a << b : 0; break;
    case CLB_RIGHT_SHIFT: r = b < width_of(compute) ? a >> b : 0; break;
    default: r = a ^ b; break; /* CLB_BITWISE_XOR; comparisons and logical ops are done earlier */
    }
    return wrap_bits(r, compute);
}

/* The float and double code is the same text at two precisions: <tgmath.h>
   makes fmod, floor, pow, sqrt... pick fmodf or fmod from the argument type,
   so float32 (and float16) work is done in float, never in double, exactly as
   a device kernel does it. */
#define DEFINE_REAL_OPS(T, P)                                                                      \
    /* NumPy's npy_divmod: floor quotient and remainder with the divisor's sign. */                \
    static T P##_divmod(T a, T b, T *mod_out)                                                      \
    {                                                                                              \
        T mod = fmod(a, b);                                                                        \
        if (b == 0) { /* x % 0 = nan (fmod), x // 0 = x / 0 */                                     \
            *mod_out = mod;                                                                        \
            return a / b;                                                                          \
        }                                                                                          \
        T div = (a - mod) / b; /* nearly an integer */                                             \
        if (mod != 0) {                                                                            \
            if ((b < 0) != (mod < 0)) {                                                            \
                mod += b;                                                                          \
                div -= 1;                                                                          \
            }                                                                                      \
        } else {                                                                                   \
            mod = copysign((T)0, b);                                                               \
        }                                                                                          \
        T floordiv;                                                                                \
        if (div != 0) {                                                                            \
            floordiv = floor(div);                                                                 \
            if (div - floordiv > (T)0.5)                                                           \
                floordiv += 1;                                                                     \
        } else {                                                                                   \
            floordiv = copysign((T)0, a / b);                                                      \
        }                                                                                          \
        *mod_out = mod;                                                                            \
        return floordiv;                                                                           \
    }                                                                                              \
                                                                                                   \
    /* NumPy's npy_logaddexp: equal arguments (infinities of one sign) give x + log 2. */         \
    static T P##_logaddexp(T a, T b)                                                               \
    {                                                                                              \
        if (a == b)                                                                                \
            return a + (T)0.693147180559945309417232121458176568;                                  \
        T d = a - b;                                                                               \
        if (d > 0)                                                                                 \
            return a + log1p(exp(-d));                                                             \
        if (d <= 0)                                                                                \
            return b + log1p(exp(d));                                                              \
        return d; /* NaN */                                                                        \
    }                                                                                              \
                                                                                                   \
    static T P##_binary(clb_binary_op op, T a, T b)                                                \
    {                                                                                              \
        T mod;                                                                                     \
        switch (op) {                                                                              \
        case CLB_ADD: return a + b;                                                                \
        case CLB_SUB: return a - b;                                                                \
        case CLB_MUL: return a * b;                                                                \
        case CLB_DIV: return a / b;                                                                \
        case CLB_FLOOR_DIV: return P##_divmod(a, b, &mod);                                         \
        case CLB_MOD: P##_divmod(a, b, &mod); return mod;                                          \
        case CLB_POW: return pow(a, b);                                                            \
        /* NaN from either side; on ties (0.0 vs -0.0) the second operand, as NumPy */             \
        case CLB_MAXIMUM: return isnan(a) || a > b ? a : b;                                        \
        case CLB_MINIMUM: return isnan(a) || a < b ? a : b;                                        \
        case CLB_ATAN2: return atan2(a, b);                                                        \
        case CLB_HYPOT: return hypot(a, b);                                                        \
        case CLB_LOGADDEXP: return P##_logaddexp(a, b);                                            \
        case CLB_COPYSIGN: return copysign(a, b);                                                  \
        default: return (T)NAN; /* bitwise and shifts: never chosen for floats */                  \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static T P##_unary(clb_unary_op op, T x)                                                       \
    {                                                                                              \
        switch (op) {                                                                              \
        case CLB_NEG: return -x;                                                                   \
        case CLB_ABS: return fabs(x);                                                              \
        case CLB_SQRT: return sqrt(x);                                                             \
        case CLB_RSQRT: return 1 / sqrt(x);                                                        \
        case CLB_EXP: return exp(x);                                                               \
        case CLB_LOG: return log(x);                                                               \
        case CLB_SIN: return sin(x);                                                               \
        case CLB_COS: return cos(x);                                                               \
        case CLB_TANH: return tanh(x);                                                             \
        case CLB_SIGMOID: /* exp of a non-positive number only: no overflow */                     \
            return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));                            \
        case CLB_RELU: return x > 0 || isnan(x) ? x : 0;                                           \
        case CLB_FLOOR: return floor(x);                                                           \
        case CLB_CEIL: return ceil(x);                                                             \
        case CLB_TAN: return tan(x);                                                               \
        case CLB_ASIN: return asin(x);                                                             \
        case CLB_ACOS: return acos(x);                                                             \
        case CLB_ATAN: return atan(x);                                                             \
        case CLB_SINH: return sinh(x);                                                             \
        case CLB_COSH: return cosh(x);                                                             \
        case CLB_ASINH: return asinh(x);                                                           \
        case CLB_ACOSH: return acosh(x);                                                           \
        case CLB_ATANH: return atanh(x);                                                           \
        case CLB_EXPM1: return expm1(x);                                                           \
        case CLB_LOG1P: return log1p(x);                                                           \
        case CLB_LOG2: return log2(x);                                                             \
        case CLB_LOG10: return log10(x);                                                           \
        case CLB_ROUND: return rint(x); /* half to even in the default rounding mode */            \
        case CLB_TRUNC: return trunc(x);                                                           \
        /* NumPy: +-0 give +0, NaN stays NaN */                                                    \
        case CLB_SIGN: return x > 0 ? (T)1 : x < 0 ? (T)-1 : x == 0 ? (T)0 : x;                    \
        case CLB_SQUARE: return x * x;                                                             \
        case CLB_ERF: return erf(x);                                                               \
        default: return x == 0; /* LOGICAL_NOT, ISNAN.. and BITWISE_INVERT are done earlier */     \
        }                                                                                          \
    }

DEFINE_REAL_OPS(float, float)
DEFINE_REAL_OPS(double, double)

/* A float result of the compute dtype: float16 rounds to half precision, so a
   float16 op is evaluated in float and rounded once, like NumPy's half loops. */
static clb__value real_result(clb_dtype compute, float r)
{
    return compute == CLB_FLOAT16 ? float_value(clb__half_to_float(clb__half_from_float(r)))
                                  : float_value(r);
}

clb__value clb__binary_eval(clb_binary_op op, clb_dtype compute, clb__value a, clb__value b)
{
    value_kind k = kind_of(compute);
    if (clb__binary_op_is_comparison(op))
        return bool_value(comparison_holds(op, order(compute, a, b)));
    if (clb__binary_op_is_logical(op))
        return bool_value(logical(op, truthy(a, k), truthy(b, k)));
    switch (k) {
    case KIND_INT: return int_binary(op, compute, a.i, b.i);
    case KIND_UINT: return uint_binary(op, compute, a.u, b.u);
    case KIND_FLOAT: return real_result(compute, float_binary(op, a.f, b.f));
    case KIND_DOUBLE: break;
    }
    return double_value(double_binary(op, a.d, b.d));
}

/* ---- unary operations ------------------------------------------------------- */

static clb__value int_unary(clb_unary_op op, clb_dtype compute, clb__value a)
{
    bool is_unsigned = kind_of(compute) == KIND_UINT;
    uint64_t bits = is_unsigned ? a.u : (uint64_t)a.i;
    bool negative = !is_unsigned && a.i < 0;
    switch (op) {
    case CLB_NEG: return wrap_bits(0 - bits, compute);
    case CLB_ABS: return wrap_bits(negative ? 0 - bits : bits, compute);
    case CLB_RELU: return negative ? wrap_bits(0, compute) : a;
    case CLB_FLOOR:
    case CLB_CEIL:
    case CLB_ROUND:
    case CLB_TRUNC: return a;
    case CLB_SIGN:
        return is_unsigned ? uint_value(a.u != 0) : int_value((a.i > 0) - (a.i < 0));
    case CLB_SQUARE: return wrap_bits(bits * bits, compute);
    case CLB_BITWISE_INVERT:
        return compute == CLB_BOOL ? bool_value(a.i == 0) : wrap_bits(~bits, compute);
    default: /* float math, never chosen for integers: evaluate in double, cast back */
        return clb__convert(double_value(double_unary(op, as_double(a, kind_of(compute)))),
                            CLB_FLOAT64, compute);
    }
}

clb__value clb__unary_eval(clb_unary_op op, clb_dtype compute, clb__value a)
{
    value_kind k = kind_of(compute);
    if (op == CLB_LOGICAL_NOT)
        return bool_value(!truthy(a, k));
    if (op >= CLB_ISNAN && op <= CLB_ISFINITE) {
        bool is_float = k == KIND_FLOAT || k == KIND_DOUBLE;
        double x = is_float ? as_double(a, k) : 0; /* float -> double is exact */
        return bool_value(op == CLB_ISNAN ? isnan(x) : op == CLB_ISINF ? isinf(x) : isfinite(x));
    }
    switch (k) {
    case KIND_INT:
    case KIND_UINT: return int_unary(op, compute, a);
    case KIND_FLOAT: return real_result(compute, float_unary(op, a.f));
    case KIND_DOUBLE: break;
    }
    return double_value(double_unary(op, a.d));
}
