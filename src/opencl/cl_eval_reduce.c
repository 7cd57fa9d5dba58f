/* Driver of cl/eval_reduce.cl: clb_eval_reduce in one fused pass. Splits the op
 * layer's plan (operand 0 the output with stride 0 on the reduced axes, then
 * the inputs) into kept and reduced stride tables per input, as cl_reduce.c
 * does for one input, generates the expression's statements with clb_eval's
 * generator, and runs one pass; when the outputs alone would leave the device
 * mostly idle (few outputs, long reductions) that pass writes accumulator
 * partials and clb_reduce's own kernel (clb__cl_reduce) folds them. Only the
 * output, the partials and the stride table are allocated. */
#include "cl_eval_reduce.h"
#include "cl_reduce_common.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "cl_launch.h"
#include "cl_quirks.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIN_MAX 8 /* cl/eval_reduce.cl's input slots p1..p8 */
_Static_assert(CLB__EVAL_MAX_INPUTS <= NIN_MAX, "cl/eval_reduce.cl has 8 input slots");

/* The plan as kept x reduced axes, with every input's strides over both. */
typedef struct er_tables {
    int nin, kdim, rdim;
    int64_t kshape[CLB__PLAN_MAX_DIMS], rshape[CLB__PLAN_MAX_DIMS];
    int64_t kstride[NIN_MAX][CLB__PLAN_MAX_DIMS], rstride[NIN_MAX][CLB__PLAN_MAX_DIMS];
    int64_t kept_numel, red_numel;
    int64_t in_offset[NIN_MAX], out_offset;
} er_tables;

/* Kept axes (output stride != 0) come first in output row-major order (the plan
   orders axes by the output's stride); reduced axes keep the plan's order, the
   innermost last. Nothing reduced: one reduced axis of extent 1. */
static void split(const clb__plan *plan, er_tables *t)
{
    memset(t, 0, sizeof *t);
    t->nin = plan->nops - 1;
    t->kept_numel = 1;
    t->red_numel = 1;
    t->out_offset = plan->offsets[0];
    for (int k = 0; k < t->nin; k++) t->in_offset[k] = plan->offsets[k + 1];
    for (int d = 0; d < plan->ndim; d++) {
        bool kept = plan->strides[0][d] != 0;
        int at = kept ? t->kdim++ : t->rdim++;
        (kept ? t->kshape : t->rshape)[at] = plan->shape[d];
        for (int k = 0; k < t->nin; k++)
            (kept ? t->kstride[k] : t->rstride[k])[at] = plan->strides[k + 1][d];
        if (kept) t->kept_numel *= plan->shape[d];
        else t->red_numel *= plan->shape[d];
    }
    if (t->rdim == 0) {
        t->rshape[0] = 1;
        t->rdim = 1;
    }
}

/* Whether the expression only loads and converts its inputs: cl/eval_reduce.cl's
   vector lanes pay off there (var, softmax); with arithmetic in the body the
   compiler's own vectorisation of the scalar lanes was about 2x faster (pairwise
   squared distances, interleaved runs on PoCL). */
static bool loads_only(const clb__expr *e)
{
    for (int i = 0; i < e->count; i++)
        if (e->nodes[i].kind != CLB__EXPR_INPUT && e->nodes[i].kind != CLB__EXPR_CAST) return false;
    return true;
}

/* A growing option string. */
static bool append(char **s, size_t *len, const char *fmt, int64_t v)
{
    char piece[64];
    int n = snprintf(piece, sizeof piece, fmt, v);
    char *p = realloc(*s, *len + (size_t)n + 1);
    if (!p) return false;
    memcpy(p + *len, piece, (size_t)n + 1);
    *s = p;
    *len += (size_t)n;
    return true;
}

/* Whether the CPU decompositions run (cl/eval_reduce.cl's CLB_TREE=0, the
   softmax row pass): where a work-group is a loop over its items (PoCL), unless
   CLB_REDUCE_FAST says never (0) or everywhere (1), as for clb_reduce's CPU
   fast paths: the tests run both forms on any device, the simulator included. */
