/* Item sizes, names, NumPy 2 promotion and the per-operation type rules.
 * Pure: no device, no allocation. */
#include "dtype.h"

#include "internal.h"

#include <stdio.h>

typedef struct dtype_facts {
    const char *name;
    size_t size;
    bool is_float;
    bool is_signed;   /* int8..int64 */
    bool is_unsigned; /* uint8..uint64 */
} dtype_facts;

static const dtype_facts facts[CLB__NUM_DTYPES] = {
    [CLB_BOOL] = {"bool", 1, false, false, false},
    [CLB_INT8] = {"int8", 1, false, true, false},
    [CLB_UINT8] = {"uint8", 1, false, false, true},
    [CLB_INT16] = {"int16", 2, false, true, false},
    [CLB_UINT16] = {"uint16", 2, false, false, true},
    [CLB_INT32] = {"int32", 4, false, true, false},
    [CLB_UINT32] = {"uint32", 4, false, false, true},
    [CLB_INT64] = {"int64", 8, false, true, false},
    [CLB_UINT64] = {"uint64", 8, false, false, true},
    [CLB_FLOAT16] = {"float16", 2, true, false, false},
    [CLB_FLOAT32] = {"float32", 4, true, false, false},
    [CLB_FLOAT64] = {"float64", 8, true, false, false},
};

bool clb__dtype_valid(clb_dtype t)
{
    return (int)t >= 0 && (int)t < CLB__NUM_DTYPES;
}

bool clb__dtype_is_float(clb_dtype t)
{
    return clb__dtype_valid(t) && facts[t].is_float;
}

bool clb__dtype_is_integer(clb_dtype t)
{
    return clb__dtype_valid(t) && (facts[t].is_signed || facts[t].is_unsigned);
}

bool clb__dtype_is_unsigned(clb_dtype t)
{
    return clb__dtype_valid(t) && facts[t].is_unsigned;
}

bool clb__dtype_is_signed(clb_dtype t)
{
    return clb__dtype_valid(t) && facts[t].is_signed;
}

size_t clb_dtype_size(clb_dtype t)
{
    return clb__dtype_valid(t) ? facts[t].size : 0;
}

const char *clb_dtype_name(clb_dtype t)
{
    return clb__dtype_valid(t) ? facts[t].name : "invalid";
}

/* ---- promotion ----------------------------------------------------------- */

static clb_dtype signed_of_size(size_t size)
{
    switch (size) {
    case 1: return CLB_INT8;
    case 2: return CLB_INT16;
    case 4: return CLB_INT32;
    default: return CLB_INT64;
    }
}

/* The smallest float that holds every value of an integer (or bool) type
   exactly enough for NumPy: 8-bit -> float16, 16-bit -> float32, wider -> float64. */
static clb_dtype float_for_integer(clb_dtype t)
{
    switch (facts[t].size) {
    case 1: return CLB_FLOAT16;
    case 2: return CLB_FLOAT32;
    default: return CLB_FLOAT64;
    }
}

static clb_dtype larger(clb_dtype a, clb_dtype b)
{
    return facts[a].size >= facts[b].size ? a : b;
}

/* numpy.promote_types (NumPy 2, NEP 50: from dtypes alone, never values).
   An invalid argument is returned unchanged (the first one, if both are
   invalid), so the result stays invalid and whatever uses it next fails with
   CLB_ERR_INVALID_ARGUMENT; clb_last_error() names the bad value. */
clb_dtype clb_promote_types(clb_dtype a, clb_dtype b)
{
    if (!clb__dtype_valid(a) || !clb__dtype_valid(b)) {
        clb_dtype bad = clb__dtype_valid(a) ? b : a;
        clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_promote_types: %d is not a clb_dtype value",
                  (int)bad);
        return bad;
    }
    if (a == b || b == CLB_BOOL)
        return a;
    if (a == CLB_BOOL)
        return b;
    if (facts[a].is_float && facts[b].is_float)
        return larger(a, b);
    if (facts[a].is_float)
        return larger(a, float_for_integer(b));
    if (facts[b].is_float)
        return larger(b, float_for_integer(a));
    if (facts[a].is_signed == facts[b].is_signed)
        return larger(a, b);
    /* Mixed signedness: a signed type wider than the unsigned one holds both;
       otherwise the next wider signed type; past int64 only float64 is left. */
    clb_dtype s = facts[a].is_signed ? a : b;
    clb_dtype u = facts[a].is_signed ? b : a;
    if (facts[s].size > facts[u].size)
        return s;
    if (facts[u].size == 8)
        return CLB_FLOAT64;
    return signed_of_size(2 * facts[u].size);
}

