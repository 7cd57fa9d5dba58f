/* Fault injection (built with -Dfault_injection=true): for a representative
 * set of public calls, on the host backend and every OpenCL device, make the
 * N-th host allocation, device buffer, program build, kernel enqueue or map
 * fail, for every N the call reaches. Each failed call must return the status
 * of that failure with a message, leave *out NULL, give back every byte
 * (clb_memory_allocated as before; the ASan build checks host leaks), and the
 * context must then run the same call again with the right result.
 *
 * Programs are cached per context, so build failures are walked separately on
 * fresh contexts with the disk cache off; every other kind is walked on a
 * context that has already run the call once. */
#include "testutil.h"

#include "fault.h"

#if CLB_HAVE_OPENCL
#include "clbroadcast_cl.h"
#endif

#include <limits.h>
#include <stdbool.h>

#define MAXOUT 2

typedef struct fixture {
    clb_context *ctx;
    clb_tensor *a;    /* float32 (3, 4) */
    clb_tensor *bias; /* float32 (4,) */
    clb_tensor *col;  /* int32 (3, 1) */
    clb_tensor *at;   /* a permuted: a view, (4, 3) */
    clb_tensor *wide; /* col broadcast to (3, 5): a view */
    clb_tensor *rev;  /* a[::-1, ::-2]: a view with negative strides, (3, 2) */
    clb_context *host; /* the host backend, for clb_tensor_to_context */
    clb_context *twin; /* a second context on the same device */
    clb_tensor *hwide; /* on host: float32 (4,) broadcast to (3, 4) */
} fixture;

/* One public call; outputs (tensors, or bytes for to_host) go to outs/host. */
typedef clb_status (*call_fn)(fixture *f, clb_tensor **outs, void *host);

typedef struct call {
    const char *name;
    call_fn fn;
    int nout; /* tensors written to outs; 0 for to_host */
} call;

static clb_status c_from_host(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    static const float v[6] = {1, 2, 3, 4, 5, 6};
    return clb_tensor_from_host(f->ctx, CLB_FLOAT32, 2, (const int64_t[]){2, 3}, v, &o[0]);
}
static clb_status c_empty(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_tensor_empty(f->ctx, CLB_INT64, 1, (const int64_t[]){5}, &o[0]);
}
static clb_status c_broadcast_to(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_broadcast_to(f->bias, 2, (const int64_t[]){3, 4}, &o[0]);
}
static clb_status c_broadcast_tensors(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const clb_tensor *in[2] = {f->bias, f->col};
    return clb_broadcast_tensors(2, in, o);
}
static clb_status c_contiguous(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_contiguous(f->at, &o[0]);
}
static clb_status c_cast(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_cast(f->col, CLB_FLOAT32, &o[0]);
}
static clb_status c_repeat(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_repeat(f->col, 3, (const int64_t[]){2, 1, 3}, &o[0]);
}
static clb_status c_reshape_copy(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_reshape(f->at, 1, (const int64_t[]){-1}, &o[0]);
}
static clb_status c_to_host(fixture *f, clb_tensor **o, void *h)
{
    (void)o;
    return clb_tensor_to_host(f->wide, h, 15 * sizeof(int32_t));
}
static clb_status c_binary(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_binary(CLB_ADD, f->a, f->bias, &o[0]);
}
static clb_status c_unary(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_unary(CLB_NEG, f->col, &o[0]);
}
static clb_status c_reduce(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_reduce(CLB_SUM, f->a, 1, (const int[]){0}, 0, &o[0]);
}
static clb_status c_sum_to_shape(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_sum_to_shape(f->a, 1, (const int64_t[]){4}, &o[0]);
}
static clb_status c_matmul(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_matmul(f->a, f->at, &o[0]);
}

static clb_status c_slice(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_slice(f->a, 1, CLB_NONE, 0, -1, &o[0]);
}
static clb_status c_contiguous_rev(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_contiguous(f->rev, &o[0]);
}
static clb_status c_binary_rev(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_binary(CLB_MUL, f->rev, f->rev, &o[0]);
}
static clb_status c_concat(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const clb_tensor *in[3] = {f->a, f->rev, f->a};
    return clb_concat(3, in, -1, &o[0]);
}
static clb_status c_stack(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const clb_tensor *in[2] = {f->rev, f->rev};
    return clb_stack(2, in, 0, &o[0]);
}

