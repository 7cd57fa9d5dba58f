/* OpenCL evaluation of clb_eval expressions: generates cl/eval.cl's
 * CLB_EVAL_BODY from the typed tree and launches it over the plan.
 *
 * The body is the normalised expression: input names are gone (inputs are
 * numbered), literals are exact bit patterns, and every node's conversions are
 * explicit, so two spellings of one computation share a program, and the
 * option string (the program cache's key, in memory and on disk) pins
 * (expression, dtypes, rank, index width, plan kind: launch shape and each
 * operand's innermost stride class). Shapes and strides are kernel arguments:
 * another shape of the same rank and kind compiles nothing.
 *
 * The body travels as a -D value, so it is written without spaces (build
 * options are split at spaces) and with only identifiers, numbers, parentheses,
 * commas and semicolons. */
#include "cl_launch.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "cl_eval_reduce.h"
#include "dtype.h"
#include "expr.h"
#include "cl_kernels.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cl/eval.cl's fixed operand slots (cl/launch_args.h): the output p0 and inputs p1..p8. */
_Static_assert(CLB__EVAL_MAX_INPUTS + 1 <= CLB_EVAL_OPS, "cl/eval.cl has 8 input slots");
_Static_assert(CLB_EVAL_OPS <= CLB__MAX_OPERANDS, "a plan holds every kernel operand");

/* A growing string. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap ? b->cap : 256) * 2 + (size_t)n;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

static const char *const reg_name[CLB__NUM_DTYPES] = {
    "uchar", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    "float", "float", "double"};

/* x (a register expression of dtype `from`) as dtype `to`, into out. clb_cast's
   rules (common.cl's CLB_CONVERT), plus the rounding to half that a float16
   temporary of the op-by-op chain would get. */
static void cv(char *out, size_t cap, clb_dtype to, clb_dtype from, const char *x)
{
    if (to == from)
        snprintf(out, cap, "%s", x);
    else if (to == CLB_FLOAT16 && from == CLB_FLOAT64)
        snprintf(out, cap, "clb_rhd(%s)", x);
    else if (to == CLB_FLOAT16)
        snprintf(out, cap, "clb_rh(CLB_CONVERT(10,%d,%s))", (int)from, x);
    else
        snprintf(out, cap, "CLB_CONVERT(%d,%d,%s)", (int)to, (int)from, x);
}

/* The exact value of a constant node, in its register type. */
static void literal(sbuf *b, const clb__expr_node *n)
{
    clb_dtype t = n->dtype;
    if (t == CLB_FLOAT16 || t == CLB_FLOAT32) {
        uint32_t bits;
        memcpy(&bits, &n->value.f, sizeof bits);
        put(b, "CLB_LIT32(0x%08" PRIx32 "U)", bits);
    } else if (t == CLB_FLOAT64) {
        uint64_t bits;
        memcpy(&bits, &n->value.d, sizeof bits);
        put(b, "CLB_LIT64(0x%016" PRIx64 "UL)", bits);
    } else if (clb__dtype_is_unsigned(t)) {
        put(b, "((%s)%" PRIu64 "UL)", reg_name[t], n->value.u);
    } else if (n->value.i == INT64_MIN) {
        put(b, "((%s)(-9223372036854775807L-1L))", reg_name[t]);
    } else {
        put(b, "((%s)(%" PRId64 "L))", reg_name[t], n->value.i);
    }
}

/* Appends CLB_LET(i,dtype,value); for node i and marks the compute dtypes whose
   helpers the body calls. */
