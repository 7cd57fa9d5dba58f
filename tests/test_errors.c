/* Every public entry point with bad input: the right status, a non-empty
 * clb_last_error(), *out == NULL afterwards (it starts as a garbage pointer),
 * and clb_memory_allocated unchanged (nothing leaked), on every device (no
 * CLB_ERR_UNSUPPORTED is accepted in place of the expected error). Plus the
 * thread-local behaviour of clb_last_error(), clb_status_name of every
 * status, and every out slot of the multi-output entry points. */
#include "testutil.h"

#include <ctype.h>
#include <pthread.h>

#define GARBAGE ((clb_tensor *)(uintptr_t)0x5A5A5A5A)
#define GARBAGE_CTX_INIT() ((clb_context *)(uintptr_t)0x5A5A5A5A)

/* The public function a call text starts with ("clb_reduce(...)" -> "clb_reduce"). */
static void called_name(const char *what, char *name, size_t cap)
{
    size_t n = 0;
    while (*what == ' ' || *what == '(') what++;
    while (n + 1 < cap && (isalnum((unsigned char)what[n]) || what[n] == '_')) n++;
    memcpy(name, what, n);
    name[n] = '\0';
}

static void check_status(clb_status got, clb_status want, const char *what)
{
    if (got == want) {
        if (clb_last_error()[0] == '\0') fail_msg("%s -> %s with an empty message", what, clb_status_name(got));
        /* Every message names the function that failed (issue 25, item 7). */
        char name[64];
        called_name(what, name, sizeof name);
        if (strncmp(name, "clb_", 4) == 0 && !strstr(clb_last_error(), name))
            fail_msg("%s -> %s: the message does not name %s: %s", what, clb_status_name(got),
                     name, clb_last_error());
        return;
    }
    fail_msg("%s -> %s (expected %s): %s", what, clb_status_name(got), clb_status_name(want),
             clb_last_error());
}

