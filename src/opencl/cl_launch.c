/* Launch helpers shared by the OpenCL kernels' drivers (copy, map, ...). */
#include "cl_launch.h"

#include "cl_errors.h"
#include "cl_quirks.h"
#include "fault.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Work-group size: a few times the kernel's SIMD width (so each compute unit
   has several warps/wavefronts to switch between), within what the kernel and
   the device allow, and no larger than the work rounded up to that width. */
clb_status clb__cl_pick_local_size(const clb__cl_context *cl, cl_kernel kernel, int64_t numel,
                                  size_t *out)
{
    size_t multiple = 1, kernel_max = 1;
    cl_int err = clGetKernelWorkGroupInfo(kernel, cl->device,
                                          CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                          sizeof multiple, &multiple, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)");
    err = clGetKernelWorkGroupInfo(kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_max,
                                   &kernel_max, NULL);
    if (err != CL_SUCCESS)
        return clb__cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    if (multiple == 0) multiple = 1;
    size_t limit = kernel_max < cl->max_item_size ? kernel_max : cl->max_item_size;
    if (limit == 0) limit = 1;
    size_t local = multiple * 8;
    size_t needed = ((size_t)numel + multiple - 1) / multiple * multiple;
    if (local > needed) local = needed;
    if (local > limit) local = limit >= multiple ? limit / multiple * multiple : limit;
    *out = local ? local : 1;
    return CLB_OK;
}

/* Enqueues numel work items in pieces of at most 2^30, so no device's global-size
   limit is met; get_global_id includes the piece's offset. */
clb_status clb__cl_launch(clb__cl_context *cl, cl_kernel kernel, int64_t numel)
{
    size_t local = 0;
    clb_status st = clb__cl_pick_local_size(cl, kernel, numel, &local);
    if (st != CLB_OK) return st;
    size_t piece = ((size_t)1 << 30) / local * local;
    size_t total = ((size_t)numel + local - 1) / local * local;
    for (size_t start = 0; start < total; start += piece) {
        size_t global = total - start < piece ? total - start : piece;
        cl_int err =
            clEnqueueNDRangeKernel(cl->queue, kernel, 1, &start, &global, &local, 0, NULL, NULL);
        if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
        if (err != CL_SUCCESS) return clb__cl_fail(err, "clEnqueueNDRangeKernel");
    }
    return CLB_OK;
}

/* ---- reusable kernel objects ------------------------------------------------------ */

#define KERNEL_BUCKETS 64
#define STREAMING_MIN_BYTES ((int64_t)8 << 20)

_Atomic int64_t clb__cl_streaming_min_bytes = -1;
/* -1: work items take blocks on CPU devices and a grid stride elsewhere; tests
   set 0 or 1 to run the other device class's path on the devices they have
   (cl_map.c, cl_copy.c, cl_expr.c). */
_Atomic int clb__cl_map_blocked = -1;

struct clb__cl_kernel_cache {
    pthread_mutex_t lock;
    cl_device_id device;
    bool correct_div_sqrt;
    bool fp32_denorm; /* float32 subnormals kept, as the host keeps them */
    cl_uint compute_units;
    int64_t streaming_bytes; /* outputs from this size get streaming stores; 0: never */
    clb__cl_kernel *buckets[KERNEL_BUCKETS];
};

clb_status clb__cl_kernel_cache_create(cl_device_id device, bool loops,
                                       clb__cl_kernel_cache **out)
{
    *out = NULL;
    clb__cl_kernel_cache *c = calloc(1, sizeof *c);
    if (!c) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory creating a kernel cache");
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "cannot create the kernel cache's mutex");
    }
    c->device = device;
    cl_device_fp_config fp = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL) == CL_SUCCESS) {
        c->correct_div_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
        c->fp32_denorm = (fp & CL_FP_DENORM) != 0;
    }
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof c->compute_units,
                        &c->compute_units, NULL) != CL_SUCCESS || c->compute_units == 0)
        c->compute_units = 1;
    /* Streaming stores pay on CPUs whose work items stream long blocks, for
       outputs that would not stay in the cache anyway. */
    cl_ulong cache = 0;
    if (loops) {
        if (clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL) !=
            CL_SUCCESS)
            cache = 0;
        c->streaming_bytes = cache > STREAMING_MIN_BYTES ? (int64_t)cache : STREAMING_MIN_BYTES;
    }
    *out = c;
    return CLB_OK;
}

