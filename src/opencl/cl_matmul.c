/* OpenCL driver for batched matmul.
 *
 * float32/float64 go to CLBlast: one Gemm call for one matrix or for a batch
 * against a broadcast b (folded into m), one GemmStridedBatched call for packed
 * batches, GemmBatched with per-matrix offsets for every other pattern (see
 * run_clblast for why broadcast strides must not reach GemmStridedBatched).
 * Transposed views become CLBlast's transpose flags; an operand that is
 * neither row- nor column-major (a broadcast or gapped inner axis) is copied
 * to a contiguous buffer first, the one case where nothing else works.
 *
 * On PoCL float matrices whose b rows are contiguous and whose n is a
 * multiple of 16 go to our register-blocked kernel instead: with its
 * built-in parameters (none for PoCL) CLBlast reaches about a tenth of it
 * there (bench/bench_matmul); a transposed b (columns contiguous) with a's
 * rows contiguous to clb_matmul_nt, read in place; larger products of other
 * layouts to one of the two through copies (matmul_repacked), never to
 * CLBlast, whose GEMM program takes seconds to build at first use (the
 * table of paths: docs/pitfalls.md). Integers, bool and float16 (accumulated in
 * float, which is both more accurate than CLBlast's half GEMM and needs no
 * cl_khr_fp16) run on cl/matmul.cl's plain kernel, as does everything in
 * builds without CLBlast. CLBlast keeps its compiled kernels in memory only,
 * per process.
 *
 * clb_matmul_tune (cl_matmul_tune.c) replaces the CPU rule where it has run: it
 * searches CLBlast parameters for the device, and its cached result says which
 * of tuned CLBlast and our kernel serves the GEMMs both can do. */
#include "cl_launch.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "cl_matmul_tune.h"
#include "dtype.h"
#include "fault.h"
#include "cl_kernels.h"

#include <stdlib.h>
#include <string.h>

#if CLB_HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* Coalesced batch loop over out, a, b (operands 0, 1, 2). */
static clb__plan *batch_plan(const clb__matmul_op *op)
{
    clb__plan *plan = malloc(sizeof *plan);
    if (!plan) return NULL;
    const int64_t *strides[3] = {op->batch_strides[0], op->batch_strides[1], op->batch_strides[2]};
    clb__plan_make(plan, 3, op->batch_ndim, op->batch_shape, strides, op->offsets);
    return plan;
}

/* The batch plan of op for the own kernels, with a batch axis folded into m
   where it can be: the innermost axis of the plan when b is broadcast along it
   (stride 0) and a and out step along it by whole matrices of m rows, so that
   (B, m, k) @ (k, n) runs as one (B*m, k) @ (k, n) product: one tall matrix
   on a two-dimensional grid instead of B short ones, whose last row tiles
   computed rows past their ends (bench_ab mm64 on PoCL: 1.15-1.35x). */
static clb__plan *kernel_plan(clb__matmul_op *op)
{
    clb__plan *plan = batch_plan(op);
    if (!plan || plan->ndim == 0) return plan;
    int d = plan->ndim - 1;
    int64_t count = plan->shape[d];
    if (plan->strides[2][d] == 0 && plan->strides[1][d] == op->m * op->row_strides[1] &&
        plan->strides[0][d] == op->m * op->row_strides[0]) {
        op->m *= count;
        plan->numel /= count;
        plan->ndim = d;
    }
    return plan;
}

/* The part of a step that moves forward (strides may be negative: slices). */
static int64_t forward(int64_t span)
{
    return span > 0 ? span : 0;
}

/* Largest element offset operand k reaches: the first element plus every axis's
   forward span (a negative stride walks below the first element, not above). */
static int64_t max_offset(const clb__matmul_op *op, const clb__plan *plan, int k, int64_t rows,
                          int64_t cols)
{
    int64_t hi = plan->offsets[k] + forward((rows - 1) * op->row_strides[k]) +
                 forward((cols - 1) * op->col_strides[k]);
    for (int d = 0; d < plan->ndim; d++) hi += forward((plan->shape[d] - 1) * plan->strides[k][d]);
    return hi;
}

/* ---- own kernel --------------------------------------------------------------- */

/* Whether cl/matmul.cl's register-blocked kernel covers op (float, b and out
   rows contiguous, n a multiple of its tile's 16 columns). */
static bool blocked_fits(const clb__matmul_op *op)
{
    return (op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT64) && op->n % 16 == 0 &&
           op->col_strides[2] == 1 && op->col_strides[0] == 1;
}