/* A call writing a new tensor through `outp_`: the status, *out NULL, no leak. */
#define EXPECT_ERR(ctx, want, call)                                                         \
    do {                                                                                           \
        size_t m_before_ = clb_memory_allocated(ctx);                                              \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        check_status((call), (want), #call);                                                       \
        if (out_ != NULL) fail_msg("%s: *out is %p after a failure, not NULL", #call, (void *)out_); \
        if (clb_memory_allocated(ctx) != m_before_)                                                \
            fail_msg("%s: leaked %lld bytes", #call,                                               \
                     (long long)(clb_memory_allocated(ctx) - m_before_));                          \
    } while (0)

/* A call without a tensor output. */
#define EXPECT_ERR_NOOUT(ctx, want, call)                                                   \
    do {                                                                                           \
        size_t m_before_ = clb_memory_allocated(ctx);                                              \
        check_status((call), (want), #call);                                                       \
        if (clb_memory_allocated(ctx) != m_before_) fail_msg("%s: leaked memory", #call);         \
    } while (0)

static clb_tensor *f32(clb_context *ctx, int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *v = calloc((size_t)(n ? n : 1), sizeof(float));
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) v[i] = (float)i;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, ndim, shape, v);
    free(v);
    return t;
}

/* ---- status names and messages ------------------------------------------------------ */

static void test_status_names(void **state)
{
    (void)state;
    static const struct { clb_status s; const char *name; } names[] = {
        {CLB_OK, "CLB_OK"},
        {CLB_ERR_INVALID_ARGUMENT, "CLB_ERR_INVALID_ARGUMENT"},
        {CLB_ERR_SHAPE_MISMATCH, "CLB_ERR_SHAPE_MISMATCH"},
        {CLB_ERR_DTYPE, "CLB_ERR_DTYPE"},
        {CLB_ERR_OUT_OF_MEMORY, "CLB_ERR_OUT_OF_MEMORY"},
        {CLB_ERR_NO_DEVICE, "CLB_ERR_NO_DEVICE"},
        {CLB_ERR_BUILD, "CLB_ERR_BUILD"},
        {CLB_ERR_OPENCL, "CLB_ERR_OPENCL"},
        {CLB_ERR_UNSUPPORTED, "CLB_ERR_UNSUPPORTED"},
        {CLB_ERR_ALIASING, "CLB_ERR_ALIASING"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal((int)names[i].s, (int)i); /* the contract's numbering */
        assert_non_null(clb_status_name(names[i].s));
        assert_string_equal(clb_status_name(names[i].s), names[i].name);
    }
    /* out-of-range values still give a string */
    assert_non_null(clb_status_name((clb_status)10));
    assert_non_null(clb_status_name((clb_status)-1));
    assert_non_null(clb_status_name((clb_status)12345));
    assert_string_not_equal(clb_status_name((clb_status)10), "CLB_OK");
}

static void test_dtype_size_invalid(void **state)
{
    (void)state;
    assert_int_equal(clb_dtype_size((clb_dtype)12), 0);
    assert_int_equal(clb_dtype_size((clb_dtype)-1), 0);
    assert_int_equal(clb_dtype_size((clb_dtype)1000), 0);
    assert_int_equal(clb_dtype_size(CLB_BOOL), 1);
    assert_int_equal(clb_dtype_size(CLB_FLOAT16), 2);
    assert_int_equal(clb_dtype_size(CLB_UINT64), 8);
}

/* clb_last_error() is per thread, and "" on a thread without failures. */
typedef struct thread_result {
    char initial[64];
    int failed_status;
    char after[256];
} thread_result;

static void *thread_main(void *arg)
{
    thread_result *r = arg;
    snprintf(r->initial, sizeof r->initial, "%s", clb_last_error());
    /* successful calls leave it empty */
    int count = 0;
    (void)clb_device_count(&count);
    (void)clb_status_name(CLB_OK);
    int64_t out_shape[CLB_MAX_DIMS];
    int on = 0;
    const int64_t s[1] = {3};
    const int64_t *shapes[1] = {s};
    const int nd[1] = {1};
    (void)clb_broadcast_shapes(1, nd, shapes, &on, out_shape);
    if (clb_last_error()[0] != '\0') snprintf(r->initial, sizeof r->initial, "<set by success>");
    /* a failure of its own */
    const int64_t a[1] = {3}, b[1] = {4};
    const int64_t *ab[2] = {a, b};
    const int nd2[2] = {1, 1};
    r->failed_status = (int)clb_broadcast_shapes(2, nd2, ab, &on, out_shape);
    snprintf(r->after, sizeof r->after, "%s", clb_last_error());
    return NULL;
}

static void test_last_error_thread_local(void **state)
{
    (void)state;
    /* a failure on this thread first */
    clb_context *ctx = GARBAGE_CTX_INIT();
    assert_int_equal(clb_context_create("no-such-device-anywhere-xyz", &ctx), CLB_ERR_NO_DEVICE);
    assert_null(ctx);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", clb_last_error());
    assert_true(mine[0] != '\0');

    thread_result r;
    memset(&r, 0, sizeof r);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, thread_main, &r), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_string_equal(r.initial, "");
    assert_int_equal(r.failed_status, CLB_ERR_SHAPE_MISMATCH);
    assert_non_null(strstr(r.after, "The size of tensor a (3) must match the size of tensor b (4)"));
    /* the other thread's failure did not touch this thread's message */
    assert_string_equal(clb_last_error(), mine);
}

/* ---- devices and contexts ------------------------------------------------------------- */

static void test_context_errors(void **state)
{
    (void)state;
    static const char *bad[] = {"no-such-device-anywhere-xyz", "99999", "77:0", "0:99"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clb_context *ctx = GARBAGE_CTX_INIT();
        clb_status s = clb_context_create(bad[i], &ctx);
        if (s != CLB_ERR_NO_DEVICE)
            fail_msg("selector \"%s\" -> %s, expected CLB_ERR_NO_DEVICE", bad[i], clb_status_name(s));
        assert_true(clb_last_error()[0] != '\0');
        assert_null(ctx);
    }
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_context_create("host", NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_finish(NULL));
    clb_device_info info;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_context_get_info(NULL, &info));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_count(NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_get_info(0, NULL));
    {
        clb_status s = clb_device_get_info(-1, &info);
        if (s != CLB_ERR_INVALID_ARGUMENT && s != CLB_ERR_NO_DEVICE)
            fail_msg("clb_device_get_info(-1) -> %s", clb_status_name(s));
        int count = 0;
        CLBT_OK(clb_device_count(&count));
        s = clb_device_get_info(count, &info);
        if (s != CLB_ERR_INVALID_ARGUMENT && s != CLB_ERR_NO_DEVICE)
            fail_msg("clb_device_get_info(count) -> %s", clb_status_name(s));
        assert_true(clb_last_error()[0] != '\0');
    }
    clb_context *host = NULL;
    CLBT_OK(clb_context_create("host", &host));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_context_get_info(host, NULL));
    clb_context_release(host);
    clb_context_release(NULL); /* NULL-safe */

    /* $CLB_DEVICE is read for a NULL selector */
    const char *saved = getenv("CLB_DEVICE");
    char saved_copy[256] = "";
    if (saved) snprintf(saved_copy, sizeof saved_copy, "%s", saved);
    setenv("CLB_DEVICE", "no-such-device-anywhere-xyz", 1);
    clb_context *ctx = GARBAGE_CTX_INIT();
    CLBT_FAILS(CLB_ERR_NO_DEVICE, clb_context_create(NULL, &ctx));
    assert_null(ctx);
    setenv("CLB_DEVICE", "host", 1);
    CLBT_OK(clb_context_create(NULL, &ctx));
    clb_device_info hi;
    CLBT_OK(clb_context_get_info(ctx, &hi));
    assert_int_equal(hi.type, CLB_DEVICE_HOST);
    clb_context_release(ctx);
    if (saved)
        setenv("CLB_DEVICE", saved_copy, 1);
    else
        unsetenv("CLB_DEVICE");
}

/* ---- tensor creation and transfers ------------------------------------------------------ */