static void kernel_free(clb__cl_kernel *k)
{
    if (k->kernel) clReleaseKernel(k->kernel);
    for (int i = 0; i < CLB__CL_CACHED_ARGS; i++) free(k->arg_value[i]);
    free(k);
}

void clb__cl_kernel_cache_destroy(clb__cl_kernel_cache *c)
{
    if (!c) return;
    for (int b = 0; b < KERNEL_BUCKETS; b++) {
        clb__cl_kernel *k = c->buckets[b];
        while (k) {
            clb__cl_kernel *next = k->next;
            kernel_free(k);
            k = next;
        }
    }
    pthread_mutex_destroy(&c->lock);
    free(c);
}

bool clb__cl_correct_div_sqrt(const clb__cl_context *cl)
{
    return cl->kernels->correct_div_sqrt;
}

bool clb__cl_fp32_denorm(const clb__cl_context *cl)
{
    return cl->kernels->fp32_denorm;
}

bool clb__cl_streaming(const clb__cl_context *cl, int64_t out_bytes)
{
    if (clb__cl_streaming_min_bytes >= 0) return out_bytes >= clb__cl_streaming_min_bytes;
    int64_t from = cl->kernels->streaming_bytes;
    return from > 0 && out_bytes >= from;
}

unsigned clb__cl_compute_units(const clb__cl_context *cl)
{
    return cl->kernels->compute_units;
}

static unsigned kernel_bucket(clb__kernel_id id, uint64_t key)
{
    uint64_t h = (key ^ ((uint64_t)id << 56)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 58); /* 64 buckets */
}

static clb__cl_kernel *find_locked(clb__cl_kernel_cache *c, clb__kernel_id id, uint64_t key)
{
    for (clb__cl_kernel *k = c->buckets[kernel_bucket(id, key)]; k; k = k->next)
        if (k->id == id && k->key == key) return k;
    return NULL;
}

clb__cl_kernel *clb__cl_kernel_find(clb__cl_context *cl, clb__kernel_id id, uint64_t key)
{
    pthread_mutex_lock(&cl->kernels->lock);
    clb__cl_kernel *k = find_locked(cl->kernels, id, key);
    if (!k) pthread_mutex_unlock(&cl->kernels->lock);
    return k;
}

static clb_status kernel_add(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                             cl_program program, const char *name, clb__cl_kernel **out);

clb_status clb__cl_kernel_named(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                                cl_program program, const char *name, clb__cl_kernel **out)
{
    return kernel_add(cl, id, key, program, name, out);
}

clb_status clb__cl_kernel_for(clb__cl_context *cl, clb__kernel_id id, cl_program program,
                              int variant, const char *name, clb__cl_kernel **out)
{
    /* Programs live as long as the context's program cache: their address and
       the kernel's number within the program name the kernel object. */
    uint64_t key = (uint64_t)(uintptr_t)program * 8u + (uint64_t)variant;
    *out = clb__cl_kernel_find(cl, id, key);
    return *out ? CLB_OK : kernel_add(cl, id, key, program, name, out);
}