/* ---- names (NumPy ufunc names; PyTorch's where NumPy has none) -------------- */

static const char *const binary_names[] = {
    [CLB_ADD] = "add",
    [CLB_SUB] = "subtract",
    [CLB_MUL] = "multiply",
    [CLB_DIV] = "divide",
    [CLB_FLOOR_DIV] = "floor_divide",
    [CLB_MOD] = "remainder",
    [CLB_POW] = "power",
    [CLB_MAXIMUM] = "maximum",
    [CLB_MINIMUM] = "minimum",
    [CLB_EQ] = "equal",
    [CLB_NE] = "not_equal",
    [CLB_LT] = "less",
    [CLB_LE] = "less_equal",
    [CLB_GT] = "greater",
    [CLB_GE] = "greater_equal",
    [CLB_LOGICAL_AND] = "logical_and",
    [CLB_LOGICAL_OR] = "logical_or",
    [CLB_LOGICAL_XOR] = "logical_xor",
    [CLB_BITWISE_AND] = "bitwise_and",
    [CLB_BITWISE_OR] = "bitwise_or",
    [CLB_BITWISE_XOR] = "bitwise_xor",
    [CLB_ATAN2] = "arctan2",
    [CLB_HYPOT] = "hypot",
    [CLB_LOGADDEXP] = "logaddexp",
    [CLB_COPYSIGN] = "copysign",
    [CLB_LEFT_SHIFT] = "left_shift",
    [CLB_RIGHT_SHIFT] = "right_shift",
};

static const char *const unary_names[] = {
    [CLB_NEG] = "negative",
    [CLB_ABS] = "absolute",
    [CLB_SQRT] = "sqrt",
    [CLB_RSQRT] = "rsqrt",
    [CLB_EXP] = "exp",
    [CLB_LOG] = "log",
    [CLB_SIN] = "sin",
    [CLB_COS] = "cos",
    [CLB_TANH] = "tanh",
    [CLB_SIGMOID] = "sigmoid",
    [CLB_RELU] = "relu",
    [CLB_FLOOR] = "floor",
    [CLB_CEIL] = "ceil",
    [CLB_LOGICAL_NOT] = "logical_not",
    [CLB_TAN] = "tan",
    [CLB_ASIN] = "arcsin",
    [CLB_ACOS] = "arccos",
    [CLB_ATAN] = "arctan",
    [CLB_SINH] = "sinh",
    [CLB_COSH] = "cosh",
    [CLB_ASINH] = "arcsinh",
    [CLB_ACOSH] = "arccosh",
    [CLB_ATANH] = "arctanh",
    [CLB_EXPM1] = "expm1",
    [CLB_LOG1P] = "log1p",
    [CLB_LOG2] = "log2",
    [CLB_LOG10] = "log10",
    [CLB_ROUND] = "round",
    [CLB_TRUNC] = "trunc",
    [CLB_SIGN] = "sign",
    [CLB_SQUARE] = "square",
    [CLB_ISNAN] = "isnan",
    [CLB_ISINF] = "isinf",
    [CLB_ISFINITE] = "isfinite",
    [CLB_ERF] = "erf",
    [CLB_BITWISE_INVERT] = "invert",
};

static const char *const reduce_names[] = {
    [CLB_SUM] = "sum",
    [CLB_MEAN] = "mean",
    [CLB_MAX] = "max",
    [CLB_MIN] = "min",
    [CLB_PROD] = "prod",
    [CLB_ALL] = "all",
    [CLB_ANY] = "any",
};

#define COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

static bool binary_op_valid(clb_binary_op op)
{
    return (int)op >= 0 && (int)op < COUNT(binary_names);
}

static bool unary_op_valid(clb_unary_op op)
{
    return (int)op >= 0 && (int)op < COUNT(unary_names);
}

static bool reduce_op_valid(clb_reduce_op op)
{
    return (int)op >= 0 && (int)op < COUNT(reduce_names);
}

const char *clb_binary_op_name(clb_binary_op op)
{
    return binary_op_valid(op) ? binary_names[op] : "invalid";
}

