/* Driver of cl/elementwise.cl: element-wise maps (unary, binary, where) over a plan.
 *
 * Per call: encode the specialisation in one 64-bit key, find the cached kernel
 * object (no option string, no hashing of sources: that happens only the first
 * time), set the arguments and enqueue one launch per plan piece. */
#include "cl_launch.h"

#include "cl_args.h"
#include "cl_errors.h"
#include "fault.h"
#include "host_loops.h"
#include "host_map.h"
#include "cl_kernels.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAP_OPS CLB_MAP_OPS /* out + up to three inputs: the kernel's fixed argument list */


/* Everything a program depends on besides the build flags. The rank and the
   inner strides are not part of it: they are arguments and in-kernel branches,
   so one program serves every layout (see cl/elementwise.cl). */
typedef struct map_spec {
    const clb__map_op *op;
    int nin;
    bool table;  /* more axes than go by value */
    bool wide;   /* 64-bit indices */
    int vec;     /* consecutive inner elements per step of a work item */
    bool blocked; /* work items take contiguous blocks (CPU devices) */
    bool nt;      /* streaming stores (large outputs on CPU devices) */
} map_spec;

static uint64_t spec_key(const map_spec *s)
{
    const clb__map_op *op = s->op;
    uint64_t k = (uint64_t)op->kind;
    /* six bits of op: the unary set reaches CLB_BITWISE_INVERT (35); five bits let
       isinf (32) share a key with the binary add (kind 1, op 0) and run its program */
    _Static_assert(CLB_BITWISE_INVERT < 64 && CLB_RIGHT_SHIFT < 64, "spec_key's op field is 6 bits");
    k = k << 6 | (uint64_t)(op->kind == CLB__MAP_WHERE ? 0 : op->op);
    for (int i = 0; i < 3; i++) k = k << 4 | (uint64_t)(i < s->nin ? op->in[i] : 0);
    k = k << 4 | (uint64_t)op->compute;
    k = k << 4 | (uint64_t)op->out;
    k = k << 1 | (uint64_t)s->table;
    k = k << 1 | (uint64_t)s->wide;
    k = k << 5 | (uint64_t)s->vec;
    k = k << 1 | (uint64_t)s->blocked;
    k = k << 1 | (uint64_t)s->nt;
    return k;
}

/* The program's kernels by inner-stride layout (cl/elementwise.cl): the fast
   paths, and clb_map for every other layout. A layout the program has no
   kernel for (the reversed inputs of ops without a vector form) takes clb_map. */
enum { LAYOUT_ANY, LAYOUT_SAME, LAYOUT_COLUMN, LAYOUT_OUTER, LAYOUT_REV0, LAYOUT_REV1, LAYOUTS };
static const char *const layout_kernel[LAYOUTS] = {
    "clb_map", "clb_map_same", "clb_map_column", "clb_map_outer", "clb_map_rev0", "clb_map_rev1",
};

/* The layout of a plan's inner axis (the strides clb__cl_args_fill passes;
   every piece of the plan shares them). */
static int map_layout(const clb__map_op *op, const clb__plan *p)
{
    int64_t is[MAP_OPS] = {0};
    for (int o = 0; o < p->nops && o < MAP_OPS && p->ndim > 0; o++) is[o] = p->strides[o][p->ndim - 1];
    if (is[0] != 1) return LAYOUT_ANY;
    switch (op->kind) {
    case CLB__MAP_UNARY: return is[1] == 1 ? LAYOUT_SAME : LAYOUT_ANY;
    case CLB__MAP_WHERE: return is[1] == 1 && is[2] == 1 && is[3] == 1 ? LAYOUT_SAME : LAYOUT_ANY;
    case CLB__MAP_BINARY: break;
    }
    if (is[1] == 1 && is[2] == 1) return LAYOUT_SAME;
    if (is[1] == 1 && is[2] == 0) return LAYOUT_COLUMN;
    if (is[1] == 0 && is[2] == 1) return LAYOUT_OUTER;
    if (is[1] == -1 && is[2] == 1) return LAYOUT_REV0;
    if (is[1] == 1 && is[2] == -1) return LAYOUT_REV1;
    return LAYOUT_ANY;
}

