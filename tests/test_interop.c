/* OpenCL interop (include/clbroadcast_cl.h, issue 15): reference counts of every
 * handle given to or taken from the library, ordering with the application's own
 * kernels on a shared in-order queue, the application's buffers (contiguous,
 * strided, offset, broadcast, negative strides) as inputs and outputs of ops, the
 * errors for views outside a buffer and buffers of another cl_context, and
 * clb_tensor_to_context between every pair of host, PoCL, rusticl and a second
 * context on one device.
 *
 * Runs on every OpenCL device clb_device_count lists (the host backend has no
 * OpenCL objects and only appears in the to_context pairs and its refusals). */
/* OpenCL 2.0 for the SVM capabilities query (test_library_blocks) */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clbroadcast_cl.h"

#include "testutil.h"

#include <time.h>

typedef struct app {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    char name[256];
} app;

static const char *APP_SRC =
    "__kernel void add1(__global float *x, int off) { x[off + get_global_id(0)] += 1.0f; }\n"
    "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f; }\n";

/* The application's own context and queue on OpenCL device `index`. */
static void app_open(int index, app *a)
{
    memset(a, 0, sizeof *a);
    clb_context *probe = NULL;
    char sel[16];
    snprintf(sel, sizeof sel, "%d", index);
    CLBT_OK(clb_context_create(sel, &probe));
    CLBT_OK(clb_context_get_cl(probe, NULL, &a->device, NULL));
    snprintf(a->name, sizeof a->name, "%s", clb_context_device_name(probe));
    assert_int_equal(clGetDeviceInfo(a->device, CL_DEVICE_PLATFORM, sizeof a->platform,
                                     &a->platform, NULL), CL_SUCCESS);
    clb_context_release(probe); /* the device id stays valid: root devices are not refcounted */
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)a->platform, 0};
    a->context = clCreateContext(props, 1, &a->device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    a->queue = clCreateCommandQueue(a->context, a->device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
}

static void app_close(app *a)
{
    clReleaseCommandQueue(a->queue);
    clReleaseContext(a->context);
}

static cl_uint ctx_refs(cl_context c)
{
    cl_uint n = 0;
    assert_int_equal(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}
static cl_uint mem_refs(cl_mem m)
{
    cl_uint n = 0;
    assert_int_equal(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}
static cl_uint queue_refs(cl_command_queue q)
{
    cl_uint n = 0;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

static cl_mem app_buffer(app *a, size_t n, const float *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(a->context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    if (init)
        assert_int_equal(clEnqueueWriteBuffer(a->queue, m, CL_TRUE, 0, n * sizeof(float), init, 0,
                                              NULL, NULL),
                         CL_SUCCESS);
    return m;
}

static int opencl_devices(void)
{
    char sel[CLBT_MAX_DEVICES][32];
    (void)clbt_selectors(sel); /* enforces CLB_TEST_REQUIRE */
    int n = 0;
    CLBT_OK(clb_device_count(&n));
    return n;
}

/* ---- reference counts ------------------------------------------------------------ */

/* driver_holds: after the library ran a kernel on the buffer, a driver may keep
   it referenced from the kernel object's arguments (rusticl does; the library
   keeps kernel objects for reuse) until the context goes; the library's own
   references are then a lower bound. Every release order ends at the baseline.
   Counted once the queue has drained, and polled for up to two seconds: drivers
   (PoCL, rusticl) drop the references their finished commands hold on the queue,
   buffers and kernels from a worker thread, shortly after clFinish returns. */
typedef struct refs_base {
    const char *device;
    cl_uint c0, q0, m0;
    bool driver_holds;
} refs_base;

static void expect_refs(const refs_base *b, const char *step, cl_context c, cl_command_queue q,
                        cl_mem m, int dc, int dq, int dm)
{
    int gc = 0, gq = 0, gm = 0;
    bool ok = false;
    for (int tries = 0; tries < 2000 && !ok; tries++) {
        if (tries) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        clFinish(q);
        gc = (int)ctx_refs(c) - (int)b->c0;
        gq = (int)queue_refs(q) - (int)b->q0;
        gm = m ? (int)mem_refs(m) - (int)b->m0 : 0;
        ok = (dc < 0 || gc == dc) && gq == dq &&
             (!m || gm == dm || (b->driver_holds && gm > dm));
    }
    printf("  %-44s context %+d  queue %+d  buffer %+d\n", step, gc, gq, gm);
    if (dc >= 0 && gc != dc)
        fail_msg("%s: %s: context refs %+d, expected %+d", b->device, step, gc, dc);
    if (gq != dq) fail_msg("%s: %s: queue refs %+d, expected %+d", b->device, step, gq, dq);
    if (m && gm != dm && !(b->driver_holds && gm > dm))
        fail_msg("%s: %s: buffer refs %+d, expected %+d", b->device, step, gm, dm);
}
#define EXPECT_REFS(step, c, q, m, dc, dq, dm) expect_refs(&base, step, c, q, m, dc, dq, dm)

/* The baseline, once the counts have stopped moving (the initial write's command
   may still be letting go of the context on the driver's thread). */
static refs_base settled_base(const char *device, cl_context c, cl_command_queue q, cl_mem m)
{
    refs_base b = {device, 0, 0, 0, false}, prev = b;
    int same = 0;
    for (int tries = 0; tries < 400 && same < 5; tries++) {
        clFinish(q);
        b.c0 = ctx_refs(c);
        b.q0 = queue_refs(q);
        b.m0 = mem_refs(m);
        same = tries && b.c0 == prev.c0 && b.q0 == prev.q0 && b.m0 == prev.m0 ? same + 1 : 0;
        prev = b;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return b;
}

static void test_refcounts(void **state)
{
    (void)state;
    int n = opencl_devices();
    if (n == 0) skip();
    for (int i = 0; i < n; i++) {
        app a;
        app_open(i, &a);
        float init[16] = {0};
        cl_mem buf = app_buffer(&a, 16, init);
        clFinish(a.queue);
        refs_base base = settled_base(a.name, a.context, a.queue, buf);
        printf("%s (baseline: context %u, queue %u, buffer %u)\n", a.name, base.c0, base.q0,
               base.m0);

        /* Release order 1: views, then the tensor, then the context. */
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        EXPECT_REFS("clb_context_create_from_cl", a.context, a.queue, buf, 1, 1, 0);
        cl_context gc = NULL;
        cl_device_id gd = NULL;
        cl_command_queue gq = NULL;
        CLBT_OK(clb_context_get_cl(ctx, &gc, &gd, &gq));
        assert_ptr_equal(gc, a.context);
        assert_ptr_equal(gd, a.device);
        assert_ptr_equal(gq, a.queue);
        EXPECT_REFS("clb_context_get_cl (borrowed)", a.context, a.queue, buf, 1, 1, 0);
        size_t before = clb_memory_allocated(ctx);
        clb_tensor *t = NULL, *v = NULL;
        int64_t shape[] = {4, 4};
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, shape, NULL, &t));
        assert_int_equal(clb_memory_allocated(ctx), before); /* no copy: 0 bytes */
        EXPECT_REFS("clb_tensor_from_cl_buffer", a.context, a.queue, buf, -1, 1, 1);
        cl_mem got = NULL;
        size_t off = 99;
        CLBT_OK(clb_tensor_get_cl_buffer(t, &got, &off));
        assert_ptr_equal(got, buf);
        assert_int_equal(off, 0);
        EXPECT_REFS("clb_tensor_get_cl_buffer (borrowed)", a.context, a.queue, buf, -1, 1, 1);
        CLBT_OK(clb_slice(t, 0, 1, 3, 1, &v));
        CLBT_OK(clb_tensor_get_cl_buffer(v, &got, &off));
        assert_ptr_equal(got, buf);
        assert_int_equal(off, 4 * sizeof(float));
        EXPECT_REFS("clb_slice view of it", a.context, a.queue, buf, -1, 1, 1);
        clb_tensor *sum = NULL;
        CLBT_OK(clb_binary(CLB_ADD, t, t, &sum)); /* library storage and programs */
        clb_tensor_release(sum);
        CLBT_OK(clb_finish(ctx));
        base.driver_holds = true;
        EXPECT_REFS("an op, its result released", a.context, a.queue, buf, -1, 1, 1);
        clb_tensor_release(t);
        EXPECT_REFS("tensor released, view alive", a.context, a.queue, buf, -1, 1, 1);
        /* The last view gone, no kernel object may keep the buffer (issue 26,
           finding 12: rusticl's kept one or two references until the context went). */
        base.driver_holds = false;
        clb_tensor_release(v);
        EXPECT_REFS("view released", a.context, a.queue, buf, -1, 1, 0);
        clb_context_release(ctx);
        base.driver_holds = false;
        EXPECT_REFS("context released (order 1)", a.context, a.queue, buf, 0, 0, 0);

        /* Release order 2: the context first; the tensor keeps everything alive. */
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, shape, NULL, &t));
        clb_context_release(ctx);
        EXPECT_REFS("context released first, tensor alive", a.context, a.queue, buf, -1, 1, 1);
        float back[16];
        CLBT_OK(clb_tensor_to_host(t, back, sizeof back)); /* still usable */
        clb_tensor_release(t);
        EXPECT_REFS("tensor released (order 2)", a.context, a.queue, buf, 0, 0, 0);

        /* Release order 3: two tensors over one buffer, the app's buffer released
           first by the application: the library's reference keeps it. */
        cl_mem own = app_buffer(&a, 16, init);
        cl_uint own0 = mem_refs(own);
        clb_tensor *t2 = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, own, 0, CLB_FLOAT32, 2, shape, NULL, &t));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, own, 16, CLB_FLOAT32, 1, shape, NULL, &t2));
        assert_int_equal(mem_refs(own), own0 + 2);
        clReleaseMemObject(own); /* the application lets go */
        assert_int_equal(mem_refs(own), own0 + 1);
        clb_context_release(ctx);
        clb_tensor_release(t2);
        assert_int_equal(mem_refs(own), own0);
        CLBT_OK(clb_tensor_to_host(t, back, sizeof back));
        clb_tensor_release(t); /* the last reference: the buffer goes */
        EXPECT_REFS("app buffer released first (order 3)", a.context, a.queue, buf, 0, 0, 0);

        /* queue NULL: the library's own queue, released with the context. */
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, NULL, &ctx));
        CLBT_OK(clb_context_get_cl(ctx, NULL, NULL, &gq));
        assert_ptr_not_equal(gq, a.queue);
        cl_command_queue_properties props = 1;
        assert_int_equal(clGetCommandQueueInfo(gq, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL),
                         CL_SUCCESS);
        assert_int_equal(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);
        EXPECT_REFS("create_from_cl, queue NULL", a.context, a.queue, buf, -1, 0, 0);
        clb_context_release(ctx);
        EXPECT_REFS("its context released", a.context, a.queue, buf, 0, 0, 0);

        /* Failures retain nothing. */
        clb_context *bad = (clb_context *)&a;
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
                   clb_context_create_from_cl(a.context, NULL, a.queue, &bad));
        assert_null(bad);
        EXPECT_REFS("failed create_from_cl", a.context, a.queue, buf, 0, 0, 0);

        clReleaseMemObject(buf);
        app_close(&a);
    }
}