/* GEMMs up to this many multiply-adds (all batches) run on the library's plain
   kernel when no tuning or option says otherwise: its program builds in about a
   second, CLBlast's GEMM program in several (9 s on PoCL for a (5,6)@(6,7)
   product), and at this size both are bound by the launch, not the arithmetic;
   nor do they pay for a copy to reach a faster kernel. */
#define SMALL_GEMM_FMAS ((int64_t)1 << 21)

static bool small_gemm(const clb__matmul_op *op)
{
    int64_t batch = 1;
    for (int d = 0; d < op->batch_ndim; d++) batch *= op->batch_shape[d];
    double fmas = (double)op->m * (double)op->n * (double)op->k * (double)batch;
    return fmas <= (double)SMALL_GEMM_FMAS;
}

/* Whether cl/matmul.cl's kernel for a transposed b covers op: float, b's
   columns contiguous (rs 1: a permuted or swapped view of a row-major matrix)
   where its rows are not, a's rows contiguous; any m, n and k. */
static bool nt_fits(const clb__matmul_op *op)
{
    return (op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT64) && op->row_strides[2] == 1 &&
           op->col_strides[2] != 1 && op->col_strides[1] == 1;
}

/* The kernels of cl/matmul.cl, by their number in the program. */
enum { MM_PLAIN, MM_BLOCKED, MM_NT };

/* Output rows per item of that kernel (CLB_MM_ROWS there). */
static int64_t blocked_rows(clb_dtype dtype)
{
    return dtype == CLB_FLOAT64 ? 4 : 6;
}

/* Whether the kernel's indices need 64 bits: the batch count, or an offset of
   an operand's matrices (max_offset) leaves int32. */
static bool mm_index64(const clb__matmul_op *op, const clb__plan *plan)
{
    const int64_t dims[3][2] = {{op->m, op->n}, {op->m, op->k}, {op->k, op->n}};
    clb__cl_reach r = {0, 0};
    clb__cl_reach_add(&r, plan->numel);
    for (int k = 0; k < 3; k++) clb__cl_reach_add(&r, max_offset(op, plan, k, dims[k][0], dims[k][1]));
    return clb__cl_index64(&r, 0);
}

/* Sets the kernel's arguments: the three buffers, the launch description
   (cl/launch_args.h's CLB_MM_*: the batch plan with its tables by value up to
   CLB_BYVAL_DIMS axes, the extents, the row and column strides), then beyond
   that [shape | out strides | a strides | b strides] in one __constant buffer
   (*table, for the caller to release). Kernel cache locked. */
static clb_status set_launch(clb__cl_context *cl, clb__cl_kernel *k, const clb__matmul_op *op,
                             const clb__plan *plan, void *const *handles, bool wide, cl_mem *table)
{
    bool byval = plan->ndim <= CLB_BYVAL_DIMS;
    clb__cl_args args = {{0}};
    args.v[CLB_MM_RANK] = plan->ndim;
    for (int o = 0; o < CLB_MM_OPS; o++) {
        args.v[CLB_MM_OFFSET(o)] = plan->offsets[o];
        args.v[CLB_MM_ROW_STRIDE(o)] = op->row_strides[o];
        args.v[CLB_MM_COL_STRIDE(o)] = op->col_strides[o];
        for (int d = 0; byval && d < plan->ndim; d++) args.v[CLB_MM_STRIDE(o, d)] = plan->strides[o][d];
    }
    for (int d = 0; byval && d < plan->ndim; d++) args.v[CLB_MM_SHAPE(d)] = plan->shape[d];
    args.v[CLB_MM_M] = op->m, args.v[CLB_MM_N] = op->n, args.v[CLB_MM_K] = op->k;
    for (cl_uint o = 0; o < CLB_MM_OPS; o++) {
        clb_status st = clb__cl_set_mem(k, o, (cl_mem)handles[o]);
        if (st != CLB_OK) return st;
    }
    clb_status st = clb__cl_set_args(k, CLB__KERNEL_MATMUL, CLB_MM_OPS, &args);
    if (st != CLB_OK || byval) return st;
    clb__cl_table tab;
    cl_uint arg = CLB_MM_OPS + CLB_MM_ARGS_VECS;
    clb__cl_plan_table(plan, 3, 0, &tab);
    return clb__cl_table_args(cl, k->kernel, &arg, &tab, false, wide, table);
}

/* The work-group of the tiled kernels where work-groups are loops (PoCL, see
   run_kernel): local[0] up to 16 column tiles (as it comes in) and up to 16 row
   tiles, the largest divisors of the grid, made smaller until there are at
   least min_groups groups where the grid has them, so that every core gets
   some: a (96, 256) @ (256, 256) product, a (16, 16) grid of tiles, would
   otherwise be one group on one core. */
