/* Tokenizer and recursive-descent parser for clb_eval expressions, with
 * Python's grammar and operator precedence (lowest first):
 *   or  <  and  <  not  <  comparisons  <  |  <  ^  <  &  <  + -  <  * / // %
 *   <  unary - ~  <  **  <  calls, names, literals, parentheses
 * `**` is right-associative and binds tighter than a unary minus on its left
 * (-2**2 is -4), as in Python. Chained comparisons (a < b < c) are rejected: on
 * arrays Python itself cannot evaluate them. */
#include "expr.h"

#include "dtype.h"
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum tok_kind { TOK_END = 0, TOK_INT, TOK_FLOAT, TOK_NAME, TOK_OP } tok_kind;

typedef struct token {
    tok_kind kind;
    int start, len; /* byte range in the text */
    int64_t ival;
    double fval;
} token;

typedef struct parser {
    const char *fn;
    const char *text;
    int n;
    const char *const *names;
    clb__expr *e;
    token tok; /* the current (not yet consumed) token */
    int pos;   /* where the next token starts */
    int depth;
} parser;

/* ---- messages -------------------------------------------------------------------------- */

clb_status clb__expr_fail_at(clb_status st, const char *fn, const char *text, int column,
                             const char *fmt, ...)
{
    char what[512], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* Echo the text on one line (tabs and newlines as spaces) so the caret lines up. */
    size_t len = strlen(text);
    if (len >= sizeof line) len = sizeof line - 1;
    for (size_t i = 0; i < len; i++) line[i] = isspace((unsigned char)text[i]) ? ' ' : text[i];
    line[len] = '\0';
    int pad = column > 1 ? column - 1 : 0;
    if (pad > (int)len) pad = (int)len;
    return clb__fail(st, "%s: %s at column %d\n%s\n%*s^ %s", fn, what, column, line, pad, "",
                     what);
}

#define PFAIL(p, col, ...)                                                                         \
    clb__expr_fail_at(CLB_ERR_INVALID_ARGUMENT, (p)->fn, (p)->text, (col), __VA_ARGS__)

/* ---- tokens ------------------------------------------------------------------------------ */

static const char *const two_char_ops[] = {"**", "//", "==", "!=", "<=", ">=", "<<", ">>"};
static const char one_char_ops[] = "+-*/%<>&|^~(),";

static clb_status scan_number(parser *p, int start)
{
    const char *s = p->text + start;
    int i = 0;
    bool is_float = false;
    while (isdigit((unsigned char)s[i])) i++;
    if (s[i] == '.') {
        is_float = true;
        i++;
        while (isdigit((unsigned char)s[i])) i++;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        int j = i + 1;
        if (s[j] == '+' || s[j] == '-') j++;
        if (!isdigit((unsigned char)s[j]))
            return PFAIL(p, start + j + 1, "expected digits after the exponent of a number");
        while (isdigit((unsigned char)s[j])) j++;
        i = j;
        is_float = true;
    }
    if (isalpha((unsigned char)s[i]) || s[i] == '_')
        return PFAIL(p, start + i + 1, "unexpected '%c' after a number", s[i]);
    p->tok.start = start;
    p->tok.len = i;
    if (is_float) {
        p->tok.kind = TOK_FLOAT;
        p->tok.fval = strtod(s, NULL); /* overflow gives inf, as Python's float('1e999') */
        return CLB_OK;
    }
    int64_t v = 0;
    for (int k = 0; k < i; k++) {
        int digit = s[k] - '0';
        if (v > (INT64_MAX - digit) / 10)
            return PFAIL(p, start + 1,
                         "integer literal %.*s does not fit int64 (largest 9223372036854775807)",
                         i, s);
        v = v * 10 + digit;
    }
    p->tok.kind = TOK_INT;
    p->tok.ival = v;
    return CLB_OK;
}

/* Reads the token at p->pos into p->tok. */
static clb_status next(parser *p)
{
    const char *t = p->text;
    int i = p->pos;
    while (isspace((unsigned char)t[i])) i++;
    memset(&p->tok, 0, sizeof p->tok);
    p->tok.start = i;
    clb_status st = CLB_OK;
    if (t[i] == '\0') {
        p->tok.kind = TOK_END;
    } else if (isdigit((unsigned char)t[i]) || (t[i] == '.' && isdigit((unsigned char)t[i + 1]))) {
        st = scan_number(p, i);
    } else if (isalpha((unsigned char)t[i]) || t[i] == '_') {
        int j = i;
        while (isalnum((unsigned char)t[j]) || t[j] == '_') j++;
        p->tok.kind = TOK_NAME;
        p->tok.len = j - i;
    } else {
        p->tok.kind = TOK_OP;
        for (size_t k = 0; k < sizeof two_char_ops / sizeof two_char_ops[0]; k++)
            if (strncmp(t + i, two_char_ops[k], 2) == 0) p->tok.len = 2;
        if (p->tok.len == 0 && t[i] != '\0' && strchr(one_char_ops, t[i])) p->tok.len = 1;
        if (p->tok.len == 0) {
            if (t[i] == '=')
                return PFAIL(p, i + 1, "unexpected '='; comparison is '=='");
            if (t[i] == '!')
                return PFAIL(p, i + 1, "unexpected '!'; logical negation is 'not' or '~'");
            return PFAIL(p, i + 1, "unexpected character '%c'", t[i]);
        }
    }
    p->pos = p->tok.start + p->tok.len;
    return st;
}