/* ---- ordering on the application's queue ----------------------------------------- */

static cl_kernel app_kernel(app *a, cl_program *prog, const char *name)
{
    cl_int err = CL_SUCCESS;
    *prog = clCreateProgramWithSource(a->context, 1, &APP_SRC, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    err = clBuildProgram(*prog, 1, &a->device, "", NULL, NULL);
    if (err != CL_SUCCESS) fail_msg("%s: building the app kernel: %d", a->name, err);
    cl_kernel k = clCreateKernel(*prog, name, &err);
    assert_int_equal(err, CL_SUCCESS);
    return k;
}

static void run_add1(app *a, cl_kernel k, cl_mem m, int off, size_t n)
{
    assert_int_equal(clSetKernelArg(k, 0, sizeof m, &m), CL_SUCCESS);
    assert_int_equal(clSetKernelArg(k, 1, sizeof off, &off), CL_SUCCESS);
    assert_int_equal(clEnqueueNDRangeKernel(a->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void test_ordering(void **state)
{
    (void)state;
    int n = opencl_devices();
    if (n == 0) skip();
    enum { N = 4096 };
    float *init = malloc(N * sizeof *init), *back = malloc(N * sizeof *back);
    assert_non_null(init);
    assert_non_null(back);
    for (int i = 0; i < N; i++) init[i] = (float)(i % 1000);
    for (int d = 0; d < n; d++) {
        app a;
        app_open(d, &a);
        cl_program prog = NULL;
        cl_kernel add1 = app_kernel(&a, &prog, "add1");
        cl_mem buf = app_buffer(&a, N, init);
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        int64_t shape[] = {N};
        clb_tensor *x = NULL, *y = NULL, *two = NULL;
        float two_v = 2.0f;
        int64_t one[] = {1};
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, one, &two_v, &two));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, shape, NULL, &x));
        int rounds_ok = 0;
        for (int round = 0; round < 8; round++) {
            /* app kernel -> library op: the op sees the kernel's write */
            run_add1(&a, add1, buf, 0, N);
            CLBT_OK(clb_binary(CLB_MUL, x, two, &y));
            /* library op -> app kernel on the result's buffer: the kernel sees it */
            cl_mem ym = NULL;
            size_t yoff = 1;
            CLBT_OK(clb_tensor_get_cl_buffer(y, &ym, &yoff));
            if (round == 0) {
                void *hp = NULL;
                clGetMemObjectInfo(ym, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL);
                printf("%s: library storage %s\n", a.name,
                       hp ? "is SVM / host memory (CL_MEM_USE_HOST_PTR): its cl_mem used by the "
                            "app kernel"
                          : "is a plain device buffer");
            }
            run_add1(&a, add1, ym, (int)(yoff / sizeof(float)), N);
            /* library op into the app's buffer -> app kernel on it */
            CLBT_OK(clb_binary_into(CLB_ADD, y, two, x));
            run_add1(&a, add1, buf, 0, N);
            /* a blocking read on the same queue (no clFinish anywhere) */
            assert_int_equal(clEnqueueReadBuffer(a.queue, buf, CL_TRUE, 0, N * sizeof(float), back,
                                                 0, NULL, NULL),
                             CL_SUCCESS);
            for (int i = 0; i < N; i++) {
                float want = ((init[i] + 1.0f) * 2.0f + 1.0f) + 2.0f + 1.0f;
                if (back[i] != want)
                    fail_msg("%s round %d: element %d is %g, expected %g (an ordering gap)",
                             a.name, round, i, back[i], want);
                init[i] = want;
            }
            clb_tensor_release(y);
            y = NULL;
            rounds_ok++;
        }
        printf("%s: %d rounds of app kernel -> op -> app kernel -> op_into -> app kernel, "
               "no clFinish: all values as ordered\n", a.name, rounds_ok);
        for (int i = 0; i < N; i++) init[i] = (float)(i % 1000);
        clb_tensor_release(x);
        clb_tensor_release(two);
        clb_context_release(ctx);

        /* out-of-order queues are refused (the header's choice) */
        cl_int err = CL_SUCCESS;
        cl_command_queue ooo =
            clCreateCommandQueue(a.context, a.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
        if (err == CL_SUCCESS && ooo) {
            ctx = (clb_context *)&a;
            CLBT_FAILS(CLB_ERR_UNSUPPORTED, clb_context_create_from_cl(a.context, a.device, ooo, &ctx));
            assert_null(ctx);
            assert_non_null(strstr(clb_last_error(), "out of order"));
            clReleaseCommandQueue(ooo);
        } else {
            printf("%s: no out-of-order queues (%d)\n", a.name, err);
        }
        clReleaseKernel(add1);
        clReleaseProgram(prog);
        clReleaseMemObject(buf);
        app_close(&a);
    }
    free(init);
    free(back);
}

/* ---- the application's buffers as inputs and outputs ------------------------------ */

typedef struct view {
    const char *what;
    int ndim;
    int64_t shape[3];
    int64_t strides[3];
    int64_t offset; /* elements */
} view;

static const view VIEWS[] = {
    {"contiguous", 2, {4, 4}, {4, 1}, 0},
    {"offset", 2, {3, 5}, {5, 1}, 7},
    {"strided", 2, {3, 4}, {16, 3}, 2},
    {"broadcast", 2, {4, 4}, {0, 1}, 5},
    {"negative strides", 2, {4, 4}, {-10, -2}, 60},
    {"permuted 3-d", 3, {2, 3, 4}, {1, 24, 6}, 1},
};
#define NVIEWS (sizeof VIEWS / sizeof VIEWS[0])
enum { BUF = 96 };

/* The view's logical values from the buffer's contents, C order. */
static void gather(const float *buf, const view *v, float *out)
{
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, off = v->offset;
        for (int d = v->ndim - 1; d >= 0; d--) {
            off += rem % v->shape[d] * v->strides[d];
            rem /= v->shape[d];
        }
        out[i] = buf[off];
    }
}

