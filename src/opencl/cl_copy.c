/* Driver of cl/copy.cl: strided copy / cast over a plan.
 *
 * Per call: encode the specialisation in one 64-bit key, find the cached kernel
 * object (the option string and the program cache are consulted only the first
 * time), set the arguments and enqueue one launch per 32-bit plan piece. The
 * launch scheme is cl/elementwise.cl's (see src/opencl/cl_map.c). */
#include "cl_launch.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include <stdlib.h>
#include <string.h>

/* Elements a CPU work item should have at least before the work is split
   further: below that, starting a work-group costs more than the copy saves. */

static clb_dtype unsigned_of(size_t size)
{
    return size == 1 ? CLB_UINT8 : size == 2 ? CLB_UINT16 : size == 4 ? CLB_UINT32 : CLB_UINT64;
}

/* Rewrites a copy from src to dst into the dtype pair whose program computes
 * the same bytes, so that pairs with equal results share one program (each
 * costs PoCL 0.3-0.5 s to compile): 144 dtype pairs need 89 programs.
 *  - Copies without a value conversion move bits: same dtype, or integers of
 *    one width. They run as the unsigned integer of that width, so four
 *    programs serve them all, NaN payloads survive, and float64 views can be
 *    materialised even on devices without cl_khr_fp64.
 *  - Integer to integer keeps the low bits of the source's (sign- or zero-)
 *    extension: narrowing depends on neither signedness, widening only on the
 *    source's. Unsigned targets make the kernel's conversion the defined
 *    modulo one; bool sources (0/1) and bool targets (x != 0) need no sign.
 *  - uint8 -> bool and bool -> uint8 both store (byte != 0). */
static void canonical_pair(clb_dtype *dst, clb_dtype *src)
{
    size_t dsz = clb_dtype_size(*dst), ssz = clb_dtype_size(*src);
    bool dst_int = clb__dtype_is_integer(*dst), src_int = clb__dtype_is_integer(*src);
    if (*dst == *src || (dst_int && src_int && dsz == ssz)) {
        *dst = *src = unsigned_of(dsz);
        return;
    }
    if (*dst == CLB_BOOL && src_int) *src = unsigned_of(ssz);
    if (*src == CLB_BOOL && dst_int) *dst = unsigned_of(dsz);
    if (dst_int && src_int) {
        *dst = unsigned_of(dsz);
        if (dsz < ssz) *src = unsigned_of(ssz);
    }
    if (*dst == CLB_UINT8 && *src == CLB_BOOL) *dst = CLB_BOOL, *src = CLB_UINT8;
}

/* Everything a program depends on. The rank and the inner strides are not part
   of it: they are arguments and in-kernel branches (see cl/copy.cl). */
typedef struct copy_spec {
    clb_dtype dst, src; /* after canonical_pair */
    bool table;         /* more axes than go by value */
    bool wide;          /* 64-bit indices */
    int vec;            /* consecutive inner elements per step of a work item */
    bool blocked;       /* work items take contiguous blocks (CPU devices) */
    bool nt;            /* streaming stores (large outputs on CPU devices) */
} copy_spec;

static uint64_t spec_key(const copy_spec *s)
{
    uint64_t k = (uint64_t)s->dst;
    k = k << 4 | (uint64_t)s->src;
    k = k << 1 | (uint64_t)s->table;
    k = k << 1 | (uint64_t)s->wide;
    k = k << 6 | (uint64_t)s->vec;
    k = k << 1 | (uint64_t)s->blocked;
    k = k << 1 | (uint64_t)s->nt;
    return k;
}

static clb_status build_kernel(clb_context *ctx, const copy_spec *s, uint64_t key,
                               clb__cl_kernel **out)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__kernel_define defs[] = {
        {"CLB_SRC_DTYPE", s->src}, {"CLB_DST_DTYPE", s->dst}, {"CLB_TABLE", s->table},
        {"CLB_INDEX64", s->wide},  {"CLB_VEC", s->vec},       {"CLB_BLOCKED", s->blocked},
        {"CLB_NT", s->nt},
        {"CLB_VLOAD_ALIGNED", clb__cl_vload_aligned(cl)},
    };
    char options[CLB__KERNEL_OPTIONS_MAX];
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options,
                                        sizeof options);
    if (st != CLB_OK) return st;
    return clb__cl_kernel_build_checked(cl, CLB__KERNEL_COPY, key, options, NULL, out);
}