#define MAP_OPTIONS_MAX (2 * CLB__KERNEL_OPTIONS_MAX) /* 13 defines and a flag */

/* The program's build options: the specialisation, and correct rounding where
   the device offers it. */
static clb_status map_options(clb__cl_context *cl, const map_spec *s, char *options, size_t cap)
{
    const clb__map_op *op = s->op;
    clb__kernel_define defs[] = {
        {"CLB_KIND", op->kind},
        {"CLB_OP", op->kind == CLB__MAP_WHERE ? 0 : op->op},
        {"CLB_IN0_DTYPE", op->in[0]},
        {"CLB_IN1_DTYPE", s->nin > 1 ? op->in[1] : 0},
        {"CLB_IN2_DTYPE", s->nin > 2 ? op->in[2] : 0},
        {"CLB_COMPUTE_DTYPE", op->compute},
        {"CLB_OUT_DTYPE", op->out},
        {"CLB_TABLE", s->table},
        {"CLB_INDEX64", s->wide},
        {"CLB_VEC", s->vec},
        {"CLB_BLOCKED", s->blocked},
        {"CLB_NT", s->nt},
        {"CLB_VLOAD_ALIGNED", clb__cl_vload_aligned(cl)},
        {"CLB_OWN_MATH", cl->own_math},
    };
    clb_status st = clb__kernel_options(defs, (int)(sizeof defs / sizeof defs[0]), options, cap);
    if (st != CLB_OK) return st;
    /* The host divides and takes square roots correctly rounded; OpenCL allows
       float32 a few ulp unless asked, which devices that can do it honour. */
    if (clb__cl_correct_div_sqrt(cl)) {
        static const char flag[] = " -cl-fp32-correctly-rounded-divide-sqrt";
        size_t len = strlen(options);
        if (len + sizeof flag > cap)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "kernel build options longer than %zu bytes",
                             cap);
        memcpy(options + len, flag, sizeof flag);
    }
    return CLB_OK;
}

/* One launch's fixed part: what every plan piece shares. */
typedef struct map_launch {
    clb_context *ctx;
    const map_spec *s;
    clb__cl_kernel *k;
    void *const *handles;
} map_launch;

/* Sets the arguments of one plan piece and enqueues it (clb__cl_each_piece's
   callback, user a map_launch). Called with the kernel locked. */
static clb_status launch_piece(const clb__plan *p, void *user)
{
    const map_launch *ml = user;
    clb_context *ctx = ml->ctx;
    const map_spec *s = ml->s;
    clb__cl_kernel *k = ml->k;
    void *const *handles = ml->handles;
    clb_status st = CLB_OK;
    clb__cl_context *cl = clb__cl_impl(ctx);
    cl_kernel kernel = k->kernel;
    cl_int err = CL_SUCCESS;
    cl_mem table = NULL;
    int64_t rows = 0, inner = 0;
    clb__cl_args args;
    clb__cl_args_fill(&args, p, MAP_OPS, !s->table, &rows, &inner);
    /* Slots the op has no operand for get NULL, not a repeated buffer: a driver
       tracks every buffer argument of every launch (PoCL: ~0.3 us each). */
    for (cl_uint i = 0; i < MAP_OPS; i++) {
        cl_mem m = (int)i < p->nops ? (cl_mem)handles[i] : NULL;
        CLB_TRY(clb__cl_set_mem(k, i, m));
    }

    if (s->table) {
        clb__cl_table t;
        cl_uint arg = 4 + CLB_MAP_ARGS_VECS;
        clb__cl_plan_table(p, MAP_OPS, 0, &t);
        CLB_TRY(clb__cl_table_args(cl, kernel, &arg, &t, false, s->wide, &table));
    }
    CLB_TRY(clb__cl_set_args(k, CLB__KERNEL_MAP, 4, &args));

    int64_t chunks = (inner + s->vec - 1) / s->vec;
    size_t local[2], global[2];
    /* Work items loop over their share (cl/elementwise.cl): see clb__cl_rows_geometry. */
    int64_t trips = s->vec * clb__cl_op_trips(s->op->kind == CLB__MAP_BINARY, s->op->op, s->op->compute);
    clb__cl_rows_geometry(cl, k, s->blocked, rows * chunks * s->vec / CLB__CL_CPU_ELEMENTS_PER_GROUP,
                          chunks, rows, trips + p->ndim, local, global);
    err = clEnqueueNDRangeKernel(cl->queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_ENQUEUE)) err = CL_OUT_OF_RESOURCES;
    CLB_CL_CHECK(err, "clEnqueueNDRangeKernel");