typedef clb_status (*op_fn)(const clb_tensor *in, clb_tensor **out);
static clb_status op_add(const clb_tensor *t, clb_tensor **o) { return clb_binary(CLB_ADD, t, t, o); }
static clb_status op_sqrt(const clb_tensor *t, clb_tensor **o) { return clb_unary(CLB_SQRT, t, o); }
static clb_status op_sum(const clb_tensor *t, clb_tensor **o)
{
    int axis = 0;
    return clb_reduce(CLB_SUM, t, 1, &axis, 0, o);
}
static clb_status op_max(const clb_tensor *t, clb_tensor **o) { return clb_reduce(CLB_MAX, t, 0, NULL, 0, o); }
static clb_status op_copy(const clb_tensor *t, clb_tensor **o) { return clb_contiguous(t, o); }
static clb_status op_cast(const clb_tensor *t, clb_tensor **o) { return clb_cast(t, CLB_INT32, o); }
static clb_status op_sum_to(const clb_tensor *t, clb_tensor **o)
{
    int64_t s[3] = {1, 1, 1};
    s[clb_tensor_ndim(t) - 1] = clb_tensor_shape(t)[clb_tensor_ndim(t) - 1];
    return clb_sum_to_shape(t, clb_tensor_ndim(t), s, o);
}
static clb_status op_eval(const clb_tensor *t, clb_tensor **o)
{
    const char *names[] = {"x"};
    const clb_tensor *in[] = {t};
    return clb_eval(clb_tensor_context(t), "x * x + 1", 1, names, in, o);
}
static clb_status op_matmul(const clb_tensor *t, clb_tensor **o)
{
    if (clb_tensor_ndim(t) != 2) return clb_contiguous(t, o);
    clb_tensor *tt = NULL;
    int perm[] = {1, 0};
    clb_status st = clb_permute(t, perm, &tt);
    if (st == CLB_OK) st = clb_matmul(t, tt, o);
    clb_tensor_release(tt);
    return st;
}
static const struct {
    const char *name;
    op_fn fn;
} OPS[] = {{"add", op_add},   {"sqrt", op_sqrt},       {"sum axis 0", op_sum},
           {"max", op_max},   {"contiguous", op_copy}, {"cast int32", op_cast},
           {"sum_to_shape", op_sum_to}, {"eval", op_eval}, {"matmul x @ x.T", op_matmul}};