static clb_status kernel_add(clb__cl_context *cl, clb__kernel_id id, uint64_t key,
                             cl_program program, const char *name, clb__cl_kernel **out)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    *out = NULL;
    clb__cl_kernel *k = calloc(1, sizeof *k);
    if (!k) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory caching a kernel");
    k->id = id;
    k->key = key;
    k->kernel = clCreateKernel(program, name, &err);
    CLB_CL_CHECK(err, "clCreateKernel");
    /* Its first launch may compile (PoCL): the background builds give way. */
    clb__program_cache_busy(cl->programs);
    size_t kernel_max = 1;
    err = clGetKernelWorkGroupInfo(k->kernel, cl->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof k->wg_multiple, &k->wg_multiple, NULL);
    CLB_CL_CHECK(err, "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)");
    err = clGetKernelWorkGroupInfo(k->kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof kernel_max, &kernel_max, NULL);
    CLB_CL_CHECK(err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    if (k->wg_multiple == 0) k->wg_multiple = 1;
    k->wg_max = kernel_max < cl->max_item_size ? kernel_max : cl->max_item_size;
    if (k->wg_max == 0) k->wg_max = 1;

    pthread_mutex_lock(&cl->kernels->lock);
    clb__cl_kernel *found = find_locked(cl->kernels, id, key);
    if (found) {
        *out = found; /* another thread was first: use its kernel, drop ours */
    } else {
        unsigned b = kernel_bucket(id, key);
        k->next = cl->kernels->buckets[b];
        cl->kernels->buckets[b] = k;
        *out = k;
        k = NULL;
    }
cleanup:
    if (k) kernel_free(k);
    return st;
}

clb_status clb__cl_set_arg(clb__cl_kernel *k, cl_uint index, size_t size, const void *value)
{
    bool cached = index < CLB__CL_CACHED_ARGS;
    if (cached && k->arg_value[index] && k->arg_size[index] == size &&
        memcmp(k->arg_value[index], value, size) == 0)
        return CLB_OK;
    cl_int err = clSetKernelArg(k->kernel, index, size, value);
    if (err != CL_SUCCESS) {
        /* Unknown state now: the next launch sets the argument again. */
        if (cached) {
            free(k->arg_value[index]);
            k->arg_value[index] = NULL;
        }
        return clb__cl_fail(err, "clSetKernelArg");
    }
    if (cached) {
        if (k->arg_size[index] != size || !k->arg_value[index]) {
            free(k->arg_value[index]);
            k->arg_value[index] = malloc(size);
            k->arg_size[index] = size;
        }
        if (k->arg_value[index]) memcpy(k->arg_value[index], value, size);
    }
    return CLB_OK;
}

clb_status clb__cl_set_mem(clb__cl_kernel *k, cl_uint index, cl_mem mem)
{
    if (index < CLB__CL_CACHED_ARGS) {
        free(k->arg_value[index]);
        k->arg_value[index] = NULL;
    }
    cl_int err = clSetKernelArg(k->kernel, index, sizeof mem, &mem);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, "clSetKernelArg");
}

void clb__cl_kernels_forget(clb__cl_context *cl, cl_mem mem)
{
    pthread_mutex_lock(&cl->kernels->lock);
    for (int b = 0; b < KERNEL_BUCKETS; b++) {
        for (clb__cl_kernel *k = cl->kernels->buckets[b]; k; k = k->next) {
            cl_uint nargs = 0;
            if (clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) !=
                CL_SUCCESS)
                continue;
            for (cl_uint i = 0; i < nargs; i++) {
                bool cached = i < CLB__CL_CACHED_ARGS && k->arg_value[i];
                if (cached && !(k->arg_size[i] == sizeof mem &&
                                memcmp(k->arg_value[i], &mem, sizeof mem) == 0))
                    continue; /* known to hold something else */
                /* A buffer argument becomes NULL; any other kind refuses it, unchanged. */
                (void)clSetKernelArg(k->kernel, i, sizeof(cl_mem), NULL);
                if (i < CLB__CL_CACHED_ARGS) {
                    free(k->arg_value[i]);
                    k->arg_value[i] = NULL;
                }
            }
        }
    }
    pthread_mutex_unlock(&cl->kernels->lock);
}

void clb__cl_kernel_unlock(clb__cl_context *cl)
{
    pthread_mutex_unlock(&cl->kernels->lock);
}

