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

#include "cl_errors.h"
#include "cl_launch.h"
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
/* Runs of KVEC outputs one item takes at most in the tiled walk (16 runs: 4 KiB
   of a float32 row per step). */
#define KTILE_MAX 16
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

static clb_status run(clb_context *ctx, const clb__expr *e, const er_job *job,
                      const clb__plan *plan, void *const *handles, const clb_dtype *in)
{
    const char *fn = job->fn;
    const clb__reduce_op *op = &job->op;
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    er_tables *t = malloc(sizeof *t);
    char *body = NULL, *options = NULL;
    size_t olen = 0;
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem table = NULL, partial = NULL;
    void *host_table = NULL;
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = NULL;
    if (!t) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory for a plan", fn);
    if (plan->numel == 0 || op->out_numel == 0) goto cleanup; /* the op layer handles empty ones */
    split(plan, t);
    clb_dtype edt = op->in, out = op->out;
    clb_dtype acc = job->moments || job->online ? (edt == CLB_FLOAT64 ? CLB_FLOAT64 : CLB_FLOAT32)
                                 : clb__cl_accumulator(op->op, edt, out, ctx->info.has_fp64);
    if ((acc == CLB_FLOAT64 || out == CLB_FLOAT64 || edt == CLB_FLOAT64) && !ctx->info.has_fp64)
        CLB_FAIL(CLB_ERR_DTYPE,
                 "%s: %s of a %s expression needs float64 arithmetic, which OpenCL device %s "
                 "does not support (no cl_khr_fp64); cast to float32 in the expression, or use "
                 "clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH) where NumPy 2's rules "
                 "(CLB_PROMOTE_NUMPY) give float64 for integers",
                 fn, job->moments ? (job->root ? "std" : "var")
                                  : job->online ? "softmax" : clb_reduce_op_name(op->op),
                 clb_dtype_name(edt), ctx->info.name);
    for (int j = 0; j < t->nin; j++)
        if (in[j] == CLB_FLOAT64 && !ctx->info.has_fp64)
            CLB_FAIL(CLB_ERR_DTYPE,
                     "%s: input %d is float64, which OpenCL device %s does not support (no "
                     "cl_khr_fp64)",
                     fn, j, ctx->info.name);
    CLB_TRY(clb__expr_cl_body(ctx, fn, e, &body));

    /* The decomposition (cl/eval_reduce.cl): a lane tree where work items run
       across SIMD lanes, ordered walks of CLB_VEC lanes where a group is a loop. */
    bool tree = !cpu_paths(ctx);
    int64_t etrips = clb__expr_cl_trips(e);
    int64_t wg = 1, lx = 1, ly = 1, chunks = 1;
    bool klanes = false;
    int64_t ktile = 1;
    if (tree) {
        while (wg * 2 <= (int64_t)cl->max_item_size && wg < 256) wg *= 2;
        /* Lanes along whichever of the innermost kept and reduced axes moves fastest
           in memory for the inputs. */
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
        if (row && t->red_numel <= SHORT_RANGE && t->kept_numel >= 16 * wg) row = false;
        if (row && ctx->info.type == CLB_DEVICE_CPU && wg > CLB__CL_CPU_ROW_LANES)
            wg = CLB__CL_CPU_ROW_LANES;
        clb__cl_tree_lanes(row, t->red_numel, t->kept_numel, wg, &lx, &ly);
        int64_t groups_x = (t->kept_numel + lx - 1) / lx, want = clb__cl_groups_wanted(ctx);
        chunks = groups_x >= want ? 1 : (want + groups_x - 1) / groups_x;
        int64_t by_work = t->red_numel / (ly * 32);
        if (chunks > by_work) chunks = by_work > 1 ? by_work : 1;
    } else {
        /* Lanes over outputs where the innermost kept axis is contiguous for the
           inputs that move along it (the others broadcast along it) and holds
           whole runs of CLB_VEC outputs. */
        bool kfast = t->kdim > 0 && t->kshape[t->kdim - 1] % KVEC == 0, moving = false;
        for (int j = 0; j < t->nin && kfast; j++) {
            int64_t ks = t->kstride[j][t->kdim - 1];
            kfast = ks == 0 || ks == 1;
            moving = moving || ks == 1;
        }
        kfast = kfast && moving;
        klanes = kfast;
        /* The tiled walk (eight steps at a time over several runs of KVEC
           outputs) where the lanes are vectors: float sums and moments of
           loads-only expressions. */
        bool tiled = klanes && loads_only(e) && !job->online &&
                     (job->moments || ((op->op == CLB_SUM || op->op == CLB_MEAN) &&
                                       (acc == CLB_FLOAT32 || acc == CLB_FLOAT64)));
        while (tiled && ktile < KTILE_MAX && t->kshape[t->kdim - 1] % (KVEC * ktile * 2) == 0)
            ktile *= 2;
        int64_t items = klanes ? t->kept_numel / (KVEC * ktile) : t->kept_numel;
        chunks = items >= LOOP_ITEMS ? 1 : (LOOP_ITEMS + items - 1) / items;
        int64_t most = t->red_numel / LOOP_MIN_CHUNK;
        if (chunks > most) chunks = most > 1 ? most : 1;
        wg = items * chunks >= 4 * LOOP_GROUP * clb__cl_groups_wanted(ctx) ? LOOP_GROUP : 1;
        lx = wg;
    }
    /* Where loops are cut short (CLB__QUIRK_LOOP_LIMIT): no lane folds more than
       the budget allows, with room for the row walk's recomputations. */
    if (cl->max_trips < INT64_MAX) {
        int64_t per = cl->max_trips / (2 * etrips * (t->rdim + 1));
        if (per < 1) per = 1;
        while ((t->red_numel + chunks - 1) / chunks / ly > per && chunks < t->red_numel) chunks *= 2;
        if (chunks > t->red_numel) chunks = t->red_numel;
    }
    int64_t chunk = (t->red_numel + chunks - 1) / chunks;
    if (chunk < 1) chunk = 1;
    /* No empty chunks at the end (4097 rows in 128 chunks of 33 left three):
       the merges count each chunk's values from its bounds. */
    chunks = (t->red_numel + chunk - 1) / chunk;
    bool final = chunks == 1;

    /* 32-bit indices unless some offset, count or the walk's overshoot needs more. */
    int64_t margin = (int64_t)1 << 20;
    bool wide = t->red_numel + (int64_t)wg > INT32_MAX - 2 * margin ||
                t->kept_numel * chunks > INT32_MAX - margin ||
                t->out_offset + t->kept_numel > INT32_MAX - margin || CLB__FAULT_INDEX64();
    for (int j = 0; j < t->nin && !wide; j++) {
        int64_t hi = 0, lo = 0;
        for (int d = 0; d < t->kdim; d++) {
            int64_t s = (t->kshape[d] - 1) * t->kstride[j][d];
            if (s > 0) hi += s; else lo += s;
        }
        for (int d = 0; d < t->rdim; d++) {
            int64_t s = (t->rshape[d] - 1) * t->rstride[j][d];
            if (s > 0) hi += s; else lo += s;
        }
        wide = hi > INT32_MAX - margin || lo < INT32_MIN + margin;
    }

    /* The specialisation. */
    bool ok = append(&options, &olen, "-DCLB_NIN=%" PRId64, t->nin);
    for (int j = 0; j < t->nin && ok; j++) {
        char f[40];
        snprintf(f, sizeof f, " -DCLB_IN%d_DTYPE=%%" PRId64, j + 1);
        ok = append(&options, &olen, f, in[j]);
        int64_t s = t->rstride[j][t->rdim - 1];
        snprintf(f, sizeof f, " -DCLB_RIN%d=%%" PRId64, j + 1);
        ok = ok && append(&options, &olen, f, s == 0 ? 0 : s == 1 ? 1 : 2);
        if (klanes) {
            s = t->kstride[j][t->kdim - 1];
            snprintf(f, sizeof f, " -DCLB_KIN%d=%%" PRId64, j + 1);
            ok = ok && append(&options, &olen, f, s == 0 ? 0 : s == 1 ? 1 : 2);
        }
    }
    ok = ok && append(&options, &olen, " -DCLB_EXPR_DTYPE=%" PRId64, edt) &&
         append(&options, &olen, " -DCLB_ACC_DTYPE=%" PRId64, acc) &&
         append(&options, &olen, " -DCLB_OUT_DTYPE=%" PRId64, out) &&
         append(&options, &olen, " -DCLB_OP=%" PRId64, op->op) &&
         append(&options, &olen, " -DCLB_FINAL=%" PRId64, final) &&
         append(&options, &olen, " -DCLB_KDIM=%" PRId64, t->kdim) &&
         append(&options, &olen, " -DCLB_RDIM=%" PRId64, t->rdim) &&
         append(&options, &olen, " -DCLB_TREE=%" PRId64, tree) &&
         append(&options, &olen, " -DCLB_KLANES=%" PRId64, klanes) &&
         append(&options, &olen, " -DCLB_KTILE=%" PRId64, ktile) &&
         append(&options, &olen, " -DCLB_VEC=%" PRId64, klanes ? KVEC : VEC) &&
         append(&options, &olen, " -DCLB_MOMENTS=%" PRId64, job->moments) &&
         append(&options, &olen, " -DCLB_ONLINE=%" PRId64, job->online) &&
         append(&options, &olen, " -DCLB_ROOT=%" PRId64, job->root) &&
         append(&options, &olen, " -DCLB_INDEX64=%" PRId64, wide) &&
         append(&options, &olen, " -DCLB_SCALAR_LANES=%" PRId64, !loads_only(e));
    if (ok) {
        char *p = realloc(options, olen + strlen(body) + 1);
        if (p) memcpy(p + olen, body, strlen(body) + 1);
        ok = p != NULL;
        if (p) options = p;
    }
    if (!ok) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory generating a kernel", fn);
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_EVAL_REDUCE, options, &program));

    /* The table: [kept shape | reduced shape | per input: kept strides | reduced strides]. */
    size_t cols = (size_t)(t->kdim + t->rdim), n = cols * (size_t)(t->nin + 1);
    size_t isz = wide ? sizeof(cl_long) : sizeof(cl_int);
    host_table = malloc(n * isz);
    if (!host_table) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory for a stride table", fn);
    for (size_t at = 0; at < n; at++) {
        size_t row = at / cols, c = at % cols;
        bool kc = c < (size_t)t->kdim;
        size_t d = kc ? c : c - (size_t)t->kdim;
        int64_t v = row == 0 ? (kc ? t->kshape[d] : t->rshape[d])
                             : (kc ? t->kstride[row - 1][d] : t->rstride[row - 1][d]);
        if (wide) ((cl_long *)host_table)[at] = v;
        else ((cl_int *)host_table)[at] = (cl_int)v;
    }
    table = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * isz,
                           host_table, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) {
        if (table) clReleaseMemObject(table);
        table = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
    CLB_CL_CHECK(err, "clCreateBuffer (eval_reduce stride table)");
    if (!final) {
        size_t bytes = (size_t)t->kept_numel * (size_t)chunks * clb_dtype_size(acc) *
                       (job->moments || job->online ? 2 : 1);
        partial = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        CLB_CL_CHECK(err, "clCreateBuffer (eval_reduce partials)");
    }

    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, 0,
                               clb__kernel_function(CLB__KERNEL_EVAL_REDUCE), &k));
    kernel = k->kernel;
    if (tree && (int64_t)k->wg_max < wg) {
        /* The kernel allows fewer work items per group than the device: shrink. */
        while (wg > (int64_t)k->wg_max && wg > 1) wg /= 2;
        if (ly > wg) ly = wg;
        lx = wg / ly;
    }
    cl_uint arg = 0;
    cl_mem dst = final ? (cl_mem)handles[0] : partial;
    err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &dst);
    for (int j = 0; j < NIN_MAX && err == CL_SUCCESS; j++) {
        cl_mem m = (cl_mem)handles[j < t->nin ? j + 1 : 0];
        err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &m);
    }
    cl_long8 offs;
    for (int j = 0; j < 8; j++) offs.s[j] = j < t->nin ? t->in_offset[j] : 0;
    cl_long scal[4] = {final ? t->out_offset : 0, t->kept_numel, t->red_numel, chunk};
    cl_int ints[2] = {(cl_int)lx, (cl_int)ly};
    cl_long count = job->moments ? job->correction : op->count;
    const cl_int zero = 0; /* the body's constants xor it (quirk literal-folding) */
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++) {
        cl_int narrow = (cl_int)scal[i];
        err = wide ? clSetKernelArg(kernel, arg++, sizeof(cl_long), &scal[i])
                   : clSetKernelArg(kernel, arg++, sizeof(cl_int), &narrow);
        if (i == 0 && err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof offs, &offs);
    }
    for (int i = 0; i < 2 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, arg++, sizeof(cl_int), &ints[i]);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof count, &count);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, arg++,
                             (size_t)(tree ? wg : 1) * clb_dtype_size(acc) *
                                 (job->moments ? 3 : job->online ? 2 : 1),
                             NULL);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &table);
    if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof zero, &zero);
    CLB_CL_CHECK(err, "clSetKernelArg");
    int64_t groups_x = ((klanes ? t->kept_numel / (KVEC * ktile) : t->kept_numel) + lx - 1) / lx;
    size_t local[2] = {(size_t)wg, 1}, global[2] = {(size_t)(groups_x * wg), (size_t)chunks};
    err = clEnqueueNDRangeKernel(cl->queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
    clb__cl_kernel_unlock(cl);
    k = NULL;

    if (!final && (job->moments || job->online)) {
        /* (mean, M2) or (m, s) per chunk, merged per output (cl/eval_reduce.cl). */
        CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, job->online ? 2 : 1,
                                   job->online ? "clb_online_merge" : "clb_moments_merge", &k));
        kernel = k->kernel;
        cl_long sc[4] = {t->out_offset, t->kept_numel, t->red_numel, chunk};
        cl_int nch = (cl_int)chunks;
        cl_long corr = job->correction;
        arg = 0;
        err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &handles[0]);
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &partial);
        for (int i = 0; i < 4 && err == CL_SUCCESS; i++) {
            cl_int narrow = (cl_int)sc[i];
            err = wide ? clSetKernelArg(kernel, arg++, sizeof(cl_long), &sc[i])
                       : clSetKernelArg(kernel, arg++, sizeof(cl_int), &narrow);
        }
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof nch, &nch);
        if (err == CL_SUCCESS) err = clSetKernelArg(kernel, arg++, sizeof corr, &corr);
        CLB_CL_CHECK(err, "clSetKernelArg");
        size_t l1 = 1, g1 = (size_t)t->kept_numel;
        err = clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &g1, &l1, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
        clb__cl_kernel_unlock(cl);
        k = NULL;
    } else if (!final) {
        /* The partials: a (kept, chunks) matrix reduced along its rows by clb_reduce's
           kernel, which also divides a MEAN and converts to the output dtype. */
        clb__plan p2;
        const int64_t shape[2] = {t->kept_numel, chunks};
        const int64_t so[2] = {1, 0}, si[2] = {chunks, 1};
        const int64_t *strides[2] = {so, si};
        const int64_t offsets[2] = {t->out_offset, 0};
        clb__plan_make(&p2, 2, 2, shape, strides, offsets);
        clb__reduce_op r2 = *op;
        r2.in = acc;
        void *h2[2] = {handles[0], partial};
        CLB_TRY(clb__cl_reduce(ctx, &r2, &p2, h2));
    }
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    if (partial) clReleaseMemObject(partial);
    free(host_table);
    free(options);
    free(body);
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
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_EVAL_REDUCE, program, 3, "clb_softmax_rows", &k));
    cl_kernel kernel = k->kernel;
    const cl_long scal[5] = {op->in_offset, op->out_offset, op->rows, op->len, per};
    cl_uint arg = 0;
    for (int i = 0; i < 2 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, arg++, sizeof(cl_mem), &handles[i]);
    for (int i = 0; i < 5 && err == CL_SUCCESS; i++)
        err = clSetKernelArg(kernel, arg++, sizeof(cl_long), &scal[i]);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kernel, arg++, use_scratch ? scratch : clb_dtype_size(acc), NULL);
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