static void test_app_buffers(void **state)
{
    (void)state;
    int n = opencl_devices();
    if (n == 0) skip();
    clb_context *host = clbt_host();
    float data[BUF], back[BUF], logical[64];
    for (int i = 0; i < BUF; i++) data[i] = (float)(i * 0.25 + 1);
    for (int d = 0; d < n; d++) {
        app a;
        app_open(d, &a);
        cl_mem buf = app_buffer(&a, BUF, data);
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        for (size_t v = 0; v < NVIEWS; v++) {
            const view *w = &VIEWS[v];
            clb_tensor *t = NULL, *ref = NULL;
            CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, (size_t)w->offset * sizeof(float),
                                              CLB_FLOAT32, w->ndim, w->shape, w->strides, &t));
            for (int k = 0; k < w->ndim; k++) assert_int_equal(clb_tensor_strides(t)[k], w->strides[k]);
            assert_int_equal(clb_tensor_offset(t), w->offset);
            gather(data, w, logical);
            CLBT_OK(clb_tensor_from_host(host, CLB_FLOAT32, w->ndim, w->shape, logical, &ref));
            for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
                clb_tensor *got = NULL, *want = NULL;
                CLBT_OK(OPS[o].fn(t, &got));
                CLBT_OK(OPS[o].fn(ref, &want));
                char what[512];
                snprintf(what, sizeof what, "%s: %s of an app buffer view (%s)", a.name,
                         OPS[o].name, w->what);
                clbt_assert_matches_host(got, want, 1e-5, 1e-5, what);
                clb_tensor_release(got);
                clb_tensor_release(want);
            }
            clb_tensor_release(ref);
            clb_tensor_release(t);
        }

        /* Outputs: clb_binary_into and clb_eval_into write exactly the view's elements. */
        for (size_t v = 0; v < NVIEWS; v++) {
            const view *w = &VIEWS[v];
            assert_int_equal(clEnqueueWriteBuffer(a.queue, buf, CL_TRUE, 0, sizeof data, data, 0,
                                                  NULL, NULL),
                             CL_SUCCESS);
            clb_tensor *o = NULL, *x = NULL, *y = NULL;
            CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, (size_t)w->offset * sizeof(float),
                                              CLB_FLOAT32, w->ndim, w->shape, w->strides, &o));
            int64_t numel = clb_tensor_numel(o);
            float xs[64];
            for (int i = 0; i < numel; i++) xs[i] = (float)(1000 + i);
            CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, w->ndim, w->shape, xs, &x));
            if (strcmp(w->what, "broadcast") == 0) {
                CLBT_FAILS(CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, x, x, o));
                clb_tensor_release(o);
                clb_tensor_release(x);
                continue;
            }
            const char *names[] = {"x"};
            const clb_tensor *ins[] = {x};
            bool use_eval = v % 2 == 1;
            if (use_eval)
                CLBT_OK(clb_eval_into(ctx, "x + x", 1, names, ins, o));
            else
                CLBT_OK(clb_binary_into(CLB_ADD, x, x, o));
            /* the result through the library and through the application's read */
            CLBT_OK(clb_contiguous(o, &y));
            float got[64];
            CLBT_OK(clb_tensor_to_host(y, got, sizeof got));
            assert_int_equal(clEnqueueReadBuffer(a.queue, buf, CL_TRUE, 0, sizeof back, back, 0,
                                                 NULL, NULL),
                             CL_SUCCESS);
            float expect[BUF];
            memcpy(expect, data, sizeof data);
            for (int64_t i = 0; i < numel; i++) {
                int64_t rem = i, off = w->offset;
                for (int k = w->ndim - 1; k >= 0; k--) {
                    off += rem % w->shape[k] * w->strides[k];
                    rem /= w->shape[k];
                }
                expect[off] = 2.0f * xs[i];
                if (got[i] != 2.0f * xs[i])
                    fail_msg("%s: %s into %s view: element %lld is %g", a.name,
                             use_eval ? "clb_eval_into" : "clb_binary_into", w->what,
                             (long long)i, got[i]);
            }
            for (int i = 0; i < BUF; i++)
                if (back[i] != expect[i])
                    fail_msg("%s: _into a %s view: buffer element %d is %g, expected %g", a.name,
                             w->what, i, back[i], expect[i]);
            clb_tensor_release(y);
            clb_tensor_release(o);
            clb_tensor_release(x);
        }
        assert_int_equal(clb_memory_allocated(ctx), 0);
        clb_context_release(ctx);
        clReleaseMemObject(buf);
        app_close(&a);
    }
    clb_context_release(host);
}

/* ---- errors ---------------------------------------------------------------------- */