static void node_code(sbuf *b, const clb__expr *e, int i, bool *use)
{
    const clb__expr_node *n = &e->nodes[i];
    char r[3][16], c[3][128], op[320], rounded[352], res[416];
    for (int k = 0; k < n->nargs; k++) snprintf(r[k], sizeof r[k], "v%d", n->args[k]);
    const clb__expr_node *a = n->nargs > 0 ? &e->nodes[n->args[0]] : NULL;
    const clb__expr_node *bb = n->nargs > 1 ? &e->nodes[n->args[1]] : NULL;
    put(b, "CLB_LET(%d,%d,", i, (int)n->dtype);
    switch (n->kind) {
    case CLB__EXPR_INPUT:
        put(b, "CLB_LOAD(%d,p%d,o%d)", (int)n->dtype, n->op + 1, n->op + 1);
        break;
    case CLB__EXPR_CONST:
        literal(b, n);
        break;
    case CLB__EXPR_UNARY:
    case CLB__EXPR_BINARY: {
        bool unary = n->kind == CLB__EXPR_UNARY;
        bool logical_not = unary && clb__unary_op_gives_bool((clb_unary_op)n->op);
        bool to_bool = !unary && n->op >= CLB_EQ && n->op <= CLB_LOGICAL_XOR;
        clb_dtype eval = logical_not || to_bool ? CLB_BOOL : n->compute;
        use[n->compute] = true;
        cv(c[0], sizeof c[0], n->compute, a->dtype, r[0]);
        if (unary) {
            snprintf(op, sizeof op, "CLB_UNARY(%d,%d,%s)", n->op, (int)n->compute, c[0]);
        } else {
            cv(c[1], sizeof c[1], n->compute, bb->dtype, r[1]);
            snprintf(op, sizeof op, "CLB_BINARY(%d,%d,%s,%s)", n->op, (int)n->compute, c[0], c[1]);
        }
        /* A float16 op computes in float and rounds, as the host's half loops. */
        snprintf(rounded, sizeof rounded, eval == CLB_FLOAT16 ? "clb_rh(%s)" : "%s", op);
        cv(res, sizeof res, n->dtype, eval, rounded);
        put(b, "%s", res);
        break;
    }
    case CLB__EXPR_WHERE:
        cv(c[0], sizeof c[0], CLB_BOOL, a->dtype, r[0]);
        cv(c[1], sizeof c[1], n->dtype, bb->dtype, r[1]);
        cv(c[2], sizeof c[2], n->dtype, e->nodes[n->args[2]].dtype, r[2]);
        put(b, "CLB_WHERE(%s,%s,%s)", c[0], c[1], c[2]);
        break;
    case CLB__EXPR_CAST:
        cv(res, sizeof res, n->dtype, a->dtype, r[0]);
        put(b, "%s", res);
        break;
    case CLB__EXPR_INVERT: /* bool: logical not; integers: every bit flipped */
        use[n->dtype] = true;
        if (n->dtype == CLB_BOOL) put(b, "CLB_UNARY(%d,0,%s)", CLB_LOGICAL_NOT, r[0]);
        else put(b, "clb_invert_%d(%s)", (int)n->dtype, r[0]);
        break;
    }
    put(b, ");");
}

/* An innermost axis shorter than this runs as a 1-D range over all elements: a
   work-group per short row would leave most of its lanes idle on a GPU. */
#define MIN_ROW_LAUNCH 64

static bool flat_launch(const clb__plan *plan)
{
    return plan->ndim >= 2 && plan->shape[plan->ndim - 1] < MIN_ROW_LAUNCH;
}

/* The build options: dtypes, rank, index width, helper sets and the body. */
/* A body of more operations than this is not unrolled CLB_VEC times per chunk
   (cl/eval.cl, CLB_UNROLL): the unrolled copies make a long expression's first
   build (PoCL compiles a kernel at its first launch) several times slower --
   tests/test_scalar_rules.c's 24 where-chains of about 150 operations took 119 s
   of CPU on PoCL unrolled, 18 s not -- while the vector code they buy matters
   for the short, memory-bound bodies (a + b ran 1.8x slower without it). */
#define CLB__EXPR_UNROLL_MAX_OPS 48

