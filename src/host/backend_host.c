/* The host backend: plain C loops over plans, with the scalar semantics of
 * host_scalar.c. It is the reference every OpenCL result is checked against,
 * so it favours obviously-right code over speed. */
#include "backend.h"
#include "dtype.h"
#include "expr_host.h"
#include "gen_host.h"
#include "host_loops.h"
#include "host_map.h"
#include "host_scalar.h"
#include "huge_pages.h"
#include "fault.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- memory --------------------------------------------------------------- */

static clb_status host_alloc(clb_context *ctx, size_t nbytes, void **handle)
{
    /* malloc(0) may return NULL; a one-byte block keeps zero-size storage valid. */
    *handle = malloc(nbytes ? nbytes : 1);
    CLB__FAULT_FREE(*handle, CLB__FAULT_HOST_ALLOC);
    if (!*handle)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: malloc of %zu bytes failed; free some tensors or use "
                         "smaller ones",
                         nbytes);
    if (ctx->options.huge_pages) clb__huge_pages_advise(*handle, nbytes); /* loops stream it */
    return CLB_OK;
}

static void host_free(clb_context *ctx, void *handle)
{
    (void)ctx;
    free(handle);
}

static clb_status host_write(clb_context *ctx, void *handle, size_t offset, const void *src,
                             size_t nbytes)
{
    (void)ctx;
    memcpy((char *)handle + offset, src, nbytes);
    return CLB_OK;
}

static clb_status host_read(clb_context *ctx, void *handle, size_t offset, void *dst, size_t nbytes)
{
    (void)ctx;
    memcpy(dst, (const char *)handle + offset, nbytes);
    return CLB_OK;
}

static clb_status host_finish(clb_context *ctx)
{
    (void)ctx; /* every host operation completes before it returns */
    return CLB_OK;
}

static void host_destroy(clb_context *ctx)
{
    (void)ctx; /* the host backend keeps no state in ctx->impl */
}

/* ---- copy ------------------------------------------------------------------- */

typedef struct copy_state {
    clb__operand dst, src;
} copy_state;

static void copy_visit(const int64_t *offsets, void *user)
{
    const copy_state *s = user;
    clb__operand_write(&s->dst, offsets[0], clb__operand_read(&s->src, offsets[1], s->src.dtype), s->src.dtype);
}

static clb_status host_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                            const clb_dtype *dtypes)
{
    (void)ctx;
    clb__host_loop_fn loop = clb__host_loops_enabled && dtypes[0] == dtypes[1]
                                 ? clb__host_copy_loop(clb_dtype_size(dtypes[0]))
                                 : NULL;
    if (loop) {
        clb__host_loop_run(loop, clb_dtype_size(dtypes[0]), plan, handles);
        return CLB_OK;
    }
    copy_state s = {clb__operand_of(handles[0], dtypes[0]), clb__operand_of(handles[1], dtypes[1])};
    clb__plan_for_each(plan, copy_visit, &s);
    return CLB_OK;
}

/* ---- map ---------------------------------------------------------------------- */

static clb_status host_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                           void *const *handles)
{
    (void)ctx;
    clb__host_map_run(op, plan, handles);
    return CLB_OK;
}

/* ---- reduce ------------------------------------------------------------------- */

/* Accumulation: floats (float16 too) and every MEAN in double; signed integers
   and bool in int64, unsigned in uint64, wrapping. */
static clb_dtype accumulator_dtype(clb_reduce_op op, clb_dtype in)
{
    if (op == CLB_MEAN || clb__dtype_is_float(in))
        return CLB_FLOAT64;
    return clb__dtype_is_unsigned(in) ? CLB_UINT64 : CLB_INT64;
}

/* Each reduction is a fold with a binary op (whose NaN and wrap rules it inherits). */
static clb_binary_op fold_op(clb_reduce_op op)
{
    switch (op) {
    case CLB_PROD: return CLB_MUL;
    case CLB_MAX: return CLB_MAXIMUM;
    case CLB_MIN: return CLB_MINIMUM;
    default: return CLB_ADD; /* CLB_SUM, CLB_MEAN */
    }
}

/* The fold's starting value: 0, 1, or the extreme that any element replaces. */
static clb__value fold_identity(clb_reduce_op op, clb_dtype acc)
{
    clb__value v;
    bool is_max = op == CLB_MAX, is_min = op == CLB_MIN;
    if (acc == CLB_FLOAT64)
        v.d = op == CLB_PROD ? 1.0 : is_max ? -INFINITY : is_min ? INFINITY : 0.0;
    else if (acc == CLB_UINT64)
        v.u = op == CLB_PROD ? 1 : is_min ? UINT64_MAX : 0;
    else
        v.i = op == CLB_PROD ? 1 : is_max ? INT64_MIN : is_min ? INT64_MAX : 0;
    return v;
}