const char *clb_unary_op_name(clb_unary_op op)
{
    return unary_op_valid(op) ? unary_names[op] : "invalid";
}

const char *clb_reduce_op_name(clb_reduce_op op)
{
    return reduce_op_valid(op) ? reduce_names[op] : "invalid";
}

/* ---- per-operation rules --------------------------------------------------- */

/* CLB_ERR_INVALID_ARGUMENT naming the op and the operand when t is out of range. */
static clb_status check_dtype(clb_dtype t, const char *op_name, const char *role)
{
    if (clb__dtype_valid(t))
        return CLB_OK;
    char what[96];
    snprintf(what, sizeof what, "%s: dtype of %s", op_name, role);
    return clb__check_dtype(t, what);
}

bool clb__binary_op_is_comparison(clb_binary_op op)
{
    return op >= CLB_EQ && op <= CLB_GE;
}

bool clb__binary_op_is_logical(clb_binary_op op)
{
    return op >= CLB_LOGICAL_AND && op <= CLB_LOGICAL_XOR;
}

static bool is_bitwise(clb_binary_op op)
{
    return (op >= CLB_BITWISE_AND && op <= CLB_BITWISE_XOR) || op == CLB_LEFT_SHIFT ||
           op == CLB_RIGHT_SHIFT;
}

/* atan2, hypot, logaddexp, copysign: NumPy's float loops only, so integers and bool
   go to the smallest float that holds them (int8 -> float16, int32 -> float64). */
static bool is_float_math_binary(clb_binary_op op)
{
    return op >= CLB_ATAN2 && op <= CLB_COPYSIGN;
}

bool clb__unary_op_gives_bool(clb_unary_op op)
{
    return op == CLB_LOGICAL_NOT || (op >= CLB_ISNAN && op <= CLB_ISFINITE);
}

clb_status clb__binary_types(clb_binary_op op, clb_dtype a, clb_dtype b, clb_dtype *compute,
                             clb_dtype *result)
{
    if (!binary_op_valid(op))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "binary op %d is not a clb_binary_op value (CLB_ADD..CLB_RIGHT_SHIFT)",
                         (int)op);
    const char *name = binary_names[op];
    clb_status st = check_dtype(a, name, "operand a");
    if (st == CLB_OK)
        st = check_dtype(b, name, "operand b");
    if (st != CLB_OK)
        return st;

    clb_dtype p = clb_promote_types(a, b);
    *compute = p;
    *result = p;
    if (clb__binary_op_is_comparison(op)) {
        *result = CLB_BOOL;
    } else if (clb__binary_op_is_logical(op)) {
        /* Truthiness: converting to bool is exactly x != 0 (NaN is true). */
        *compute = CLB_BOOL;
        *result = CLB_BOOL;
    } else if (is_bitwise(op)) {
        if (clb__dtype_is_float(p))
            return clb__fail(CLB_ERR_DTYPE,
                             "%s is not supported for %s and %s (promoted to %s): bitwise ops "
                             "take integer or bool operands; cast with clb_cast first",
                             name, clb_dtype_name(a), clb_dtype_name(b), clb_dtype_name(p));
        if ((op == CLB_LEFT_SHIFT || op == CLB_RIGHT_SHIFT) && p == CLB_BOOL) {
            /* NumPy has no bool loop for shifts; its first loop, int8, takes bools. */
            *compute = CLB_INT8;
            *result = CLB_INT8;
        }
    } else if (op == CLB_SUB && p == CLB_BOOL) {
        return clb__fail(CLB_ERR_DTYPE,
                         "subtract is not supported for bool and bool: numpy boolean subtract, "
                         "the `-` operator, is not supported, use the bitwise_xor, the `^` "
                         "operator, or the logical_xor function instead (CLB_BITWISE_XOR, "
                         "CLB_LOGICAL_XOR)");
    } else if (op == CLB_DIV && !clb__dtype_is_float(p)) {
        /* True division of integers or bools gives float64, as NumPy. */
        *compute = CLB_FLOAT64;
        *result = CLB_FLOAT64;
    } else if (is_float_math_binary(op)) {
        *compute = clb_promote_types(p, CLB_FLOAT16);
        *result = *compute;
    } else if ((op == CLB_FLOOR_DIV || op == CLB_MOD || op == CLB_POW) && p == CLB_BOOL) {
        /* NumPy has no bool loop for these; its first loop, int8, takes bools. */
        *compute = CLB_INT8;
        *result = CLB_INT8;
    }
    return CLB_OK;
}