static void body_creation(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3};
    const float data[6] = {0};
    int64_t ones65[CLB_MAX_DIMS + 1];
    for (int d = 0; d <= CLB_MAX_DIMS; d++) ones65[d] = 1;
    const int64_t neg[2] = {2, -3};
    const int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};           /* numel overflows int64 */
    const int64_t bytes_huge[2] = {(int64_t)1 << 31, (int64_t)1 << 31};     /* 2^62 x 8 bytes > SIZE_MAX */
    const int64_t too_big[1] = {(int64_t)1 << 47};                          /* 1 PiB of float64 */

    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(NULL, CLB_FLOAT32, 2, s23, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, (clb_dtype)12, 2, s23, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, (clb_dtype)-1, 2, s23, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, (clb_dtype)99, 2, s23, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, -1, s23, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT,
               clb_tensor_from_host(ctx, CLB_FLOAT32, CLB_MAX_DIMS + 1, ones65, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, 2, NULL, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, 2, neg, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, 2, s23, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, 2, huge, data, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT64, 2, bytes_huge, data, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host(ctx, CLB_FLOAT32, 2, s23, data, NULL));

    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(NULL, CLB_FLOAT32, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, (clb_dtype)12, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_FLOAT32, -2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_FLOAT32, CLB_MAX_DIMS + 1, ones65, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_FLOAT32, 1, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_FLOAT32, 2, neg, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_INT8, 2, huge, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_UINT64, 2, bytes_huge, outp_));
    /* a valid request larger than any device: an allocation failure */
    EXPECT_ERR(ctx, CLB_ERR_OUT_OF_MEMORY, clb_tensor_empty(ctx, CLB_FLOAT64, 1, too_big, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_empty(ctx, CLB_FLOAT32, 2, s23, NULL));

    /* to_host */
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, s23, data);
    float back[6];
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(NULL, back, sizeof back));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, NULL, sizeof back));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, sizeof back - 1));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, 0));
    clb_tensor_retain(NULL);
    clb_tensor_release(NULL);
    clb_tensor_release(t);
    assert_int_equal(clb_memory_allocated(ctx), 0);
}

static void test_creation(void **state)
{
    (void)state;
    clbt_for_each_device(body_creation);
}

/* ---- shape algebra and views -------------------------------------------------------------- */

