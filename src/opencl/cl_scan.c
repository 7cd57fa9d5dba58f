/* Driver of cl/scan.cl (cumsum / cumprod: a blocked scan) and cl/select.cl
 * (the scatter of nonzero and masked_select). */
#include "cl_index.h"

#include "cl_errors.h"
#include "dtype.h"

/* Fewest elements a block: shorter ones would spend more on the totals' scan
   than they gain in parallel work. */
#define SCAN_MIN_BLOCK 64
/* Most elements a block on devices without a loop limit. */
#define SCAN_MAX_BLOCK 8192

typedef struct scan_level {
    bool prod;
    bool runs; /* the CPU forms (clb__cl_context.loops, or forced by clb__cl_index_runs) */
    bool nt;   /* streaming stores of the output (the top level of a large output) */
    clb_dtype in, out, acc;
    int64_t outer, len, inner, in_offset, out_offset;
} scan_level;

/* Elements per block: enough blocks that outer * nb * inner work items fill
   the device, none longer than a loop-limited work item may run. */
static int64_t block_of(const clb__cl_context *cl, const scan_level *s, int64_t cols)
{
    int64_t lines = s->outer * ((s->inner + cols - 1) / cols);
    int64_t units = (int64_t)clb__cl_compute_units(cl);
    int64_t want = s->runs ? 64 * units : 32768;
    int64_t nb = lines >= want ? 1 : (want + lines - 1) / lines;
    int64_t block = (s->len + nb - 1) / nb;
    if (block < SCAN_MIN_BLOCK) block = SCAN_MIN_BLOCK;
    int64_t most = cl->max_trips < INT64_MAX ? cl->max_trips / (2 * cols) : SCAN_MAX_BLOCK;
    if (most > SCAN_MAX_BLOCK) most = SCAN_MAX_BLOCK;
    return block < most ? block : most;
}

/* units work items: groups of one for the CPU forms. */
static clb_status launch(clb__cl_context *cl, const scan_level *s, cl_kernel k, int64_t units)
{
    return s->runs ? clb__cl_index_launch_ones(cl, k, units) : clb__cl_launch(cl, k, units);
}

/* The launch description of one scan kernel (cl/launch_args.h's CLB_SCAN_*):
   s's offsets and extents, the blocks, and the launch's work items. */
static clb__cl_args scan_args(const scan_level *s, int64_t block, int64_t nb, int64_t ichunks,
                              int64_t units)
{
    clb__cl_args a = {{0}};
    a.v[CLB_SCAN_IN_OFFSET] = s->in_offset, a.v[CLB_SCAN_OUT_OFFSET] = s->out_offset;
    a.v[CLB_SCAN_LEN] = s->len, a.v[CLB_SCAN_INNER] = s->inner;
    a.v[CLB_SCAN_BLOCK] = block, a.v[CLB_SCAN_NB] = nb, a.v[CLB_SCAN_ICHUNKS] = ichunks;
    a.v[CLB_SCAN_HAS_PREFIX] = nb > 1, a.v[CLB_SCAN_COUNT] = units;
    return a;
}

static clb_status scan_rows_vec(clb__cl_context *cl, const scan_level *s, cl_mem in,
                                cl_mem out, int depth);
static clb_status scan_tiles(clb__cl_context *cl, const scan_level *s, cl_mem in, cl_mem out,
                             int depth);
static clb_status scan_strips(clb__cl_context *cl, const scan_level *s, cl_mem in,
                              cl_mem out, int64_t width);

/* Widest row (inner elements) the whole-row form takes: its running totals, two
   rows' worth a work item, stay in the core's cache. */
#define TILES_MAX_ROW_BYTES (64 * 1024)

/* The single pass over columns (clb_scan_strips), per work item a run of
   columns down the whole axis: runs of STRIP_MIN_BYTES or more of a row (or the
   whole row), at most STRIP_MAX_BYTES (their scratch, sums and compensations,
   stays in the core's cache), and at least one run a compute unit, or the
   blocked form. (16384, 4096) float32 along axis 0, PoCL on 2 cores, one run:
   runs of 512 columns 55 % of the copy, 1024 75 %, 2048 79 % (the blocked form
   44 % in the next run). */
#define STRIP_MIN_BYTES 4096
#define STRIP_MAX_BYTES 8192

/* Columns a run of the single pass for s, or 0 where it would leave the device
   short of work (few columns: the blocked form). */