static bool is_float_math(clb_unary_op op)
{
    return (op >= CLB_SQRT && op <= CLB_SIGMOID) || (op >= CLB_TAN && op <= CLB_LOG10) ||
           op == CLB_ERF;
}

clb_status clb__unary_types(clb_unary_op op, clb_dtype a, clb_dtype *compute, clb_dtype *result)
{
    if (!unary_op_valid(op))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "unary op %d is not a clb_unary_op value (CLB_NEG..CLB_BITWISE_INVERT)",
                         (int)op);
    const char *name = unary_names[op];
    clb_status st = check_dtype(a, name, "the operand");
    if (st != CLB_OK)
        return st;

    clb_dtype t = a;
    if (op == CLB_NEG && a == CLB_BOOL)
        return clb__fail(CLB_ERR_DTYPE,
                         "negative is not supported for bool: use CLB_LOGICAL_NOT (or "
                         "CLB_BITWISE_XOR with true) to invert a bool tensor");
    if (op == CLB_RELU && a == CLB_BOOL)
        return clb__fail(CLB_ERR_DTYPE,
                         "relu is not supported for bool (as PyTorch): cast to an integer or "
                         "float dtype with clb_cast first");
    if (op == CLB_SIGN && a == CLB_BOOL)
        return clb__fail(CLB_ERR_DTYPE,
                         "sign is not supported for bool (NumPy has no bool loop): cast to an "
                         "integer or float dtype with clb_cast first");
    if (op == CLB_BITWISE_INVERT && clb__dtype_is_float(a))
        return clb__fail(CLB_ERR_DTYPE,
                         "invert is not supported for %s: it takes integer or bool operands; "
                         "cast with clb_cast first",
                         clb_dtype_name(a));
    if (is_float_math(op))
        t = clb_promote_types(a, CLB_FLOAT16); /* NumPy's smallest float that holds a safely */
    else if (op == CLB_LOGICAL_NOT)
        t = CLB_BOOL;
    else if (op == CLB_SQUARE && a == CLB_BOOL)
        t = CLB_INT8; /* NumPy's first loop of square, int8, takes bools */
    *compute = t;
    *result = clb__unary_op_gives_bool(op) ? CLB_BOOL : t;
    return CLB_OK;
}

clb_status clb__where_types(clb_dtype cond, clb_dtype a, clb_dtype b, clb_dtype *result)
{
    clb_status st = check_dtype(cond, "where", "the condition");
    if (st == CLB_OK)
        st = check_dtype(a, "where", "operand a");
    if (st == CLB_OK)
        st = check_dtype(b, "where", "operand b");
    if (st != CLB_OK)
        return st;
    *result = clb_promote_types(a, b);
    return CLB_OK;
}

clb_status clb__reduce_types(clb_reduce_op op, clb_dtype in, clb_dtype *result)
{
    if (!reduce_op_valid(op))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "reduce op %d is not a clb_reduce_op value (CLB_SUM..CLB_ANY)", (int)op);
    clb_status st = check_dtype(in, reduce_names[op], "the input");
    if (st != CLB_OK)
        return st;

    bool floating = clb__dtype_is_float(in);
    switch (op) {
    case CLB_SUM:
    case CLB_PROD:
        *result = floating ? in : clb__dtype_is_unsigned(in) ? CLB_UINT64 : CLB_INT64;
        break;
    case CLB_MEAN:
        *result = floating ? in : CLB_FLOAT64;
        break;
    case CLB_MAX:
    case CLB_MIN:
        *result = in;
        break;
    case CLB_ALL:
    case CLB_ANY:
        *result = CLB_BOOL;
        break;
    }
    return CLB_OK;
}

clb_status clb__matmul_types(clb_dtype a, clb_dtype b, clb_dtype *result)
{
    clb_status st = check_dtype(a, "matmul", "operand a");
    if (st == CLB_OK)
        st = check_dtype(b, "matmul", "operand b");
    if (st != CLB_OK)
        return st;
    *result = clb_promote_types(a, b);
    return CLB_OK;
}

int clb__dtype_kind(clb_dtype t)
{
    if (t == CLB_BOOL) return 0;
    if (clb__dtype_is_unsigned(t)) return 1;
    if (clb__dtype_is_signed(t)) return 2;
    return 3;
}