static void tile_groups(const size_t *global, size_t kmax, size_t min_groups, size_t *local)
{
    while (global[0] % local[0]) local[0]--;
    local[1] = kmax / local[0] < 16 ? kmax / local[0] : 16;
    while (local[1] > 1 && global[1] % local[1]) local[1]--;
    for (int d = 1; d >= 0; d--) {
        while (local[d] > 1 &&
               (global[0] / local[0]) * (global[1] / local[1]) * global[2] < min_groups) {
            local[d]--;
            while (global[d] % local[d]) local[d]--;
        }
    }
}

static clb_status run_kernel(clb_context *ctx, const clb__matmul_op *op, const clb__plan *plan,
                             void *const *handles, int variant, bool accumulate)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_program program = NULL;
    clb__cl_kernel *k = NULL; /* cached; the cache stays locked until the launch is enqueued */
    cl_mem table = NULL;
    cl_int err = CL_SUCCESS;
    bool wide = mm_index64(op, plan);
    clb__kernel_define defs[] = {{"CLB_DTYPE", op->dtype}, {"CLB_INDEX64", wide},
                                 {"CLB_WIDE_TABLE", plan->ndim > CLB_BYVAL_DIMS},
                                 {"CLB_MM_ACCUMULATE", 1}};
    char options[CLB__KERNEL_OPTIONS_MAX];
    CLB_TRY(clb__kernel_options(defs, accumulate ? 4 : 3, options, sizeof options));
    CLB_TRY(clb__program_cache_get(cl->programs, CLB__KERNEL_MATMUL, options, &program));
    CLB_TRY(clb__cl_check_args(cl, CLB__KERNEL_MATMUL, program));
    static const char *const names[3] = {"clb_matmul", "clb_matmul_blocked", "clb_matmul_nt"};
    CLB_TRY(clb__cl_kernel_for(cl, CLB__KERNEL_MATMUL, program, variant, names[variant], &k));
    CLB_TRY(set_launch(cl, k, op, plan, handles, wide, &table));
    /* 16-wide tiles along n so neighbouring items read neighbouring b columns. */
    size_t local[3] = {16, 1, 1};
    size_t global[3] = {((size_t)op->n + 15) / 16 * 16, (size_t)op->m, (size_t)plan->numel};
    size_t kmax = 1;
    CLB_CL_CHECK(clGetKernelWorkGroupInfo(k->kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof kmax, &kmax, NULL),
                 "clGetKernelWorkGroupInfo");
    if (kmax < 16 || cl->max_item_size < 16) local[0] = 1;
    if (variant == MM_BLOCKED) {
        int64_t rows = blocked_rows(op->dtype);
        global[0] = (size_t)op->n / 16, global[1] = (size_t)((op->m + rows - 1) / rows);
    } else if (variant == MM_NT) { /* CLB_NT_ROWS x 4 tiles */
        int64_t rows = op->dtype == CLB_FLOAT64 ? 2 : 4;
        global[0] = (size_t)((op->n + 3) / 4), global[1] = (size_t)((op->m + rows - 1) / rows);
    }
    /* Where work-groups are loops (PoCL), the tiled kernels run in groups of up
       to 16 neighbouring column tiles by up to 16 row tiles of one matrix (the
       largest divisors of the grid): many small groups that the driver's
       threads share out evenly, each on one matrix. PoCL's own pick for the
       blocked kernel's (32, 86, 8) grid of (8,512,512) @ (8,512,512) was
       (8, 1, 8), groups spanning eight matrices and their eight b's: 1.35x
       the time of these groups in alternating runs on a shared 2-core machine;
       on the 2-D grids of (64,256,256) @ (256,256) (folded) and (512,512) @
       (512,512) the two were level. Elsewhere the driver chooses. */
    bool own_local = variant == MM_PLAIN || cl->loops;
    if (variant != MM_PLAIN) tile_groups(global, kmax, 4 * (size_t)clb__cl_compute_units(cl), local);
    err = clEnqueueNDRangeKernel(cl->queue, k->kernel, 3, NULL, global, own_local ? local : NULL, 0,
                                 NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (table) clReleaseMemObject(table);
    return st;
}

/* Copies operand k (1 = a, 2 = b) of op into a fresh contiguous buffer holding
   every matrix of the broadcast batch, row-major or (`by_column`) each matrix
   column-major, and points op at it. */