/* The operations of an expression (inputs and constants not counted). */
static int op_count(const clb__expr *e)
{
    int ops = 0;
    for (int i = 0; i < e->count; i++)
        ops += e->nodes[i].kind != CLB__EXPR_INPUT && e->nodes[i].kind != CLB__EXPR_CONST;
    return ops;
}

static clb_status options_for(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                              bool wide, int vec, bool blocked, bool nt, clb_dtype out,
                              const clb_dtype *in, char **opts)
{
    sbuf body = {0}, o = {0};
    bool use[CLB__NUM_DTYPES] = {false};
    int nin = plan->nops - 1;
    bool f64 = out == CLB_FLOAT64;
    for (int k = 0; k < nin; k++) f64 = f64 || in[k] == CLB_FLOAT64;
    for (int i = 0; i < e->count; i++)
        f64 = f64 || e->nodes[i].dtype == CLB_FLOAT64 || e->nodes[i].compute == CLB_FLOAT64;
    /* Refused before any code is generated: nothing to free (issue 26, finding 11). */
    if (f64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_eval: the expression computes in float64, which OpenCL device %s "
                         "does not support (no cl_khr_fp64); cast the inputs to float32, or use "
                         "clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH) where NumPy 2's rules "
                         "(CLB_PROMOTE_NUMPY) give float64 for integers",
                         ctx->info.name);
    for (int i = 0; i < e->count; i++) node_code(&body, e, i, use);
    char root[128], root_reg[16];
    snprintf(root_reg, sizeof root_reg, "v%d", e->count - 1);
    cv(root, sizeof root, out, clb__expr_root(e)->dtype, root_reg);
    put(&body, "CLB_RESULT(%s);", root);

    put(&o, "-DCLB_NIN=%d -DCLB_NDIM=%d -DCLB_INDEX64=%d -DCLB_OUT_DTYPE=%d", nin, plan->ndim,
        wide ? 1 : 0, (int)out);
    for (int k = 0; k < nin; k++) put(&o, " -DCLB_IN%d_DTYPE=%d", k + 1, (int)in[k]);
    for (int t = 0; t < CLB__NUM_DTYPES; t++)
        if (use[t]) put(&o, " -DCLB_USE_%d=1", t);
    /* The plan kind: a flat launch for a short innermost axis, and each operand's
       innermost stride (0, 1 or anything). */
    put(&o, " -DCLB_FLAT=%d -DCLB_VEC=%d -DCLB_BLOCKED=%d -DCLB_NT=%d -DCLB_VLOAD_ALIGNED=%d",
        !blocked && flat_launch(plan) ? 1 : 0, vec, blocked ? 1 : 0, nt ? 1 : 0,
        clb__cl_vload_aligned(clb__cl_impl(ctx)) ? 1 : 0);
    put(&o, " -DCLB_OWN_MATH=%d", clb__cl_impl(ctx)->own_math ? 1 : 0);
    if (blocked && op_count(e) > CLB__EXPR_UNROLL_MAX_OPS) put(&o, " -DCLB_UNROLL=0");
    for (int k = 0; k < plan->nops && plan->ndim > 0; k++) {
        int64_t s = plan->strides[k][plan->ndim - 1];
        put(&o, " -DCLB_INNER%d=%d", k, s == 0 ? 0 : s == 1 ? 1 : 2);
    }
    if (!body.oom) put(&o, " -DCLB_EVAL_BODY=%s", body.p);
    free(body.p);
    if (body.oom || o.oom) {
        free(o.p);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "clb_eval: out of host memory generating a kernel");
    }
    *opts = o.p;
    return CLB_OK;
}

/* Rows of at most this many per enqueue: within every device's grid limit in
   dimension 1 (65535 work-groups on some GPUs). */
#define ROWS_PER_LAUNCH 32768

/* Enqueues the 2-D range: dimension 0 the innermost axis, `vec` elements per
   work item (rounded up to the work-group size; the kernel skips the excess),
   dimension 1 the rows. */
