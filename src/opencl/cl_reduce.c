/* Driver of cl/reduce.cl: splits the op layer's plan into kept and reduced
   stride tables, picks the kernel (the general work-group tree, or on CPU
   devices a contiguous row/column fast path for float sums and means) and its
   shape, and runs one pass, or two when the outputs alone would leave the
   device mostly idle (few outputs, long reductions): the first writes
   accumulator partials, the general kernel (the column kernel for the column
   path's) reduces them; on PoCL the row path's last item folds a few
   thousand partials itself, in the same launch. */
#include "cl_launch.h"
#include "cl_reduce_common.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "cl_quirks.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The input seen as kept x reduced axes, both row-major (innermost last). */
typedef struct reduce_tables {
    int kept_ndim, red_ndim;
    int64_t kshape[CLB__PLAN_MAX_DIMS], kstride[CLB__PLAN_MAX_DIMS];
    int64_t rshape[CLB__PLAN_MAX_DIMS], rstride[CLB__PLAN_MAX_DIMS];
    int64_t kept_numel, red_numel;
    int64_t in_offset, out_offset;
} reduce_tables;

/* One launch of the kernel. */
typedef struct reduce_launch {
    clb_dtype in, acc, out;
    clb_reduce_op op;
    bool final;
    int64_t count; /* MEAN's divisor */
    cl_mem src, dst;
    /* The row path in one launch (clb_reduce_rows_last): the partials go to
       dst, the results to `result`, the count of finished items to `done`. */
    cl_mem result, done;
} reduce_launch;

/* The plan orders axes by the output's stride, so kept axes (nonzero output
   stride) come first in output row-major order, and reduced axes (stride 0)
   follow sorted by input stride and already coalesced: the innermost reduced
   axis is the input's fastest-moving one. An empty input keeps no axes: every
   output is the identity and no element is read. */
static void split_plan(const clb__plan *plan, const clb__reduce_op *op, reduce_tables *t)
{
    memset(t, 0, offsetof(reduce_tables, kshape));
    t->kept_numel = op->out_numel;
    t->red_numel = 1;
    t->in_offset = plan->offsets[1];
    t->out_offset = plan->offsets[0];
    if (plan->numel == 0) {
        t->kshape[0] = op->out_numel, t->kstride[0] = 0, t->kept_ndim = 1;
        t->red_numel = 0;
    } else {
        for (int d = 0; d < plan->ndim; d++) {
            if (plan->strides[0][d] != 0) {
                t->kshape[t->kept_ndim] = plan->shape[d];
                t->kstride[t->kept_ndim++] = plan->strides[1][d];
            } else {
                t->rshape[t->red_ndim] = plan->shape[d];
                t->rstride[t->red_ndim++] = plan->strides[1][d];
                t->red_numel *= plan->shape[d];
            }
        }
    }
    if (t->red_ndim == 0) { /* nothing reduced (or empty): one element per output */
        t->rshape[0] = t->red_numel == 0 ? 0 : 1;
        t->rstride[0] = 0;
        t->red_ndim = 1;
    }
}

/* cl/reduce.cl builds one program per op family (SUM with MEAN, MAX with MIN,
   PROD) and takes the member as the kernels' `param`: MEAN's divisor or -1
   for SUM, 1 for MIN and 0 for MAX. */
static int op_family(clb_reduce_op op)
{
    return op == CLB_MEAN ? CLB_SUM : op == CLB_MIN ? CLB_MAX : (int)op;
}

static cl_long op_param(const reduce_launch *l)
{
    switch (l->op) {
    case CLB_MEAN: return l->count;
    case CLB_MIN: return 1;
    case CLB_SUM: return -1;
    default: return 0;
    }
}

/* Whether t's tables go in a __constant buffer (more axes than go by value). */
static bool wide_table(const reduce_tables *t)
{
    return t->kept_ndim > CLB_BYVAL_DIMS || t->red_ndim > CLB_BYVAL_DIMS;
}

/* Sets a kernel's arguments: the two buffers, the launch description
   (cl/launch_args.h's CLB_RED_*: extent, chunk, x and y as the kernel reads
   them), `scratch` bytes of local memory unless 0, then, beyond CLB_BYVAL_DIMS
   axes, [kept shape | kept strides | reduced shape | reduced strides] in one
   __constant buffer (*table, for the caller to release), then with l->done
   (clb_reduce_rows_last) the result buffer and the counter. */