static bool tok_is(const parser *p, const char *s)
{
    size_t n = strlen(s);
    return (p->tok.kind == TOK_OP || p->tok.kind == TOK_NAME) && (size_t)p->tok.len == n &&
           strncmp(p->text + p->tok.start, s, n) == 0;
}

static int col(const parser *p)
{
    return p->tok.start + 1;
}

/* "'foo'" or "the end of the expression", for "expected X, found Y" messages. */
static const char *found(const parser *p, char *buf, size_t cap)
{
    if (p->tok.kind == TOK_END) return "the end of the expression";
    snprintf(buf, cap, "'%.*s'", p->tok.len, p->text + p->tok.start);
    return buf;
}

/* ---- nodes and Python constant folding ----------------------------------------------------- */

static clb_status add_node(parser *p, const clb__expr_node *n, int column, int *out)
{
    clb__expr *e = p->e;
    if (e->count >= CLB__EXPR_MAX_NODES)
        return PFAIL(p, column, "expression has more than %d operations and operands",
                     CLB__EXPR_MAX_NODES);
    e->nodes[e->count] = *n;
    e->nodes[e->count].column = column;
    *out = e->count++;
    return CLB_OK;
}

static clb__expr_node lit_int(int64_t v, clb__lit_kind kind)
{
    /* Python bools are NumPy bools (NEP 50): only ints and floats are weak. */
    clb__expr_node n = {.kind = CLB__EXPR_CONST, .lit = kind, .ival = v, .weak = kind != CLB__LIT_BOOL};
    return n;
}

static clb__expr_node lit_float(double v)
{
    clb__expr_node n = {.kind = CLB__EXPR_CONST, .lit = CLB__LIT_FLOAT, .fval = v, .weak = true};
    return n;
}

static double as_double(const clb__expr_node *n)
{
    return n->lit == CLB__LIT_FLOAT ? n->fval : (double)n->ival;
}

static bool truthy(const clb__expr_node *n)
{
    return n->lit == CLB__LIT_FLOAT ? n->fval != 0.0 : n->ival != 0;
}

static clb_status int_pow(parser *p, int column, int64_t base, int64_t exp, int64_t *out)
{
    int64_t r = 1;
    while (exp > 0) {
        if ((exp & 1) && __builtin_mul_overflow(r, base, &r)) goto overflow;
        exp >>= 1;
        if (exp && __builtin_mul_overflow(base, base, &base)) goto overflow;
    }
    *out = r;
    return CLB_OK;
overflow:
    return PFAIL(p, column, "integer constant overflows int64");
}

/* Python's exact `x op y` for two int constants of + - * // % ** (y >= 0 for
   **): an error where the result leaves int64. */
static clb_status fold_int_arith(parser *p, clb_binary_op op, int64_t x, int64_t y, int column,
                                 int64_t *v)
{
    bool over = false;
    switch (op) {
    case CLB_ADD: over = __builtin_add_overflow(x, y, v); break;
    case CLB_SUB: over = __builtin_sub_overflow(x, y, v); break;
    case CLB_MUL: over = __builtin_mul_overflow(x, y, v); break;
    case CLB_FLOOR_DIV:
    case CLB_MOD:
        if (y == -1) { /* INT64_MIN / -1 traps in C */
            over = op == CLB_FLOOR_DIV && x == INT64_MIN;
            *v = op == CLB_FLOOR_DIV ? -x : 0;
        } else {
            int64_t q = x / y, m = x % y;
            if (m != 0 && ((m < 0) != (y < 0))) {
                q -= 1;
                m += y;
            }
            *v = op == CLB_FLOOR_DIV ? q : m;
        }
        break;
    case CLB_POW: return int_pow(p, column, x, y, v);
    default: return PFAIL(p, column, "operator not defined on constants");
    }
    return over ? PFAIL(p, column, "integer constant overflows int64") : CLB_OK;
}