#define EXPECT_MSG(status, call, text)                                                             \
    do {                                                                                           \
        CLBT_FAILS(status, call);                                                                  \
        if (!strstr(clb_last_error(), text))                                                       \
            fail_msg("%s: the message should say \"%s\": \"%s\"", #call, text, clb_last_error());  \
    } while (0)

static void test_errors(void **state)
{
    (void)state;
    clb_context *host = clbt_host();
    clb_tensor *ht = NULL, *out = NULL;
    int64_t shape[] = {4};
    float v[4] = {1, 2, 3, 4};
    CLBT_OK(clb_tensor_from_host(host, CLB_FLOAT32, 1, shape, v, &ht));
    cl_context c = (cl_context)1;
    cl_mem m = (cl_mem)1;
    size_t off = 7;
    EXPECT_MSG(CLB_ERR_UNSUPPORTED, clb_context_get_cl(host, &c, NULL, NULL), "host backend");
    assert_null(c);
    EXPECT_MSG(CLB_ERR_UNSUPPORTED, clb_tensor_get_cl_buffer(ht, &m, &off), "host backend");
    assert_null(m);
    assert_int_equal(off, 0);
    EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_tensor_get_cl_buffer(NULL, &m, NULL), "t is NULL");
    EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_context_get_cl(NULL, NULL, NULL, NULL), "ctx is NULL");
    out = (clb_tensor *)ht;
    EXPECT_MSG(CLB_ERR_UNSUPPORTED,
               clb_tensor_from_cl_buffer(host, (cl_mem)1, 0, CLB_FLOAT32, 1, shape, NULL, &out),
               "host backend");
    assert_null(out);
    clb_context *cx = host;
    EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_context_create_from_cl(NULL, NULL, NULL, &cx),
               "context is NULL");
    assert_null(cx);
    clb_tensor_release(ht);

    int n = opencl_devices();
    for (int d = 0; d < n; d++) {
        app a, b;
        app_open(d, &a);
        app_open(d, &b); /* a second cl_context on the same device */
        cl_mem buf = app_buffer(&a, 64, NULL), foreign = app_buffer(&b, 64, NULL);
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        size_t before = clb_memory_allocated(ctx);
        int64_t s10[] = {10}, big[] = {65}, s2[] = {2}, neg[] = {-1};
        out = (clb_tensor *)1;
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 60 * 4, CLB_FLOAT32, 1, s10, NULL, &out),
                   "outside the buffer");
        assert_null(out);
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, big, NULL, &out),
                   "256 bytes");
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, s2, neg, &out),
                   "before the buffer");
        int64_t huge[] = {INT64_MAX / 2};
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, s10, huge, &out),
                   "overflow");
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, foreign, 0, CLB_FLOAT32, 1, s10, NULL, &out),
                   "another cl_context");
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 2, CLB_FLOAT32, 1, s10, NULL, &out),
                   "multiple");
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, NULL, 0, CLB_FLOAT32, 1, s10, NULL, &out),
                   "buffer is NULL");
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_tensor_from_cl_buffer(ctx, buf, 0, (clb_dtype)99, 1, s10, NULL, &out),
                   "dtype");
        assert_null(out);
        assert_int_equal(clb_memory_allocated(ctx), before);
        /* the exact fit is fine, and so is a buffer-sized stride-0 view */
        int64_t s64[] = {64};
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, s64, NULL, &out));
        clb_tensor_release(out);
        /* mismatched handles */
        clb_context *cx2 = (clb_context *)1;
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT,
                   clb_context_create_from_cl(a.context, a.device, b.queue, &cx2),
                   "another cl_context");
        assert_null(cx2);
        /* a mixed-context op names both devices and points to clb_tensor_to_context */
        clb_context *other = NULL;
        CLBT_OK(clb_context_create_from_cl(b.context, b.device, b.queue, &other));
        clb_tensor *x = NULL, *y = NULL, *z = (clb_tensor *)1;
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, s2, v, &x));
        CLBT_OK(clb_tensor_from_host(host, CLB_FLOAT32, 1, s2, v, &y));
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_binary(CLB_ADD, x, y, &z), "clb_tensor_to_context");
        assert_null(z);
        if (!strstr(clb_last_error(), a.name) || !strstr(clb_last_error(), "host"))
            fail_msg("the mixed-context message should name both devices: \"%s\"", clb_last_error());
        clb_tensor_release(y);
        CLBT_OK(clb_tensor_from_host(other, CLB_FLOAT32, 1, s2, v, &y));
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_matmul(x, y, &z), "clb_tensor_to_context");
        clb_tensor_release(x);
        clb_tensor_release(y);
        clb_context_release(other);
        clb_context_release(ctx);
        clReleaseMemObject(buf);
        clReleaseMemObject(foreign);
        app_close(&a);
        app_close(&b);
    }
    clb_context_release(host);
}

/* ---- aliasing by memory (issue 26, findings 7 and 16) ------------------------------- */

/* Overlap is decided by the bytes a view touches, whatever storage record it came
   from: two wraps of one cl_mem share storage, an in-place transpose through them
   is refused (it once returned CLB_OK with half of the elements wrong), a wrap of
   a sub-buffer aliases its parent's wrap, a self-overlapping out ((4, 4) with
   strides (1, 1)) is refused, and so is a CL_MEM_READ_ONLY buffer as out. The
   same views made with the library's own calls behave the same. */