static clb_status set_launch(clb__cl_context *cl, clb__cl_kernel *k, const reduce_launch *l,
                             const reduce_tables *t, const int64_t xs[4], size_t scratch,
                             bool wide, cl_mem *table)
{
    clb__cl_args args = {{0}};
    const int64_t v[10] = {l->final || l->done ? t->out_offset : 0, t->in_offset, t->kept_numel,
                           xs[0], xs[1], t->kept_ndim, t->red_ndim, xs[2], xs[3], op_param(l)};
    for (int i = 0; i < 10; i++) args.v[i] = v[i];
    bool byval = !wide_table(t);
    for (int d = 0; byval && d < t->kept_ndim; d++)
        args.v[CLB_RED_KSHAPE(d)] = t->kshape[d], args.v[CLB_RED_KSTRIDE(d)] = t->kstride[d];
    for (int d = 0; byval && d < t->red_ndim; d++)
        args.v[CLB_RED_RSHAPE(d)] = t->rshape[d], args.v[CLB_RED_RSTRIDE(d)] = t->rstride[d];
    const cl_mem mems[2] = {l->dst, l->src};
    clb_status st = clb__cl_set_mem(k, 0, mems[0]);
    if (st == CLB_OK) st = clb__cl_set_mem(k, 1, mems[1]);
    if (st == CLB_OK) st = clb__cl_set_args(k, CLB__KERNEL_REDUCE, 2, &args);
    if (st != CLB_OK) return st;
    cl_uint arg = 2 + CLB_RED_ARGS_VECS;
    /* Local memory: not an argument the kernel cache can remember. */
    if (scratch) {
        cl_int err = clSetKernelArg(k->kernel, arg++, scratch, NULL);
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clSetKernelArg");
    }
    if (!byval) {
        clb__cl_table tab = {.ncols = 4,
                             .col = {t->kshape, t->kstride, t->rshape, t->rstride},
                             .len = {t->kept_ndim, t->kept_ndim, t->red_ndim, t->red_ndim}};
        st = clb__cl_table_args(cl, k->kernel, &arg, &tab, false, wide, table);
    }
    if (st != CLB_OK || !l->done) return st;
    cl_int err = clSetKernelArg(k->kernel, arg++, sizeof(cl_mem), &l->result);
    if (err == CL_SUCCESS) err = clSetKernelArg(k->kernel, arg, sizeof(cl_mem), &l->done);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clSetKernelArg");
}

/* Largest power-of-two work-group size the kernel allows (k->wg_max: the
   kernel's and the device's limits), capped at 256 (the tree's local memory
   and enough lanes to hide memory latency on GPUs). */
static int64_t work_group_size(const clb__cl_kernel *k)
{
    int64_t w = 1;
    while (w * 2 <= (int64_t)k->wg_max && w < 256) w *= 2;
    return w;
}

/* The general kernel of this specialisation, cached in the context and
   returned with the kernel cache locked (cl_launch.h). */
static clb_status build(clb_context *ctx, const reduce_launch *l, bool wide, bool wide_table,
                        clb__cl_kernel **kernel)
{
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", l->in},   {"CLB_OUT_DTYPE", l->out},
                                 {"CLB_ACC_DTYPE", l->acc}, {"CLB_OP", op_family(l->op)},
                                 {"CLB_FINAL", l->final},   {"CLB_INDEX64", wide},
                                 {"CLB_WIDE_TABLE", wide_table},
                                 {"CLB_VLOAD_ALIGNED", clb__cl_vload_aligned(clb__cl_impl(ctx))}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    cl_program program = NULL;
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options,
                                        sizeof options);
    if (st == CLB_OK)
        st = clb__program_cache_get(clb__cl_impl(ctx)->programs, CLB__KERNEL_REDUCE, options,
                                    &program);
    if (st == CLB_OK) st = clb__cl_check_args(clb__cl_impl(ctx), CLB__KERNEL_REDUCE, program);
    if (st != CLB_OK) return st;
    return clb__cl_kernel_for(clb__cl_impl(ctx), CLB__KERNEL_REDUCE, program, 0,
                              clb__kernel_function(CLB__KERNEL_REDUCE), kernel);
}