/* ---- rows x chunks geometry ------------------------------------------------------- */

/* Three shapes, by how the device runs work (clb__cl_context.loops):
   - CPU devices that run a work-group as a loop on one core (PoCL): PoCL
     compiles that loop anew for every distinct local size and pays a few
     microseconds per group, so groups of one work item (each streaming through
     a contiguous block), a few per core, and a single one for small work (a
     tiny launch then costs little more than an empty one);
   - CPU devices whose work items run across SIMD lanes (llvmpipe): many work
     items, each a contiguous block of at most LANE_BLOCK chunks, in groups of
     LANE_GROUP along dimension 0: a work item's start-up (argument unpacking,
     the offset walk) is paid once per block, and no loop gets long
     (CLB__QUIRK_LOOP_LIMIT); measured on llvmpipe, a float4 copy ran at 5.6
     GB/s with one float4 per work item and 7.4 GB/s with blocks of 1024, and
     a row broadcast at 1.5 GB/s with groups along dimension 1, 4.7 along 0;
   - GPUs: several SIMD widths per group, rows sharing a group when a row is
     shorter than it, and enough groups to cover the work once, within what
     every device accepts per dimension (some GPUs cap the work-groups along
     dimensions 1 and 2 at 32768 or more). */
#define ROWS_MAX_GROUPS 32768
#define CPU_GROUPS_PER_UNIT 4
#define LANE_BLOCK 256
#define LANE_GROUP 8 /* llvmpipe on AVX2: 8 > 16 > 32 > 64 items per group, measured */
static void lane_blocks(const clb__cl_context *cl, int64_t chunks, int64_t rows,
                        int64_t chunk_trips, size_t local[2], size_t global[2])
{
    /* Under CLB__QUIRK_LOOP_LIMIT all the loops of a work item share one budget:
       a block holds no more chunks than it affords (each chunk also costs its
       own iteration and possibly a row's). */
    int64_t block = LANE_BLOCK;
    if (cl->max_trips != INT64_MAX) {
        int64_t fit = cl->max_trips / (chunk_trips + 2);
        if (fit < block) block = fit > 0 ? fit : 1;
    }
    int64_t work = chunks * rows, items = (work + block - 1) / block;
    if (items < 1) items = 1;
    /* llvmpipe packs work items into SIMD lanes along dimension 0 only: at
       least a group's width of items shares each row, then rows, then more
       items per row until every block is at most `block` chunks. */
    int64_t gx = chunks < LANE_GROUP ? chunks : LANE_GROUP;
    int64_t gy = (items + gx - 1) / gx;
    if (gy > rows) gy = rows;
    int64_t more = (items + gy - 1) / gy;
    if (more > gx) gx = more < chunks ? more : chunks;
    size_t lx = 1;
    while (lx * 2 <= LANE_GROUP && (int64_t)lx * 2 <= gx) lx *= 2;
    local[0] = lx, local[1] = 1;
    global[0] = (size_t)((gx + (int64_t)lx - 1) / (int64_t)lx) * lx;
    global[1] = (size_t)gy;
}