static void test_aliasing_by_memory(void **state)
{
    (void)state;
    int n = opencl_devices();
    for (int d = 0; d < n; d++) {
        app a;
        app_open(d, &a);
        enum { N = 64 };
        float init[N * N];
        for (int i = 0; i < N * N; i++) init[i] = (float)i;
        cl_mem buf = app_buffer(&a, N * N, init);
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        const int64_t shape[2] = {N, N}, tstrides[2] = {1, N};
        clb_tensor *x = NULL, *xt = NULL, *y = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, shape, NULL, &x));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, shape, tstrides, &xt));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, shape, NULL, &y));
        assert_int_equal(clb_tensor_shares_storage(x, xt), 1);
        assert_int_equal(clb_tensor_shares_storage(x, y), 1);
        const char *names[1] = {"x"};
        const clb_tensor *in[1] = {x};
        EXPECT_MSG(CLB_ERR_ALIASING, clb_eval_into(ctx, "x", 1, names, in, xt), "overlaps");
        EXPECT_MSG(CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, x, x, xt), "overlaps");
        /* exactly the same elements through another wrap: in place, allowed */
        CLBT_OK(clb_binary_into(CLB_ADD, x, x, y));
        float got[N * N];
        CLBT_OK(clb_tensor_to_host(x, got, sizeof got));
        for (int i = 0; i < N * N; i++) assert_true(got[i] == 2.0f * (float)i);
        /* the library's own views of one wrap say the same */
        clb_tensor *p = NULL;
        CLBT_OK(clb_permute(x, (const int[]){1, 0}, &p));
        EXPECT_MSG(CLB_ERR_ALIASING, clb_eval_into(ctx, "x", 1, names, in, p), "overlaps");
        clb_tensor_release(p);
        /* disjoint halves of one buffer through two wraps: fine */
        const int64_t half[1] = {N * N / 2};
        clb_tensor *lo = NULL, *hi = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 1, half, NULL, &lo));
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, N * N / 2 * sizeof(float), CLB_FLOAT32, 1,
                                          half, NULL, &hi));
        assert_int_equal(clb_tensor_shares_storage(lo, hi), 1);
        const clb_tensor *lin[1] = {lo};
        CLBT_OK(clb_eval_into(ctx, "x", 1, names, lin, hi));
        /* a sub-buffer's wrap aliases its parent's */
        cl_uint align_bits = 0;
        assert_int_equal(clGetDeviceInfo(a.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                                         &align_bits, NULL), CL_SUCCESS);
        cl_buffer_region region = {align_bits / 8, 256 * sizeof(float)};
        cl_int err = CL_SUCCESS;
        cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                       &region, &err);
        assert_int_equal(err, CL_SUCCESS);
        const int64_t s256[1] = {256};
        clb_tensor *sv = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, sub, 0, CLB_FLOAT32, 1, s256, NULL, &sv));
        assert_int_equal(clb_tensor_shares_storage(sv, lo), 1);
        clb_tensor *q = NULL; /* the parent's first 256 elements from the sub-buffer's start on */
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, region.origin, CLB_FLOAT32, 1, s256, NULL, &q));
        const clb_tensor *qin[1] = {q};
        CLBT_OK(clb_eval_into(ctx, "x", 1, names, qin, sv)); /* the same bytes: in place */
        clb_tensor_release(q);
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, region.origin + 4, CLB_FLOAT32, 1, s256, NULL,
                                          &q));
        qin[0] = q;
        EXPECT_MSG(CLB_ERR_ALIASING, clb_eval_into(ctx, "x", 1, names, qin, sv), "overlaps");
        clb_tensor_release(q);
        /* a self-overlapping out */
        const int64_t s44[2] = {4, 4}, ones[2] = {1, 1};
        clb_tensor *self = NULL, *small = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, buf, 0, CLB_FLOAT32, 2, s44, ones, &self));
        float v16[16] = {0};
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, s44, v16, &small));
        EXPECT_MSG(CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, small, small, self),
                   "overlap one another");
        /* a CL_MEM_READ_ONLY buffer is an input, never an out */
        cl_mem ro = clCreateBuffer(a.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   sizeof v16, v16, &err);
        assert_int_equal(err, CL_SUCCESS);
        clb_tensor *rot = NULL, *sum = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, ro, 0, CLB_FLOAT32, 2, s44, NULL, &rot));
        CLBT_OK(clb_binary(CLB_ADD, rot, small, &sum));
        EXPECT_MSG(CLB_ERR_INVALID_ARGUMENT, clb_binary_into(CLB_ADD, small, small, rot),
                   "CL_MEM_READ_ONLY");
        clb_tensor *fresh[] = {x, xt, y, lo, hi, sv, self, small, rot, sum};
        for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) clb_tensor_release(fresh[i]);
        clb_context_release(ctx);
        clReleaseMemObject(ro);
        clReleaseMemObject(sub);
        clReleaseMemObject(buf);
        app_close(&a);
    }
}

/* ---- the library's blocks as the application sees them (issue 26, finding 14) ------- */

/* Whether the device shares fine-grained SVM buffers with the host (PoCL): its
   storage is SVM, and small blocks come from slabs. */