/* Whether the general kernel's indices need 64 bits: some offset it walks, its
   counts, or the walk's overshoot (a margin of 2^20) leave int32. */
static bool pass_index64(const reduce_tables *t, int64_t chunks)
{
    const int64_t margin = (int64_t)1 << 20;
    int64_t shape[2 * CLB__PLAN_MAX_DIMS], stride[2 * CLB__PLAN_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->kept_ndim; d++, n++) shape[n] = t->kshape[d], stride[n] = t->kstride[d];
    for (int d = 0; d < t->red_ndim; d++, n++) shape[n] = t->rshape[d], stride[n] = t->rstride[d];
    clb__cl_reach r = {0, 0};
    clb__cl_reach_walk(&r, t->in_offset, shape, stride, n);
    clb__cl_reach_add(&r, t->red_numel + margin);
    clb__cl_reach_add(&r, t->kept_numel * chunks);
    clb__cl_reach_add(&r, t->out_offset + t->kept_numel);
    return clb__cl_index64(&r, margin);
}

/* Enqueues one pass over t with `chunks_wanted` groups along the reduced range
   (clb__cl_reduce sized the partial buffer for that many). */
static clb_status run_pass(clb_context *ctx, const reduce_launch *l, const reduce_tables *t,
                           int64_t chunks_wanted)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem table = NULL;
    int64_t chunks = chunks_wanted > 1 ? chunks_wanted : 1;
    bool wide = pass_index64(t, chunks);
    CLB_TRY(build(ctx, l, wide, wide_table(t), &k));
    int64_t wg = work_group_size(k);

    /* Lanes go along whichever of the two innermost axes moves fastest in memory;
       leftover lanes go to the other side. */
    int64_t kin = t->kept_ndim > 0 ? clb__abs64(t->kstride[t->kept_ndim - 1]) : INT64_MAX;
    int64_t rin = clb__abs64(t->rstride[t->red_ndim - 1]);
    bool row = t->kept_numel <= 1 || (rin < kin && t->red_numel > 1);
    int64_t lx, ly;
    clb__cl_tree_lanes(row, t->red_numel, t->kept_numel, wg, &lx, &ly);
    int64_t groups_x = (t->kept_numel + lx - 1) / lx;
    int64_t chunk = (t->red_numel + chunks - 1) / chunks;
    if (chunk < 1) chunk = 1;
    const int64_t xs[4] = {t->red_numel, chunk, lx, ly};
    CLB_TRY(set_launch(cl, k, l, t, xs, (size_t)wg * clb_dtype_size(l->acc), wide, &table));

    size_t local[2] = {(size_t)wg, 1}, global[2] = {(size_t)(groups_x * wg), (size_t)chunks};
    cl_int err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    return st;
}

/* Whether the CPU fast paths are taken: on CPU devices (both launch styles),
   unless CLB_REDUCE_FAST is 0 (never) or 1 (on any device): the tests run the
   same shapes through the other kernels that way, on the Oclgrind simulator too. */
static bool fast_paths_on(const clb_context *ctx)
{
    if (ctx->options.reduce_fast >= 0) return ctx->options.reduce_fast == 1;
    return ctx->info.type == CLB_DEVICE_CPU;
}

/* Iterations of a fast-path work item's busiest loop with `chunks` items per
   owner (cl/reduce.cl): rows fold rows_per_item rows of len/64 + 8 steps at
   most; columns fold band/8 steps of tile/16 vectors. */
static int64_t fast_trips(const clb_context *ctx, const reduce_tables *t, int kind,
                          int64_t chunks);

/* The CPU fast paths of cl/reduce.cl (see there): which one fits t, if any. */
typedef enum fast_kind { FAST_NONE = 0, FAST_ROWS, FAST_COLS } fast_kind;

