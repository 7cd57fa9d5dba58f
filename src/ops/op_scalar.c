/* clb_binary_scalar: a Python bool, int or float next to a tensor, with NEP 50's
 * "weak scalar" rules. The scalar becomes a 0-d tensor of the dtype NEP 50 gives
 * it on a's own context, so the op is clb_binary's (one program for every value);
 * a power with an exponent of NumPy's fast paths becomes an expression with the
 * exponent as a constant, which expr_rewrite.c turns into products or sqrt. */
#include "dtype.h"
#include "internal.h"
#include "op_eval.h"

#include <math.h>
#include <stdlib.h>

/* NEP 50: the scalar takes a's dtype unless its kind is of a higher category. */
static clb_dtype scalar_dtype(clb_promotion rules, clb_scalar_kind kind, clb_dtype a)
{
    int cat_a = a == CLB_BOOL ? 0 : clb__dtype_is_float(a) ? 2 : 1;
    int cat_s = (int)kind; /* BOOL 0 < INT 1 < FLOAT 2 */
    if (cat_s <= cat_a) return a;
    return kind == CLB_SCALAR_INT ? CLB_INT64 : kind == CLB_SCALAR_BOOL ? CLB_BOOL
                                                                        : clb__default_float(rules);
}

static bool fast_exponent(double p)
{
    return p == 0 || p == 1 || p == 2 || p == 3 || p == 4 || p == -1 || p == -2 || p == 0.5 ||
           p == -0.5;
}

/* a ** s as the typed expression [a, s, a ** s], rewritten (expr_rewrite.c). */
static clb_status power_const(const char *fn, const clb_tensor *a, clb_dtype sdt, clb__value v,
                              clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_context *ctx = a->storage->ctx;
    clb__expr *e = calloc(1, sizeof *e);
    if (!e) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    e->text = NULL;
    e->rules = clb__rules(ctx);
    e->count = 3;
    e->nodes[0] = (clb__expr_node){.kind = CLB__EXPR_INPUT, .op = 0, .dtype = a->dtype,
                                   .compute = a->dtype};
    e->nodes[1] = (clb__expr_node){.kind = CLB__EXPR_CONST, .dtype = sdt, .compute = sdt,
                                   .value = v};
    e->nodes[2] = (clb__expr_node){.kind = CLB__EXPR_BINARY, .op = CLB_POW, .nargs = 2,
                                   .args = {0, 1}};
    CLB_TRY(clb__binary_types_r(e->rules, CLB_POW, a->dtype, sdt, &e->nodes[2].compute,
                                &e->nodes[2].dtype));
    CLB_TRY(clb__expr_rewrite(fn, e));
    const clb_tensor *in[1] = {a};
    CLB_TRY(clb__eval_typed(fn, ctx, e, 1, in, out));
cleanup:
    clb__expr_free(e);
    return st;
}

clb_status clb_binary_scalar(clb_binary_op op, const clb_tensor *a, clb_scalar s, int s_first,
                             clb_tensor **out)
{
    static const char fn[] = "clb_binary_scalar";
    clb_status st = CLB_OK;
    clb_tensor *t = NULL;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    CLB_TRY(clb__check_tensor(a, "clb_binary_scalar: a"));
    if (s.kind != CLB_SCALAR_BOOL && s.kind != CLB_SCALAR_INT && s.kind != CLB_SCALAR_FLOAT)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: s.kind = %d; use CLB_SCALAR_BOOL, CLB_SCALAR_INT or CLB_SCALAR_FLOAT", fn,
                 (int)s.kind);
    if (s.kind == CLB_SCALAR_BOOL && s.i != 0 && s.i != 1)
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT, "%s: a CLB_SCALAR_BOOL holds 0 or 1 in s.i, not %lld",
                 fn, (long long)s.i);
    clb_context *ctx = a->storage->ctx;
    clb_promotion rules = clb__rules(ctx);
    clb_dtype sdt = scalar_dtype(rules, s.kind, a->dtype);
    if (s.kind == CLB_SCALAR_INT &&
        !(sdt == CLB_BOOL ? s.i == 0 || s.i == 1 : clb__int_fits(s.i, sdt)))
        CLB_FAIL(CLB_ERR_INVALID_ARGUMENT,
                 "%s: Python integer %lld out of bounds for %s (NumPy 2 raises OverflowError); "
                 "cast a to a wider dtype first",
                 fn, (long long)s.i, clb_dtype_name(sdt));
    clb__value v;
    clb_dtype from = s.kind == CLB_SCALAR_FLOAT ? CLB_FLOAT64 : CLB_INT64;
    if (s.kind == CLB_SCALAR_FLOAT) v.d = s.f;
    else v.i = s.i;
    v = clb__convert(v, from, sdt);
    clb_dtype compute, result;
    if (s_first) CLB_TRY(clb__binary_types_r(rules, op, sdt, a->dtype, &compute, &result));
    else CLB_TRY(clb__binary_types_r(rules, op, a->dtype, sdt, &compute, &result));
    /* The scalar is no float64 operand of the user's: a's dtype alone decides. */
    CLB_TRY(clb__check_promoted_f64(fn, ctx, clb_binary_op_name(op), a->dtype, (clb_dtype)-1,
                                    compute));
    double p = s.kind == CLB_SCALAR_FLOAT ? s.f : (double)s.i;
    if (op == CLB_POW && !s_first && fast_exponent(p)) return power_const(fn, a, sdt, v, out);
    unsigned char bytes[8];
    clb__storer(sdt)(bytes, v);
    CLB_TRY(clb_tensor_from_host(ctx, sdt, 0, NULL, bytes, &t));
    st = s_first ? clb_binary(op, t, a, out) : clb_binary(op, a, t, out);
cleanup:
    if (st != CLB_OK) st = clb__fail_in(fn, st, NULL);
    clb_tensor_release(t);
    return st;
}