typedef struct reduce_state {
    clb_binary_op fold;
    clb_dtype acc_dtype;
    clb__value *acc; /* one per output element */
    int64_t out_start;
    clb__operand in;
} reduce_state;

static void reduce_visit(const int64_t *offsets, void *user)
{
    reduce_state *s = user;
    clb__value *acc = &s->acc[offsets[0] - s->out_start];
    *acc = clb__binary_eval(s->fold, s->acc_dtype, *acc, clb__operand_read(&s->in, offsets[1], s->acc_dtype));
}

/* count zeroed accumulators of `size` bytes each for the reduction `what`:
   CLB_ERR_OUT_OF_MEMORY, naming it, when they cannot be addressed or allocated. */
static clb_status alloc_accumulators(int64_t count, size_t size, const char *what, void **out)
{
    *out = NULL;
    if ((uint64_t)count > SIZE_MAX / size)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: %s of %lld output elements needs more accumulator "
                         "memory than can be addressed",
                         what, (long long)count);
    size_t n = (size_t)count;
    *out = calloc(n ? n : 1, size);
    if (!*out)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: allocation of %zu bytes of %s accumulators failed",
                         n * size, what);
    return CLB_OK;
}

static clb_status host_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                              void *const *handles)
{
    (void)ctx;
    size_t n = (size_t)op->out_numel;
    reduce_state s = {fold_op(op->op), accumulator_dtype(op->op, op->in), NULL, plan->offsets[0],
                      clb__operand_of(handles[1], op->in)};
    clb_status st =
        alloc_accumulators(op->out_numel, sizeof *s.acc, clb_reduce_op_name(op->op), (void **)&s.acc);
    if (st != CLB_OK) return st;
    for (size_t j = 0; j < n; j++)
        s.acc[j] = fold_identity(op->op, s.acc_dtype);

    clb__plan_for_each(plan, reduce_visit, &s);

    clb__operand out = clb__operand_of(handles[0], op->out);
    for (size_t j = 0; j < n; j++) {
        if (op->op == CLB_MEAN) /* an empty mean is 0/0: NaN, as NumPy */
            s.acc[j].d = op->count > 0 ? s.acc[j].d / (double)op->count : NAN;
        clb__operand_write(&out, s.out_start + (int64_t)j, s.acc[j], s.acc_dtype);
    }
    free(s.acc);
    return CLB_OK;
}

/* ---- eval_reduce: the same fold over the expression's values ---------------------- */

typedef struct eval_reduce_state {
    reduce_state r;
    clb_dtype value_dtype;
} eval_reduce_state;

static void eval_reduce_visit(const int64_t *offsets, clb__value v, void *user)
{
    eval_reduce_state *s = user;
    clb__value *acc = &s->r.acc[offsets[0] - s->r.out_start];
    *acc = clb__binary_eval(s->r.fold, s->r.acc_dtype, *acc,
                            clb__convert(v, s->value_dtype, s->r.acc_dtype));
}

static clb_status host_eval_reduce(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                                   const clb__plan *plan, void *const *handles,
                                   const clb_dtype *in)
{
    (void)ctx;
    clb_status st = CLB_OK;
    size_t n = (size_t)op->out_numel;
    eval_reduce_state s = {{fold_op(op->op), accumulator_dtype(op->op, op->in), NULL,
                            plan->offsets[0], clb__operand_of(handles[0], op->out)},
                           op->in};
    st = alloc_accumulators(op->out_numel, sizeof *s.r.acc, clb_reduce_op_name(op->op),
                            (void **)&s.r.acc);
    if (st != CLB_OK) return st;
    for (size_t j = 0; j < n; j++) s.r.acc[j] = fold_identity(op->op, s.r.acc_dtype);
    st = clb__expr_host_each(e, plan, handles, in, eval_reduce_visit, &s);
    if (st == CLB_OK) {
        clb__operand out = clb__operand_of(handles[0], op->out);
        for (size_t j = 0; j < n; j++) {
            if (op->op == CLB_MEAN)
                s.r.acc[j].d = op->count > 0 ? s.r.acc[j].d / (double)op->count : NAN;
            clb__operand_write(&out, s.r.out_start + (int64_t)j, s.r.acc[j], s.r.acc_dtype);
        }
    }
    free(s.r.acc);
    return st;
}

/* ---- eval_moments: Welford in float64 per output ----------------------------------- */

typedef struct moments_acc {
    double n, mean, m2;
} moments_acc;

typedef struct moments_state {
    moments_acc *acc;
    int64_t out_start;
    clb_dtype value_dtype;
} moments_state;