static bool cpu_paths(const clb_context *ctx)
{
    if (ctx->options.reduce_fast >= 0) return ctx->options.reduce_fast == 1;
    return clb__cl_impl((clb_context *)ctx)->loops;
}

/* Work items on CPU devices that run a work-group as a loop: this many per group
   when there are many (PoCL compiles each local size it meets: two sizes only),
   and enough (output, chunk) items for the thread pool to balance. */
#define LOOP_GROUP 64
#define LOOP_ITEMS 256
/* Reduced ranges up to this long over many outputs take one lane per output in
   the tree form. */
#define SHORT_RANGE 128
/* Fewest elements a CPU item folds when the reduced range is split. */
#define LOOP_MIN_CHUNK 4096
/* cl/eval_reduce.cl's CLB_VEC: lanes per CPU work item along the reduced axis,
   and outputs per item with lanes over outputs (four cache lines of float32
   per step: neighbouring lines prefetch together). */
#define VEC 16
#define KVEC 64
/* Runs of KVEC outputs one item takes at most in the tiled walk (64 runs: 16
   KiB of a float32 row per step, a whole (16384, 4096) row: with the kernel's
   far-apart streams each stream then reads one long run, where tiles of 1024
   restarted the prefetcher at every row; var over axis 0 of (16384, 4096)
   1.15x, of (65536, 1024) 1.2x with the streams, interleaved on PoCL). */
#define KTILE_MAX 64
/* softmax's row kernel: items of consecutive rows (each prefetches its next
   row), and the most scratch an item keeps a row's exps in (64 KiB: a core's
   L2 holds it with the rows). */
#define SOFTMAX_ITEMS 256
#define SOFTMAX_SCRATCH_MAX ((size_t)64 << 10)

/* What one call folds: a clb_reduce_op, or the moments of clb_var / clb_std. */
typedef struct er_job {
    const char *fn;
    clb__reduce_op op; /* op.in: the expression's dtype */
    bool moments, root;
    bool online; /* softmax's (max, sum of exp) pairs */
    int64_t correction;
} er_job;

/* The float64 refusals: the accumulator, output or expression dtype, or an input. */
static clb_status check_fp64(clb_context *ctx, const er_job *job, const er_tables *t,
                             clb_dtype acc, const clb_dtype *in)
{
    const clb__reduce_op *op = &job->op;
    if ((acc == CLB_FLOAT64 || op->out == CLB_FLOAT64 || op->in == CLB_FLOAT64) &&
        !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "%s: %s of a %s expression needs float64 arithmetic, which OpenCL device "
                         "%s does not support (no cl_khr_fp64); cast to float32 in the expression, "
                         "or use clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH) where NumPy 2's "
                         "rules (CLB_PROMOTE_NUMPY) give float64 for integers",
                         job->fn, job->moments ? (job->root ? "std" : "var")
                                  : job->online ? "softmax" : clb_reduce_op_name(op->op),
                         clb_dtype_name(op->in), ctx->info.name);
    for (int j = 0; j < t->nin; j++)
        if (in[j] == CLB_FLOAT64 && !ctx->info.has_fp64)
            return clb__fail(CLB_ERR_DTYPE,
                             "%s: input %d is float64, which OpenCL device %s does not support "
                             "(no cl_khr_fp64)",
                             job->fn, j, ctx->info.name);
    return CLB_OK;
}

/* How one call is decomposed (cl/eval_reduce.cl): a lane tree where work items
   run across SIMD lanes, ordered walks of CLB_VEC lanes where a group is a loop. */
typedef struct er_shape {
    bool tree, klanes;
    int64_t wg, lx, ly, chunks, chunk, ktile;
    clb_dtype acc;
    bool final, wide;
} er_shape;

/* The tree form: lanes along whichever of the innermost kept and reduced axes
   moves fastest in memory for the inputs. */