cleanup:
    /* The enqueued command holds its own reference to the table. */
    if (table) clReleaseMemObject(table);
    return st;
}

/* The unary transcendental functions: exp .. sigmoid, tan .. log10 and erf
   (the element-wise set appended the later ones to the enum). */
static bool transcendental(const clb__map_op *op)
{
    return op->kind == CLB__MAP_UNARY &&
           ((op->op >= CLB_EXP && op->op <= CLB_SIGMOID) ||
            (op->op >= CLB_TAN && op->op <= CLB_LOG10) || op->op == CLB_ERF);
}

/* Ops whose scalar rule is long or branchy (host_scalar.c): floor division and
   remainder, powers, and the transcendental functions. */
static bool heavy_op(const clb__map_op *op)
{
    if (op->kind == CLB__MAP_BINARY)
        return op->op == CLB_FLOOR_DIV || op->op == CLB_MOD || op->op == CLB_POW;
    return transcendental(op);
}

/* Elements per chunk of the functions CPU devices compute as straight-line
   code (cl/scalar_ops.cl's CLB_OWN_MATH, float16 and float32; sin, cos and tan
   with a chunk recomputed for a large argument, cl/elementwise.cl), which
   vectorise like plain ops; 0 for every other op. 16 where a work-group is a
   loop over its items (PoCL: at 4, the choice for heavy ops, clb_unary(CLB_LOG)
   took 1.6x the time). Where items run across SIMD lanes (llvmpipe), 2^22
   float32 in one run: 16 made the log family, tanh, sigmoid and expm1
   1.4-1.6x slower than 8, and sin, cos, tan and exp 1.1-1.2x faster (so they
   keep up with clb_eval's chunks of 16); 4 was 1.2-1.4x slower than the better
   of the two. */
static int own_math_vec(const clb__cl_context *cl, const clb__map_op *op)
{
    if (!cl->own_math || op->kind != CLB__MAP_UNARY ||
        (op->compute != CLB_FLOAT16 && op->compute != CLB_FLOAT32))
        return 0;
    switch (op->op) {
    case CLB_SIN: case CLB_COS: case CLB_TAN: case CLB_EXP: return 16;
    case CLB_LOG: case CLB_TANH: case CLB_SIGMOID: case CLB_EXPM1: case CLB_LOG1P: case CLB_LOG2:
    case CLB_LOG10: case CLB_ERF: return cl->loops ? 16 : 8;
    default: return 0;
    }
}

static const char *op_name(const clb__map_op *op)
{
    switch (op->kind) {
    case CLB__MAP_UNARY: return clb_unary_op_name((clb_unary_op)op->op);
    case CLB__MAP_BINARY: return clb_binary_op_name((clb_binary_op)op->op);
    case CLB__MAP_WHERE: break;
    }
    return "where";
}

/* A map small enough that a launch would cost more than the work, on storage
   the host shares (cl_buffer.c's SVM blocks) and with a typed host loop: waits for
   the queue (22 ns when it is idle, as it is in a loop of tiny ops) and runs the
   loop on this thread. Returns false, having done nothing, when it does not apply. */
static bool run_on_host(clb__cl_context *cl, const clb__map_op *op, const clb__plan *plan,
                        void *const *handles, clb_status *st)
{
    if (plan->numel > cl->host_tiny_max) return false;
    clb__host_loop_fn loop = clb__host_loop_find(op);
    if (!loop) return false;
    void *bases[CLB__MAX_OPERANDS];
    for (int k = 0; k < plan->nops; k++)
        if (!(bases[k] = clb__buffer_host_ptr(&cl->buffers, (cl_mem)handles[k]))) return false;
    cl_int err = clFinish(cl->queue);
    if (err != CL_SUCCESS) {
        *st = clb__cl_fail(err, "clFinish");
        return true;
    }
    clb__host_loop_run(loop, clb_dtype_size(op->out), plan, bases);
    *st = CLB_OK;
    return true;
}