/* One launch's fixed part: what every plan piece shares. */
typedef struct copy_launch {
    clb_context *ctx;
    const copy_spec *s;
    clb__cl_kernel *k;
    void *const *handles;
} copy_launch;

/* Sets the arguments of one plan piece and enqueues it (clb__cl_each_piece's
   callback, user a copy_launch). Called with the kernel locked. */
static clb_status launch_piece(const clb__plan *p, void *user)
{
    const copy_launch *l = user;
    clb_context *ctx = l->ctx;
    const copy_spec *s = l->s;
    clb__cl_kernel *k = l->k;
    void *const *handles = l->handles;
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_kernel kernel = k->kernel;
    cl_int err = CL_SUCCESS;
    cl_mem table = NULL;
    int64_t rows = 0, inner = 0;
    clb__cl_args args;
    clb__cl_args_fill(&args, p, CLB_COPY_OPS, !s->table, &rows, &inner);
    cl_mem mems[2] = {(cl_mem)handles[0], (cl_mem)handles[1]};
    CLB_TRY(clb__cl_set_mem(k, 0, mems[0]));
    CLB_TRY(clb__cl_set_mem(k, 1, mems[1]));

    if (s->table) {
        clb__cl_table t;
        cl_uint arg = 2 + CLB_COPY_ARGS_VECS;
        clb__cl_plan_table(p, 2, 0, &t);
        CLB_TRY(clb__cl_table_args(cl, kernel, &arg, &t, false, s->wide, &table));
    }
    CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_COPY, 2, &args));

    int64_t chunks = (inner + s->vec - 1) / s->vec;
    size_t local[2], global[2];
    clb__cl_rows_geometry(cl, k, s->blocked, p->numel / CLB__CL_CPU_ELEMENTS_PER_GROUP, chunks, rows,
                          s->vec + p->ndim, local, global);
    err = clEnqueueNDRangeKernel(cl->queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    /* The enqueued command holds its own reference to the table. */
    if (table) clReleaseMemObject(table);
    return st;
}

clb_status clb__cl_copy(clb_context *ctx, const clb__plan *plan, void *const *handles,
                        const clb_dtype *dtypes)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    if (plan->numel == 0) return CLB_OK;

    copy_spec s = {.dst = dtypes[0], .src = dtypes[1]};
    canonical_pair(&s.dst, &s.src);
    if ((s.dst == CLB_FLOAT64 || s.src == CLB_FLOAT64) && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "casting %s to %s needs float64 arithmetic, which OpenCL device %s does "
                         "not support (no cl_khr_fp64); cast on the host backend (selector "
                         "\"host\") or keep the data in float64 without converting it",
                         clb_dtype_name(dtypes[1]), clb_dtype_name(dtypes[0]), ctx->info.name);

    clb__cl_pieces pieces;
    clb__cl_plan_pieces(plan, &pieces);
    s.wide = pieces.wide;
    s.table = plan->ndim > CLB_BYVAL_DIMS;
    s.blocked = clb__cl_blocked(ctx);
    /* A GPU work item takes 4 elements per step: coalesced across neighbouring
       items and few registers. A CPU work item's unrolled loads and stores become
       vector instructions: bit copies move 32 bytes or more per step (16 elements
       of 4 and 8 bytes: a whole cache line per streaming store, and the loop
       overhead spread over more bytes); casts take 4 elements, which vectorises
       as well and compiles faster. */
    size_t isz = clb_dtype_size(s.dst);
    s.vec = s.blocked && s.src == s.dst ? (isz >= 4 ? 16 : (int)(32 / isz)) : 4;
    /* OpenCL vectors stop at 16 elements (cl/copy.cl stores one per chunk). */
    s.nt = s.vec <= 16 && clb__cl_streaming(cl, plan->numel * (int64_t)isz);

    uint64_t key = spec_key(&s);
    clb__cl_kernel *k = clb__cl_kernel_find(cl, CLB__KERNEL_COPY, key);
    if (!k) {
        clb_status st = build_kernel(ctx, &s, key, &k);
        if (st != CLB_OK) return st;
    }
    /* From here the kernel cache is locked until every piece is enqueued. */
    copy_launch launch = {ctx, &s, k, handles};
    clb_status st = clb__cl_each_piece(plan, &pieces, launch_piece, &launch);
    clb__cl_kernel_unlock(cl);
    return st;
}