static int64_t strip_width(const clb__cl_context *cl, const scan_level *s)
{
    const int64_t forced = clb__cl_scan_strip_cols;
    if (forced >= 0) return forced;
    const int64_t esize = (int64_t)clb_dtype_size(s->acc);
    const int64_t want = (int64_t)clb__cl_compute_units(cl);
    const int64_t runs = (want + s->outer - 1) / s->outer;
    int64_t width = ((s->inner + runs - 1) / runs + 15) / 16 * 16;
    if (width * esize > STRIP_MAX_BYTES) width = STRIP_MAX_BYTES / esize;
    if (width < s->inner && width * esize < STRIP_MIN_BYTES) width = STRIP_MIN_BYTES / esize;
    if (width > s->inner) width = s->inner;
    return s->outer * ((s->inner + width - 1) / width) >= want ? width : 0;
}

static clb_status scan_run(clb__cl_context *cl, const scan_level *s, cl_mem in, cl_mem out,
                           int depth)
{
    const bool vec = s->runs && s->in == s->acc && s->out == s->acc &&
                     (s->acc == CLB_FLOAT32 || s->acc == CLB_FLOAT64);
    if (vec && s->inner == 1 && s->len >= 64) return scan_rows_vec(cl, s, in, out, depth);
    const int64_t width = vec && s->inner > 1 && cl->max_trips == INT64_MAX ? strip_width(cl, s) : 0;
    if (width > 0) return scan_strips(cl, s, in, out, width);
    if (vec && s->inner > 1 && cl->max_trips == INT64_MAX &&
        s->inner * (int64_t)clb_dtype_size(s->acc) <= TILES_MAX_ROW_BYTES)
        return scan_tiles(cl, s, in, out, depth);
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    cl_mem totals = NULL;
    /* Columns a work item where a work-group is a loop (each work item then walks
       its block row by row over a run of columns): 256 (1 KiB of float32) where the
       rows are that wide, 16 on narrower ones. (16384, 4096) float32 along axis 0
       on PoCL: 16 columns 347 ms, 64 280 ms, 256 220 ms, measured in one run. */
    const int64_t cols = !s->runs ? 1 : s->inner >= 256 ? 256 : s->inner >= 16 ? 16 : 1;
    const int64_t ichunks = (s->inner + cols - 1) / cols;
    const int64_t block = block_of(cl, s, cols), nb = (s->len + block - 1) / block;
    const int64_t units = s->outer * nb * ichunks;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", s->in},   {"CLB_OUT_DTYPE", s->out},
                                 {"CLB_ACC_DTYPE", s->acc}, {"CLB_SCAN_PROD", s->prod},
                                 {"CLB_SCAN_COLS", cols},   {"CLB_SCAN_NT", s->nt && depth == 0}};
    if (depth > 8)
        return clb__fail(CLB_ERR_UNSUPPORTED, "cumsum/cumprod: an axis of %lld elements needs "
                                              "more scan levels than this device allows",
                         (long long)s->len);
    if (nb > 1) {
        CLB_TRY(clb__cl_index_buffer(cl, (size_t)(s->outer * nb * s->inner) * clb_dtype_size(s->acc),
                                     "the scan's block totals", &totals));
        CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 0, "clb_scan_totals", &k));
        const cl_mem mem[2] = {in, totals};
        const clb__cl_args args = scan_args(s, block, nb, ichunks, units);
        CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 2, mem, &args));
        CLB_TRY(launch(cl, s, k->kernel, units));
        clb__cl_kernel_unlock(cl);
        k = NULL;
        /* The totals' own inclusive scan, in place: (outer, nb, inner) of acc. */
        const scan_level t = {.prod = s->prod, .runs = s->runs, .in = s->acc, .out = s->acc,
                              .acc = s->acc, .outer = s->outer, .len = nb, .inner = s->inner};
        CLB_TRY(scan_run(cl, &t, totals, totals, depth + 1));
    }
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 1, "clb_scan_apply", &k));
    const cl_mem mem[3] = {in, out, totals ? totals : out};
    const clb__cl_args args = scan_args(s, block, nb, ichunks, units);
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 3, mem, &args));
    CLB_TRY(launch(cl, s, k->kernel, units));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (totals) clReleaseMemObject(totals); /* the queue keeps it until its kernels ran */
    return st;
}

/* Float rows on a CPU device that loops over a work-group: cl/scan.cl's vector
   form (CLB_SCAN_VEC), blocks of a multiple of 8 elements. */