static bool fine_grain_svm(cl_device_id device)
{
    cl_device_svm_capabilities caps = 0;
    cl_device_type type = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        !(type & CL_DEVICE_TYPE_CPU) ||
        clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

/* PoCL 3.1 looks every SVM block up in a list when a buffer is made over it
   (quirk svm-lookup): one SVM block per tensor made the 20,000th tensor cost
   18 ms. Small tensors on such devices are sub-buffers of shared slabs, so the
   driver sees few memory objects however many tensors live; and the cl_mem a
   tensor hands out is still its own: offset 0 at its first element, the
   application's kernels see its values, a wrap of it shares storage with it and
   with nothing else, and in-place / overlapping writes through the wrap are told
   apart exactly as for any buffer. */
static void test_library_blocks(void **state)
{
    (void)state;
    enum { LIVE = 4096, ELEMS = 16 };
    int n = opencl_devices();
    for (int d = 0; d < n; d++) {
        app a;
        app_open(d, &a);
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctx));
        clb_tensor **t = calloc(LIVE, sizeof *t);
        cl_mem *objects = calloc(LIVE, sizeof *objects);
        assert_non_null(t);
        assert_non_null(objects);
        const int64_t shape[1] = {ELEMS};
        float vals[ELEMS];
        int distinct = 0;
        for (int i = 0; i < LIVE; i++) {
            for (int k = 0; k < ELEMS; k++) vals[k] = (float)(i * ELEMS + k);
            CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, shape, vals, &t[i]));
            cl_mem m = NULL, parent = NULL;
            size_t off = 1;
            CLBT_OK(clb_tensor_get_cl_buffer(t[i], &m, &off));
            assert_int_equal(off, 0);
            assert_int_equal(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                                                &parent, NULL), CL_SUCCESS);
            cl_mem object = parent ? parent : m; /* the memory object the driver tracks */
            bool seen = false;
            for (int j = distinct - 1; j >= 0 && j >= distinct - 4 && !seen; j--)
                seen = objects[j] == object;
            if (!seen) objects[distinct++] = object;
        }
        printf("  %s: %d tensors of %zu bytes in %d memory objects\n", a.name, LIVE,
               ELEMS * sizeof(float), distinct);
        if (fine_grain_svm(a.device) && distinct > LIVE / 64)
            fail_msg("%s: %d small tensors are %d memory objects of the driver: SVM storage "
                     "must come from slabs (quirk svm-lookup)", a.name, LIVE, distinct);
        /* the application's kernel on tensor 5's cl_mem sees (and changes) its values */
        cl_mem m5 = NULL;
        CLBT_OK(clb_tensor_get_cl_buffer(t[5], &m5, NULL));
        cl_int err = CL_SUCCESS;
        cl_program prog = clCreateProgramWithSource(a.context, 1, &APP_SRC, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clBuildProgram(prog, 1, &a.device, "", NULL, NULL), CL_SUCCESS);
        cl_kernel twice = clCreateKernel(prog, "twice", &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clSetKernelArg(twice, 0, sizeof m5, &m5), CL_SUCCESS);
        size_t global = ELEMS;
        assert_int_equal(clEnqueueNDRangeKernel(a.queue, twice, 1, NULL, &global, NULL, 0, NULL,
                                                NULL), CL_SUCCESS);
        float got[ELEMS];
        CLBT_OK(clb_tensor_to_host(t[5], got, sizeof got));
        for (int k = 0; k < ELEMS; k++) assert_true(got[k] == 2.0f * (float)(5 * ELEMS + k));
        CLBT_OK(clb_tensor_to_host(t[4], got, sizeof got)); /* the neighbours untouched */
        for (int k = 0; k < ELEMS; k++) assert_true(got[k] == (float)(4 * ELEMS + k));
        CLBT_OK(clb_tensor_to_host(t[6], got, sizeof got));
        for (int k = 0; k < ELEMS; k++) assert_true(got[k] == (float)(6 * ELEMS + k));
        /* a wrap of it is the same memory; its neighbours are not */
        clb_tensor *w = NULL, *shifted = NULL;
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, m5, 0, CLB_FLOAT32, 1, shape, NULL, &w));
        assert_int_equal(clb_tensor_shares_storage(w, t[5]), 1);
        assert_int_equal(clb_tensor_shares_storage(w, t[4]), 0);
        assert_int_equal(clb_tensor_shares_storage(w, t[6]), 0);
        assert_int_equal(clb_tensor_shares_storage(t[4], t[5]), 0);
        CLBT_OK(clb_binary_into(CLB_ADD, t[4], t[6], t[5])); /* neighbours: no overlap */
        CLBT_OK(clb_binary_into(CLB_ADD, w, w, t[5]));       /* the same elements: in place */
        CLBT_OK(clb_tensor_to_host(t[5], got, sizeof got));
        for (int k = 0; k < ELEMS; k++)
            assert_true(got[k] == 2.0f * (float)(4 * ELEMS + k + 6 * ELEMS + k));
        const int64_t part[1] = {ELEMS - 1};
        CLBT_OK(clb_tensor_from_cl_buffer(ctx, m5, sizeof(float), CLB_FLOAT32, 1, part, NULL,
                                          &shifted));
        clb_tensor *head = NULL;
        CLBT_OK(clb_slice(t[5], 0, 0, ELEMS - 1, 1, &head));
        EXPECT_MSG(CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, shifted, shifted, head), "overlaps");
        clb_tensor_release(head);
        clb_tensor_release(shifted);
        clb_tensor_release(w);
        /* the edge: 64 KiB is a slab's block, one byte more a buffer of its own */
        for (int64_t bytes = 65535; bytes <= 65537; bytes++) {
            unsigned char *v = malloc((size_t)bytes), *back = malloc((size_t)bytes);
            assert_non_null(v);
            assert_non_null(back);
            for (int64_t k = 0; k < bytes; k++) v[k] = (unsigned char)(k * 7 + bytes);
            clb_tensor *big = NULL, *twice_big = NULL;
            CLBT_OK(clb_tensor_from_host(ctx, CLB_UINT8, 1, &bytes, v, &big));
            cl_mem m = NULL, parent = NULL;
            CLBT_OK(clb_tensor_get_cl_buffer(big, &m, NULL));
            assert_int_equal(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                                                &parent, NULL), CL_SUCCESS);
            if (fine_grain_svm(a.device) && (parent != NULL) != (bytes <= 65536))
                fail_msg("%s: a %lld-byte tensor is %s sub-buffer", a.name, (long long)bytes,
                         parent ? "a" : "not a");
            CLBT_OK(clb_binary(CLB_ADD, big, big, &twice_big));
            CLBT_OK(clb_tensor_to_host(twice_big, back, (size_t)bytes));
            for (int64_t k = 0; k < bytes; k++)
                if (back[k] != (unsigned char)(2 * v[k])) fail_msg("%s: byte %lld", a.name, (long long)k);
            clb_tensor_release(twice_big);
            clb_tensor_release(big);
            free(v);
            free(back);
        }
        /* released in an interleaved order, the rest keep their values */
        for (int i = 1; i < LIVE; i += 2) clb_tensor_release(t[i]);
        for (int i = 0; i < LIVE; i += 2 * 31) {
            CLBT_OK(clb_tensor_to_host(t[i], got, sizeof got));
            for (int k = 0; k < ELEMS; k++) assert_true(got[k] == (float)(i * ELEMS + k));
        }
        for (int i = 0; i < LIVE; i += 2) clb_tensor_release(t[i]);
        assert_int_equal(clb_memory_allocated(ctx), 0);
        clReleaseKernel(twice);
        clReleaseProgram(prog);
        clb_context_release(ctx);
        free(objects);
        free(t);
        app_close(&a);
    }
}

/* ---- tensors between contexts ----------------------------------------------------- */

static void check_moved(clb_tensor *src, clb_context *dst, const char *what, const char *from)
{
    clb_context *host = clbt_host();
    clb_tensor *moved = NULL, *want = NULL, *back = NULL;
    CLBT_OK(clb_tensor_to_context(src, dst, &moved));
    assert_ptr_equal(clb_tensor_context(moved), dst);
    assert_true(clb_tensor_is_contiguous(moved));
    assert_int_equal(clb_tensor_offset(moved), 0);
    /* the reference: the logical values read from the source, compared on the host */
    void *vals = clbt_read(src);
    CLBT_OK(clb_tensor_from_host(host, clb_tensor_dtype(src), clb_tensor_ndim(src),
                                 clb_tensor_shape(src), vals, &want));
    CLBT_OK(clb_tensor_to_context(moved, host, &back));
    char msg[768];
    snprintf(msg, sizeof msg, "%s from %s to %s", what, from, clb_context_device_name(dst));
    clbt_assert_matches_host(back, want, CLBT_EXACT, 0, msg);
    free(vals);
    clb_tensor_release(moved);
    clb_tensor_release(want);
    clb_tensor_release(back);
    clb_context_release(host);
}