static void tree_shape(const clb_context *ctx, const er_tables *t, er_shape *g)
{
    const clb__cl_context *cl = clb__cl_impl((clb_context *)ctx);
    while (g->wg * 2 <= (int64_t)cl->max_item_size && g->wg < 256) g->wg *= 2;
    int64_t kin = INT64_MAX, rin = INT64_MAX;
    for (int j = 0; j < t->nin; j++) {
        int64_t ks = t->kdim > 0 ? clb__abs64(t->kstride[j][t->kdim - 1]) : 0;
        int64_t rs = clb__abs64(t->rstride[j][t->rdim - 1]);
        if (ks > 0 && ks < kin) kin = ks;
        if (rs > 0 && rs < rin) rin = rs;
    }
    bool row = t->kept_numel <= 1 || (rin < kin && t->red_numel > 1);
    /* Short reductions over many outputs (pairwise distances: 64 per output):
       a lane per output walks them; a tree per output would cost more than
       its few elements (llvmpipe: 0.10 -> 0.5 GFLOP/s, N = M = 512, D = 64). */
    if (row && t->red_numel <= SHORT_RANGE && t->kept_numel >= 16 * g->wg) row = false;
    if (row && ctx->info.type == CLB_DEVICE_CPU && g->wg > CLB__CL_CPU_ROW_LANES)
        g->wg = CLB__CL_CPU_ROW_LANES;
    clb__cl_tree_lanes(row, t->red_numel, t->kept_numel, g->wg, &g->lx, &g->ly);
    int64_t groups_x = (t->kept_numel + g->lx - 1) / g->lx, want = clb__cl_groups_wanted(ctx);
    g->chunks = groups_x >= want ? 1 : (want + groups_x - 1) / groups_x;
    int64_t by_work = t->red_numel / (g->ly * 32);
    if (g->chunks > by_work) g->chunks = by_work > 1 ? by_work : 1;
}

/* The loop form: lanes over outputs where the innermost kept axis is
   contiguous for the inputs that move along it (the others broadcast along it)
   and holds whole runs of CLB_VEC outputs. */
static void loop_shape(const clb_context *ctx, const clb__expr *e, const er_job *job,
                       const er_tables *t, er_shape *g)
{
    bool kfast = t->kdim > 0 && t->kshape[t->kdim - 1] % KVEC == 0, moving = false;
    for (int j = 0; j < t->nin && kfast; j++) {
        int64_t ks = t->kstride[j][t->kdim - 1];
        kfast = ks == 0 || ks == 1;
        moving = moving || ks == 1;
    }
    g->klanes = kfast && moving;
    /* The tiled walk (eight steps at a time over several runs of KVEC
       outputs) where the lanes are vectors: float sums and moments of
       loads-only expressions. */
    const clb__reduce_op *op = &job->op;
    bool tiled = g->klanes && loads_only(e) && !job->online &&
                 (job->moments || ((op->op == CLB_SUM || op->op == CLB_MEAN) &&
                                   (g->acc == CLB_FLOAT32 || g->acc == CLB_FLOAT64)));
    while (tiled && g->ktile < KTILE_MAX && t->kshape[t->kdim - 1] % (KVEC * g->ktile * 2) == 0)
        g->ktile *= 2;
    int64_t items = g->klanes ? t->kept_numel / (KVEC * g->ktile) : t->kept_numel;
    g->chunks = items >= LOOP_ITEMS ? 1 : (LOOP_ITEMS + items - 1) / items;
    int64_t most = t->red_numel / LOOP_MIN_CHUNK;
    if (g->chunks > most) g->chunks = most > 1 ? most : 1;
    g->wg = items * g->chunks >= 4 * LOOP_GROUP * clb__cl_groups_wanted(ctx) ? LOOP_GROUP : 1;
    /* Where a partly filled SIMD vector cuts loops short (quirk
       partial-vector-loops: llvmpipe, these walks forced there; their reduced
       extents come from the __constant table), groups of whole vectors: the
       items past the outputs return at once. */
    if ((clb__cl_impl((clb_context *)ctx)->quirks & CLB__QUIRK_PARTIAL_VECTOR_LOOPS) &&
        g->wg % CLB__QUIRK_VECTOR_GROUP != 0)
        g->wg = CLB__QUIRK_VECTOR_GROUP;
    g->lx = g->wg;
}