static clb_status scan_rows_vec(clb__cl_context *cl, const scan_level *s, cl_mem in,
                                cl_mem out, int depth)
{
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    cl_mem totals = NULL;
    int64_t block = (block_of(cl, s, 1) + 7) / 8 * 8;
    const int64_t nb = (s->len + block - 1) / block, units = s->outer * nb;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", s->in},   {"CLB_OUT_DTYPE", s->out},
                                 {"CLB_ACC_DTYPE", s->acc}, {"CLB_SCAN_PROD", s->prod},
                                 {"CLB_SCAN_VEC", 1},       {"CLB_SCAN_NT", s->nt && depth == 0}};
    if (nb > 1) {
        CLB_TRY(clb__cl_index_buffer(cl, (size_t)units * clb_dtype_size(s->acc),
                                     "the scan's block totals", &totals));
        CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 2, "clb_scan_totals_vec", &k));
        const cl_mem tm[2] = {in, totals};
        const clb__cl_args ta = scan_args(s, block, nb, 1, units);
        CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 2, tm, &ta));
        CLB_TRY(launch(cl, s, k->kernel, units));
        clb__cl_kernel_unlock(cl);
        k = NULL;
        const scan_level t = {.prod = s->prod, .runs = s->runs, .in = s->acc, .out = s->acc,
                              .acc = s->acc, .outer = s->outer, .len = nb, .inner = 1};
        CLB_TRY(scan_run(cl, &t, totals, totals, depth + 1));
    }
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 3, "clb_scan_apply_vec", &k));
    const cl_mem am[3] = {in, out, totals ? totals : out};
    const clb__cl_args aa = scan_args(s, block, nb, 1, units);
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 3, am, &aa));
    CLB_TRY(launch(cl, s, k->kernel, units));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (totals) clReleaseMemObject(totals);
    return st;
}

/* Float columns on a CPU device: cl/scan.cl's blocked scan over runs of whole
   rows (CLB_SCAN_VEC=2), about 8 blocks a compute unit ((16384, 4096) float32
   along axis 0, PoCL, one run: 8 a compute unit 29-32 % of the copy, 16 or 32
   27 %, 64 26 %: fewer, longer blocks, fewer totals). */
static clb_status scan_tiles(clb__cl_context *cl, const scan_level *s, cl_mem in, cl_mem out,
                             int depth)
{
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    cl_mem totals = NULL, scratch = NULL;
    const int64_t esize = (int64_t)clb_dtype_size(s->acc), want = 8 * (int64_t)clb__cl_compute_units(cl);
    int64_t nb = (want + s->outer - 1) / s->outer, block = (s->len + nb - 1) / nb;
    if (block < SCAN_MIN_BLOCK) block = SCAN_MIN_BLOCK;
    nb = (s->len + block - 1) / block;
    const int64_t units = s->outer * nb;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", s->in},   {"CLB_OUT_DTYPE", s->out},
                                 {"CLB_ACC_DTYPE", s->acc}, {"CLB_SCAN_PROD", s->prod},
                                 {"CLB_SCAN_VEC", 2},       {"CLB_SCAN_NT", s->nt && depth == 0}};
    if (depth > 8)
        return clb__fail(CLB_ERR_UNSUPPORTED, "cumsum/cumprod: an axis of %lld elements needs "
                                              "more scan levels than this device allows",
                         (long long)s->len);
    CLB_TRY(clb__cl_index_buffer(cl, (size_t)(units * 2 * s->inner * esize),
                                 "the scan's running totals", &scratch));
    if (nb > 1) {
        CLB_TRY(clb__cl_index_buffer(cl, (size_t)(units * s->inner * esize),
                                     "the scan's block totals", &totals));
        CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 4, "clb_scan_tile_sums", &k));
        const cl_mem tm[3] = {in, totals, scratch};
        const clb__cl_args ta = scan_args(s, block, nb, 1, units);
        CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 3, tm, &ta));
        CLB_TRY(launch(cl, s, k->kernel, units));
        clb__cl_kernel_unlock(cl);
        k = NULL;
        const scan_level t = {.prod = s->prod, .runs = s->runs, .in = s->acc, .out = s->acc,
                              .acc = s->acc, .outer = s->outer, .len = nb, .inner = s->inner};
        CLB_TRY(scan_run(cl, &t, totals, totals, depth + 1));
    }
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 5, "clb_scan_tile_apply", &k));
    const cl_mem am[4] = {in, out, totals ? totals : out, scratch};
    const clb__cl_args aa = scan_args(s, block, nb, 1, units);
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 4, am, &aa));
    CLB_TRY(launch(cl, s, k->kernel, units));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (totals) clReleaseMemObject(totals); /* the queue keeps them until their kernels ran */
    if (scratch) clReleaseMemObject(scratch);
    return st;
}

/* Float columns on a CPU device, enough of them: cl/scan.cl's single pass
   (clb_scan_strips), runs of `width` columns a work item down the whole axis. */
