/* The per-context storage pool: released blocks are reused, accounting stays exact. */
#include "testutil.h"

#include <time.h>

static void reuse_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    int64_t shape[2] = {300, 1000};
    float *data = calloc(300 * 1000, sizeof *data);
    assert_non_null(data);
    assert_int_equal(clb_memory_reserved(ctx), 0);

    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, shape, data);
    size_t live = clb_memory_allocated(ctx);
    assert_int_equal(live, 300 * 1000 * sizeof(float));
    size_t reserved = clb_memory_reserved(ctx);
    assert_true(reserved >= live);
    /* A size class never rounds up by more than 1/8 (plus 512 bytes for small blocks). */
    assert_true(reserved <= live + live / 8 + 512);

    /* A loop that creates and drops same-size outputs settles on the blocks it has. */
    for (int i = 0; i < 20; i++) {
        clb_tensor *c = NULL;
        CLBT_OK(clb_cast(t, CLB_FLOAT32, &c));
        assert_int_equal(clb_memory_allocated(ctx), 2 * live);
        clb_tensor_release(c);
        assert_int_equal(clb_memory_allocated(ctx), live);
    }
    assert_int_equal(clb_memory_reserved(ctx), 2 * reserved);

    /* A slightly smaller request of the same size class reuses the cached block too. */
    int64_t smaller[2] = {300, 999};
    clb_tensor *s = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, smaller, &s));
    assert_int_equal(clb_memory_allocated(ctx), live + 300 * 999 * sizeof(float));
    assert_int_equal(clb_memory_reserved(ctx), 2 * reserved);
    clb_tensor_release(s);

    clb_tensor_release(t);
    assert_int_equal(clb_memory_allocated(ctx), 0);
    assert_int_equal(clb_memory_reserved(ctx), 2 * reserved); /* cached, not returned */
    CLBT_OK(clb_empty_cache(ctx));
    assert_int_equal(clb_memory_reserved(ctx), 0);
    free(data);
}

static void test_reuse(void **state)
{
    (void)state;
    clbt_for_each_device(reuse_body);
}

static void values_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    /* A reused block must not leak the previous tensor's values into a new one. */
    int64_t shape[1] = {1000};
    int32_t a[1000], b[1000], back[1000];
    for (int i = 0; i < 1000; i++) a[i] = i, b[i] = -i;
    clb_tensor *ta = clbt_tensor(ctx, CLB_INT32, 1, shape, a);
    clb_tensor_release(ta);
    clb_tensor *tb = clbt_tensor(ctx, CLB_INT32, 1, shape, b);
    CLBT_OK(clb_tensor_to_host(tb, back, sizeof back));
    assert_memory_equal(back, b, sizeof b);
    clb_tensor_release(tb);
    CLBT_OK(clb_empty_cache(ctx));
}

static void test_values(void **state)
{
    (void)state;
    clbt_for_each_device(values_body);
}

static void test_errors(void **state)
{
    (void)state;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_empty_cache(NULL));
    assert_int_equal(clb_memory_reserved(NULL), 0);
}

/* Exhaustion at scale (issue 26, finding 14): with 100,000 blocks of one size
   pooled, 10,000 allocations of another size once walked the whole list each
   (3-8 s); now each looks up its size class: well under a second in all. On the
   host backend (OpenCL drivers' own per-buffer costs are not the pool's). */
static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_many_pooled(void **state)
{
    (void)state;
    enum { LIVE = 100000, NEW = 10000 };
    clb_context *ctx = clbt_host();
    clb_tensor **t = calloc(LIVE, sizeof *t);
    assert_non_null(t);
    const int64_t small[1] = {16}, other[1] = {300};
    static const float zeros[300] = {0};
    double t0 = seconds();
    for (int i = 0; i < LIVE; i++) CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, small, zeros, &t[i]));
    double live = seconds() - t0;
    for (int i = 0; i < LIVE; i++) clb_tensor_release(t[i]);
    t0 = seconds();
    for (int i = 0; i < NEW; i++) CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, other, zeros, &t[i]));
    double fresh = seconds() - t0;
    for (int i = 0; i < NEW; i++) clb_tensor_release(t[i]);
    printf("100,000 live tensors made in %.3f s; 10,000 of a new size with 100,000 pooled: "
           "%.3f s\n", live, fresh);
    if (fresh > 1.0) fail_msg("10,000 allocations beside 100,000 pooled blocks took %.2f s", fresh);
    if (live > 5.0) fail_msg("100,000 live tensors took %.2f s to make", live);
    free(t);
    clb_context_release(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_many_pooled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