/* Python's value of `a op b` for two constants: ints stay exact (errors where
   Python's unbounded ints would leave int64), floats in double, bools as ints. */
static clb_status fold_binary(parser *p, clb_binary_op op, const clb__expr_node *a,
                              const clb__expr_node *b, int column, clb__expr_node *r)
{
    bool any_float = a->lit == CLB__LIT_FLOAT || b->lit == CLB__LIT_FLOAT;
    bool both_bool = a->lit == CLB__LIT_BOOL && b->lit == CLB__LIT_BOOL;
    int64_t x = a->ival, y = b->ival, v = 0;
    double fx = as_double(a), fy = as_double(b);
    switch (op) {
    case CLB_EQ: case CLB_NE: case CLB_LT: case CLB_LE: case CLB_GT: case CLB_GE: {
        int c = any_float ? (fx < fy ? -1 : fx > fy ? 1 : fx == fy ? 0 : 2)
                          : (x < y ? -1 : x > y ? 1 : 0);
        bool t = c == 2 ? op == CLB_NE /* NaN: only != holds */
                 : op == CLB_EQ ? c == 0 : op == CLB_NE ? c != 0 : op == CLB_LT ? c < 0
                 : op == CLB_LE ? c <= 0 : op == CLB_GT ? c > 0 : c >= 0;
        *r = lit_int(t, CLB__LIT_BOOL);
        return CLB_OK;
    }
    case CLB_LOGICAL_AND: *r = lit_int(truthy(a) && truthy(b), CLB__LIT_BOOL); return CLB_OK;
    case CLB_LOGICAL_OR: *r = lit_int(truthy(a) || truthy(b), CLB__LIT_BOOL); return CLB_OK;
    case CLB_BITWISE_AND: case CLB_BITWISE_OR: case CLB_BITWISE_XOR:
        if (any_float)
            return clb__expr_fail_at(CLB_ERR_DTYPE, p->fn, p->text, column,
                                     "bitwise operators need integer or bool operands, not a float");
        v = op == CLB_BITWISE_AND ? (x & y) : op == CLB_BITWISE_OR ? (x | y) : (x ^ y);
        *r = lit_int(v, both_bool ? CLB__LIT_BOOL : CLB__LIT_INT);
        return CLB_OK;
    case CLB_LEFT_SHIFT: case CLB_RIGHT_SHIFT: /* Python's shifts of unbounded ints */
        if (any_float)
            return clb__expr_fail_at(CLB_ERR_DTYPE, p->fn, p->text, column,
                                     "shift operators need integer or bool operands, not a float");
        if (y < 0) return PFAIL(p, column, "negative shift count (Python's ValueError)");
        if (op == CLB_RIGHT_SHIFT) {
            v = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
        } else {
            v = y >= 63 ? 0 : (int64_t)((uint64_t)x << y);
            if (x != 0 && (y >= 63 || v >> y != x))
                return PFAIL(p, column, "integer constant overflows int64");
        }
        *r = lit_int(v, CLB__LIT_INT);
        return CLB_OK;
    default: break;
    }
    bool zero = any_float ? fy == 0.0 : y == 0;
    if (zero && (op == CLB_DIV || op == CLB_FLOOR_DIV || op == CLB_MOD))
        return PFAIL(p, column, "division by zero in a constant (Python's ZeroDivisionError)");
    if (!any_float && op != CLB_DIV && !(op == CLB_POW && y < 0)) {
        clb_status st = fold_int_arith(p, op, x, y, column, &v);
        if (st == CLB_OK) *r = lit_int(v, CLB__LIT_INT);
        return st;
    }
    /* Float arithmetic: NumPy's float64 rules are Python's for + - * / // % **. */
    if (op == CLB_POW && fx == 0.0 && fy < 0.0)
        return PFAIL(p, column, "0 raised to a negative power (Python's ZeroDivisionError)");
    if (op == CLB_POW && fx < 0.0 && fy != floor(fy) && isfinite(fy))
        return PFAIL(p, column, "negative number raised to a fractional power is complex");
    clb__value va = {.d = fx}, vb = {.d = fy};
    *r = lit_float(clb__binary_eval(op, CLB_FLOAT64, va, vb).d);
    return CLB_OK;
}