static void moments_visit(const int64_t *offsets, clb__value v, void *user)
{
    moments_state *s = user;
    moments_acc *a = &s->acc[offsets[0] - s->out_start];
    double x = clb__convert(v, s->value_dtype, CLB_FLOAT64).d;
    a->n += 1;
    double d = x - a->mean;
    a->mean += d / a->n;
    a->m2 += d * (x - a->mean);
}

static clb_status host_eval_moments(clb_context *ctx, const clb__expr *e, const clb__moments_op *op,
                                    const clb__plan *plan, void *const *handles,
                                    const clb_dtype *in)
{
    (void)ctx;
    size_t n = (size_t)op->out_numel;
    moments_state s = {NULL, plan->offsets[0], op->in};
    clb_status st = alloc_accumulators(op->out_numel, sizeof *s.acc, "var", (void **)&s.acc);
    if (st != CLB_OK) return st;
    st = clb__expr_host_each(e, plan, handles, in, moments_visit, &s);
    if (st == CLB_OK) {
        clb__operand out = clb__operand_of(handles[0], op->out);
        /* NumPy divides by max(count - ddof, 0): 0 gives inf, or nan for 0 / 0. */
        int64_t div = op->count - op->correction > 0 ? op->count - op->correction : 0;
        for (size_t j = 0; j < n; j++) {
            clb__value r;
            r.d = s.acc[j].m2 / (double)div;
            if (op->root) r.d = sqrt(r.d);
            clb__operand_write(&out, s.out_start + (int64_t)j, r, CLB_FLOAT64);
        }
    }
    free(s.acc);
    return st;
}

/* ---- eval_online: softmax's (max, sum of exp) pairs in float64 -------------------- */

typedef struct online_state {
    double *pair; /* m, s per output */
    int64_t out_start;
    clb_dtype value_dtype;
} online_state;

/* exp(a - b) for a <= b, 1 where they are equal (infinities included). */
static double ratio(double a, double b)
{
    return a == b ? 1.0 : exp(a - b);
}

static void online_visit(const int64_t *offsets, clb__value v, void *user)
{
    online_state *s = user;
    double *p = &s->pair[2 * (offsets[0] - s->out_start)];
    double x = clb__convert(v, s->value_dtype, CLB_FLOAT64).d;
    if (x > p[0]) {
        p[1] = p[1] * ratio(p[0], x) + 1.0;
        p[0] = x;
    } else {
        p[1] += ratio(x, p[0]);
    }
}

static clb_status host_eval_online(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                                   const clb__plan *plan, void *const *handles,
                                   const clb_dtype *in)
{
    (void)ctx;
    size_t n = (size_t)op->out_numel;
    online_state s = {NULL, plan->offsets[0], op->in};
    clb_status st =
        alloc_accumulators(op->out_numel, 2 * sizeof(double), "softmax", (void **)&s.pair);
    if (st != CLB_OK) return st;
    for (size_t j = 0; j < n; j++) {
        s.pair[2 * j] = -INFINITY;
        s.pair[2 * j + 1] = 0;
    }
    st = clb__expr_host_each(e, plan, handles, in, online_visit, &s);
    if (st == CLB_OK) {
        clb__operand out = clb__operand_of(handles[0], op->out);
        for (size_t j = 0; j < 2 * n; j++) {
            clb__value r;
            r.d = s.pair[j];
            clb__operand_write(&out, s.out_start + (int64_t)j, r, CLB_FLOAT64);
        }
    }
    free(s.pair);
    return st;
}

/* ---- argmax / argmin ------------------------------------------------------------ */

/* Compared as float64 (floats), int64 or uint64: every value exactly. */
static bool arg_wins(clb_dtype acc, bool is_min, clb__value b, clb__value a)
{
    if (acc == CLB_FLOAT64) {
        if (isnan(a.d)) return false; /* the first NaN stays */
        if (isnan(b.d)) return true;
        return is_min ? b.d < a.d : b.d > a.d;
    }
    if (acc == CLB_UINT64) return is_min ? b.u < a.u : b.u > a.u;
    return is_min ? b.i < a.i : b.i > a.i;
}

static clb_status host_argreduce(clb_context *ctx, const clb__argreduce_op *op,
                                 void *const *handles)
{
    (void)ctx;
    clb__operand in = clb__operand_of(handles[1], op->in);
    int64_t *out = (int64_t *)handles[0] + op->out_offset;
    clb_dtype acc = clb__dtype_is_float(op->in)      ? CLB_FLOAT64
                    : clb__dtype_is_unsigned(op->in) ? CLB_UINT64
                                                     : CLB_INT64;
    for (int64_t row = 0; row < op->rows; row++) {
        int64_t base = op->in_offset + row * op->len, best = 0;
        clb__value bv = clb__operand_read(&in, base, acc);
        for (int64_t r = 1; r < op->len; r++) {
            clb__value v = clb__operand_read(&in, base + r, acc);
            if (arg_wins(acc, op->is_min, v, bv)) {
                bv = v;
                best = r;
            }
        }
        out[row] = best;
    }
    return CLB_OK;
}