static clb_status c_to_host_ctx(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_tensor_to_context(f->rev, f->host, &o[0]);
}
static clb_status c_from_host_ctx(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_tensor_to_context(f->hwide, f->ctx, &o[0]);
}
static clb_status c_to_twin(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_tensor_to_context(f->at, f->twin, &o[0]);
}
/* A view over the storage's own cl_mem (clb_tensor_from_cl_buffer) into an op; on
   the host backend, which has no cl_mem, the op on the tensor itself. */
static clb_status c_from_cl_buffer(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
#if CLB_HAVE_OPENCL
    cl_mem buf = NULL;
    size_t off = 0;
    if (clb_tensor_get_cl_buffer(f->a, &buf, &off) == CLB_OK) {
        clb_tensor *w = NULL;
        o[0] = NULL; /* the op below never runs when the wrap fails */
        clb_status st = clb_tensor_from_cl_buffer(f->ctx, buf, off + 8 * sizeof(float),
                                                  CLB_FLOAT32, 2, (const int64_t[]){2, 3},
                                                  (const int64_t[]){-2, -1}, &w);
        if (st != CLB_OK) return st;
        st = clb_binary(CLB_MUL, w, w, &o[0]);
        clb_tensor_release(w);
        return st;
    }
#endif
    return clb_binary(CLB_MUL, f->rev, f->rev, &o[0]);
}
/* A view over the application's host memory (clb_tensor_from_host_memory: host
   backend only, so the fixture's host context on an OpenCL device) into an op. */
static clb_status c_from_host_memory(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    static float v[6] = {1, 2, 3, 4, 5, 6};
    clb_device_info info;
    CLBT_OK(clb_context_get_info(f->ctx, &info));
    clb_context *ctx = info.type == CLB_DEVICE_HOST ? f->ctx : f->host;
    clb_tensor *w = NULL;
    o[0] = NULL; /* the op below never runs when the wrap fails */
    clb_status st = clb_tensor_from_host_memory(ctx, v, sizeof v, CLB_FLOAT32, 2,
                                                (const int64_t[]){2, 3}, (const int64_t[]){1, 2}, &w);
    if (st != CLB_OK) return st;
    st = clb_binary(CLB_MUL, w, w, &o[0]);
    clb_tensor_release(w);
    return st;
}
static clb_status c_var(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_var(f->a, 1, (const int[]){1}, 1, 0, &o[0]);
}
static clb_status c_argmax(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_argmax(f->rev, 0, 0, &o[0]);
}
static clb_status c_softmax(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_softmax(f->a, -1, &o[0]);
}
static clb_status c_eval_reduce(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const char *names[2] = {"a", "b"};
    const clb_tensor *in[2] = {f->a, f->bias};
    return clb_eval_reduce(clb_tensor_context(f->a), "(a - b) * (a - b)", 2, names, in, CLB_SUM,
                           1, (const int[]){-1}, 0, &o[0]);
}
static clb_status c_einsum(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const clb_tensor *in[2] = {f->a, f->at};
    return clb_einsum("ij,jk->ik", 2, in, &o[0]);
}

/* The everyday API (issue 28). */
static clb_status c_full(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    const clb_scalar v = {.kind = CLB_SCALAR_FLOAT, .f = 2.5};
    return clb_full(f->ctx, CLB_FLOAT32, 2, (const int64_t[]){3, 4}, v, &o[0]);
}
static clb_status c_arange(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_arange(f->ctx, CLB_INT32, 0, 7, 1, &o[0]);
}
static clb_status c_linspace(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_linspace(f->ctx, CLB_FLOAT32, 0, 1, 6, 1, &o[0]);
}
static clb_status c_uniform(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_random_uniform(f->ctx, CLB_FLOAT32, 2, (const int64_t[]){3, 4}, 9, 0, 0, 1, &o[0]);
}
static clb_status c_normal(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_random_normal(f->ctx, CLB_FLOAT32, 2, (const int64_t[]){3, 4}, 9, 0, 0, 1, &o[0]);
}
static clb_status c_zeros_like(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_zeros_like(f->rev, &o[0]);
}
static clb_status c_swapaxes(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_swapaxes(f->a, 0, -1, &o[0]);
}
static clb_status c_isnan(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_unary(CLB_ISNAN, f->rev, &o[0]);
}
static clb_status c_any(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_reduce(CLB_ANY, f->a, 1, (const int[]){1}, 0, &o[0]);
}
static clb_status c_format(fixture *f, clb_tensor **o, void *h)
{
    (void)o;
    size_t need = 0;
    memset(h, 0, 15 * sizeof(int32_t));
    return clb_tensor_format(f->wide, h, 15 * sizeof(int32_t), &need);
}