void clb__cl_rows_geometry(const clb__cl_context *cl, const clb__cl_kernel *k, bool blocked,
                           int64_t blocks, int64_t chunks, int64_t rows, int64_t chunk_trips,
                           size_t local[2], size_t global[2])
{
    if (blocked && !cl->loops) {
        lane_blocks(cl, chunks, rows, chunk_trips, local, global);
        return;
    }
    if (blocked) {
        /* Rows go to different items first, so each item walks whole rows. */
        int64_t groups = blocks;
        int64_t cap = CPU_GROUPS_PER_UNIT * (int64_t)clb__cl_compute_units(cl);
        if (groups > cap) groups = cap;
        if (groups < 1) groups = 1;
        int64_t gy = rows < groups ? rows : groups;
        int64_t gx = groups / gy < chunks ? groups / gy : chunks;
        local[0] = local[1] = 1;
        global[0] = (size_t)(gx > 0 ? gx : 1), global[1] = (size_t)gy;
        return;
    }
    size_t mult = k->wg_multiple, max = k->wg_max;
    size_t want = mult * 8;
    if (want > max) want = max >= mult ? max / mult * mult : max;
    if (want == 0) want = 1;
    size_t lx = 1;
    while (lx < want && (int64_t)lx < chunks) lx *= 2;
    if (lx > want) lx = want;
    size_t ly = 1;
    while (ly * 2 * lx <= want && (int64_t)ly < rows) ly *= 2;
    int64_t gx = (chunks + (int64_t)lx - 1) / (int64_t)lx;
    int64_t gy = (rows + (int64_t)ly - 1) / (int64_t)ly;
    if (gx > ROWS_MAX_GROUPS) gx = ROWS_MAX_GROUPS;
    if (gy > ROWS_MAX_GROUPS) gy = ROWS_MAX_GROUPS;
    local[0] = lx, local[1] = ly;
    global[0] = (size_t)gx * lx, global[1] = (size_t)gy * ly;
}

int64_t clb__cl_op_trips(bool binary, int op, clb_dtype compute)
{
    if (!binary) return 1;
    bool real = compute == CLB_FLOAT16 || compute == CLB_FLOAT32 || compute == CLB_FLOAT64;
    /* Exponent range plus mantissa bits, from the largest value to the smallest
       subnormal: 2^127 .. 2^-149 for float, 2^1023 .. 2^-1074 for double. */
    if ((op == CLB_FLOOR_DIV || op == CLB_MOD) && real) return compute == CLB_FLOAT64 ? 2100 : 280;
    if (op == CLB_POW && !real && compute != CLB_BOOL) return 8 * (int64_t)clb_dtype_size(compute) + 1;
    return 1;
}

void clb__cl_plan_table(const clb__plan *p, int slots, int64_t shape_pad, clb__cl_table *t)
{
    t->ncols = 1 + slots;
    t->col[0] = p->shape, t->len[0] = p->ndim, t->pad[0] = shape_pad;
    for (int k = 0; k < slots; k++) {
        t->col[1 + k] = k < p->nops ? p->strides[k] : NULL;
        t->len[1 + k] = p->ndim, t->pad[1 + k] = 0;
    }
}

clb_status clb__cl_table_args(clb__cl_context *cl, cl_kernel kernel, cl_uint *arg,
                              const clb__cl_table *t, bool byval, bool wide, cl_mem *table)
{
    clb_status st = CLB_OK;
    cl_int err = CL_SUCCESS;
    void *host = NULL;
    if (byval) {
        for (int c = 0; c < t->ncols && err == CL_SUCCESS; c++) {
            cl_long8 v64;
            cl_int8 v32;
            for (int d = 0; d < CLB_BYVAL_DIMS; d++) {
                int64_t v = d >= t->len[c] ? t->pad[c] : t->col[c] ? t->col[c][d] : 0;
                v64.s[d] = v;
                v32.s[d] = (cl_int)v;
            }
            err = wide ? clSetKernelArg(kernel, (*arg)++, sizeof v64, &v64)
                       : clSetKernelArg(kernel, (*arg)++, sizeof v32, &v32);
        }
        CLB_CL_CHECK(err, "clSetKernelArg");
        return CLB_OK;
    }
    size_t n = 0, at = 0, isz = wide ? sizeof(cl_long) : sizeof(cl_int);
    for (int c = 0; c < t->ncols; c++) n += (size_t)t->len[c];
    host = malloc(n ? n * isz : isz);
    if (!host) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a launch's stride table");
    for (int c = 0; c < t->ncols; c++)
        for (int d = 0; d < t->len[c]; d++, at++) {
            int64_t v = t->col[c] ? t->col[c][d] : 0;
            if (wide) ((cl_long *)host)[at] = v;
            else ((cl_int *)host)[at] = (cl_int)v;
        }
    *table = clCreateBuffer(cl->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (n ? n : 1) * isz,
                            host, &err);
    if (CLB__FAULT(CLB__FAULT_BUFFER)) {
        if (*table) clReleaseMemObject(*table);
        *table = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    }
    CLB_CL_CHECK(err, "clCreateBuffer");
    CLB_CL_CHECK(clSetKernelArg(kernel, (*arg)++, sizeof(cl_mem), table), "clSetKernelArg");
cleanup:
    free(host);
    return st;
}