/* A binary node, or its folded value when both arguments are constants. */
static clb_status make_binary(parser *p, clb_binary_op op, int a, int b, int column, bool call,
                              int *out)
{
    clb__expr_node *na = &p->e->nodes[a], *nb = &p->e->nodes[b];
    /* Operators on two Python scalars are Python arithmetic; a function call on them
       (maximum(2, 3)) is a NumPy ufunc and gives a strong value, so it is not folded. */
    if (!call && na->kind == CLB__EXPR_CONST && nb->kind == CLB__EXPR_CONST) {
        clb__expr_node r;
        clb_status st = fold_binary(p, op, na, nb, column, &r);
        if (st != CLB_OK) return st;
        p->e->count = b == p->e->count - 1 && a == b - 1 ? a : p->e->count; /* drop the operands */
        return add_node(p, &r, column, out);
    }
    clb__expr_node n = {.kind = CLB__EXPR_BINARY, .op = (int)op, .nargs = 2, .args = {a, b}};
    return add_node(p, &n, column, out);
}

/* ---- grammar ----------------------------------------------------------------------------- */

static clb_status parse_or(parser *p, int *out);

static clb_status expect(parser *p, const char *what, int open_col)
{
    char buf[64];
    if (tok_is(p, what)) return next(p);
    if (open_col > 0)
        return PFAIL(p, col(p), "expected '%s' to close the '(' at column %d, found %s", what,
                     open_col, found(p, buf, sizeof buf));
    return PFAIL(p, col(p), "expected '%s', found %s", what, found(p, buf, sizeof buf));
}

typedef struct func {
    const char *name;
    clb__expr_kind kind;
    int op; /* unary/binary op, or cast dtype */
    int nargs;
} func;