clb_status clb__check_dtype(clb_dtype t, const char *what)
{
    if (!clb__dtype_valid(t))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: %d is not a clb_dtype value", what, (int)t);
    return CLB_OK;
}

/* ---- promotion rules (clb_context_set_promotion) -------------------------------- */

static int category(clb_dtype t)
{
    return t == CLB_BOOL ? 0 : clb__dtype_is_float(t) ? 2 : 1;
}

clb_dtype clb__default_float(clb_promotion rules)
{
    return rules == CLB_PROMOTE_TORCH ? CLB_FLOAT32 : CLB_FLOAT64;
}

clb_dtype clb__promote(clb_promotion rules, clb_dtype a, clb_dtype b)
{
    if (rules != CLB_PROMOTE_TORCH || !clb__dtype_valid(a) || !clb__dtype_valid(b) ||
        category(a) == category(b))
        return clb_promote_types(a, b);
    return category(a) > category(b) ? a : b; /* torch.result_type across categories */
}

/* TORCH: the operand of the lower category takes the other's dtype, so the NumPy
   rules below see one category only. */
static void torch_operands(clb_promotion rules, clb_dtype *a, clb_dtype *b)
{
    if (rules != CLB_PROMOTE_TORCH || !clb__dtype_valid(*a) || !clb__dtype_valid(*b)) return;
    if (category(*a) > category(*b)) *b = *a;
    else if (category(*b) > category(*a)) *a = *b;
}

clb_status clb__binary_types_r(clb_promotion rules, clb_binary_op op, clb_dtype a, clb_dtype b,
                               clb_dtype *compute, clb_dtype *result)
{
    bool ints = !clb__dtype_is_float(a) && !clb__dtype_is_float(b);
    torch_operands(rules, &a, &b);
    clb_status st = clb__binary_types(op, a, b, compute, result);
    if (st == CLB_OK && rules == CLB_PROMOTE_TORCH && ints && clb__dtype_is_float(*result))
        *compute = *result = CLB_FLOAT32; /* true division of integers, atan2 (int8, int8)...:
                                             the default dtype */
    return st;
}

clb_status clb__unary_types_r(clb_promotion rules, clb_unary_op op, clb_dtype a,
                              clb_dtype *compute, clb_dtype *result)
{
    clb_status st = clb__unary_types(op, a, compute, result);
    if (st == CLB_OK && rules == CLB_PROMOTE_TORCH && !clb__dtype_is_float(a) &&
        clb__dtype_is_float(*result))
        *compute = *result = CLB_FLOAT32; /* sqrt(int32) is float32 in PyTorch */
    return st;
}

clb_status clb__where_types_r(clb_promotion rules, clb_dtype cond, clb_dtype a, clb_dtype b,
                              clb_dtype *result)
{
    clb_status st = clb__where_types(cond, a, b, result);
    if (st == CLB_OK) *result = clb__promote(rules, a, b);
    return st;
}

clb_status clb__reduce_types_r(clb_promotion rules, clb_reduce_op op, clb_dtype in,
                               clb_dtype *result)
{
    clb_status st = clb__reduce_types(op, in, result);
    if (st == CLB_OK && rules == CLB_PROMOTE_TORCH && !clb__dtype_is_float(in) &&
        *result == CLB_FLOAT64)
        *result = CLB_FLOAT32; /* mean of integers */
    return st;
}

clb_status clb__matmul_types_r(clb_promotion rules, clb_dtype a, clb_dtype b, clb_dtype *result)
{
    clb_status st = clb__matmul_types(a, b, result);
    if (st == CLB_OK) *result = clb__promote(rules, a, b);
    return st;
}

const char *clb__promotion_name(clb_promotion rules)
{
    return rules == CLB_PROMOTE_TORCH ? "CLB_PROMOTE_TORCH" : "CLB_PROMOTE_NUMPY";
}

bool clb__int_fits(int64_t v, clb_dtype t)
{
    switch (t) {
    case CLB_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case CLB_UINT8: return v >= 0 && v <= UINT8_MAX;
    case CLB_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case CLB_UINT16: return v >= 0 && v <= UINT16_MAX;
    case CLB_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case CLB_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case CLB_UINT64: return v >= 0;
    default: return true;
    }
}