/* Whether the host's scalar rule gives this device's result bit for bit: every
   integer and bool op; float ops but the transcendental functions and powers
   (the device's libm rounds its own way), with division and square roots only
   where the device rounds them correctly and subnormals where it keeps them. */
static bool exact_on_host(const clb__cl_context *cl, const clb__map_op *op)
{
    clb_dtype c = op->compute;
    if (c != CLB_FLOAT16 && c != CLB_FLOAT32 && c != CLB_FLOAT64) return true;
    if (op->kind == CLB__MAP_WHERE) return true;
    if (c != CLB_FLOAT64 && !clb__cl_fp32_denorm(cl)) return false;
    bool unary = op->kind == CLB__MAP_UNARY;
    if (transcendental(op)) return false;
    if (!unary && (op->op == CLB_POW || op->op == CLB_ATAN2 || op->op == CLB_HYPOT ||
                   op->op == CLB_LOGADDEXP))
        return false;
    bool rounds = unary ? op->op == CLB_SQRT || op->op == CLB_RSQRT
                        : op->op == CLB_DIV || op->op == CLB_FLOOR_DIV || op->op == CLB_MOD;
    return !rounds || c == CLB_FLOAT64 || clb__cl_correct_div_sqrt(cl);
}

_Atomic long clb__cl_first_tier_runs = 0;

/* A launch that does nothing (no rows) of the kernel `user` names (the layout
   the call that queued the build needs) of a freshly built map program, on one
   work item in a group of one, the groups CPU devices that run work-groups as
   loops are given (clb__cl_rows_geometry): PoCL finishes compiling a kernel at
   its first launch per group size, which the background thread then pays. */
static void warm_map(cl_program program, void *user)
{
    const char *name = user; /* a layout_kernel entry */
    cl_int err = CL_SUCCESS;
    cl_context context = NULL;
    cl_device_id device = NULL;
    if (clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS ||
        clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL) != CL_SUCCESS)
        return;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS) kernel = clCreateKernel(program, clb__kernel_function(CLB__KERNEL_MAP), &err);
    if (err != CL_SUCCESS) return;
    cl_uint nargs = 0, arg = 0;
    cl_mem none = NULL;
    cl_long16 zero;
    memset(&zero, 0, sizeof zero);
    err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
    for (; err == CL_SUCCESS && arg < MAP_OPS; arg++) err = clSetKernelArg(kernel, arg, sizeof none, &none);
    for (int v = 0; err == CL_SUCCESS && v < CLB_MAP_ARGS_VECS; v++, arg++)
        err = clSetKernelArg(kernel, arg, sizeof zero, &zero);
    if (err == CL_SUCCESS && arg < nargs) err = clSetKernelArg(kernel, arg, sizeof none, &none);
    /* A queue of its own: the context's may be the application's, whose
       commands must stay the library's calls in their order. */
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(context, device, 0, &err) : NULL;
    size_t one[2] = {1, 1};
    if (err == CL_SUCCESS &&
        clEnqueueNDRangeKernel(queue, kernel, 2, NULL, one, one, 0, NULL, NULL) == CL_SUCCESS)
        clFinish(queue);
    if (queue) clReleaseCommandQueue(queue);
    clReleaseKernel(kernel);
}

/* The first tier of a cold start: on a CPU device whose storage the host shares
   (as for tiny maps), a map whose program is neither in memory nor in the disk
   cache runs on this thread with the host's scalar rules, and the program
   compiles on the program cache's background thread; a later call finds it
   and launches. Only ops whose host result is the device's bit for bit take
   this path, so when a program arrives never changes a result. Off with
   CLB_HOST_TINY=0 (always launch). */