/* Whether the kernel's indices need 64 bits: an offset an input walks, the
   counts, or the walk's overshoot (a margin of 2^20) leave int32. */
static bool er_index64(const er_tables *t, const er_shape *g)
{
    const int64_t margin = (int64_t)1 << 20;
    clb__cl_reach r = {0, 0};
    clb__cl_reach_add(&r, t->red_numel + g->wg + margin);
    clb__cl_reach_add(&r, t->kept_numel * g->chunks);
    clb__cl_reach_add(&r, t->out_offset + t->kept_numel);
    for (int j = 0; j < t->nin; j++) {
        int64_t shape[2 * CLB__PLAN_MAX_DIMS], stride[2 * CLB__PLAN_MAX_DIMS];
        int n = 0;
        for (int d = 0; d < t->kdim; d++, n++) shape[n] = t->kshape[d], stride[n] = t->kstride[j][d];
        for (int d = 0; d < t->rdim; d++, n++) shape[n] = t->rshape[d], stride[n] = t->rstride[j][d];
        clb__cl_reach_walk(&r, 0, shape, stride, n);
    }
    return clb__cl_index64(&r, margin);
}

/* The decomposition of one call, its chunks of the reduced range and its index width. */
static void decompose(const clb_context *ctx, const clb__expr *e, const er_job *job,
                      const er_tables *t, er_shape *g)
{
    const clb__cl_context *cl = clb__cl_impl((clb_context *)ctx);
    g->tree = !cpu_paths(ctx);
    g->wg = g->lx = g->ly = g->chunks = g->ktile = 1;
    g->klanes = false;
    if (g->tree) tree_shape(ctx, t, g);
    else loop_shape(ctx, e, job, t, g);
    /* Where loops are cut short (CLB__QUIRK_LOOP_LIMIT): no lane folds more than
       the budget allows, with room for the row walk's recomputations. The
       lanes-over-outputs walks (CLB_KLANES) loop over their KVEC * ktile lanes
       at every reduced step, loops llvmpipe may keep: each step costs that
       many trips (forced there, (3000, 64) column sums stopped near row 1000
       and a column variance of (9000, 256) came out 4.5 for 14.1). */
    if (cl->max_trips < INT64_MAX) {
        int64_t lanes = g->klanes ? KVEC * g->ktile : 1;
        int64_t per = cl->max_trips / (2 * clb__expr_cl_trips(e) * (t->rdim + 1) * lanes);
        if (per < 1) per = 1;
        while ((t->red_numel + g->chunks - 1) / g->chunks / g->ly > per && g->chunks < t->red_numel)
            g->chunks *= 2;
        if (g->chunks > t->red_numel) g->chunks = t->red_numel;
    }
    g->chunk = (t->red_numel + g->chunks - 1) / g->chunks;
    if (g->chunk < 1) g->chunk = 1;
    /* No empty chunks at the end (4097 rows in 128 chunks of 33 left three):
       the merges count each chunk's values from its bounds. */
    g->chunks = (t->red_numel + g->chunk - 1) / g->chunk;
    g->final = g->chunks == 1;
    g->wide = er_index64(t, g);
}

