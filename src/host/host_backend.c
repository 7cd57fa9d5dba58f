/* The host backend: C loops over plans, with the scalar semantics of
 * host_scalar.c. It is the reference every OpenCL result is checked against and
 * the fallback where there is no OpenCL: typed loops over cache-sized blocks
 * where they give the same bits, element by element otherwise; reductions in
 * host_reduce.c, matmul in host_matmul.c (docs/host-backend.md). */
#include "host_backend.h"
#include "dtype.h"
#include "host_expr.h"
#include "host_gen.h"
#include "host_index.h"
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
    .reduce = clb__host_reduce,
    .argreduce = host_argreduce,
    .matmul = clb__host_matmul,
    .eval = host_eval,
    .eval_hoists = host_eval_hoists,
    .eval_reduce = clb__host_eval_reduce,
    .eval_moments = clb__host_eval_moments,
    .eval_online = clb__host_eval_online,
    .generate = clb__host_generate,
    .gather = clb__host_gather,
    .scan = clb__host_scan,
    .sort = clb__host_sort,
    .topk = clb__host_topk,
    .compact = clb__host_compact,
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