static fast_kind fast_path(const clb_context *ctx, const reduce_launch *l, const reduce_tables *t)
{
    bool kahan = (l->op == CLB_SUM || l->op == CLB_MEAN) && clb__dtype_is_float(l->in);
    if (!fast_paths_on(ctx) || !kahan || t->red_numel == 0 || t->red_ndim == 0)
        return FAST_NONE;
    int64_t len = t->rshape[t->red_ndim - 1];
    if (t->rstride[t->red_ndim - 1] == 1 && len % 16 == 0 && len >= 64) return FAST_ROWS;
    if (t->kept_ndim > 0 && t->kstride[t->kept_ndim - 1] == 1 && t->kshape[t->kept_ndim - 1] % 16 == 0)
        return FAST_COLS;
    return FAST_NONE;
}

/* Outputs per column item: the contiguous kept extent, in tiles of at most
   COL_TILE, fewer when the accumulators of a work-group's items (2 * tile
   each, in local memory) would take more than half the device's. */
#define COL_TILE 4096
/* Where work items run across SIMD lanes (llvmpipe), a tile is one column
   (clb_reduce_cols_lanes): neighbouring items take neighbouring columns, so
   the lanes of a step read one stretch of a row. */
static int64_t col_tile_max(const clb_context *ctx)
{
    return clb__cl_impl((clb_context *)ctx)->loops ? COL_TILE : 1;
}

static int64_t col_tile(const reduce_tables *t, int64_t per_item_max)
{
    int64_t cols = t->kshape[t->kept_ndim - 1];
    if (per_item_max == 1) return 1; /* clb_reduce_cols_lanes */
    int64_t tile = per_item_max < COL_TILE ? per_item_max / 16 * 16 : COL_TILE;
    if (tile < 16) tile = 16;
    return cols < tile ? cols : tile;
}

/* Column items per band: (outer kept index, tile) pairs. */
static int64_t col_owners(const reduce_tables *t, int64_t tile)
{
    int64_t cols = t->kshape[t->kept_ndim - 1];
    return t->kept_numel / cols * ((cols + tile - 1) / tile);
}

/* Items the row path aims for per launch (a few hundred: the thread pool
   balances them, and partials stay few). */
#define FAST_ITEMS 256
/* Work items per group when a fast path has many (see run_fast). */
#define FAST_GROUP 64
/* ... and on CPU devices that run work items across SIMD lanes (llvmpipe). */
#define FAST_LANE_GROUP 8
/* Fewest rows in a column item's band. */
#define COL_MIN_BAND 64
#define LANE_BAND 256

/* Whether a fast path's indices need 64 bits: the input's whole reach from its
   offset, with the partials' count, or a reduced count past half of int32. */
static bool fast_index64(const reduce_tables *t, int64_t chunks)
{
    int64_t span = t->in_offset + t->kept_numel * chunks;
    for (int d = 0; d < t->kept_ndim; d++) span += (t->kshape[d] - 1) * clb__abs64(t->kstride[d]);
    for (int d = 0; d < t->red_ndim; d++) span += (t->rshape[d] - 1) * clb__abs64(t->rstride[d]);
    clb__cl_reach r = {0, 0};
    clb__cl_reach_add(&r, span);
    /* a reduced count past half of int32: red_numel > INT32_MAX / 2 */
    clb__cl_reach_add(&r, t->red_numel + (int64_t)INT32_MAX / 2 + 1 - ((int64_t)1 << 20));
    return clb__cl_index64(&r, (int64_t)1 << 20);
}

/* A fast path's kernel (variant 1 rows, 2 column tiles, 3 column lanes, 4 rows
   with the combine in the last item) of this specialisation, returned with the
   kernel cache locked. */
static clb_status build_fast(clb_context *ctx, const reduce_launch *l, const reduce_tables *t,
                             bool wide, int variant, clb__cl_kernel **k)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", l->in},   {"CLB_OUT_DTYPE", l->out},
                                 {"CLB_ACC_DTYPE", l->acc}, {"CLB_OP", op_family(l->op)},
                                 {"CLB_FINAL", l->final},   {"CLB_INDEX64", wide},
                                 {"CLB_WIDE_TABLE", wide_table(t)},
                                 {"CLB_VLOAD_ALIGNED", clb__cl_vload_aligned(cl)}};
    static const char *const names[5] = {NULL, "clb_reduce_rows", "clb_reduce_cols",
                                         "clb_reduce_cols_lanes", "clb_reduce_rows_last"};
    char options[CLB__KERNEL_OPTIONS_MAX];
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options,
                                        sizeof options);
    if (st == CLB_OK) st = clb__program_cache_get(cl->programs, CLB__KERNEL_REDUCE, options, &program);
    if (st == CLB_OK) st = clb__cl_check_args(cl, CLB__KERNEL_REDUCE, program);
    if (st != CLB_OK) return st;
    return clb__cl_kernel_for(cl, CLB__KERNEL_REDUCE, program, variant, names[variant], k);
}