/* The program's build options: the specialisation, then the body's defines. */
static clb_status er_options(const clb__expr *e, const er_job *job, const er_tables *t,
                             const er_shape *g, const clb_dtype *in, const char *body,
                             char **options)
{
    size_t olen = 0;
    *options = NULL;
    bool ok = append(options, &olen, "-DCLB_NIN=%" PRId64, t->nin);
    for (int j = 0; j < t->nin && ok; j++) {
        char f[40];
        snprintf(f, sizeof f, " -DCLB_IN%d_DTYPE=%%" PRId64, j + 1);
        ok = append(options, &olen, f, in[j]);
        int64_t s = t->rstride[j][t->rdim - 1];
        snprintf(f, sizeof f, " -DCLB_RIN%d=%%" PRId64, j + 1);
        ok = ok && append(options, &olen, f, s == 0 ? 0 : s == 1 ? 1 : 2);
        if (g->klanes) {
            s = t->kstride[j][t->kdim - 1];
            snprintf(f, sizeof f, " -DCLB_KIN%d=%%" PRId64, j + 1);
            ok = ok && append(options, &olen, f, s == 0 ? 0 : s == 1 ? 1 : 2);
        }
    }
    const int64_t defs[] = {job->op.in, g->acc, job->op.out, job->op.op, g->final, t->kdim,
                            t->rdim, g->tree, g->klanes, g->ktile, g->klanes ? KVEC : VEC,
                            job->moments, job->online, g->wide, !loads_only(e)};
    static const char *const names[] = {
        "EXPR_DTYPE", "ACC_DTYPE", "OUT_DTYPE", "OP", "FINAL", "KDIM", "RDIM", "TREE",
        "KLANES", "KTILE", "VEC", "MOMENTS", "ONLINE", "INDEX64", "SCALAR_LANES"};
    _Static_assert(sizeof defs / sizeof defs[0] == sizeof names / sizeof names[0], "one name each");
    for (size_t i = 0; i < sizeof defs / sizeof defs[0] && ok; i++) {
        char f[40];
        snprintf(f, sizeof f, " -DCLB_%s=%%" PRId64, names[i]);
        ok = append(options, &olen, f, defs[i]);
    }
    if (ok) {
        char *p = realloc(*options, olen + strlen(body) + 1);
        if (p) memcpy(p + olen, body, strlen(body) + 1);
        ok = p != NULL;
        if (p) *options = p;
    }
    if (!ok) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory generating a kernel", job->fn);
    return CLB_OK;
}

/* The stride table in a new __constant buffer (*table): [kept shape | reduced
   shape | per input: kept strides | reduced strides], in the index type. */
static clb_status er_table(clb__cl_context *cl, const char *fn, const er_tables *t, bool wide,
                           cl_mem *table)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    size_t cols = (size_t)(t->kdim + t->rdim), n = cols * (size_t)(t->nin + 1);
    size_t isz = wide ? sizeof(cl_long) : sizeof(cl_int);
    void *host = malloc(n * isz);
    if (!host) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory for a stride table", fn);
    for (size_t at = 0; at < n; at++) {
        size_t row = at / cols, c = at % cols;
        bool kc = c < (size_t)t->kdim;
        size_t d = kc ? c : c - (size_t)t->kdim;
        int64_t v = row == 0 ? (kc ? t->kshape[d] : t->rshape[d])
                             : (kc ? t->kstride[row - 1][d] : t->rstride[row - 1][d]);
        if (wide) ((cl_long *)host)[at] = v;
        else ((cl_int *)host)[at] = (cl_int)v;
    }
    *table = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * isz, host, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) {
        if (*table) clReleaseMemObject(*table);
        *table = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
    CLB_CL_CHECK(err, "clCreateBuffer (eval_reduce stride table)");
cleanup:
    free(host);
    return st;
}

/* The launch description (cl/launch_args.h's CLB_ER_*) of a pass. */
static void er_args(const er_job *job, const er_tables *t, const er_shape *g, clb__cl_args *args)
{
    memset(args, 0, sizeof *args);
    args->v[CLB_ER_OUT_OFFSET] = g->final ? t->out_offset : 0;
    for (int j = 0; j < t->nin; j++) args->v[CLB_ER_IN_OFFSET(j)] = t->in_offset[j];
    args->v[CLB_ER_KEPT_NUMEL] = t->kept_numel;
    args->v[CLB_ER_RED_NUMEL] = t->red_numel;
    args->v[CLB_ER_CHUNK] = g->chunk;
    args->v[CLB_ER_X] = g->lx;
    args->v[CLB_ER_Y] = g->ly;
    args->v[CLB_ER_COUNT] = job->moments ? job->correction : job->op.count;
    /* std's square root at the end, not a define: var and std share a program. */
    args->v[CLB_ER_ROOT] = job->moments && job->root;
}