static void move_views(clb_context *from, clb_context *to)
{
    float vals[24];
    int32_t ivals[24];
    for (int i = 0; i < 24; i++) {
        vals[i] = (float)i * 1.5f - 7;
        ivals[i] = i * 37 - 300;
    }
    int64_t shape[] = {2, 3, 4}, bshape[] = {5, 3, 4}, one3[] = {1, 3, 4};
    clb_tensor *t = NULL, *ti = NULL, *v = NULL, *b = NULL;
    CLBT_OK(clb_tensor_from_host(from, CLB_FLOAT32, 3, shape, vals, &t));
    CLBT_OK(clb_tensor_from_host(from, CLB_INT32, 3, shape, ivals, &ti));
    const char *fname = clb_context_device_name(from);
    check_moved(t, to, "contiguous float32", fname);
    check_moved(ti, to, "contiguous int32", fname);
    int perm[] = {2, 0, 1};
    CLBT_OK(clb_permute(t, perm, &v));
    check_moved(v, to, "permuted", fname);
    clb_tensor_release(v);
    CLBT_OK(clb_slice(ti, 2, 3, 0, -2, &v));
    check_moved(v, to, "sliced, negative step", fname);
    clb_tensor_release(v);
    CLBT_OK(clb_slice(t, 0, 1, 2, 1, &v));
    CLBT_OK(clb_reshape(v, 3, one3, &b));
    clb_tensor_release(v);
    CLBT_OK(clb_broadcast_to(b, 3, bshape, &v));
    check_moved(v, to, "sliced then broadcast", fname);
    clb_tensor_release(v);
    clb_tensor_release(b);
    /* empty tensors move too */
    int64_t zero[] = {0, 3};
    CLBT_OK(clb_tensor_empty(from, CLB_FLOAT32, 2, zero, &v));
    check_moved(v, to, "empty", fname);
    clb_tensor_release(v);
    /* the same context: clb_contiguous, a new reference to a contiguous tensor */
    CLBT_OK(clb_tensor_to_context(t, from, &v));
    assert_true(clb_tensor_shares_storage(v, t));
    clb_tensor_release(v);
    clb_tensor_release(t);
    clb_tensor_release(ti);
}

static void test_to_context(void **state)
{
    (void)state;
    int n = opencl_devices();
    enum { MAXC = 12 };
    clb_context *ctxs[MAXC];
    int count = 0;
    CLBT_OK(clb_context_create("host", &ctxs[count++]));
    for (int i = 0; i < n && count < MAXC - 3; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        CLBT_OK(clb_context_create(sel, &ctxs[count++]));
    }
    /* two contexts on one PoCL device (two cl_contexts), and two clb_contexts on one
       cl_context with different queues (the clEnqueueCopyBuffer path) */
    clb_context *pocl = NULL;
    app a;
    bool have_app = false;
    if (clb_context_create("pocl", &pocl) == CLB_OK) {
        clb_device_info info;
        CLBT_OK(clb_context_get_info(pocl, &info));
        if (info.type == CLB_DEVICE_HOST) {
            clb_context_release(pocl);
        } else {
            ctxs[count++] = pocl;
            app_open(info.index, &a);
            have_app = true;
            CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ctxs[count++]));
            CLBT_OK(clb_context_create_from_cl(a.context, a.device, NULL, &ctxs[count++]));
        }
    }
    for (int i = 0; i < count; i++)
        for (int j = 0; j < count; j++) move_views(ctxs[i], ctxs[j]);
    printf("to_context: %d contexts, %d ordered pairs, 7 views each\n", count, count * count);
    for (int i = 0; i < count; i++) {
        assert_int_equal(clb_memory_allocated(ctxs[i]), 0);
        clb_context_release(ctxs[i]);
    }
    if (have_app) app_close(&a);

    clb_tensor *bad = (clb_tensor *)1;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_context(NULL, NULL, &bad));
    assert_null(bad);
}

/* The source's queue may still be writing the source when the copy is asked for: a
   library op on context A, then to_context to B (same cl_context, other queue). */
static void test_to_context_ordering(void **state)
{
    (void)state;
    int n = opencl_devices();
    if (n == 0) skip();
    for (int d = 0; d < n; d++) {
        app a;
        app_open(d, &a);
        clb_context *ca = NULL, *cb = NULL;
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, a.queue, &ca));
        CLBT_OK(clb_context_create_from_cl(a.context, a.device, NULL, &cb));
        enum { N = 1 << 16 };
        float *v = malloc(N * sizeof *v), *back = malloc(N * sizeof *back);
        for (int i = 0; i < N; i++) v[i] = (float)(i % 97);
        int64_t shape[] = {N};
        clb_tensor *x = NULL, *y = NULL, *z = NULL;
        CLBT_OK(clb_tensor_from_host(ca, CLB_FLOAT32, 1, shape, v, &x));
        for (int r = 0; r < 4; r++) {
            CLBT_OK(clb_binary_into(CLB_ADD, x, x, x)); /* queued on a's queue */
            CLBT_OK(clb_tensor_to_context(x, cb, &y));  /* copied on b's queue */
            CLBT_OK(clb_binary_into(CLB_ADD, x, x, x)); /* must wait for the copy */
            CLBT_OK(clb_tensor_to_context(y, ca, &z));
            CLBT_OK(clb_tensor_to_host(y, back, N * sizeof *back));
            for (int i = 0; i < N; i++) {
                if (back[i] != v[i] * 2) fail_msg("%s: round %d element %d is %g, expected %g",
                                                  a.name, r, i, back[i], v[i] * 2);
                v[i] *= 4;
            }
            clb_tensor_release(y);
            clb_tensor_release(z);
        }
        clb_tensor_release(x);
        free(v);
        free(back);
        clb_context_release(ca);
        clb_context_release(cb);
        app_close(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refcounts),
        cmocka_unit_test(test_ordering),
        cmocka_unit_test(test_app_buffers),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_aliasing_by_memory),
        cmocka_unit_test(test_library_blocks),
        cmocka_unit_test(test_to_context),
        cmocka_unit_test(test_to_context_ordering),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