static void body_views(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3}, s3[1] = {3};
    clb_tensor *t = f32(ctx, 2, s23), *v = f32(ctx, 1, s3);
    int64_t ones65[CLB_MAX_DIMS + 1];
    for (int d = 0; d <= CLB_MAX_DIMS; d++) ones65[d] = 1;

    /* broadcast_shapes */
    {
        int on;
        int64_t os[CLB_MAX_DIMS];
        const int64_t *sh[2] = {s23, s3};
        const int nd[2] = {2, 1};
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, NULL, sh, &on, os));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, sh, NULL, os));
        const int nd65[2] = {CLB_MAX_DIMS + 1, 1};
        const int64_t *sh65[2] = {ones65, s3};
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd65, sh65, &on, os));
        const int64_t s4[1] = {4};
        const int64_t *shm[2] = {s23, s4};
        CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_shapes(2, nd, shm, &on, os));
    }
    /* broadcast_to */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(NULL, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 2, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, -1, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, CLB_MAX_DIMS + 1, ones65, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 2, (const int64_t[]){-5, 3}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(v, 2, (const int64_t[]){2, 4}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(t, 1, s3, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT,
               clb_broadcast_to(v, 3, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40, 3}, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 2, s23, NULL));
    /* broadcast_tensors */
    {
        const clb_tensor *in[2] = {t, v};
        clb_tensor *out[2] = {GARBAGE, GARBAGE};
        const clb_tensor *bad_in[2] = {t, NULL};
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, bad_in, out));
        assert_null(out[0]);
        assert_null(out[1]);
        const int64_t s4[1] = {4};
        clb_tensor *w = f32(ctx, 1, s4);
        const clb_tensor *mm[3] = {t, v, w};
        clb_tensor *out3[3] = {GARBAGE, GARBAGE, GARBAGE};
        size_t m0 = clb_memory_allocated(ctx);
        CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_tensors(3, mm, out3));
        for (int k = 0; k < 3; k++) assert_null(out3[k]);
        assert_int_equal(clb_memory_allocated(ctx), m0);
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(-1, in, out));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, NULL, out));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, in, NULL));
        clb_tensor_release(w);
    }
    /* expand */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(NULL, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(v, 2, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(v, 2, (const int64_t[]){-1, 3}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(v, 2, (const int64_t[]){2, -7}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(v, CLB_MAX_DIMS + 1, ones65, outp_));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_expand(v, 2, (const int64_t[]){2, 4}, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_expand(v, 2, s23, NULL));
    /* unsqueeze / squeeze */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(NULL, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, 3, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, -4, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(NULL, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 0, outp_)); /* size 2 */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 2, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, -3, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, 0, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 0, NULL));
    /* permute */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(NULL, (const int[]){1, 0}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){0, 0}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){1, -1}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){0, 2}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){-3, 0}, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){1, 0}, NULL));
    /* reshape */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(NULL, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, -1, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, CLB_MAX_DIMS + 1, ones65, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, (const int64_t[]){-1, -1}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, (const int64_t[]){-2, -3}, outp_));
    {
        /* wrong element count: the contract names no status; any error with a message */
        size_t m0 = clb_memory_allocated(ctx);
        clb_tensor *o = GARBAGE;
        clb_status s = clb_reshape(t, 2, (const int64_t[]){4, 2}, &o);
        if (s != CLB_ERR_SHAPE_MISMATCH && s != CLB_ERR_INVALID_ARGUMENT)
            fail_msg("reshape (2,3) -> (4,2): %s", clb_status_name(s));
        assert_true(clb_last_error()[0] != '\0');
        assert_null(o);
        assert_int_equal(clb_memory_allocated(ctx), m0);
    }
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, s23, NULL));
    /* contiguous / repeat / cast */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_contiguous(NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_contiguous(t, NULL));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(NULL, 2, s23, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(t, 2, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(t, 1, s3, outp_)); /* fewer reps than dims */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(t, 2, (const int64_t[]){2, -1}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(t, CLB_MAX_DIMS + 1, ones65, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT,
               clb_repeat(t, 2, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40}, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_repeat(t, 2, s23, NULL));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_cast(NULL, CLB_INT32, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_cast(t, (clb_dtype)12, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_cast(t, (clb_dtype)-1, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_cast(t, CLB_INT32, NULL));
    /* slice / concat / stack */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_slice(NULL, 0, 0, 1, 1, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_slice(t, 0, 0, 1, 0, outp_)); /* step 0 */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_slice(t, 2, 0, 1, 1, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_slice(t, -3, 0, 1, 1, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_slice(t, 0, 0, 1, 1, NULL));
    {
        const clb_tensor *tv[2] = {t, v}, *tt[2] = {t, t}, *tn[2] = {t, NULL};
        EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_concat(2, tv, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_concat(0, tt, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_concat(-1, tt, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_concat(2, NULL, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_concat(2, tn, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_concat(2, tt, 2, outp_));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_concat(2, tt, 0, NULL));
        EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_stack(2, tv, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_stack(0, tt, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_stack(2, NULL, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_stack(2, tn, 0, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_stack(2, tt, 3, outp_));
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_stack(2, tt, -4, outp_));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_stack(2, tt, 0, NULL));
    }
    clb_tensor_release(t);
    clb_tensor_release(v);
}

static void test_views(void **state)
{
    (void)state;
    clbt_for_each_device(body_views);
}

/* ---- every entry point names itself -------------------------------------------------- */

/* A failing call whose status is not the point: it fails, names the function it
   failed in (check_status), leaves *out NULL and leaks nothing. */
#define EXPECT_NAMED(ctx, call)                                                                    \
    do {                                                                                           \
        size_t m_before_ = clb_memory_allocated(ctx);                                              \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        clb_status st_ = (call);                                                                   \
        if (st_ == CLB_OK) fail_msg("%s succeeded", #call);                                        \
        check_status(st_, st_, #call);                                                             \
        if (out_ != NULL && out_ != GARBAGE) fail_msg("%s: *out is not NULL after a failure", #call); \
        if (clb_memory_allocated(ctx) != m_before_) fail_msg("%s: leaked memory", #call);         \
    } while (0)

/* The public functions the rest of this file does not call with bad input
   (issue 25, item 7: every message names the function that failed, and a
   positive axis count with a NULL axis list is CLB_ERR_INVALID_ARGUMENT). */
static void body_every_entry(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3}, neg[2] = {2, -3}, s1[1] = {1};
    clb_tensor *a = f32(ctx, 2, s23), *o = GARBAGE, *o2 = GARBAGE;
    const int32_t idx[1] = {0};
    clb_tensor *ix = clbt_tensor(ctx, CLB_INT32, 1, s1, idx);
    const clb_scalar one = {.kind = CLB_SCALAR_FLOAT, .f = 1.0};
    const int far[1] = {5};
    const char *names[1] = {"x"};
    const clb_tensor *in[1] = {a}, *none[1] = {NULL};
    clb_context *cnull = NULL;

    EXPECT_NAMED(ctx, clb_context_create("no-such-device-xyz", (clb_context **)outp_));
    EXPECT_NAMED(ctx, clb_context_create("pocl", NULL));
    EXPECT_NAMED(ctx, clb_finish(cnull));
    EXPECT_NAMED(ctx, clb_context_set_promotion(cnull, CLB_PROMOTE_TORCH));
    EXPECT_NAMED(ctx, clb_context_set_promotion(ctx, (clb_promotion)99));
    EXPECT_NAMED(ctx, clb_context_get_info(cnull, &(clb_device_info){0}));
    EXPECT_NAMED(ctx, clb_empty_cache(cnull));
    EXPECT_NAMED(ctx, clb_device_count(NULL));
    EXPECT_NAMED(ctx, clb_device_get_info(-1, &(clb_device_info){0}));
    EXPECT_NAMED(ctx, clb_device_cached_programs(-1, &(int){0}));
    EXPECT_NAMED(ctx, clb_broadcast_shapes(-1, NULL, NULL, &(int){0}, NULL));
    {
        const int64_t *shapes[2] = {s23, neg};
        const int nds[2] = {2, 2};
        int64_t os[CLB_MAX_DIMS];
        EXPECT_NAMED(ctx, clb_broadcast_shapes(2, nds, shapes, &(int){0}, os));
    }
    EXPECT_NAMED(ctx, clb_broadcast_tensors(1, none, outp_));
    EXPECT_NAMED(ctx, clb_tensor_to_context(NULL, ctx, outp_));
    EXPECT_NAMED(ctx, clb_tensor_to_context(a, NULL, outp_));
    EXPECT_NAMED(ctx, clb_binary_scalar(CLB_ADD, NULL, one, 0, outp_));
    EXPECT_NAMED(ctx, clb_binary_scalar((clb_binary_op)-1, a, one, 0, outp_));
    EXPECT_NAMED(ctx, clb_eval(ctx, "x +", 1, names, in, outp_));
    EXPECT_NAMED(ctx, clb_eval(ctx, "y", 1, names, in, outp_));
    EXPECT_NAMED(ctx, clb_eval_into(ctx, "x", 1, names, in, NULL));
    EXPECT_NAMED(ctx, clb_eval_into(ctx, "x", 1, names, in, ix));
    EXPECT_NAMED(ctx, clb_eval_reduce(ctx, "x", 1, names, in, CLB_SUM, 1, far, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT,
               clb_eval_reduce(ctx, "x", 1, names, in, CLB_SUM, 1, NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_einsum("ij,jk", 1, in, outp_));
    EXPECT_NAMED(ctx, clb_einsum("ij->ik", 1, in, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, a, 2, NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_reduce(CLB_SUM, a, 1, far, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_var(a, 1, NULL, 0, 0, outp_));
    EXPECT_NAMED(ctx, clb_var(a, 1, far, 0, 0, outp_));
    EXPECT_NAMED(ctx, clb_var(NULL, 0, NULL, 0, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_std(a, 1, NULL, 0, 0, outp_));
    EXPECT_NAMED(ctx, clb_std(a, 1, far, 0, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_logsumexp(a, 1, NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_logsumexp(a, 1, far, 0, outp_));
    EXPECT_NAMED(ctx, clb_argmax(a, 5, 0, outp_));
    EXPECT_NAMED(ctx, clb_argmax(NULL, 0, 0, outp_));
    EXPECT_NAMED(ctx, clb_argmin(a, -3, 0, outp_));
    EXPECT_NAMED(ctx, clb_softmax(a, 2, outp_));
    EXPECT_NAMED(ctx, clb_softmax(NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_log_softmax(a, -3, outp_));
    EXPECT_NAMED(ctx, clb_cumsum(a, 2, outp_));
    EXPECT_NAMED(ctx, clb_cumprod(a, -3, outp_));
    EXPECT_NAMED(ctx, clb_cumprod(NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_swapaxes(a, 0, 2, outp_));
    EXPECT_NAMED(ctx, clb_swapaxes(NULL, 0, 1, outp_));
    EXPECT_NAMED(ctx, clb_full(ctx, CLB_FLOAT32, 2, neg, one, outp_));
    EXPECT_NAMED(ctx, clb_full(cnull, CLB_FLOAT32, 2, s23, one, outp_));
    EXPECT_NAMED(ctx, clb_zeros(ctx, CLB_FLOAT32, 2, neg, outp_));
    EXPECT_NAMED(ctx, clb_ones(ctx, CLB_FLOAT32, -1, s23, outp_));
    EXPECT_NAMED(ctx, clb_zeros_like(NULL, outp_));
    EXPECT_NAMED(ctx, clb_ones_like(NULL, outp_));
    EXPECT_NAMED(ctx, clb_arange(ctx, CLB_FLOAT32, 0, 1, 0, outp_));
    EXPECT_NAMED(ctx, clb_linspace(ctx, CLB_FLOAT32, 0, 1, -1, 1, outp_));
    EXPECT_NAMED(ctx, clb_random_uniform(ctx, CLB_FLOAT32, 2, neg, 1, 0, 0, 1, outp_));
    EXPECT_NAMED(ctx, clb_random_uniform(ctx, CLB_INT32, 2, s23, 1, 0, 0, 1, outp_));
    EXPECT_NAMED(ctx, clb_random_normal(ctx, CLB_FLOAT32, 2, s23, 1, 0, 0, -1, outp_));
    EXPECT_NAMED(ctx, clb_tensor_format(NULL, NULL, 0, NULL));
    EXPECT_NAMED(ctx, clb_tensor_from_host_memory(ctx, NULL, 24, CLB_FLOAT32, 2, s23, NULL, outp_));
    {
        float mem[6] = {0};
        EXPECT_NAMED(ctx, clb_tensor_from_host_memory(ctx, mem, sizeof mem, CLB_FLOAT32, 2, neg,
                                                      NULL, outp_));
    }
    EXPECT_NAMED(ctx, clb_matmul_tune(cnull, CLB_FLOAT32, 1, NULL));
    EXPECT_NAMED(ctx, clb_take(a, ix, 2, outp_));
    EXPECT_NAMED(ctx, clb_take(NULL, ix, 0, outp_));
    EXPECT_NAMED(ctx, clb_take_along_axis(a, ix, 2, outp_));
    EXPECT_NAMED(ctx, clb_take_along_axis(a, NULL, 0, outp_));
    EXPECT_NAMED(ctx, clb_sort(a, 2, 0, &o, &o2));
    EXPECT_NAMED(ctx, clb_sort(NULL, 0, 0, &o, &o2));
    EXPECT_NAMED(ctx, clb_topk(a, 9, 1, 1, &o, &o2));
    EXPECT_NAMED(ctx, clb_topk(a, 1, 2, 1, &o, &o2));
    EXPECT_NAMED(ctx, clb_nonzero(NULL, outp_));
    EXPECT_NAMED(ctx, clb_masked_select(a, NULL, outp_));
    EXPECT_NAMED(ctx, clb_masked_select(a, ix, outp_));
    clb_tensor_release(ix);
    clb_tensor_release(a);
}

static void test_every_entry(void **state)
{
    (void)state;
    clbt_for_each_device(body_every_entry);
}

/* ---- element-wise ------------------------------------------------------------------------ */

static void body_elementwise(clb_context *ctx, const char *sel)
{
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s4[1] = {4};
    clb_tensor *a = f32(ctx, 2, s23), *b = f32(ctx, 1, s3), *c = f32(ctx, 1, s4);
    const uint8_t bools[3] = {1, 0, 1};
    clb_tensor *bl = clbt_tensor(ctx, CLB_BOOL, 1, s3, bools);

    /* binary */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary((clb_binary_op)-1, a, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary((clb_binary_op)27, a, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary((clb_binary_op)999, a, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary(CLB_ADD, NULL, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary(CLB_ADD, a, NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_binary(CLB_ADD, a, b, NULL));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_binary(CLB_ADD, a, c, outp_));
    EXPECT_ERR(ctx, CLB_ERR_DTYPE, clb_binary(CLB_SUB, bl, bl, outp_));
    EXPECT_ERR(ctx, CLB_ERR_DTYPE, clb_binary(CLB_BITWISE_AND, a, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_DTYPE, clb_binary(CLB_BITWISE_XOR, a, bl, outp_));
    /* tensors of two different contexts cannot be combined */
    {
        clb_context *c2 = NULL;
        CLBT_OK(clb_context_create(sel, &c2));
        clb_tensor *o = f32(c2, 1, s3);
        EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary(CLB_ADD, b, o, outp_));
        assert_int_equal(clb_memory_allocated(c2), 12);
        clb_tensor_release(o);
        clb_context_release(c2);
    }
    /* unary */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unary((clb_unary_op)-1, a, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unary((clb_unary_op)36, a, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unary(CLB_NEG, NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_unary(CLB_NEG, a, NULL));
    EXPECT_ERR(ctx, CLB_ERR_DTYPE, clb_unary(CLB_NEG, bl, outp_));
    /* where */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_where(NULL, a, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_where(bl, NULL, b, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_where(bl, a, NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_where(bl, a, b, NULL));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_where(bl, a, c, outp_));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_where(c, a, b, outp_));

    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
    clb_tensor_release(bl);
}

static void test_elementwise(void **state)
{
    (void)state;
    clbt_for_each_device(body_elementwise);
}

/* binary_into: stride-0 or partially overlapping outs are CLB_ERR_ALIASING and are
   left untouched; an out exactly equal to an input works in place. */
static void body_binary_into(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s33[2] = {3, 3}, s3[1] = {3}, s13[2] = {1, 3};
    clb_tensor *a = f32(ctx, 2, s33), *b = f32(ctx, 2, s33), *r = f32(ctx, 1, s3);
    clb_tensor *row = f32(ctx, 2, s13);
    clb_tensor *bc = NULL, *at = NULL, *same = NULL, *out = NULL, *col = NULL;
    float before[9], after[9];

    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary_into(CLB_ADD, a, b, NULL));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary_into(CLB_ADD, NULL, b, a));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT, clb_binary_into(CLB_ADD, a, NULL, b));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_INVALID_ARGUMENT,
                      clb_binary_into((clb_binary_op)77, a, b, a));

    /* out with stride-0 axes: a broadcast view of a (3,) row, unrelated to the inputs */
    CLBT_OK(clb_broadcast_to(r, 2, s33, &bc));
    CLBT_OK(clb_tensor_to_host(r, before, 3 * sizeof(float)));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, a, b, bc));
    CLBT_OK(clb_tensor_to_host(r, after, 3 * sizeof(float)));
    assert_memory_equal(before, after, 3 * sizeof(float));
    clb_tensor_release(bc);
    bc = NULL;
    /* stride 0 on a size-3 axis from expanding a (1,3) */
    CLBT_OK(clb_expand(row, 2, s33, &bc));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_ALIASING, clb_binary_into(CLB_MUL, a, b, bc));

    /* out partially overlapping an input: the transpose of a, and of b */
    CLBT_OK(clb_permute(a, (const int[]){1, 0}, &at));
    CLBT_OK(clb_tensor_to_host(a, before, sizeof before));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, a, b, at));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_ALIASING, clb_binary_into(CLB_ADD, b, a, at));
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_ALIASING, clb_binary_into(CLB_SUB, r, a, at));
    CLBT_OK(clb_tensor_to_host(a, after, sizeof after));
    assert_memory_equal(before, after, sizeof before);

    /* out of the wrong shape */
    EXPECT_ERR_NOOUT(ctx, CLB_ERR_SHAPE_MISMATCH, clb_binary_into(CLB_ADD, a, b, r));

    /* in place: out is a itself (host must do it; devices may not support it yet) */
    {
        clb_status s = clb_binary_into(CLB_ADD, a, b, a);
        if (s == CLB_OK) {
            CLBT_OK(clb_tensor_to_host(a, after, sizeof after));
            for (int i = 0; i < 9; i++) assert_true(after[i] == 2.0f * (float)i);
        } else {
            fail_msg("binary_into(a, b, out=a) -> %s: %s", clb_status_name(s), clb_last_error());
        }
    }
    /* in place through a view with a's exact layout, and with out == b broadcast-free */
    {
        CLBT_OK(clb_reshape(a, 2, s33, &same));
        assert_true(clb_tensor_shares_storage(same, a));
        CLBT_OK(clb_tensor_to_host(a, before, sizeof before));
        clb_status s = clb_binary_into(CLB_SUB, a, b, same);
        if (s == CLB_OK) {
            CLBT_OK(clb_tensor_to_host(a, after, sizeof after));
            for (int i = 0; i < 9; i++) assert_true(after[i] == before[i] - (float)i);
        } else {
            fail_msg("binary_into(a, b, out=view of a) -> %s: %s", clb_status_name(s),
                     clb_last_error());
        }
        s = clb_binary_into(CLB_MUL, r, b, b); /* b *= broadcast r, in place on b */
        if (s == CLB_OK) {
            CLBT_OK(clb_tensor_to_host(b, after, sizeof after));
            for (int i = 0; i < 9; i++) assert_true(after[i] == (float)i * (float)(i % 3));
        } else {
            fail_msg("binary_into(r, b, out=b) -> %s: %s", clb_status_name(s), clb_last_error());
        }
    }
    /* a separate out works too: r (3,) + r viewed as a column (3,1) -> (3,3) */
    {
        out = f32(ctx, 2, s33);
        CLBT_OK(clb_reshape(r, 2, (const int64_t[]){3, 1}, &col));
        clb_status s = clb_binary_into(CLB_ADD, r, col, out);
        if (s == CLB_OK) {
            CLBT_OK(clb_tensor_to_host(out, after, sizeof after));
            for (int i = 0; i < 9; i++) assert_true(after[i] == (float)(i % 3 + i / 3));
        } else {
            fail_msg("binary_into(r, col, out) -> %s: %s", clb_status_name(s), clb_last_error());
        }
    }
    clb_tensor *all[] = {a, b, r, row, bc, at, same, out, col};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
}

static void test_binary_into(void **state)
{
    (void)state;
    clbt_for_each_device(body_binary_into);
}

/* ---- reductions and matmul ------------------------------------------------------------------ */

static void body_reduce_matmul(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3}, s03[2] = {0, 3}, s45[2] = {4, 5}, s34[2] = {3, 4};
    clb_tensor *t = f32(ctx, 2, s23), *e = f32(ctx, 2, s03);
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce((clb_reduce_op)-1, t, 0, NULL, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce((clb_reduce_op)7, t, 0, NULL, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, NULL, 0, NULL, 0, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 0, NULL, 0, NULL));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 2, (const int[]){0, 0}, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 2, (const int[]){1, -1}, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MEAN, t, 1, (const int[]){2}, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MEAN, t, 1, (const int[]){-3}, 1, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MAX, t, -1, (const int[]){0}, 0, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_MAX, t, 3, (const int[]){0, 1, 0}, 0, outp_));
    {
        /* MAX / MIN over a zero-size axis has no identity: an error (status not pinned) */
        size_t m0 = clb_memory_allocated(ctx);
        clb_tensor *o = GARBAGE;
        clb_status s = clb_reduce(CLB_MAX, e, 1, (const int[]){0}, 0, &o);
        assert_true(s != CLB_OK);
        assert_true(clb_last_error()[0] != '\0');
        assert_null(o);
        o = GARBAGE;
        s = clb_reduce(CLB_MIN, e, 0, NULL, 0, &o);
        assert_true(s != CLB_OK);
        assert_null(o);
        assert_int_equal(clb_memory_allocated(ctx), m0);
    }
    /* sum_to_shape */
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_sum_to_shape(NULL, 1, (const int64_t[]){3}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_sum_to_shape(t, 1, NULL, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_sum_to_shape(t, 1, (const int64_t[]){-3}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_sum_to_shape(t, -1, s23, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_sum_to_shape(t, 1, (const int64_t[]){3}, NULL));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_sum_to_shape(t, 1, (const int64_t[]){2}, outp_));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_sum_to_shape(t, 2, (const int64_t[]){3, 3}, outp_));
    {
        /* more dimensions than grad: not a shape grad can be summed to */
        size_t m0 = clb_memory_allocated(ctx);
        clb_tensor *o = GARBAGE;
        clb_status s = clb_sum_to_shape(t, 3, (const int64_t[]){1, 2, 3}, &o);
        if (s != CLB_ERR_SHAPE_MISMATCH && s != CLB_ERR_INVALID_ARGUMENT)
            fail_msg("sum_to_shape (2,3) -> (1,2,3): %s", clb_status_name(s));
        assert_true(clb_last_error()[0] != '\0');
        assert_null(o);
        assert_int_equal(clb_memory_allocated(ctx), m0);
    }
    /* matmul */
    clb_tensor *m34 = f32(ctx, 2, s34), *m45 = f32(ctx, 2, s45), *m23 = t;
    clb_tensor *b234 = f32(ctx, 3, (const int64_t[]){2, 3, 4});
    clb_tensor *b345 = f32(ctx, 3, (const int64_t[]){3, 4, 5});
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_matmul(NULL, m45, outp_));
    EXPECT_ERR(ctx, CLB_ERR_INVALID_ARGUMENT, clb_matmul(m34, NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_matmul(m34, m45, NULL));
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_matmul(m34, m23, outp_)); /* 4 vs 2 */
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_matmul(m45, m34, outp_)); /* 5 vs 3 */
    EXPECT_ERR(ctx, CLB_ERR_SHAPE_MISMATCH, clb_matmul(b234, b345, outp_)); /* batch 2 vs 3 */
    {
        /* a 0-d operand has no matrix dimensions (numpy: ValueError) */
        const float one = 1;
        clb_tensor *z = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &one);
        size_t m0 = clb_memory_allocated(ctx);
        clb_tensor *o = GARBAGE;
        clb_status s = clb_matmul(z, m34, &o);
        if (s == CLB_OK) fail_msg("matmul of a 0-d tensor succeeded");
        assert_true(clb_last_error()[0] != '\0');
        assert_null(o);
        assert_int_equal(clb_memory_allocated(ctx), m0);
        clb_tensor_release(z);
    }
    clb_tensor *all[] = {t, e, m34, m45, b234, b345};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
}

static void test_reduce_matmul(void **state)
{
    (void)state;
    clbt_for_each_device(body_reduce_matmul);
}

/* The functions without a status are NULL-safe. */
static void test_null_safe_calls(void **state)
{
    (void)state;
    clb_tensor_release(NULL);
    clb_tensor_retain(NULL);
    clb_context_release(NULL);
    assert_int_equal(clb_memory_allocated(NULL), 0);
    assert_false(clb_tensor_shares_storage(NULL, NULL));
}

/* Every out slot of the multi-output entry points is cleared on every failure,
   whichever argument is the bad one. */
static void body_multi_output(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s4[1] = {4};
    clb_tensor *a = f32(ctx, 2, s23), *b = f32(ctx, 1, s3), *c = f32(ctx, 1, s4);
    size_t m0 = clb_memory_allocated(ctx);
    const clb_tensor *ok2[2] = {a, b}, *bad_shape[3] = {a, b, c}, *null_in[3] = {a, NULL, b};
    struct {
        const char *what;
        int n;
        const clb_tensor *const *in;
        clb_status want;
    } cases[] = {
        {"in is NULL", 3, NULL, CLB_ERR_INVALID_ARGUMENT},
        {"in[1] is NULL", 3, null_in, CLB_ERR_INVALID_ARGUMENT},
        {"shapes do not broadcast", 3, bad_shape, CLB_ERR_SHAPE_MISMATCH},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        clb_tensor *out[3] = {GARBAGE, GARBAGE, GARBAGE};
        clb_status st = clb_broadcast_tensors(cases[k].n, cases[k].in, out);
        if (st != cases[k].want)
            fail_msg("broadcast_tensors, %s: %s (expected %s)", cases[k].what, clb_status_name(st),
                     clb_status_name(cases[k].want));
        assert_true(clb_last_error()[0] != '\0');
        for (int i = 0; i < 3; i++)
            if (out[i] != NULL) fail_msg("broadcast_tensors, %s: out[%d] not NULL", cases[k].what, i);
        assert_int_equal(clb_memory_allocated(ctx), m0);
    }
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, ok2, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(-1, ok2, NULL));

    /* clb_broadcast_shapes: out_ndim is 0 after every failure. */
    const int nd[2] = {1, 1};
    const int64_t *sh[2] = {s3, s4}, *good[2] = {s3, s3};
    int64_t shape[CLB_MAX_DIMS];
    int out_nd = 77;
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_shapes(2, nd, sh, &out_nd, shape));
    assert_int_equal(out_nd, 0);
    out_nd = 77;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, NULL, sh, &out_nd, shape));
    assert_int_equal(out_nd, 0);
    out_nd = 77;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, good, &out_nd, NULL));
    assert_int_equal(out_nd, 0);
    out_nd = 77;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(-1, nd, good, &out_nd, shape));
    assert_int_equal(out_nd, 0);
    CLBT_OK(clb_broadcast_shapes(2, nd, good, &out_nd, shape));
    assert_int_equal(out_nd, 1);

    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
}

static void test_multi_output(void **state)
{
    (void)state;
    clbt_for_each_device(body_multi_output);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_dtype_size_invalid),
        cmocka_unit_test(test_last_error_thread_local),
        cmocka_unit_test(test_context_errors),
        cmocka_unit_test(test_creation),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_binary_into),
        cmocka_unit_test(test_reduce_matmul),
        cmocka_unit_test(test_null_safe_calls),
        cmocka_unit_test(test_multi_output),
        cmocka_unit_test(test_every_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