static clb_status scan_strips(clb__cl_context *cl, const scan_level *s, cl_mem in,
                              cl_mem out, int64_t width)
{
    clb_status st = CLB_OK;
    clb__cl_kernel *k = NULL;
    cl_mem scratch = NULL;
    const int64_t ichunks = (s->inner + width - 1) / width, units = s->outer * ichunks;
    clb__kernel_define defs[] = {{"CLB_IN_DTYPE", s->in},   {"CLB_OUT_DTYPE", s->out},
                                 {"CLB_ACC_DTYPE", s->acc}, {"CLB_SCAN_PROD", s->prod},
                                 {"CLB_SCAN_VEC", 2},       {"CLB_SCAN_NT", s->nt}};
    CLB_TRY(clb__cl_index_buffer(cl, (size_t)(units * 2 * width) * clb_dtype_size(s->acc),
                                 "the scan's running totals", &scratch));
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SCAN, defs, 6, 6, "clb_scan_strips", &k));
    const cl_mem mem[3] = {in, out, scratch};
    const clb__cl_args args = scan_args(s, width, 1, ichunks, units);
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SCAN, 3, mem, &args));
    CLB_TRY(launch(cl, s, k->kernel, units));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (scratch) clReleaseMemObject(scratch); /* the queue keeps it until its kernel ran */
    return st;
}

clb_status clb__cl_scan(clb_context *ctx, const clb__scan_op *op, void *const *handles)
{
    const char *fn = op->prod ? "cumprod" : "cumsum";
    clb_status st = clb__cl_index_fp64(ctx, fn, op->out);
    if (st != CLB_OK) return st;
    clb__cl_context *cl = clb__cl_impl(ctx);
    const int forced = clb__cl_index_runs;
    const int64_t out_bytes = op->outer * op->len * op->inner * (int64_t)clb_dtype_size(op->out);
    scan_level s = {.prod = op->prod, .runs = forced >= 0 ? forced != 0 : cl->loops,
                    .nt = clb__cl_streaming(cl, out_bytes), .in = op->in, .out = op->out,
                    .acc = op->out == CLB_FLOAT16 ? CLB_FLOAT32 : op->out,
                    .outer = op->outer, .len = op->len, .inner = op->inner,
                    .in_offset = op->in_offset, .out_offset = op->out_offset};
    return scan_run(cl, &s, (cl_mem)handles[1], (cl_mem)handles[0], 0);
}

clb_status clb__cl_compact(clb_context *ctx, const clb__compact_op *op, void *const *handles)
{
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    clb__cl_kernel *k = NULL;
    cl_mem shape = NULL;
    cl_int err = CL_SUCCESS;
    clb__kernel_define defs[] = {{"CLB_SELECT_COORDS", op->coords},
                                 {"CLB_ELEM_BYTES", op->coords ? 8 : (int64_t)clb_dtype_size(op->dtype)}};
    const int ndim = op->coords ? op->ndim : 0;
    CLB_TRY(clb__cl_index_buffer(cl, (size_t)(ndim ? ndim : 1) * sizeof(cl_long),
                                 "nonzero's shape", &shape));
    if (ndim > 0) {
        err = clEnqueueWriteBuffer(cl->queue, shape, CL_TRUE, 0, (size_t)ndim * sizeof(cl_long),
                                   op->shape, 0, NULL, NULL);
        CLB_CL_CHECK(err, "clEnqueueWriteBuffer (nonzero's shape)");
    }
    CLB_TRY(clb__cl_index_kernel(cl, CLB__KERNEL_SELECT, defs, 2, 0, "clb_select", &k));
    const cl_mem mem[4] = {(cl_mem)handles[0], (cl_mem)handles[1],
                           handles[2] ? (cl_mem)handles[2] : (cl_mem)handles[0], shape};
    clb__cl_args args = {{0}};
    args.v[CLB_SELECT_SCAN_OFFSET] = op->scan_offset;
    args.v[CLB_SELECT_SRC_OFFSET] = op->src_offset, args.v[CLB_SELECT_OUT_OFFSET] = op->out_offset;
    args.v[CLB_SELECT_NDIM] = ndim, args.v[CLB_SELECT_N] = op->n;
    CLB_TRY(clb__cl_index_set(k, CLB__KERNEL_SELECT, 4, mem, &args));
    CLB_TRY(clb__cl_launch(cl, k->kernel, op->n));
cleanup:
    if (k) clb__cl_kernel_unlock(cl);
    if (shape) clReleaseMemObject(shape);
    return st;
}