static clb_status make_contiguous(clb_context *ctx, clb__matmul_op *op, int k, bool by_column,
                                  void **handles, cl_mem *owned)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    clb__plan *plan = NULL;
    int nd = op->batch_ndim + 2;
    int64_t rows = k == 1 ? op->m : op->k, cols = k == 1 ? op->k : op->n;
    int64_t shape[CLB_MAX_DIMS + 2], src[CLB_MAX_DIMS + 2], dst[CLB_MAX_DIMS + 2];
    memcpy(shape, op->batch_shape, (size_t)op->batch_ndim * sizeof(int64_t));
    memcpy(src, op->batch_strides[k], (size_t)op->batch_ndim * sizeof(int64_t));
    shape[nd - 2] = rows, shape[nd - 1] = cols;
    src[nd - 2] = op->row_strides[k], src[nd - 1] = op->col_strides[k];
    int64_t total = rows * cols;
    dst[nd - 2] = by_column ? 1 : cols, dst[nd - 1] = by_column ? rows : 1;
    for (int d = nd - 3; d >= 0; d--) {
        dst[d] = total;
        total *= shape[d];
    }
    *owned = clCreateBuffer(clb__cl_impl(ctx)->context, CL_MEM_READ_WRITE,
                            (size_t)total * clb_dtype_size(op->dtype), NULL, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    CLB_CL_CHECK(err, "clCreateBuffer (contiguous matmul operand)");
    plan = malloc(sizeof *plan);
    if (!plan) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a copy plan");
    const int64_t *strides[2] = {dst, src};
    const int64_t offs[2] = {0, op->offsets[k]};
    clb__plan_make(plan, 2, nd, shape, strides, offs);
    clb__plan_flip_inputs(plan); /* a reversed operand is read ascending */
    void *h[2] = {*owned, handles[k]};
    const clb_dtype dts[2] = {op->dtype, op->dtype};
    CLB_TRY(clb__cl_copy(ctx, plan, h, dts));
    handles[k] = *owned;
    op->offsets[k] = 0;
    memcpy(op->batch_strides[k], dst, (size_t)op->batch_ndim * sizeof(int64_t));
    op->row_strides[k] = dst[nd - 2], op->col_strides[k] = dst[nd - 1];
cleanup:
    free(plan);
    return st;
}

/* ---- CLBlast -------------------------------------------------------------------- */

#if CLB_HAVE_CLBLAST

static const char *clblast_status_name(CLBlastStatusCode s)
{
    switch (s) {
#define CLB_CLBLAST_NAME(x) case x: return #x;
    CLB_CLBLAST_NAME(CLBlastOpenCLCompilerNotAvailable)
    CLB_CLBLAST_NAME(CLBlastTempBufferAllocFailure)
    CLB_CLBLAST_NAME(CLBlastOpenCLOutOfResources)
    CLB_CLBLAST_NAME(CLBlastOpenCLOutOfHostMemory)
    CLB_CLBLAST_NAME(CLBlastOpenCLBuildProgramFailure)
    CLB_CLBLAST_NAME(CLBlastInvalidValue)
    CLB_CLBLAST_NAME(CLBlastInvalidCommandQueue)
    CLB_CLBLAST_NAME(CLBlastInvalidMemObject)
    CLB_CLBLAST_NAME(CLBlastInvalidBinary)
    CLB_CLBLAST_NAME(CLBlastInvalidBuildOptions)
    CLB_CLBLAST_NAME(CLBlastInvalidProgram)
    CLB_CLBLAST_NAME(CLBlastInvalidProgramExecutable)
    CLB_CLBLAST_NAME(CLBlastInvalidKernelName)
    CLB_CLBLAST_NAME(CLBlastInvalidKernelDefinition)
    CLB_CLBLAST_NAME(CLBlastInvalidKernel)
    CLB_CLBLAST_NAME(CLBlastInvalidArgIndex)
    CLB_CLBLAST_NAME(CLBlastInvalidArgValue)
    CLB_CLBLAST_NAME(CLBlastInvalidArgSize)
    CLB_CLBLAST_NAME(CLBlastInvalidKernelArgs)
    CLB_CLBLAST_NAME(CLBlastInvalidLocalNumDimensions)
    CLB_CLBLAST_NAME(CLBlastInvalidLocalThreadsTotal)
    CLB_CLBLAST_NAME(CLBlastInvalidLocalThreadsDim)
    CLB_CLBLAST_NAME(CLBlastInvalidGlobalOffset)
    CLB_CLBLAST_NAME(CLBlastInvalidEventWaitList)
    CLB_CLBLAST_NAME(CLBlastInvalidEvent)
    CLB_CLBLAST_NAME(CLBlastInvalidOperation)
    CLB_CLBLAST_NAME(CLBlastInvalidBufferSize)
    CLB_CLBLAST_NAME(CLBlastInvalidGlobalWorkSize)
    CLB_CLBLAST_NAME(CLBlastNotImplemented)
    CLB_CLBLAST_NAME(CLBlastInvalidMatrixA)
    CLB_CLBLAST_NAME(CLBlastInvalidMatrixB)
    CLB_CLBLAST_NAME(CLBlastInvalidMatrixC)
    CLB_CLBLAST_NAME(CLBlastInvalidDimension)
    CLB_CLBLAST_NAME(CLBlastInvalidLeadDimA)
    CLB_CLBLAST_NAME(CLBlastInvalidLeadDimB)
    CLB_CLBLAST_NAME(CLBlastInvalidLeadDimC)
    CLB_CLBLAST_NAME(CLBlastInsufficientMemoryA)
    CLB_CLBLAST_NAME(CLBlastInsufficientMemoryB)
    CLB_CLBLAST_NAME(CLBlastInsufficientMemoryC)
    CLB_CLBLAST_NAME(CLBlastInsufficientMemoryTemp)
    CLB_CLBLAST_NAME(CLBlastInvalidBatchCount)
    CLB_CLBLAST_NAME(CLBlastInvalidOverrideKernel)
    CLB_CLBLAST_NAME(CLBlastMissingOverrideParameter)
    CLB_CLBLAST_NAME(CLBlastInvalidLocalMemUsage)
    CLB_CLBLAST_NAME(CLBlastNoHalfPrecision)
    CLB_CLBLAST_NAME(CLBlastNoDoublePrecision)
    CLB_CLBLAST_NAME(CLBlastDatabaseError)
    CLB_CLBLAST_NAME(CLBlastUnknownError)
    CLB_CLBLAST_NAME(CLBlastUnexpectedError)
#undef CLB_CLBLAST_NAME
    default: return "an unknown CLBlast status";
    }
}