/* Sets the main kernel's arguments and enqueues it: the output (or the
   partials), the inputs (absent ones get the output's buffer), the description,
   the tree's local scratch, the table, the zero. Kernel cache locked. */
static clb_status launch_main(clb__cl_context *cl, clb__cl_kernel *k, const er_job *job,
                              const er_tables *t, er_shape *g, void *const *handles, cl_mem dst,
                              cl_mem table)
{
    if (g->tree && (int64_t)k->wg_max < g->wg) {
        /* The kernel allows fewer work items per group than the device: shrink. */
        while (g->wg > (int64_t)k->wg_max && g->wg > 1) g->wg /= 2;
        if (g->ly > g->wg) g->ly = g->wg;
        g->lx = g->wg / g->ly;
    }
    clb_status st = clb__cl_set_mem(k, 0, dst);
    for (int j = 0; j < NIN_MAX && st == CLB_OK; j++) {
        cl_mem m = (cl_mem)handles[j < t->nin ? j + 1 : 0];
        st = clb__cl_set_mem(k, (cl_uint)j + 1, m);
    }
    clb__cl_args args;
    er_args(job, t, g, &args);
    if (st == CLB_OK) st = clb__cl_set_args(k, CLB__KERNEL_EVAL_REDUCE, 1 + NIN_MAX, &args);
    if (st != CLB_OK) return st;
    cl_uint arg = 1 + NIN_MAX + CLB_ER_ARGS_VECS;
    const cl_int zero = 0; /* the body's constants xor it (quirk literal-folding) */
    size_t scratch = (size_t)(g->tree ? g->wg : 1) * clb_dtype_size(g->acc) *
                     (job->moments ? 3 : job->online ? 2 : 1);
    /* Local memory: not an argument the kernel cache can remember. */
    cl_int err = clSetKernelArg(k->kernel, arg++, scratch, NULL);
    if (err == CL_SUCCESS) err = clSetKernelArg(k->kernel, arg++, sizeof(cl_mem), &table);
    if (err == CL_SUCCESS) err = clSetKernelArg(k->kernel, arg++, sizeof zero, &zero);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clSetKernelArg");
    int64_t groups_x = ((g->klanes ? t->kept_numel / (KVEC * g->ktile) : t->kept_numel) + g->lx - 1) / g->lx;
    size_t local[2] = {(size_t)g->wg, 1}, global[2] = {(size_t)(groups_x * g->wg), (size_t)g->chunks};
    err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clEnqueueNDRangeKernel");
}

/* (mean, M2) or (m, s) per chunk, merged per output (cl/eval_reduce.cl). */
static clb_status merge_pairs(clb__cl_context *cl, cl_program program, const er_job *job,
                              const er_tables *t, const er_shape *g, void *const *handles,
                              cl_mem partial)
{
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, job->online ? 2 : 1,
                               job->online ? "clb_online_merge" : "clb_moments_merge", &k));
    cl_kernel kernel = k->kernel;
    clb__cl_args args;
    er_args(job, t, g, &args);
    args.v[CLB_ER_OUT_OFFSET] = t->out_offset;
    args.v[CLB_ER_X] = g->chunks;
    cl_mem bufs[2] = {(cl_mem)handles[0], partial};
    for (cl_uint b = 0; b < 2; b++) CLB_TRY(clb__cl_set_mem(k, b, bufs[b]));
    CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_EVAL_REDUCE, 2, &args));
    size_t l1 = 1, g1 = (size_t)t->kept_numel;
    cl_int err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &g1, &l1, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}