static const func funcs[] = {
    {"negative", CLB__EXPR_UNARY, CLB_NEG, 1},      {"abs", CLB__EXPR_UNARY, CLB_ABS, 1},
    {"absolute", CLB__EXPR_UNARY, CLB_ABS, 1},      {"sqrt", CLB__EXPR_UNARY, CLB_SQRT, 1},
    {"rsqrt", CLB__EXPR_UNARY, CLB_RSQRT, 1},       {"exp", CLB__EXPR_UNARY, CLB_EXP, 1},
    {"log", CLB__EXPR_UNARY, CLB_LOG, 1},           {"sin", CLB__EXPR_UNARY, CLB_SIN, 1},
    {"cos", CLB__EXPR_UNARY, CLB_COS, 1},           {"tanh", CLB__EXPR_UNARY, CLB_TANH, 1},
    {"sigmoid", CLB__EXPR_UNARY, CLB_SIGMOID, 1},   {"relu", CLB__EXPR_UNARY, CLB_RELU, 1},
    {"floor", CLB__EXPR_UNARY, CLB_FLOOR, 1},       {"ceil", CLB__EXPR_UNARY, CLB_CEIL, 1},
    {"logical_not", CLB__EXPR_UNARY, CLB_LOGICAL_NOT, 1},
    {"invert", CLB__EXPR_INVERT, 0, 1},
    /* the array API standard's set under NumPy's names, both of NumPy 2's spellings */
    {"tan", CLB__EXPR_UNARY, CLB_TAN, 1},           {"arcsin", CLB__EXPR_UNARY, CLB_ASIN, 1},
    {"asin", CLB__EXPR_UNARY, CLB_ASIN, 1},         {"arccos", CLB__EXPR_UNARY, CLB_ACOS, 1},
    {"acos", CLB__EXPR_UNARY, CLB_ACOS, 1},         {"arctan", CLB__EXPR_UNARY, CLB_ATAN, 1},
    {"atan", CLB__EXPR_UNARY, CLB_ATAN, 1},         {"sinh", CLB__EXPR_UNARY, CLB_SINH, 1},
    {"cosh", CLB__EXPR_UNARY, CLB_COSH, 1},         {"arcsinh", CLB__EXPR_UNARY, CLB_ASINH, 1},
    {"asinh", CLB__EXPR_UNARY, CLB_ASINH, 1},       {"arccosh", CLB__EXPR_UNARY, CLB_ACOSH, 1},
    {"acosh", CLB__EXPR_UNARY, CLB_ACOSH, 1},       {"arctanh", CLB__EXPR_UNARY, CLB_ATANH, 1},
    {"atanh", CLB__EXPR_UNARY, CLB_ATANH, 1},       {"expm1", CLB__EXPR_UNARY, CLB_EXPM1, 1},
    {"log1p", CLB__EXPR_UNARY, CLB_LOG1P, 1},       {"log2", CLB__EXPR_UNARY, CLB_LOG2, 1},
    {"log10", CLB__EXPR_UNARY, CLB_LOG10, 1},       {"round", CLB__EXPR_UNARY, CLB_ROUND, 1},
    {"rint", CLB__EXPR_UNARY, CLB_ROUND, 1},        {"trunc", CLB__EXPR_UNARY, CLB_TRUNC, 1},
    {"sign", CLB__EXPR_UNARY, CLB_SIGN, 1},         {"square", CLB__EXPR_UNARY, CLB_SQUARE, 1},
    {"isnan", CLB__EXPR_UNARY, CLB_ISNAN, 1},       {"isinf", CLB__EXPR_UNARY, CLB_ISINF, 1},
    {"isfinite", CLB__EXPR_UNARY, CLB_ISFINITE, 1}, {"erf", CLB__EXPR_UNARY, CLB_ERF, 1},
    {"bitwise_invert", CLB__EXPR_UNARY, CLB_BITWISE_INVERT, 1},
    {"bitwise_not", CLB__EXPR_UNARY, CLB_BITWISE_INVERT, 1},
    {"arctan2", CLB__EXPR_BINARY, CLB_ATAN2, 2},    {"atan2", CLB__EXPR_BINARY, CLB_ATAN2, 2},
    {"hypot", CLB__EXPR_BINARY, CLB_HYPOT, 2},      {"logaddexp", CLB__EXPR_BINARY, CLB_LOGADDEXP, 2},
    {"copysign", CLB__EXPR_BINARY, CLB_COPYSIGN, 2},
    {"left_shift", CLB__EXPR_BINARY, CLB_LEFT_SHIFT, 2},
    {"bitwise_left_shift", CLB__EXPR_BINARY, CLB_LEFT_SHIFT, 2},
    {"right_shift", CLB__EXPR_BINARY, CLB_RIGHT_SHIFT, 2},
    {"bitwise_right_shift", CLB__EXPR_BINARY, CLB_RIGHT_SHIFT, 2},
    {"bitwise_and", CLB__EXPR_BINARY, CLB_BITWISE_AND, 2},
    {"bitwise_or", CLB__EXPR_BINARY, CLB_BITWISE_OR, 2},
    {"bitwise_xor", CLB__EXPR_BINARY, CLB_BITWISE_XOR, 2},
    {"pow", CLB__EXPR_BINARY, CLB_POW, 2},
    {"add", CLB__EXPR_BINARY, CLB_ADD, 2},          {"subtract", CLB__EXPR_BINARY, CLB_SUB, 2},
    {"multiply", CLB__EXPR_BINARY, CLB_MUL, 2},     {"divide", CLB__EXPR_BINARY, CLB_DIV, 2},
    {"floor_divide", CLB__EXPR_BINARY, CLB_FLOOR_DIV, 2},
    {"remainder", CLB__EXPR_BINARY, CLB_MOD, 2},    {"power", CLB__EXPR_BINARY, CLB_POW, 2},
    {"maximum", CLB__EXPR_BINARY, CLB_MAXIMUM, 2},  {"minimum", CLB__EXPR_BINARY, CLB_MINIMUM, 2},
    {"logical_and", CLB__EXPR_BINARY, CLB_LOGICAL_AND, 2},
    {"logical_or", CLB__EXPR_BINARY, CLB_LOGICAL_OR, 2},
    {"logical_xor", CLB__EXPR_BINARY, CLB_LOGICAL_XOR, 2},
    {"where", CLB__EXPR_WHERE, 0, 3},
    {"bool", CLB__EXPR_CAST, CLB_BOOL, 1},          {"int8", CLB__EXPR_CAST, CLB_INT8, 1},
    {"uint8", CLB__EXPR_CAST, CLB_UINT8, 1},        {"int16", CLB__EXPR_CAST, CLB_INT16, 1},
    {"uint16", CLB__EXPR_CAST, CLB_UINT16, 1},      {"int32", CLB__EXPR_CAST, CLB_INT32, 1},
    {"uint32", CLB__EXPR_CAST, CLB_UINT32, 1},      {"int64", CLB__EXPR_CAST, CLB_INT64, 1},
    {"uint64", CLB__EXPR_CAST, CLB_UINT64, 1},      {"float16", CLB__EXPR_CAST, CLB_FLOAT16, 1},
    {"float32", CLB__EXPR_CAST, CLB_FLOAT32, 1},    {"float64", CLB__EXPR_CAST, CLB_FLOAT64, 1},
};
#define NFUNCS ((int)(sizeof funcs / sizeof funcs[0]))