/* Enqueues a fast-path pass with `chunks` items per output (row) or per column
   item (a tile of a kept row). */
static clb_status run_fast(clb_context *ctx, const reduce_launch *l, const reduce_tables *t,
                           fast_kind kind, int64_t chunks)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem table = NULL;
    /* One item per work-group (a CPU runs a group as a loop on one core), or
       FAST_GROUP when there are so many items that a group's own cost would show;
       only these two sizes, as PoCL compiles each local size it meets. Items past
       the end return at once. Rows may have no kept axis at all: the column tile
       only exists for columns, and sets how many items there are. */
    int64_t tile = kind == FAST_COLS ? col_tile(t, col_tile_max(ctx)) : 0;
    int64_t owners = kind == FAST_ROWS ? t->kept_numel : col_owners(t, tile);
    size_t local = owners * chunks >= 4 * FAST_GROUP * clb__cl_groups_wanted(ctx) ? FAST_GROUP : 1;
    /* Where work items run across SIMD lanes (llvmpipe): a group fills them. */
    if (!cl->loops) local = FAST_LANE_GROUP;
    if (kind == FAST_COLS) {
        int64_t fits = (int64_t)(cl->local_mem_bytes / 2 / (local * 2 * clb_dtype_size(l->acc)));
        tile = col_tile(t, fits < col_tile_max(ctx) ? fits : col_tile_max(ctx));
        owners = col_owners(t, tile);
    }
    int64_t items = owners * chunks;
    bool wide = fast_index64(t, chunks);
    CLB_TRY(build_fast(ctx, l, t, wide, kind == FAST_ROWS ? (l->done ? 4 : 1) : tile == 1 ? 3 : 2, &k));

    int64_t extent = kind == FAST_ROWS ? t->red_numel / t->rshape[t->red_ndim - 1] : t->red_numel;
    const int64_t xs[4] = {extent, (extent + chunks - 1) / chunks, chunks, tile};
    size_t scratch = kind == FAST_COLS ? local * 2 * (size_t)tile * clb_dtype_size(l->acc) : 0;
    CLB_TRY(set_launch(cl, k, l, t, xs, scratch, wide, &table));
    size_t global = ((size_t)items + local - 1) / local * local;
    cl_int err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    return st;
}

/* Chunks of the reduced range per output for the general kernel: more than one
   when the outputs alone give too few work-groups and each lane would still
   fold a few dozen elements. */
static int64_t general_chunks(const clb_context *ctx, const reduce_tables *t)
{
    int64_t wg = 1;
    while (wg * 2 <= (int64_t)clb__cl_impl((clb_context *)ctx)->max_item_size && wg < 256) wg *= 2;
    int64_t groups_x = (t->kept_numel + wg - 1) / wg, want = clb__cl_groups_wanted(ctx);
    int64_t chunks = groups_x >= want ? 1 : (want + groups_x - 1) / groups_x;
    int64_t by_work = t->red_numel / (wg * 32);
    chunks = chunks > by_work ? (by_work > 1 ? by_work : 1) : chunks;
    /* Where loops are cut short (CLB__QUIRK_LOOP_LIMIT), no lane may fold more
       than max_trips elements, even when it is the only lane of its output. */
    int64_t trips = clb__cl_impl((clb_context *)ctx)->max_trips;
    if (trips < INT64_MAX && t->red_numel / chunks >= trips) chunks = t->red_numel / trips + 1;
    return chunks;
}