/* How CLBlast reads a rows x cols operand with element strides (rs, cs):
   row-major (no transpose, ld = rs) or column-major (transpose, ld = cs).
   Single rows or columns take any stride along the missing axis. */
static bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, CLBlastTranspose *trans,
                        size_t *ld)
{
    *trans = CLBlastTransposeNo; /* set on every path: callers read them after a copy */
    *ld = 0;
    if ((cs == 1 || cols == 1) && (rows == 1 || rs >= cols)) {
        *trans = CLBlastTransposeNo;
        *ld = (size_t)(rows == 1 ? cols : rs);
        return true;
    }
    if ((rs == 1 || rows == 1) && (cols == 1 || cs >= rows)) {
        *trans = CLBlastTransposeYes;
        *ld = (size_t)(cols == 1 ? rows : cs);
        return true;
    }
    return false;
}

/* Per-matrix offsets of the three operands, for GemmBatched. */
typedef struct offset_lists {
    size_t *o[3];
    size_t n;
} offset_lists;

static void collect_offsets(const int64_t *offsets, void *user)
{
    offset_lists *l = user;
    for (int k = 0; k < 3; k++) l->o[k][l->n] = (size_t)offsets[k];
    l->n++;
}

static clb_status gemm_fail(CLBlastStatusCode s, const char *routine, const clb__matmul_op *op)
{
    return clb__fail(s == CLBlastTempBufferAllocFailure || s == CLBlastOpenCLOutOfResources ||
                             s == CLBlastOpenCLOutOfHostMemory
                         ? CLB_ERR_OUT_OF_MEMORY
                         : CLB_ERR_OPENCL,
                     "CLBlast %s (%s, m=%lld n=%lld k=%lld) failed: %s (%d)", routine,
                     clb_dtype_name(op->dtype), (long long)op->m, (long long)op->n,
                     (long long)op->k, clblast_status_name(s), (int)s);
}

/* One CLBlast call's operands, column-major (row-major C = A B is C^T = B^T A^T). */
typedef struct gemm_call {
    CLBlastTranspose ta, tb;
    size_t m, n, k, lda, ldb, ldc;
    cl_mem A, B, C;
    size_t oa, ob, oc; /* the first matrices' offsets */
    size_t so[3];      /* batch strides of out, a, b (one batch axis) */
    size_t count;      /* matrices */
    bool dbl;
} gemm_call;