static clb_status c_take_along(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    clb_tensor *idx = NULL;
    o[0] = NULL; /* the op below never runs when the indices fail */
    clb_status st = clb_tensor_from_host(clb_tensor_context(f->a), CLB_INT8, 2,
                                         (const int64_t[]){3, 1}, (const int8_t[]){0, -1, 1}, &idx);
    if (st != CLB_OK) return st;
    st = clb_take_along_axis(f->rev, idx, 1, &o[0]);
    clb_tensor_release(idx);
    return st;
}
static clb_status c_sort(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_sort(f->rev, 0, 1, &o[0], &o[1]);
}
static clb_status c_topk(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_topk(f->a, 2, -1, 1, &o[0], &o[1]);
}
/* a row of 12, k = 1: top-k in levels of chunks (cl_topk.c), scratch buffers included */
static clb_status c_topk_levels(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    clb_tensor *flat = NULL;
    o[0] = o[1] = NULL; /* the op below never runs when the view fails */
    clb_status st = clb_reshape(f->a, 1, (const int64_t[]){12}, &flat);
    if (st != CLB_OK) return st;
    st = clb_topk(flat, 1, 0, 0, &o[0], &o[1]);
    clb_tensor_release(flat);
    return st;
}
static clb_status c_cumsum(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_cumsum(f->wide, 1, &o[0]);
}
static clb_status c_masked_select(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    clb_tensor *mask = NULL;
    o[0] = NULL; /* the op below never runs when the mask fails */
    clb_status st = clb_binary(CLB_GT, f->a, f->bias, &mask);
    if (st != CLB_OK) return st;
    st = clb_masked_select(f->a, mask, &o[0]);
    clb_tensor_release(mask);
    return st;
}
static clb_status c_nonzero(fixture *f, clb_tensor **o, void *h)
{
    (void)h;
    return clb_nonzero(f->rev, &o[0]);
}

static const call calls[] = {
    {"full", c_full, 1},                   {"arange", c_arange, 1},
    {"linspace", c_linspace, 1},           {"random_uniform", c_uniform, 1},
    {"random_normal", c_normal, 1},        {"zeros_like", c_zeros_like, 1},
    {"swapaxes", c_swapaxes, 1},           {"unary isnan", c_isnan, 1},
    {"reduce any", c_any, 1},              {"tensor_format", c_format, 0},
    {"from_host", c_from_host, 1},         {"empty", c_empty, 1},
    {"broadcast_to", c_broadcast_to, 1},   {"broadcast_tensors", c_broadcast_tensors, 2},
    {"contiguous", c_contiguous, 1},       {"cast", c_cast, 1},
    {"repeat", c_repeat, 1},               {"reshape (copy)", c_reshape_copy, 1},
    {"to_host (broadcast)", c_to_host, 0}, {"binary add", c_binary, 1},
    {"unary neg", c_unary, 1},             {"reduce sum", c_reduce, 1},
    {"sum_to_shape", c_sum_to_shape, 1},   {"matmul", c_matmul, 1},
    {"slice", c_slice, 1},                 {"contiguous (negative strides)", c_contiguous_rev, 1},
    {"binary mul (negative strides)", c_binary_rev, 1},
    {"concat", c_concat, 1},               {"stack", c_stack, 1},
    {"to_context (to host)", c_to_host_ctx, 1},
    {"to_context (from host)", c_from_host_ctx, 1},
    {"to_context (twin)", c_to_twin, 1},
    {"from_cl_buffer", c_from_cl_buffer, 1},
    {"from_host_memory", c_from_host_memory, 1},
    {"var", c_var, 1},                     {"argmax", c_argmax, 1},
    {"softmax", c_softmax, 1},             {"eval_reduce", c_eval_reduce, 1},
    {"einsum", c_einsum, 1},
    {"take_along_axis", c_take_along, 1},  {"sort", c_sort, 2},
    {"topk", c_topk, 2},                   {"topk in levels", c_topk_levels, 2},
    {"cumsum", c_cumsum, 1},
    {"masked_select", c_masked_select, 1}, {"nonzero", c_nonzero, 1},
};
#define NCALLS ((int)(sizeof calls / sizeof calls[0]))