/* The partials: a (kept, chunks) matrix reduced along its rows by clb_reduce's
   kernel, which also divides a MEAN and converts to the output dtype. */
static clb_status merge_reduce(clb_context *ctx, const er_job *job, const er_tables *t,
                               const er_shape *g, void *const *handles, cl_mem partial)
{
    clb__plan p2;
    const int64_t shape[2] = {t->kept_numel, g->chunks};
    const int64_t so[2] = {1, 0}, si[2] = {g->chunks, 1};
    const int64_t *strides[2] = {so, si};
    const int64_t offsets[2] = {t->out_offset, 0};
    clb__plan_make(&p2, 2, 2, shape, strides, offsets);
    clb__reduce_op r2 = job->op;
    r2.in = g->acc;
    void *h2[2] = {handles[0], partial};
    return clb__cl_reduce(ctx, &r2, &p2, h2);
}

/* The program of this call (its body generated), its description checked. */
static clb_status er_program(clb_context *ctx, const clb__expr *e, const er_job *job,
                             const er_tables *t, const er_shape *g, const clb_dtype *in,
                             cl_program *program)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    char *body = NULL, *options = NULL;
    clb_status st = clb__expr_cl_body(ctx, job->fn, e, &body);
    if (st == CLB_OK) st = er_options(e, job, t, g, in, body, &options);
    if (st == CLB_OK)
        st = clb__program_cache_get(cl->programs, CLB__KERNEL_EVAL_REDUCE, options, program);
    if (st == CLB_OK) st = clb__cl_check_args(cl, CLB__KERNEL_EVAL_REDUCE, *program);
    free(options);
    free(body);
    return st;
}

static clb_status run(clb_context *ctx, const clb__expr *e, const er_job *job,
                      const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    const clb__reduce_op *op = &job->op;
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    er_tables *t = malloc(sizeof *t);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem table = NULL, partial = NULL;
    cl_int err = CL_SUCCESS;
    if (!t) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory for a plan", job->fn);
    if (plan->numel == 0 || op->out_numel == 0) goto cleanup; /* the op layer handles empty ones */
    split(plan, t);
    er_shape g;
    g.acc = job->moments || job->online ? (op->in == CLB_FLOAT64 ? CLB_FLOAT64 : CLB_FLOAT32)
                                        : clb__cl_accumulator(op->op, op->in, op->out, ctx->info.has_fp64);
    CLB_TRY(check_fp64(ctx, job, t, g.acc, in));
    decompose(ctx, e, job, t, &g);
    CLB_TRY(er_program(ctx, e, job, t, &g, in, &program));
    CLB_TRY(er_table(cl, job->fn, t, g.wide, &table));
    if (!g.final) {
        size_t bytes = (size_t)t->kept_numel * (size_t)g.chunks * clb_dtype_size(g.acc) *
                       (job->moments || job->online ? 2 : 1);
        partial = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        CLB_CL_CHECK(err, "clCreateBuffer (eval_reduce partials)");
    }
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, 0,
                               clb__kernel_function(CLB__KERNEL_EVAL_REDUCE), &k));
    CLB_TRY(launch_main(cl, k, job, t, &g, handles, g.final ? (cl_mem)handles[0] : partial, table));
    clb__cl_kernel_unlock(cl);
    k = NULL;
    if (!g.final && (job->moments || job->online))
        CLB_TRY(merge_pairs(cl, program, job, t, &g, handles, partial));
    else if (!g.final)
        CLB_TRY(merge_reduce(ctx, job, t, &g, handles, partial));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    if (partial) clReleaseMemObject(partial);
    free(t);
    return st;
}

clb_status clb__cl_eval_reduce(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                               const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    er_job job = {.fn = "clb_eval_reduce", .op = *op};
    return run(ctx, e, &job, plan, handles, in);
}