static bool first_tier(clb__cl_context *cl, const clb__map_op *op, const clb__plan *plan,
                       void *const *handles, const char *options, const char *kernel_name,
                       clb_status *st)
{
    if (cl->host_tiny_max <= 0 || !exact_on_host(cl, op)) return false;
    void *bases[CLB__MAX_OPERANDS];
    for (int k = 0; k < plan->nops; k++)
        if (!(bases[k] = clb__buffer_host_ptr(&cl->buffers, (cl_mem)handles[k]))) return false;
    /* In memory or on disk: the caller's build finds it there (loaded once). */
    cl_program built = NULL;
    *st = clb__program_cache_find_built(cl->programs, CLB__KERNEL_MAP, options, &built);
    if (*st != CLB_OK) return true;
    if (built) return false;
    clb__program_cache_prefetch(cl->programs, CLB__KERNEL_MAP, options, warm_map,
                                (void *)kernel_name);
    cl_int err = clFinish(cl->queue);
    if (err != CL_SUCCESS) {
        *st = clb__cl_fail(err, "clFinish");
        return true;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clb__host_map_run(op, plan, bases);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    clb__program_cache_tier_time(cl->programs, CLB__KERNEL_MAP, options, took);
    clb__cl_first_tier_runs++;
    *st = CLB_OK;
    return true;
}

clb_status clb__cl_map(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                       void *const *handles)
{
    clb__cl_context *cl = clb__cl_impl(ctx);
    if (plan->numel == 0) return CLB_OK;

    map_spec s = {.op = op, .nin = plan->nops - 1};
    if (!ctx->info.has_fp64) {
        bool fp64 = op->compute == CLB_FLOAT64 || op->out == CLB_FLOAT64;
        for (int i = 0; i < s.nin; i++) fp64 = fp64 || op->in[i] == CLB_FLOAT64;
        if (fp64)
            return clb__fail(CLB_ERR_DTYPE,
                             "%s with float64 operands or results needs float64 arithmetic, which "
                             "OpenCL device %s does not support (no cl_khr_fp64); use float32 or "
                             "the host backend (selector \"host\")",
                             op_name(op), ctx->info.name);
    }
    /* After the float64 check: small or large, an op the device cannot do fails alike. */
    clb_status host_st;
    if (run_on_host(cl, op, plan, handles, &host_st)) return host_st;

    clb__cl_pieces pieces;
    clb__cl_plan_pieces(plan, &pieces);
    s.wide = pieces.wide;
    s.table = plan->ndim > CLB_BYVAL_DIMS;
    s.blocked = clb__cl_blocked(ctx);
    /* CPU work items walk 16 elements per step: the per-step loop and pointer
       work is spread over a cache line of float32 (at 8 it cost a fifth of the
       row-broadcast bandwidth). Ops with branchy or built-in transcendental
       bodies are compute-bound and do not vectorise: 4, which also compiles
       several times faster than 16 copies of such a body; the library's own
       functions do (own_math_vec). GPU work items take 4, coalesced across
       items. */
    const int own_vec = own_math_vec(cl, op);
    s.vec = s.blocked && own_vec ? own_vec : !s.blocked || heavy_op(op) ? 4 : 16;
    s.nt = clb__cl_streaming(cl, plan->numel * (int64_t)clb_dtype_size(op->out));

    int layout = map_layout(op, plan);
    uint64_t key = spec_key(&s) << 3 | (uint64_t)layout;
    clb__cl_kernel *k = clb__cl_kernel_find(cl, CLB__KERNEL_MAP, key);
    if (!k) {
        char options[MAP_OPTIONS_MAX];
        clb_status st = map_options(cl, &s, options, sizeof options);
        if (st != CLB_OK) return st;
        if (first_tier(cl, op, plan, handles, options, layout_kernel[layout], &st)) return st;
        st = clb__cl_kernel_build_checked(cl, CLB__KERNEL_MAP, key, options, layout_kernel[layout], &k);
        if (st != CLB_OK) return st;
    }
    /* From here the kernel cache is locked until every piece is enqueued. */
    map_launch ml = {ctx, &s, k, handles};
    clb_status st = clb__cl_each_piece(plan, &pieces, launch_piece, &ml);
    clb__cl_kernel_unlock(cl);
    return st;
}