static int64_t fast_trips(const clb_context *ctx, const reduce_tables *t, int kind,
                          int64_t chunks)
{
    if (kind == FAST_ROWS) {
        int64_t len = t->rshape[t->red_ndim - 1], extent = t->red_numel / len;
        return (extent + chunks - 1) / chunks * (len / 64 + 8);
    }
    int64_t tile = col_tile(t, col_tile_max(ctx)), band = (t->red_numel + chunks - 1) / chunks;
    return tile == 1 ? band : (band / 8 + 1) * ((tile + 15) / 16);
}

/* Rows at least this long take one work item each (fast_chunks). */
#define FAST_LONG_ROW 16384
/* Shortest row segment split_long_rows makes (16 KiB of float32). */
#define FAST_MIN_SEGMENT 4096

/* A row path with too few rows for FAST_ITEMS items (a whole-tensor sum is one
   row of every element: one work item, one core) sees its contiguous innermost
   reduced axis of len as (len / seg, seg): rows of seg elements (the same sum
   in another order), seg a multiple of 16 dividing len, from the length that
   gives FAST_ITEMS rows but at least FAST_MIN_SEGMENT, up to len / 2 (a
   bounded search: a len without such a divisor stays whole). */
static void split_long_rows(reduce_tables *t)
{
    int last = t->red_ndim - 1;
    int64_t len = t->rshape[last], rows = t->kept_numel * (t->red_numel / len);
    if (rows >= FAST_ITEMS || t->red_ndim >= CLB__PLAN_MAX_DIMS) return;
    int64_t want = (FAST_ITEMS + rows - 1) / rows, seg = len / want / 16 * 16;
    if (seg < FAST_MIN_SEGMENT) seg = FAST_MIN_SEGMENT;
    for (int tries = 0; seg <= len / 2 && len % seg != 0 && tries < 1024; tries++) seg += 16;
    if (seg > len / 2 || len % seg != 0) return;
    t->rshape[last] = len / seg, t->rstride[last] = seg;
    t->rshape[last + 1] = seg, t->rstride[last + 1] = 1;
    t->red_ndim++;
}

/* Chunks per owner (output row, or column item) for the fast paths. Rows:
   enough items for every thread to take many. Columns: bands of at least
   COL_MIN_BAND rows, enough items for each compute unit to take several
   (each band costs a tile of partials and scratch). */
static int64_t fast_chunks(const clb_context *ctx, const reduce_tables *t, fast_kind kind)
{
    if (kind == FAST_ROWS) {
        int64_t owners = t->kept_numel, extent = t->red_numel / t->rshape[t->red_ndim - 1];
        int64_t chunks = owners >= FAST_ITEMS ? 1 : (FAST_ITEMS + owners - 1) / owners;
        /* Long rows: one row an item (in memory order, cl/reduce.cl), as a C
           loop over the rows reads them. */
        if (owners < FAST_ITEMS && t->rshape[t->red_ndim - 1] >= FAST_LONG_ROW) chunks = extent;
        return chunks > extent ? extent : chunks;
    }
    int64_t owners = col_owners(t, col_tile(t, col_tile_max(ctx))), want = 4 * clb__cl_groups_wanted(ctx);
    int64_t chunks = owners >= want ? 1 : (want + owners - 1) / owners;
    int64_t most = t->red_numel / COL_MIN_BAND;
    chunks = chunks > most ? (most > 1 ? most : 1) : chunks;
    /* Lanes of one column each (clb_reduce_cols_lanes): bands of LANE_BAND rows,
       where the measured rate peaked (64: 8.2 GB/s, 256: 8.7, 1024: 7.2). */
    if (col_tile_max(ctx) == 1 && chunks < (t->red_numel + LANE_BAND - 1) / LANE_BAND)
        chunks = (t->red_numel + LANE_BAND - 1) / LANE_BAND;
    /* Where loops are cut short (CLB__QUIRK_LOOP_LIMIT): narrower bands. */
    int64_t trips = clb__cl_impl((clb_context *)ctx)->max_trips;
    while (trips < INT64_MAX && chunks < t->red_numel && fast_trips(ctx, t, kind, chunks) > trips)
        chunks *= 2;
    return chunks > t->red_numel ? t->red_numel : chunks;
}

/* Partials the last item of a row pass folds itself at most
   (clb_reduce_rows_last): microseconds of one core. */