static clb_status unknown_function(parser *p, int start, int len)
{
    char list[2048];
    size_t at = 0;
    for (int i = 0; i < NFUNCS && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", funcs[i].name);
    return PFAIL(p, start + 1, "unknown function '%.*s'; the functions are: %s", len,
                 p->text + start, list);
}

static clb_status unknown_name(parser *p, int start, int len)
{
    char list[1024];
    size_t at = 0;
    for (int i = 0; i < p->n && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", p->names[i]);
    if (p->n == 0) snprintf(list, sizeof list, "(none)");
    return PFAIL(p, start + 1, "unknown name '%.*s'; the inputs are: %s", len, p->text + start,
                 list);
}

static clb_status parse_call(parser *p, int start, int len, int *out)
{
    clb_status st = CLB_OK;
    const func *f = NULL;
    for (int i = 0; i < NFUNCS && !f; i++)
        if ((int)strlen(funcs[i].name) == len && strncmp(funcs[i].name, p->text + start, (size_t)len) == 0)
            f = &funcs[i];
    if (!f) return unknown_function(p, start, len);
    int open = col(p);
    if (++p->depth > CLB__EXPR_MAX_DEPTH)
        return PFAIL(p, open, "expression nested more than %d deep", CLB__EXPR_MAX_DEPTH);
    CLB_TRY(next(p)); /* '(' */
    int args[3], nargs = 0;
    if (!tok_is(p, ")")) {
        for (;;) {
            int a = 0;
            CLB_TRY(parse_or(p, &a));
            if (nargs < 3) args[nargs] = a;
            nargs++;
            if (!tok_is(p, ",")) break;
            CLB_TRY(next(p));
        }
    }
    CLB_TRY(expect(p, ")", open));
    p->depth--;
    if (nargs != f->nargs)
        return PFAIL(p, start + 1, "%s() takes %d argument%s (%d given)", f->name, f->nargs,
                     f->nargs == 1 ? "" : "s", nargs);
    if (f->kind == CLB__EXPR_BINARY) return make_binary(p, (clb_binary_op)f->op, args[0], args[1], start + 1, true, out);
    clb__expr_node n = {.kind = f->kind, .op = f->op, .nargs = nargs};
    for (int i = 0; i < nargs; i++) n.args[i] = args[i];
    if (f->kind == CLB__EXPR_CAST) n.dtype = (clb_dtype)f->op;
    return add_node(p, &n, start + 1, out);
cleanup:
    return st;
}

static clb_status parse_primary(parser *p, int *out)
{
    clb_status st = CLB_OK;
    char buf[64];
    int c = col(p);
    if (p->tok.kind == TOK_INT || p->tok.kind == TOK_FLOAT) {
        clb__expr_node n = p->tok.kind == TOK_INT ? lit_int(p->tok.ival, CLB__LIT_INT)
                                                  : lit_float(p->tok.fval);
        CLB_TRY(next(p));
        return add_node(p, &n, c, out);
    }
    if (tok_is(p, "(")) {
        /* Every recursion of the grammar passes through here or a prefix operator,
           so these two counters bound the parser's stack. */
        if (++p->depth > CLB__EXPR_MAX_DEPTH)
            return PFAIL(p, c, "expression nested more than %d deep", CLB__EXPR_MAX_DEPTH);
        CLB_TRY(next(p));
        CLB_TRY(parse_or(p, out));
        p->depth--;
        return expect(p, ")", c);
    }
    if (p->tok.kind == TOK_NAME && !tok_is(p, "and") && !tok_is(p, "or") && !tok_is(p, "not")) {
        int start = p->tok.start, len = p->tok.len;
        if (tok_is(p, "True") || tok_is(p, "False")) {
            clb__expr_node n = lit_int(tok_is(p, "True"), CLB__LIT_BOOL);
            CLB_TRY(next(p));
            return add_node(p, &n, c, out);
        }
        CLB_TRY(next(p));
        if (tok_is(p, "(")) return parse_call(p, start, len, out);
        for (int k = 0; k < p->n; k++) {
            if ((int)strlen(p->names[k]) == len && strncmp(p->names[k], p->text + start, (size_t)len) == 0) {
                clb__expr_node n = {.kind = CLB__EXPR_INPUT, .op = k};
                return add_node(p, &n, c, out);
            }
        }
        return unknown_name(p, start, len);
    }
    return PFAIL(p, c, "expected a number, a name, a call or '(', found %s", found(p, buf, sizeof buf));
cleanup:
    return st;
}

static clb_status parse_unary(parser *p, int *out);

/* power := primary ['**' unary] */
static clb_status parse_power(parser *p, int *out)
{
    clb_status st = CLB_OK;
    CLB_TRY(parse_primary(p, out));
    if (tok_is(p, "**")) {
        int c = col(p), rhs = 0;
        if (++p->depth > CLB__EXPR_MAX_DEPTH) /* a ** b ** c ... recurses to the right */
            return PFAIL(p, c, "expression nested more than %d deep", CLB__EXPR_MAX_DEPTH);
        CLB_TRY(next(p));
        CLB_TRY(parse_unary(p, &rhs));
        p->depth--;
        return make_binary(p, CLB_POW, *out, rhs, c, false, out);
    }
cleanup:
    return st;
}

/* unary := ('-' | '~') unary | power */
static clb_status parse_unary(parser *p, int *out)
{
    clb_status st = CLB_OK;
    if (!tok_is(p, "-") && !tok_is(p, "~")) return parse_power(p, out);
    bool neg = tok_is(p, "-");
    int c = col(p), a = 0;
    if (++p->depth > CLB__EXPR_MAX_DEPTH)
        return PFAIL(p, c, "expression nested more than %d deep", CLB__EXPR_MAX_DEPTH);
    CLB_TRY(next(p));
    CLB_TRY(parse_unary(p, &a));
    p->depth--;
    clb__expr_node *na = &p->e->nodes[a];
    if (na->kind == CLB__EXPR_CONST && na->weak) { /* Python arithmetic on a literal */
        if (na->lit == CLB__LIT_FLOAT && neg) {
            na->fval = -na->fval;
        } else if (na->lit == CLB__LIT_FLOAT) {
            return clb__expr_fail_at(CLB_ERR_DTYPE, p->fn, p->text, c,
                                     "'~' needs an integer or bool operand, not a float");
        } else if (neg && na->ival == INT64_MIN) {
            return PFAIL(p, c, "integer constant overflows int64");
        } else {
            na->ival = neg ? -na->ival : ~na->ival;
        }
        *out = a;
        return CLB_OK;
    }
    clb__expr_node n = {.kind = neg ? CLB__EXPR_UNARY : CLB__EXPR_INVERT, .op = CLB_NEG,
                        .nargs = 1, .args = {a}};
    if (na->kind == CLB__EXPR_CONST && !neg) { /* ~True is NumPy's invert of a bool: False */
        na->ival = !na->ival;
        *out = a;
        return CLB_OK;
    }
    return add_node(p, &n, c, out);
cleanup:
    return st;
}

typedef struct binop {
    const char *tok;
    clb_binary_op op;
} binop;

/* One left-associative precedence level over `ops`, with `sub` for the operands. */
static clb_status parse_level(parser *p, const binop *ops, int nops,
                              clb_status (*sub)(parser *, int *), int *out)
{
    clb_status st = CLB_OK;
    CLB_TRY(sub(p, out));
    for (;;) {
        const binop *hit = NULL;
        for (int i = 0; i < nops && !hit; i++)
            if (tok_is(p, ops[i].tok)) hit = &ops[i];
        if (!hit) break;
        int c = col(p), rhs = 0;
        CLB_TRY(next(p));
        CLB_TRY(sub(p, &rhs));
        CLB_TRY(make_binary(p, hit->op, *out, rhs, c, false, out));
    }
cleanup:
    return st;
}

static clb_status parse_term(parser *p, int *out)
{
    static const binop ops[] = {{"*", CLB_MUL}, {"/", CLB_DIV}, {"//", CLB_FLOOR_DIV}, {"%", CLB_MOD}};
    return parse_level(p, ops, 4, parse_unary, out);
}

static clb_status parse_arith(parser *p, int *out)
{
    static const binop ops[] = {{"+", CLB_ADD}, {"-", CLB_SUB}};
    return parse_level(p, ops, 2, parse_term, out);
}

static clb_status parse_shift(parser *p, int *out)
{
    static const binop ops[] = {{"<<", CLB_LEFT_SHIFT}, {">>", CLB_RIGHT_SHIFT}};
    return parse_level(p, ops, 2, parse_arith, out);
}

static clb_status parse_band(parser *p, int *out)
{
    static const binop ops[] = {{"&", CLB_BITWISE_AND}};
    return parse_level(p, ops, 1, parse_shift, out);
}

static clb_status parse_bxor(parser *p, int *out)
{
    static const binop ops[] = {{"^", CLB_BITWISE_XOR}};
    return parse_level(p, ops, 1, parse_band, out);
}

static clb_status parse_bor(parser *p, int *out)
{
    static const binop ops[] = {{"|", CLB_BITWISE_OR}};
    return parse_level(p, ops, 1, parse_bxor, out);
}

static const binop comparisons[] = {{"==", CLB_EQ}, {"!=", CLB_NE}, {"<=", CLB_LE},
                                    {">=", CLB_GE}, {"<", CLB_LT},  {">", CLB_GT}};

static const binop *comparison_at(const parser *p)
{
    for (int i = 0; i < 6; i++)
        if (tok_is(p, comparisons[i].tok)) return &comparisons[i];
    return NULL;
}

static clb_status parse_comparison(parser *p, int *out)
{
    clb_status st = CLB_OK;
    CLB_TRY(parse_bor(p, out));
    const binop *hit = comparison_at(p);
    if (!hit) return CLB_OK;
    int c = col(p), rhs = 0;
    CLB_TRY(next(p));
    CLB_TRY(parse_bor(p, &rhs));
    if (comparison_at(p))
        return PFAIL(p, col(p),
                     "chained comparison: on arrays it is ambiguous; write (a < b) & (b < c)");
    return make_binary(p, hit->op, *out, rhs, c, false, out);
cleanup:
    return st;
}

static clb_status parse_not(parser *p, int *out)
{
    clb_status st = CLB_OK;
    if (!tok_is(p, "not")) return parse_comparison(p, out);
    int c = col(p), a = 0;
    if (++p->depth > CLB__EXPR_MAX_DEPTH)
        return PFAIL(p, c, "expression nested more than %d deep", CLB__EXPR_MAX_DEPTH);
    CLB_TRY(next(p));
    CLB_TRY(parse_not(p, &a));
    p->depth--;
    clb__expr_node *na = &p->e->nodes[a];
    if (na->kind == CLB__EXPR_CONST && na->weak) {
        *na = lit_int(!truthy(na), CLB__LIT_BOOL);
        na->column = c;
        *out = a;
        return CLB_OK;
    }
    clb__expr_node n = {.kind = CLB__EXPR_UNARY, .op = CLB_LOGICAL_NOT, .nargs = 1, .args = {a}};
    return add_node(p, &n, c, out);
cleanup:
    return st;
}

static clb_status parse_and(parser *p, int *out)
{
    static const binop ops[] = {{"and", CLB_LOGICAL_AND}};
    return parse_level(p, ops, 1, parse_not, out);
}

static clb_status parse_or(parser *p, int *out)
{
    static const binop ops[] = {{"or", CLB_LOGICAL_OR}};
    return parse_level(p, ops, 1, parse_and, out);
}

/* ---- entry ------------------------------------------------------------------------------- */

static bool is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') return false;
    return strcmp(s, "and") != 0 && strcmp(s, "or") != 0 && strcmp(s, "not") != 0 &&
           strcmp(s, "True") != 0 && strcmp(s, "False") != 0;
}

clb_status clb__expr_parse(const char *fn, const char *text, int n, const char *const *names,
                           clb__expr **out)
{
    clb_status st = CLB_OK;
    *out = NULL;
    for (int k = 0; k < n; k++) {
        if (!is_identifier(names[k]))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: names[%d] (\"%s\") is not an identifier: letters, digits and "
                             "'_', not starting with a digit, and not a keyword",
                             fn, k, names[k] ? names[k] : "(null)");
        for (int j = 0; j < k; j++)
            if (strcmp(names[j], names[k]) == 0)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "%s: names[%d] and names[%d] are both \"%s\"; each input needs "
                                 "its own name",
                                 fn, j, k, names[k]);
    }
    /* strnlen: a text of gigabytes is not even read to its end. */
    size_t text_len = strnlen(text, (size_t)CLB__EXPR_MAX_TEXT + 1);
    if (text_len > CLB__EXPR_MAX_TEXT)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: the expression is longer than %d bytes (1 MiB), the longest accepted; "
                         "an expression has at most %d nodes, so shorten names or whitespace",
                         fn, CLB__EXPR_MAX_TEXT, CLB__EXPR_MAX_NODES);
    clb__expr *e = calloc(1, sizeof *e);
    char *copy = malloc(text_len + 1);
    if (!e || !copy) {
        free(e);
        free(copy);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory parsing an expression", fn);
    }
    memcpy(copy, text, text_len + 1);
    e->text = copy;
    parser p = {.fn = fn, .text = copy, .n = n, .names = names, .e = e};
    int root = 0;
    CLB_TRY(next(&p));
    if (p.tok.kind == TOK_END) {
        st = PFAIL(&p, 1, "empty expression");
        goto cleanup;
    }
    CLB_TRY(parse_or(&p, &root));
    if (p.tok.kind != TOK_END) {
        char buf[64];
        st = PFAIL(&p, col(&p), "unexpected %s after a complete expression",
                   found(&p, buf, sizeof buf));
        goto cleanup;
    }
    /* The root is the last node: folding only ever removes trailing nodes. */
    if (root != e->count - 1) {
        st = PFAIL(&p, 1, "internal parser error: the root is not the last node");
        goto cleanup;
    }
    *out = e;
    return CLB_OK;
cleanup:
    clb__expr_free(e);
    return st;
}

void clb__expr_free(clb__expr *e)
{
    if (!e) return;
    free(e->text);
    free(e);
}