/* One GEMM of `rows` rows (a batch folded into m, or one matrix). */
static clb_status gemm_single(clb__cl_context *cl, const clb__matmul_op *op, const gemm_call *g,
                              size_t rows)
{
    CLBlastStatusCode s =
        g->dbl ? CLBlastDgemm(CLBlastLayoutColMajor, g->tb, g->ta, g->n, rows, g->k, 1.0, g->B,
                              g->ob, g->ldb, g->A, g->oa, g->lda, 0.0, g->C, g->oc, g->ldc,
                              &cl->queue, NULL)
               : CLBlastSgemm(CLBlastLayoutColMajor, g->tb, g->ta, g->n, rows, g->k, 1.0f, g->B,
                              g->ob, g->ldb, g->A, g->oa, g->lda, 0.0f, g->C, g->oc, g->ldc,
                              &cl->queue, NULL);
    return s == CLBlastSuccess ? CLB_OK : gemm_fail(s, "Gemm", op);
}

/* Packed batches: one strided call. */
static clb_status gemm_strided(clb__cl_context *cl, const clb__matmul_op *op, const gemm_call *g)
{
    CLBlastStatusCode s =
        g->dbl ? CLBlastDgemmStridedBatched(CLBlastLayoutColMajor, g->tb, g->ta, g->n, g->m, g->k,
                                            1.0, g->B, g->ob, g->ldb, g->so[2], g->A, g->oa,
                                            g->lda, g->so[1], 0.0, g->C, g->oc, g->ldc, g->so[0],
                                            g->count, &cl->queue, NULL)
               : CLBlastSgemmStridedBatched(CLBlastLayoutColMajor, g->tb, g->ta, g->n, g->m, g->k,
                                            1.0f, g->B, g->ob, g->ldb, g->so[2], g->A, g->oa,
                                            g->lda, g->so[1], 0.0f, g->C, g->oc, g->ldc, g->so[0],
                                            g->count, &cl->queue, NULL);
    return s == CLBlastSuccess ? CLB_OK : gemm_fail(s, "GemmStridedBatched", op);
}

/* Broadcast and gapped batches: one offset per matrix (plan's walk). */
static clb_status gemm_batched(clb__cl_context *cl, const clb__matmul_op *op, const gemm_call *g,
                               const clb__plan *plan)
{
    clb_status st = CLB_OK;
    offset_lists lists = {{NULL, NULL, NULL}, 0};
    size_t esz = g->dbl ? sizeof(double) : sizeof(float), count = g->count;
    for (int q = 0; q < 3; q++) lists.o[q] = malloc(count * sizeof(size_t));
    void *alphas = malloc(count * esz), *betas = malloc(count * esz);
    if (!lists.o[0] || !lists.o[1] || !lists.o[2] || !alphas || !betas)
        CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for %zu matmul offsets", count);
    for (size_t i = 0; i < count; i++) {
        if (g->dbl) ((double *)alphas)[i] = 1.0, ((double *)betas)[i] = 0.0;
        else ((float *)alphas)[i] = 1.0f, ((float *)betas)[i] = 0.0f;
    }
    clb__plan_for_each(plan, collect_offsets, &lists);
    CLBlastStatusCode s =
        g->dbl ? CLBlastDgemmBatched(CLBlastLayoutColMajor, g->tb, g->ta, g->n, g->m, g->k, alphas,
                                     g->B, lists.o[2], g->ldb, g->A, lists.o[1], g->lda, betas,
                                     g->C, lists.o[0], g->ldc, count, &cl->queue, NULL)
               : CLBlastSgemmBatched(CLBlastLayoutColMajor, g->tb, g->ta, g->n, g->m, g->k, alphas,
                                     g->B, lists.o[2], g->ldb, g->A, lists.o[1], g->lda, betas,
                                     g->C, lists.o[0], g->ldc, count, &cl->queue, NULL);
    if (s != CLBlastSuccess) st = gemm_fail(s, "GemmBatched", op);
cleanup:
    for (int q = 0; q < 3; q++) free(lists.o[q]);
    free(alphas);
    free(betas);
    return st;
}