#define LAST_FOLD_MAX 4096

/* Where a work-group is a loop on one core (PoCL), a row pass with few
   partials folds them in its last item: *done, a zeroed counter of finished
   items, is made for it; elsewhere *done stays NULL. */
static clb_status last_fold_counter(clb__cl_context *cl, fast_kind fast, const reduce_tables *t,
                                    int64_t chunks, cl_mem *done)
{
    static const cl_int zero = 0;
    cl_int err = CL_SUCCESS;
    *done = NULL;
    if (fast != FAST_ROWS || !cl->loops || t->kept_numel * chunks > LAST_FOLD_MAX) return CLB_OK;
    *done = clCreateBuffer(cl->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                           (void *)&zero, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clCreateBuffer (reduction counter)");
}

clb_status clb__cl_reduce(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                          void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_mem partial = NULL, done = NULL;
    cl_int err = CL_SUCCESS;
    reduce_tables *t = malloc(sizeof *t);
    if (!t) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a reduction plan");

    reduce_launch l = {.in = op->in, .acc = clb__cl_accumulator(op->op, op->in, op->out, ctx->info.has_fp64), .out = op->out,
                       .op = op->op, .final = true, .count = op->count,
                       .src = (cl_mem)handles[1], .dst = (cl_mem)handles[0]};
    if ((l.in == CLB_FLOAT64 || l.acc == CLB_FLOAT64 || l.out == CLB_FLOAT64) && !ctx->info.has_fp64)
        CLB_FAIL(CLB_ERR_DTYPE,
                 "%s of %s needs float64 arithmetic, which OpenCL device %s does not support "
                 "(no cl_khr_fp64); use the host backend or a float32 input",
                 clb_reduce_op_name(op->op), clb_dtype_name(op->in), ctx->info.name);
    split_plan(plan, op, t);

    fast_kind fast = fast_path(ctx, &l, t);
    if (fast == FAST_ROWS) split_long_rows(t);
    int64_t chunks = fast != FAST_NONE ? fast_chunks(ctx, t, fast) : 0;
    /* A row item's loop over a long row cannot be split: where loops are cut
       short, such rows take the general kernel. */
    if (fast != FAST_NONE && fast_trips(ctx, t, fast, chunks) > cl->max_trips) fast = FAST_NONE;
    if (fast == FAST_NONE) chunks = general_chunks(ctx, t);
    if (chunks > 1) {
        size_t bytes = (size_t)t->kept_numel * (size_t)chunks * clb_dtype_size(l.acc);
        partial = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        CLB_CL_CHECK(err, "clCreateBuffer (reduction partials)");
        reduce_launch first = l;
        first.final = false;
        first.dst = partial;
        CLB_TRY(last_fold_counter(cl, fast, t, chunks, &done));
        first.result = l.dst, first.done = done;
        CLB_TRY(fast != FAST_NONE ? run_fast(ctx, &first, t, fast, chunks)
                                  : run_pass(ctx, &first, t, chunks));
        if (done) goto cleanup; /* the last item wrote the results */
        /* The partials form a (kept, chunks) matrix, reduced along its rows by the
           general kernel; the column path's form a (chunks, kept) one, reduced
           along its columns by the column kernel (a few contiguous rows). */
        int64_t kept = t->kept_numel, out_offset = t->out_offset;
        bool cols = fast == FAST_COLS;
        memset(t, 0, offsetof(reduce_tables, kshape));
        t->kept_ndim = 1, t->kshape[0] = kept, t->kstride[0] = cols ? 1 : chunks;
        t->red_ndim = 1, t->rshape[0] = chunks, t->rstride[0] = cols ? kept : 1;
        t->kept_numel = kept, t->red_numel = chunks, t->out_offset = out_offset;
        l.in = l.acc;
        l.src = partial;
        fast = cols ? FAST_COLS : FAST_NONE;
    }
    CLB_TRY(fast != FAST_NONE ? run_fast(ctx, &l, t, fast, 1) : run_pass(ctx, &l, t, 1));
cleanup:
    if (partial) clReleaseMemObject(partial);
    if (done) clReleaseMemObject(done);
    free(t);
    return st;
}
