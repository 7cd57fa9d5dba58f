/* Requests at and past the limits, on every device: larger than the device's
 * largest allocation or its whole memory, byte sizes that overflow, and 64
 * dimensions every one of which is broadcast. Each is a clear
 * CLB_ERR_OUT_OF_MEMORY / CLB_ERR_INVALID_ARGUMENT or a correct result, never a
 * crash. (The host backend's "largest allocation" is the machine's memory, which
 * the kernel may overcommit: there a success that is released is fine.) */
#include "testutil.h"

#include <stdbool.h>

/* A failure must be one of the two clear statuses, with a message. */
static void refused_or_fine(clb_status st, clb_tensor *t, const char *what)
{
    if (st == CLB_OK) {
        assert_non_null(t);
        clb_tensor_release(t);
        return;
    }
    if (st != CLB_ERR_OUT_OF_MEMORY && st != CLB_ERR_INVALID_ARGUMENT)
        fail_msg("%s: %s: %s", what, clb_status_name(st), clb_last_error());
    assert_true(clb_last_error()[0] != '\0');
    assert_null(t);
}

static void sizes(clb_context *ctx, const char *selector)
{
    clb_device_info info;
    clb_tensor *t = NULL;
    CLBT_OK(clb_context_get_info(ctx, &info));
    bool opencl = strcmp(selector, "host") != 0;

    /* element counts and byte sizes that do not fit */
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_tensor_empty(ctx, CLB_FLOAT64, 2, (const int64_t[]){INT64_MAX / 2, 4}, &t));
    assert_null(t);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_tensor_empty(ctx, CLB_FLOAT64, 1, (const int64_t[]){(int64_t)1 << 62}, &t));
    assert_null(t);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_tensor_empty(ctx, CLB_INT8, 3, (const int64_t[]){1 << 30, 1 << 30, 1 << 30}, &t));

    /* one element past the largest single allocation */
    int64_t n = (int64_t)(info.max_alloc_bytes / 4 + 1);
    clb_status st = clb_tensor_empty(ctx, CLB_FLOAT32, 1, &n, &t);
    if (opencl) {
        CLBT_FAILS(CLB_ERR_OUT_OF_MEMORY, st);
        assert_null(t);
    } else {
        refused_or_fine(st, t, "host: past the largest allocation");
    }
    t = NULL;
    /* twice the device's memory */
    n = (int64_t)(info.global_mem_bytes / 2 + 1);
    st = clb_tensor_empty(ctx, CLB_FLOAT32, 2, (const int64_t[]){2, n}, &t);
    if (opencl) {
        CLBT_FAILS(CLB_ERR_OUT_OF_MEMORY, st);
        assert_null(t);
    } else {
        refused_or_fine(st, t, "host: twice the memory");
    }
    t = NULL;
    /* An output that would be too large, from a tiny broadcast input. Not on the
       host backend: an overcommitting kernel would hand it the memory to fill. */
    if (opencl) {
        clb_tensor *s = NULL, *big = NULL;
        const float one = 1.0f;
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 0, NULL, &one, &s));
        n = (int64_t)(info.global_mem_bytes / 2 + 1);
        CLBT_OK(clb_broadcast_to(s, 2, (const int64_t[]){4, n}, &big)); /* a view: free */
        CLBT_FAILS(CLB_ERR_OUT_OF_MEMORY, clb_contiguous(big, &t));
        assert_null(t);
        clb_tensor_release(big);
        clb_tensor_release(s);
    }
}

static void test_sizes(void **state)
{
    (void)state;
    clbt_for_each_device(sizes);
}

/* 64 axes, all broadcast from a scalar: 2 along the first 16, so 65536 elements. */
static void rank64(clb_context *ctx, const char *selector)
{
    int64_t shape[CLB_MAX_DIMS], huge[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) shape[d] = d < 16 ? 2 : 1, huge[d] = 2;
    const int32_t seven = 7;
    clb_tensor *s = NULL, *v = NULL, *c = NULL, *r = NULL, *bad = NULL;
    CLBT_OK(clb_tensor_from_host(ctx, CLB_INT32, 0, NULL, &seven, &s));
    CLBT_OK(clb_broadcast_to(s, CLB_MAX_DIMS, shape, &v));
    for (int d = 0; d < CLB_MAX_DIMS; d++) assert_int_equal(clb_tensor_strides(v)[d], 0);
    assert_int_equal(clb_tensor_numel(v), 65536);
    /* 2^64 elements do not exist */
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(s, CLB_MAX_DIMS, huge, &bad));
    assert_null(bad);

    int32_t *got = clbt_read(v);
    for (int i = 0; i < 65536; i++)
        if (got[i] != 7) fail_msg("%s: element %d of the rank-64 broadcast is %d", selector, i, got[i]);
    free(got);
    CLBT_OK(clb_contiguous(v, &c));
    got = clbt_read(c);
    for (int i = 0; i < 65536; i++)
        if (got[i] != 7) fail_msg("%s: element %d of contiguous() is %d", selector, i, got[i]);
    free(got);

    /* repeat walks 128 plan axes */
    int64_t reps[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) reps[d] = d >= 54 ? 2 : 1;
    clb_tensor *one = NULL;
    int64_t ones[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) ones[d] = 1;
    CLBT_OK(clb_broadcast_to(s, CLB_MAX_DIMS, ones, &one));
    CLBT_OK(clb_repeat(one, CLB_MAX_DIMS, reps, &r));
    assert_int_equal(clb_tensor_numel(r), 1024);
    got = clbt_read(r);
    for (int i = 0; i < 1024; i++)
        if (got[i] != 7) fail_msg("%s: element %d of the rank-64 repeat is %d", selector, i, got[i]);
    free(got);
    clb_tensor_release(r);
    r = NULL;

    /* element-wise and reduce over 64 broadcast axes, on every device */
    clb_status st = clb_binary(CLB_ADD, v, c, &r);
    if (st == CLB_OK) {
        got = clbt_read(r);
        for (int i = 0; i < 65536; i++)
            if (got[i] != 14) fail_msg("%s: element %d of the rank-64 add is %d", selector, i, got[i]);
        free(got);
    } else {
        fail_msg("%s: rank-64 add: %s: %s", selector, clb_status_name(st), clb_last_error());
    }
    clb_tensor_release(r);
    r = NULL;
    st = clb_reduce(CLB_SUM, v, 0, NULL, 0, &r);
    if (st == CLB_OK) {
        int64_t sum = 0;
        CLBT_OK(clb_tensor_to_host(r, &sum, sizeof sum));
        assert_int_equal(sum, 7 * 65536);
    } else {
        fail_msg("%s: rank-64 sum: %s: %s", selector, clb_status_name(st), clb_last_error());
    }
    clb_tensor_release(r);
    clb_tensor_release(one);
    clb_tensor_release(c);
    clb_tensor_release(v);
    clb_tensor_release(s);
}

static void test_rank64(void **state)
{
    (void)state;
    clbt_for_each_device(rank64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_rank64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