static clb_status run_clblast(clb_context *ctx, const clb__matmul_op *op_in, void *const *handles_in)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__matmul_op *op = malloc(sizeof *op);
    clb__plan *plan = NULL;
    cl_mem owned[3] = {NULL, NULL, NULL};
    void *handles[3] = {handles_in[0], handles_in[1], handles_in[2]};
    if (!op) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a matmul");
    *op = *op_in;

    gemm_call g = {.ldc = (size_t)op->n};
    if (!gemm_layout(op->m, op->k, op->row_strides[1], op->col_strides[1], &g.ta, &g.lda))
        CLB_TRY(make_contiguous(ctx, op, 1, false, handles, &owned[1]));
    if (!gemm_layout(op->k, op->n, op->row_strides[2], op->col_strides[2], &g.tb, &g.ldb))
        CLB_TRY(make_contiguous(ctx, op, 2, false, handles, &owned[2]));
    gemm_layout(op->m, op->k, op->row_strides[1], op->col_strides[1], &g.ta, &g.lda);
    gemm_layout(op->k, op->n, op->row_strides[2], op->col_strides[2], &g.tb, &g.ldb);

    plan = batch_plan(op);
    if (!plan) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a matmul batch plan");
    g.A = handles[1], g.B = handles[2], g.C = handles[0];
    g.m = (size_t)op->m, g.n = (size_t)op->n, g.k = (size_t)op->k;
    g.dbl = op->dtype == CLB_FLOAT64;
    g.count = (size_t)plan->numel;
    for (int q = 0; q < 3; q++) g.so[q] = plan->ndim == 1 ? (size_t)plan->strides[q][0] : 0;
    g.oa = (size_t)plan->offsets[1], g.ob = (size_t)plan->offsets[2], g.oc = (size_t)plan->offsets[0];
    /* Row-major C = A B is column-major C^T = B^T A^T: CLBlast's indirect path
       then rearranges only a (its Xgemm kernel wants column-major b and c and a
       transposed), where the row-major call rearranges a and out.
       CLBlast's GemmStridedBatched is only safe for packed batches: its indirect
       path (Xgemm with pre/post-processing, which it picks above its
       GemmRoutine threshold) reads an operand that needs no temporary copy at
       batch * rows * cols from the buffer's start, ignoring stride and offset.
       A broadcast b under a packed a and out is one tall GEMM instead (the
       batch folded into m), one matrix a plain GEMM, anything else GemmBatched,
       whose offsets both paths honour. */
    bool fold = plan->ndim == 1 && g.so[2] == 0 && g.ta == CLBlastTransposeNo &&
                g.so[1] == g.m * g.lda && g.so[0] == g.m * g.ldc;
    bool packed = plan->ndim == 1 && g.oa == 0 && g.ob == 0 && g.oc == 0 &&
                  g.so[1] == g.m * g.k && g.so[2] == g.k * g.n && g.so[0] == g.m * g.n;
    if (plan->ndim == 0 || fold) st = gemm_single(cl, op, &g, fold ? g.m * g.count : g.m);
    else if (packed) st = gemm_strided(cl, op, &g);
    else st = gemm_batched(cl, op, &g, plan);
cleanup:
    for (int q = 0; q < 3; q++)
        if (owned[q]) clReleaseMemObject(owned[q]);
    free(plan);
    free(op);
    return st;
}
#endif /* CLB_HAVE_CLBLAST */

/* k = 0: every output element is an empty sum. The output is fresh and contiguous. */
static clb_status fill_zero(clb_context *ctx, const clb__matmul_op *op, void *out)
{
    int64_t count = op->m * op->n;
    for (int d = 0; d < op->batch_ndim; d++) count *= op->batch_shape[d];
    size_t esz = clb_dtype_size(op->dtype);
    return clb__cl_fill(clb__cl_impl(ctx), (cl_mem)out, (size_t)op->offsets[0] * esz,
                        (size_t)count * esz, 0);
}

/* op on the own kernels through copies, for a layout neither takes in place:
   with n a multiple of 16, b copied row-major for the blocked kernel; else a
   copied row-major (unless its rows are contiguous) and b column-major (unless
   its columns are) for clb_matmul_nt, which takes any n. */
static clb_status matmul_repacked(clb_context *ctx, const clb__matmul_op *op,
                                  void *const *handles_in)
{
    clb_status st = CLB_OK;
    cl_mem owned[2] = {NULL, NULL};
    clb__plan *plan = NULL;
    void *handles[3] = {handles_in[0], handles_in[1], handles_in[2]};
    clb__matmul_op copy = *op;
    int variant = MM_BLOCKED;
    if (op->n % 16 == 0 && op->col_strides[0] == 1) {
        CLB_TRY(make_contiguous(ctx, &copy, 2, false, handles, &owned[1]));
    } else {
        variant = MM_NT;
        if (copy.col_strides[1] != 1) CLB_TRY(make_contiguous(ctx, &copy, 1, false, handles, &owned[0]));
        if (copy.row_strides[2] != 1 || copy.col_strides[2] == 1)
            CLB_TRY(make_contiguous(ctx, &copy, 2, true, handles, &owned[1]));
    }
    plan = kernel_plan(&copy);
    if (!plan) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a matmul batch plan");
    CLB_TRY(run_kernel(ctx, &copy, plan, handles, variant, false));
cleanup:
    free(plan);
    for (int q = 0; q < 2; q++) /* the queue keeps them until the kernel ran */
        if (owned[q]) clReleaseMemObject(owned[q]);
    return st;
}