static clb_status launch(clb__cl_context *cl, cl_kernel kernel, int64_t inner, int64_t rows,
                         int vec)
{
    size_t local = 0, items = (size_t)((inner + vec - 1) / vec);
    clb_status st = clb__cl_pick_local_size(cl, kernel, (int64_t)items, &local);
    if (st != CLB_OK) return st;
    size_t global0 = (items + local - 1) / local * local;
    for (int64_t start = 0; start < rows; start += ROWS_PER_LAUNCH) {
        int64_t count = rows - start < ROWS_PER_LAUNCH ? rows - start : ROWS_PER_LAUNCH;
        size_t offset[2] = {0, (size_t)start}, global[2] = {global0, (size_t)count},
               local2[2] = {local, 1};
        cl_int err =
            clEnqueueNDRangeKernel(cl->queue, kernel, 2, offset, global, local2, 0, NULL, NULL);
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    return CLB_OK;
}

/* One launch's fixed part: what every plan piece shares. */
typedef struct eval_launch {
    clb__cl_context *cl;
    cl_program program;
    void *const *handles;
    bool wide, flat, blocked;
    int vec;
    int64_t element_trips; /* loop iterations one element may cost (clb__cl_op_trips) */
} eval_launch;

int64_t clb__expr_cl_trips(const clb__expr *e)
{
    int64_t trips = 1;
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *n = &e->nodes[i];
        if (n->kind == CLB__EXPR_BINARY) trips += clb__cl_op_trips(true, n->op, n->compute) - 1;
    }
    return trips;
}

/* Enqueues the program's kernel, its arguments set, over one plan piece. */
static clb_status enqueue_piece(const eval_launch *l, cl_kernel kernel, const clb__plan *plan,
                                int64_t rows, int64_t inner)
{
    clb__cl_context *cl = l->cl;
    if (l->blocked) {
        /* One launch: work items loop over their blocks of rows and chunks. */
        size_t local[2], global[2];
        int64_t chunks = (inner + l->vec - 1) / l->vec;
        clb__cl_rows_geometry(cl, NULL, true, plan->numel / CLB__CL_CPU_ELEMENTS_PER_GROUP, chunks,
                              rows, l->vec * l->element_trips + plan->ndim, local, global);
        cl_int err = clEnqueueNDRangeKernel(cl->queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
        return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    if (l->flat) return clb__cl_launch(cl, kernel, plan->numel);
    return launch(cl, kernel, inner, rows, l->vec);
}

/* Launches the program over one plan piece (clb__cl_each_piece's callback, user
   an eval_launch); `flat` is the launch shape the program was built for
   (decided on the whole plan). */
static clb_status run_piece(const clb__plan *plan, void *user)
{
    const eval_launch *l = user;
    clb__cl_context *cl = l->cl;
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    cl_mem table = NULL;
    /* The program's cached kernel object; arguments are shared state, so the
       cache stays locked until the launch is enqueued (cl_launch.h). */
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL, l->program, 0,
                               clb__kernel_function(CLB__KERNEL_EVAL), &k));

    /* p0..p8 (absent inputs get the output's buffer), the launch description,
       the table buffer of a plan with more axes than go by value, the zero. */
    for (int o = 0; o < CLB_EVAL_OPS; o++) {
        cl_mem m = (cl_mem)l->handles[o < plan->nops ? o : 0];
        CLB_TRY(clb__cl_set_mem(k, (cl_uint)o, m));
    }
    bool byval = plan->ndim <= CLB_BYVAL_DIMS;
    int64_t rows = 0, inner = 0;
    clb__cl_args args;
    clb__cl_args_fill(&args, plan, CLB_EVAL_OPS, byval, &rows, &inner);
    CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_EVAL, CLB_EVAL_OPS, &args));
    cl_uint arg = CLB_EVAL_OPS + (cl_uint)clb__cl_args_vecs(CLB__KERNEL_EVAL) + CLB_EVAL_ARGS_TAIL;
    if (!byval) {
        clb__cl_table tab;
        clb__cl_plan_table(plan, plan->nops, 1, &tab);
        CLB_TRY(clb__cl_table_args(cl, k->kernel, &arg, &tab, false, l->wide, &table));
    }
    const cl_int zero = 0; /* the body's constants xor it (CLB_LIT32, quirk literal-folding) */
    CLB_TRY(clb__cl_set_arg(k, arg, sizeof zero, &zero));
    CLB_TRY(enqueue_piece(l, k->kernel, plan, rows, inner));