clb_status clb__cl_eval_moments(clb_context *ctx, const clb__expr *e, const clb__moments_op *op,
                                const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    er_job job = {.fn = op->root ? "clb_std" : "clb_var",
                  .op = {.op = CLB_SUM, .in = op->in, .out = op->out, .count = op->count,
                         .out_numel = op->out_numel},
                  .moments = true, .root = op->root, .correction = op->correction};
    return run(ctx, e, &job, plan, handles, in);
}

clb_status clb__cl_eval_online(clb_context *ctx, const clb__expr *e, const clb__reduce_op *op,
                               const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    er_job job = {.fn = "clb_softmax", .op = *op, .online = true};
    job.op.op = CLB_MAX;
    return run(ctx, e, &job, plan, handles, in);
}

clb_status clb__cl_softmax_rows(clb_context *ctx, const clb__softmax_rows_op *op,
                                void *const *handles, bool *done)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL;
    cl_int err = CL_SUCCESS;
    *done = false;
    /* Where a work-group is a loop (PoCL): one item per row block streams it;
       elsewhere neighbouring items must touch neighbouring elements, which
       clb_eval does. */
    if (!cpu_paths(ctx) || op->rows == 0) return CLB_OK;
    if (op->in == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE, "softmax of float64 on OpenCL device %s, which has no "
                                        "cl_khr_fp64",
                         ctx->info.name);
    clb_dtype acc = op->in == CLB_FLOAT64 ? CLB_FLOAT64 : CLB_FLOAT32;
    /* The row's exps in the item's local scratch where the row fits in a
       core's cache with room to spare; longer rows store them to out or
       compute them twice (cl/eval_reduce.cl). */
    size_t scratch = (size_t)op->len * clb_dtype_size(acc);
    bool use_scratch = !op->log && scratch <= SOFTMAX_SCRATCH_MAX && scratch <= cl->local_mem_bytes;
    int64_t items = op->rows < SOFTMAX_ITEMS ? op->rows : SOFTMAX_ITEMS;
    int64_t per = (op->rows + items - 1) / items;
    items = (op->rows + per - 1) / per;
    clb__kernel_define defs[] = {
        {"CLB_SOFTMAX_ROWS", 1},
        {"CLB_IN1_DTYPE", op->in},
        {"CLB_ACC_DTYPE", acc},
        {"CLB_EXPR_DTYPE", acc},
        {"CLB_OUT_DTYPE", acc},
        {"CLB_SM_LOG", op->log},
        {"CLB_SM_SCRATCH", use_scratch},
        {"CLB_SM_PREFETCH", cl->loops},
        {"CLB_SM_NT", clb__cl_streaming(cl, op->rows * op->len * (int64_t)clb_dtype_size(op->in))},
        {"CLB_VLOAD_ALIGNED", clb__cl_vload_aligned(cl)}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_EVAL_REDUCE, options, &program));
    CLB_TRY(clb__cl_check_args(cl, CLB__KERNEL_EVAL_REDUCE, program));
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, 3, "clb_softmax_rows", &k));
    cl_kernel kernel = k->kernel;
    clb__cl_args args = {{0}};
    args.v[CLB_ER_IN_OFFSET(0)] = op->in_offset;
    args.v[CLB_ER_OUT_OFFSET] = op->out_offset;
    args.v[CLB_ER_KEPT_NUMEL] = op->rows;
    args.v[CLB_ER_RED_NUMEL] = op->len;
    args.v[CLB_ER_CHUNK] = per;
    for (cl_uint i = 0; i < 2; i++) CLB_TRY(clb__cl_set_mem(k, i, (cl_mem)handles[i]));
    CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_EVAL_REDUCE, 2, &args));
    /* Local memory: not an argument the kernel cache can remember. */
    err = clSetKernelArg(kernel, 2 + CLB_ER_ARGS_VECS, use_scratch ? scratch : clb_dtype_size(acc),
                         NULL);
    CLB_CL_CHECK(err, "clSetKernelArg");
    size_t local = 1, global = (size_t)items;
    err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
    *done = true;
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    return st;
}