static clb_tensor *const SENTINEL = (clb_tensor *)(uintptr_t)0x10;

static void make_fixture(fixture *f, const char *selector)
{
    static const float a[12] = {1, -2, 3, 4, 5, 6, -7, 8, 9, 10, 11, 12};
    static const float bias[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    static const int32_t col[3] = {7, -8, 9};
    clb__fault_arm(0, 0);
    CLBT_OK(clb_context_create(selector, &f->ctx));
    f->a = clbt_tensor(f->ctx, CLB_FLOAT32, 2, (const int64_t[]){3, 4}, a);
    f->bias = clbt_tensor(f->ctx, CLB_FLOAT32, 1, (const int64_t[]){4}, bias);
    f->col = clbt_tensor(f->ctx, CLB_INT32, 2, (const int64_t[]){3, 1}, col);
    CLBT_OK(clb_permute(f->a, (const int[]){1, 0}, &f->at));
    CLBT_OK(clb_broadcast_to(f->col, 2, (const int64_t[]){3, 5}, &f->wide));
    clb_tensor *r = NULL;
    CLBT_OK(clb_slice(f->a, 0, CLB_NONE, CLB_NONE, -1, &r));
    CLBT_OK(clb_slice(r, 1, CLB_NONE, CLB_NONE, -2, &f->rev));
    clb_tensor_release(r);
    CLBT_OK(clb_context_create("host", &f->host));
    CLBT_OK(clb_context_create(selector, &f->twin));
    clb_tensor *hb = clbt_tensor(f->host, CLB_FLOAT32, 1, (const int64_t[]){4}, bias);
    CLBT_OK(clb_broadcast_to(hb, 2, (const int64_t[]){3, 4}, &f->hwide));
    clb_tensor_release(hb);
}

static void free_fixture(fixture *f)
{
    clb__fault_arm(0, 0);
    clb_tensor_release(f->a);
    clb_tensor_release(f->bias);
    clb_tensor_release(f->col);
    clb_tensor_release(f->at);
    clb_tensor_release(f->wide);
    clb_tensor_release(f->rev);
    clb_tensor_release(f->hwide);
    CLBT_OK(clb_finish(f->ctx));
    clb_context_release(f->ctx);
    clb_context_release(f->host);
    clb_context_release(f->twin);
}

/* Result bytes of a successful call (all outputs concatenated). */
typedef struct result {
    unsigned char bytes[512];
    size_t n;
} result;

static void collect(const call *c, clb_tensor **o, const void *host, result *r)
{
    r->n = 0;
    if (c->nout == 0) {
        memcpy(r->bytes, host, 15 * sizeof(int32_t));
        r->n = 15 * sizeof(int32_t);
        return;
    }
    if (c->fn == c_empty) { /* contents undefined: compare the shape only */
        int64_t numel = clb_tensor_numel(o[0]);
        memcpy(r->bytes, &numel, sizeof numel);
        r->n = sizeof numel;
        return;
    }
    for (int k = 0; k < c->nout; k++) {
        size_t bytes = (size_t)clb_tensor_numel(o[k]) * clb_dtype_size(clb_tensor_dtype(o[k]));
        assert_true(r->n + bytes <= sizeof r->bytes);
        CLBT_OK(clb_tensor_to_host(o[k], r->bytes + r->n, bytes));
        r->n += bytes;
    }
}

/* The status a fault of `kind` must surface as. */
static clb_status expected_status(int kind)
{
    switch (kind) {
    case CLB__FAULT_BUILD: return CLB_ERR_BUILD;
    case CLB__FAULT_MAP: return CLB_ERR_OPENCL;
    default: return CLB_ERR_OUT_OF_MEMORY; /* host alloc, buffer, enqueue (CL_OUT_OF_RESOURCES) */
    }
}

/* Runs the call with fault n of `kinds` armed; checks whatever happened.
   Returns whether the armed fault fired. */
static bool attempt(fixture *f, const call *c, unsigned kinds, long n, const result *want,
                    const char *selector)
{
    clb_tensor *o[MAXOUT] = {SENTINEL, SENTINEL};
    unsigned char host[15 * sizeof(int32_t)];
    /* Cached blocks would hide the backend allocations from the walk. */
    CLBT_OK(clb_empty_cache(f->ctx));
    size_t before = clb_memory_allocated(f->ctx);
    clb__fault_arm(kinds, n);
    clb_status st = c->fn(f, o, host);
    int fired = clb__fault_fired();
    clb__fault_arm(0, 0);
    if (fired < 0) {
        /* n is past the call's last failure point: a normal run. */
        if (st != CLB_OK) fail_msg("%s %s: %s", selector, c->name, clb_last_error());
    } else if (st != CLB_OK) {
        if (st != expected_status(fired) || clb_last_error()[0] == '\0')
            fail_msg("%s %s, fault %ld (kind %d): %s (expected %s): \"%s\"", selector, c->name,
                     n, fired, clb_status_name(st), clb_status_name(expected_status(fired)),
                     clb_last_error());
        for (int k = 0; k < c->nout; k++)
            if (o[k] != NULL)
                fail_msg("%s %s, fault %ld: out[%d] not NULL after failure", selector, c->name, n,
                         k);
        CLBT_OK(clb_finish(f->ctx));
        if (clb_memory_allocated(f->ctx) != before)
            fail_msg("%s %s, fault %ld: %zu bytes allocated, %zu before", selector, c->name, n,
                     clb_memory_allocated(f->ctx), before);
        /* The context keeps working: the same call again, unarmed. */
        for (int k = 0; k < MAXOUT; k++) o[k] = NULL;
        CLBT_OK(c->fn(f, o, host));
    }
    /* Either way the outputs now hold the right values. */
    result got;
    collect(c, o, host, &got);
    if (got.n != want->n || memcmp(got.bytes, want->bytes, got.n) != 0)
        fail_msg("%s %s, fault %ld: wrong result", selector, c->name, n);
    for (int k = 0; k < c->nout; k++) clb_tensor_release(o[k]);
    if (clb_memory_allocated(f->ctx) != before)
        fail_msg("%s %s, fault %ld: %zu bytes allocated after release, %zu before", selector,
                 c->name, n, clb_memory_allocated(f->ctx), before);
    return fired >= 0;
}

static int points_walked;

/* Reference run; false when the device does not support the call yet. */
static bool reference(fixture *f, const call *c, result *want, const char *selector)
{
    clb_tensor *o[MAXOUT] = {NULL, NULL};
    unsigned char host[15 * sizeof(int32_t)];
    clb_status st = c->fn(f, o, host);
    if (st != CLB_OK) fail_msg("%s %s: %s: %s", selector, c->name, clb_status_name(st), clb_last_error());
    collect(c, o, host, want);
    for (int k = 0; k < c->nout; k++) clb_tensor_release(o[k]);
    return true;
}

static void walk(const char *selector)
{
    for (int i = 0; i < NCALLS; i++) {
        const call *c = &calls[i];
        fixture f;
        result want;
        int points = 0;
        /* Every kind but builds, on a context whose programs are already built. */
        make_fixture(&f, selector);
        bool supported = reference(&f, c, &want, selector);
        for (long n = 1; supported && attempt(&f, c, CLB__FAULT_ALL & ~(1u << CLB__FAULT_BUILD),
                                              n, &want, selector);
             n++)
            points++;
        free_fixture(&f);
        /* Builds: a fresh context per point, nothing on disk, so each build happens. */
        for (long n = 1; supported; n++) {
            make_fixture(&f, selector);
            bool fired = attempt(&f, c, 1u << CLB__FAULT_BUILD, n, &want, selector);
            free_fixture(&f);
            if (!fired) break;
            points++;
        }
        points_walked += points;
        if (supported) print_message("  %-6s %-20s %d failure points\n", selector, c->name, points);
        else print_message("  %-6s %-20s not supported on this device yet\n", selector, c->name);
        if (supported && points == 0)
            fail_msg("%s %s: no failure point reached", selector, c->name);
    }
}

static void test_walk(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    setenv("CLB_CACHE_DIR", "off", 1);
    for (int i = 0; i < n; i++) walk(sel[i]);
    print_message("  %d failure points walked\n", points_walked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