cleanup:
    /* Queued commands hold their own references: releasing here is safe. */
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    return st;
}

clb_status clb__expr_cl_run(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                            void *const *handles, clb_dtype out, const clb_dtype *in)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    char *options = NULL;
    cl_program program = NULL;
    if (plan->numel == 0) return CLB_OK;

    /* The element-wise kernels' recipe: 32-bit indices, in pieces when the plan is
       too large for them, and 64-bit indices only when pieces cannot help. */
    clb__cl_pieces pieces;
    clb__cl_plan_pieces(plan, &pieces);
    bool wide = pieces.wide;
    /* CPU devices: blocks of rows and chunks per work item (cl/eval.cl), a run of
       elements at a time; GPUs: one element per work item, so neighbouring work
       items touch neighbouring elements (coalesced), or a flat range over short rows. */
    bool cpu = cl->loops;
    bool blocked = clb__cl_blocked(ctx);
    bool flat = !blocked && flat_launch(plan);
    int vec = flat ? 1 : blocked ? 16 : cpu ? 8 : 1;
    bool nt = clb__cl_streaming(cl, plan->numel * (int64_t)clb_dtype_size(out));
    CLB_TRY(options_for(ctx, e, plan, wide, vec, blocked, nt, out, in, &options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_EVAL, options, &program));
    CLB_TRY(clb__cl_check_args(cl, CLB__KERNEL_EVAL, program));
    eval_launch launch = {cl, program, handles, wide, flat, blocked, vec, clb__expr_cl_trips(e)};
    st = clb__cl_each_piece(plan, &pieces, run_piece, &launch);
cleanup:
    free(options);
    return st;
}

/* clb_eval_reduce's use of the generator (cl_eval_reduce.h): the statements
   (the result in the expression's own dtype) and the helper sets, as defines. */
clb_status clb__expr_cl_body(clb_context *ctx, const char *fn, const clb__expr *e, char **defines)
{
    sbuf body = {0}, o = {0};
    bool use[CLB__NUM_DTYPES] = {false};
    bool f64 = false;
    *defines = NULL;
    for (int i = 0; i < e->count; i++)
        f64 = f64 || e->nodes[i].dtype == CLB_FLOAT64 || e->nodes[i].compute == CLB_FLOAT64;
    if (f64 && !ctx->info.has_fp64) {
        return clb__fail(CLB_ERR_DTYPE,
                         "%s: the expression computes in float64, which OpenCL device %s does not "
                         "support (no cl_khr_fp64); cast the inputs to float32, or use "
                         "clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH) where NumPy 2's rules "
                         "(CLB_PROMOTE_NUMPY) give float64 for integers",
                         fn, ctx->info.name);
    }
    for (int i = 0; i < e->count; i++) node_code(&body, e, i, use);
    put(&body, "CLB_RESULT(v%d);", e->count - 1);
    for (int t = 0; t < CLB__NUM_DTYPES; t++)
        if (use[t]) put(&o, " -DCLB_USE_%d=1", t);
    if (!body.oom) put(&o, " -DCLB_EVAL_BODY=%s", body.p);
    free(body.p);
    if (body.oom || o.oom) {
        free(o.p);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory generating a kernel", fn);
    }
    *defines = o.p;
    return CLB_OK;
}