/* ---- matmul ---------------------------------------------------------------------- */

/* Products accumulate in double for floats and in uint64 (wrapping) for
   integers; for bool that sum counts the true products, so converting it back
   to bool is the OR of the ANDs. */
typedef struct matmul_state {
    const clb__matmul_op *op;
    clb__operand x[3]; /* 0 = out, 1 = a, 2 = b */
    clb_dtype acc_dtype;
} matmul_state;

static clb__value dot(const matmul_state *s, int64_t a_row, int64_t b_col)
{
    const clb__matmul_op *op = s->op;
    clb__value acc;
    bool floating = s->acc_dtype == CLB_FLOAT64;
    if (floating)
        acc.d = 0.0;
    else
        acc.u = 0;
    for (int64_t p = 0; p < op->k; p++) {
        clb__value x = clb__operand_read(&s->x[1], a_row + p * op->col_strides[1], s->acc_dtype);
        clb__value y = clb__operand_read(&s->x[2], b_col + p * op->row_strides[2], s->acc_dtype);
        if (floating)
            acc.d += x.d * y.d;
        else
            acc.u += x.u * y.u;
    }
    return acc;
}

/* One matrix of the batch; offsets are those of out, a and b. */
static void matrix_visit(const int64_t *offsets, void *user)
{
    const matmul_state *s = user;
    const clb__matmul_op *op = s->op;
    for (int64_t i = 0; i < op->m; i++) {
        for (int64_t j = 0; j < op->n; j++) {
            clb__value v = dot(s, offsets[1] + i * op->row_strides[1],
                               offsets[2] + j * op->col_strides[2]);
            clb__operand_write(&s->x[0], offsets[0] + i * op->row_strides[0] + j * op->col_strides[0], v,
                       s->acc_dtype);
        }
    }
}

static clb_status host_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    (void)ctx;
    matmul_state s = {.op = op,
                      .acc_dtype = clb__dtype_is_float(op->dtype) ? CLB_FLOAT64 : CLB_UINT64};
    for (int k = 0; k < 3; k++)
        s.x[k] = clb__operand_of(handles[k], op->dtype);
    /* The batch is walked as a plan over the batch axes (scalar plan without any). */
    clb__plan *batch = malloc(sizeof *batch);
    if (!batch)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY,
                         "host backend: out of host memory for the matmul batch plan");
    const int64_t *strides[3] = {op->batch_strides[0], op->batch_strides[1], op->batch_strides[2]};
    clb__plan_make(batch, 3, op->batch_ndim, op->batch_shape, strides, op->offsets);
    clb__plan_for_each(batch, matrix_visit, &s);
    free(batch);
    return CLB_OK;
}

/* ---- context -------------------------------------------------------------------- */

static clb_status host_eval(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                            void *const *handles, clb_dtype out, const clb_dtype *in)
{
    (void)ctx;
    return clb__expr_host_run(e, plan, handles, out, in);
}

static bool host_eval_hoists(const clb_context *ctx)
{
    (void)ctx;
    return true;
}

static const clb__backend host_backend = {
    .name = "host",
    .destroy = host_destroy,
    .finish = host_finish,
    .alloc = host_alloc,
    .free = host_free,
    .write = host_write,
    .read = host_read,
    .copy = host_copy,
    .map = host_map,
    .reduce = host_reduce,
    .argreduce = host_argreduce,
    .matmul = host_matmul,
    .eval = host_eval,
    .eval_hoists = host_eval_hoists,
    .eval_reduce = host_eval_reduce,
    .eval_moments = host_eval_moments,
    .eval_online = host_eval_online,
    .generate = clb__host_generate,
};

static uint64_t physical_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return 0; /* unknown */
    return (uint64_t)pages * (uint64_t)page_size;
}

clb_status clb__host_context_init(clb_context *ctx)
{
    clb_device_info *info = &ctx->info;
    ctx->backend = &host_backend;
    ctx->impl = NULL;
    memset(info, 0, sizeof *info);
    snprintf(info->selector, sizeof info->selector, "host");
    info->index = -1;
    info->type = CLB_DEVICE_HOST;
    snprintf(info->name, sizeof info->name, "host (C reference backend)");
    snprintf(info->vendor, sizeof info->vendor, "clbroadcast");
    snprintf(info->platform, sizeof info->platform, "host");
    snprintf(info->driver_version, sizeof info->driver_version, "%s", clb_version_string());
    info->compute_units = 1;
    info->global_mem_bytes = physical_memory_bytes();
    info->max_alloc_bytes = info->global_mem_bytes;
    info->has_fp16 = 1;
    info->has_fp64 = 1;
    info->host_unified_memory = 1;
    return CLB_OK;
}