bool clb__cl_launch_style(clb_device_type type, const char *platform, unsigned quirks)
{
    if (type != CLB_DEVICE_CPU || (quirks & CLB__QUIRK_LOOP_LIMIT)) return false;
    return strstr(platform, "Portable Computing Language") != NULL || strstr(platform, "PoCL") ||
           strstr(platform, "pocl");
}

bool clb__cl_vload_aligned(const clb__cl_context *cl)
{
    return cl->loops;
}

bool clb__cl_blocked(const clb_context *ctx)
{
    if (clb__cl_map_blocked >= 0) return clb__cl_map_blocked != 0;
    return ctx->info.type == CLB_DEVICE_CPU;
}

void clb__cl_reach_add(clb__cl_reach *r, int64_t v)
{
    if (v < r->lo) r->lo = v;
    if (v > r->hi) r->hi = v;
}

void clb__cl_reach_walk(clb__cl_reach *r, int64_t base, const int64_t *shape,
                        const int64_t *stride, int n)
{
    int64_t lo = base, hi = base;
    for (int d = 0; d < n; d++) {
        int64_t s = (shape[d] > 0 ? shape[d] - 1 : 0) * stride[d];
        if (s > 0) hi += s;
        else lo += s;
    }
    clb__cl_reach_add(r, lo);
    clb__cl_reach_add(r, hi);
}

bool clb__cl_index64(const clb__cl_reach *r, int64_t margin)
{
    return r->lo < (int64_t)INT32_MIN + margin || r->hi > (int64_t)INT32_MAX - margin ||
           CLB__FAULT_INDEX64();
}

void clb__cl_plan_pieces(const clb__plan *plan, clb__cl_pieces *out)
{
    /* A plan that fits 32-bit indices (clb__plan_piece_limit, which tests lower)
       reaches its own extents; one that does not, a piece's; one that no count
       of pieces covers reaches beyond them. */
    clb__cl_reach r = {0, 0};
    out->count = 1;
    if (!clb__plan_fits(plan, NULL, clb__plan_piece_limit) &&
        !clb__plan_split(plan, clb__plan_piece_limit, CLB__CL_MAX_PIECES, out->shape, &out->count))
        clb__cl_reach_add(&r, INT64_MAX);
    out->wide = clb__cl_index64(&r, 0);
}

clb_status clb__cl_each_piece(const clb__plan *plan, const clb__cl_pieces *pieces,
                              clb_status (*launch)(const clb__plan *piece, void *user),
                              void *user)
{
    if (pieces->count == 1 || pieces->wide) return launch(plan, user);
    clb__plan *piece = malloc(sizeof *piece);
    if (!piece) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a launch plan");
    clb_status st = CLB_OK;
    for (int64_t i = 0; i < pieces->count && st == CLB_OK; i++) {
        clb__plan_piece(plan, pieces->shape, i, piece);
        st = launch(piece, user);
    }
    free(piece);
    return st;
}

static int64_t pow2_at_least(int64_t v)
{
    int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

void clb__cl_tree_lanes(bool row, int64_t red, int64_t kept, int64_t wg, int64_t *lx, int64_t *ly)
{
    if (row) {
        *ly = pow2_at_least(red > 0 ? red : 1);
        if (*ly > wg) *ly = wg;
        *lx = wg / *ly;
    } else {
        *lx = pow2_at_least(kept);
        if (*lx > wg) *lx = wg;
        *ly = wg / *lx;
    }
}