/* op on clb_matmul_nt in place (nt_fits). */
static clb_status matmul_nt(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    clb__matmul_op folded = *op;
    clb__plan *plan = kernel_plan(&folded);
    if (!plan) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a matmul batch plan");
    clb_status st = run_kernel(ctx, &folded, plan, handles, MM_NT, false);
    free(plan);
    return st;
}

clb_status clb__cl_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    if (op->dtype == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "matmul of float64 needs float64 arithmetic, which OpenCL device %s does "
                         "not support (no cl_khr_fp64); use float32 or the host backend",
                         ctx->info.name);
    if (op->k == 0) return fill_zero(ctx, op, handles[0]);
    const clb__cl_context *cl = clb__cl_impl(ctx);
    /* On CPU devices our register-blocked kernel beats CLBlast's untuned
       defaults (bench/bench_matmul); elsewhere CLBlast serves floats.
       CLB_MATMUL_IMPL=kernel or =clblast overrides the choice (benchmarks
       compare the two; also a way around a problem in either). */
    /* The caller's choice (the tuning search) first, then CLB_MATMUL_IMPL. */
    bool asked = op->impl != CLB__MATMUL_AUTO;
    int impl = asked ? op->impl : ctx->options.matmul_impl;
    bool force_own = impl == CLB__MATMUL_KERNEL;
    bool force_clblast = impl == CLB__MATMUL_CLBLAST;
    /* A cached tuning (clb_matmul_tune) measured which of the two is faster on
       this device; its CLBlast parameters are applied on the first call, also
       under CLB_MATMUL_IMPL=clblast (not for the search's own calls). */
    clb__mm_choice choice = CLB__MM_CHOICE_NONE;
    if (!asked && (op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT64))
        choice = clb__mm_tuning_choice(ctx, op->dtype);
    bool prefer_own = choice == CLB__MM_CHOICE_KERNEL ||
                      (choice == CLB__MM_CHOICE_NONE && cl->loops);
    bool blocked = blocked_fits(op) && !force_clblast &&
                   (force_own || prefer_own || !CLB_HAVE_CLBLAST);
    /* Where the own kernels are preferred, a float layout the blocked kernel does
       not take: a transposed b (K^T in attention) with a's rows contiguous runs
       in place on clb_matmul_nt, the same program as the blocked kernel (one
       build at first use, no copy); small products on the plain kernel (below);
       any other layout through copies (matmul_repacked), never on CLBlast, whose
       GEMM program takes 17-22 s to build on PoCL at first use. */
    bool own = !force_clblast && (force_own || prefer_own || !CLB_HAVE_CLBLAST);
    bool fl = op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT64;
    if (!blocked && own && fl && op->k <= cl->max_trips) {
        if (nt_fits(op)) return matmul_nt(ctx, op, handles);
        if (!small_gemm(op)) return matmul_repacked(ctx, op, handles);
    }
#if CLB_HAVE_CLBLAST
    bool own_small = !force_clblast && choice != CLB__MM_CHOICE_CLBLAST && small_gemm(op) &&
                     op->k <= cl->max_trips;
    if (!blocked && !force_own && !own_small &&
        (op->dtype == CLB_FLOAT32 || op->dtype == CLB_FLOAT64))
        return run_clblast(ctx, op, handles);
#else
    (void)force_clblast;
#endif
    /* The own kernels loop over k in each work item: where the driver ends loops
       (quirk loop-limit), the inner dimension runs in pieces of at most max_trips,
       each later one adding to the output (issue 26, finding 13). */
    clb_status st = CLB_OK;
    int64_t piece = op->k > cl->max_trips ? cl->max_trips : op->k;
    if (piece < op->k) blocked = false;
    for (int64_t k0 = 0; st == CLB_OK && k0 < op->k; k0 += piece) { /* k > 0 here */
        clb__matmul_op part = *op;
        part.k = op->k - k0 < piece ? op->k - k0 : piece;
        part.offsets[1] = op->offsets[1] + k0 * op->col_strides[1];
        part.offsets[2] = op->offsets[2] + k0 * op->row_strides[2];
        clb__plan *plan = kernel_plan(&part);
        if (!plan)
            return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a matmul batch plan");
        st = run_kernel(ctx, &part, plan, handles, blocked ? MM_BLOCKED : MM_PLAIN, k0 > 0);
        free(plan);
    }
    return st;
}

void clb__cl_matmul_forget(void)
{
#if CLB_HAVE_CLBLAST
    /* CLBlast caches its programs per process, keyed by context; without this they
       outlive the context and are torn down after the OpenCL platform at exit. */
    CLBlastClearCache();
#endif
}
