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

/* Exhaustion at scale (issue 26, finding 14). The pool once walked its whole
   list (with 100,000 blocks of one size pooled, 10,000 allocations of another
   size took 3-8 s), and on PoCL every tensor was an SVM block of its own, which
   PoCL 3.1 looks up in a list on each buffer creation (quirk svm-lookup): 20,000
   live tensors took 11-68 s to make, 100,000 did not finish in 600 s. Now small
   blocks are carved out of shared slabs (src/opencl/cl_slab.c) and the pool looks up
   size classes: the walk below is milliseconds per operation on every device.
   The suite runs 20,000 live tensors and checks behaviour: every tensor keeps its
   own values, neighbours never share memory, releases in any order leave the
   others intact, pooled blocks are reused and the accounting is exact. The slow
   suite (CLBT_SLOW) runs 100,000 and bounds the time per operation. */
#ifndef CLBT_SLOW
#define CLBT_SLOW 0
#endif

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum { LIVE = CLBT_SLOW ? 100000 : 20000, NEW = LIVE / 10, ELEMS = 16 };

/* Tensor i holds i * ELEMS + k at element k (exact in float32 below 2^24). */
static void check_values(clb_tensor *t, int i, const char *selector)
{
    float got[ELEMS];
    CLBT_OK(clb_tensor_to_host(t, got, sizeof got));
    for (int k = 0; k < ELEMS; k++)
        if (got[k] != (float)(i * ELEMS + k))
            fail_msg("%s: tensor %d element %d is %g, expected %d", selector, i, k, (double)got[k],
                     i * ELEMS + k);
}

static void many_body(clb_context *ctx, const char *selector)
{
    clb_tensor **t = calloc(LIVE, sizeof *t);
    float *vals = malloc((size_t)LIVE * ELEMS * sizeof *vals);
    assert_non_null(t);
    assert_non_null(vals);
    for (size_t j = 0; j < (size_t)LIVE * ELEMS; j++) vals[j] = (float)j;
    const int64_t small[1] = {ELEMS}, other[1] = {300};
    CLBT_OK(clb_empty_cache(ctx));
    double t0 = seconds();
    for (int i = 0; i < LIVE; i++)
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, small, vals + (size_t)i * ELEMS, &t[i]));
    double make = seconds() - t0;
    assert_int_equal(clb_memory_allocated(ctx), (size_t)LIVE * ELEMS * sizeof(float));
    for (int i = 0; i + 1 < LIVE; i += 97) {
        check_values(t[i], i, selector);
        if (clb_tensor_shares_storage(t[i], t[i + 1]))
            fail_msg("%s: tensors %d and %d share storage", selector, i, i + 1);
    }
    /* an op between the first and the last still sees both */
    clb_tensor *sum = NULL;
    CLBT_OK(clb_binary(CLB_ADD, t[0], t[LIVE - 1], &sum));
    float got[ELEMS];
    CLBT_OK(clb_tensor_to_host(sum, got, sizeof got));
    for (int k = 0; k < ELEMS; k++)
        assert_true(got[k] == (float)k + (float)((LIVE - 1) * ELEMS + k));
    clb_tensor_release(sum);
    /* every other one goes; the rest keep their values */
    for (int i = 1; i < LIVE; i += 2) clb_tensor_release(t[i]);
    for (int i = 0; i < LIVE; i += 2 * 97) check_values(t[i], i, selector);
    size_t reserved = clb_memory_reserved(ctx);
    /* new tensors of the same size reuse the pooled blocks: nothing more reserved */
    t0 = seconds();
    for (int i = 1; i < LIVE; i += 2)
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, small, vals + (size_t)i * ELEMS, &t[i]));
    double reuse = seconds() - t0;
    assert_int_equal(clb_memory_reserved(ctx), reserved);
    for (int i = 1; i < LIVE; i += 2 * 97) check_values(t[i], i, selector);
    for (int i = 0; i < LIVE; i++) clb_tensor_release(t[i]);
    /* with LIVE blocks pooled, allocations of a new size */
    static const float zeros[300] = {0};
    t0 = seconds();
    for (int i = 0; i < NEW; i++)
        CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, other, zeros, &t[i]));
    double fresh = seconds() - t0;
    for (int i = 0; i < NEW; i++) clb_tensor_release(t[i]);
    assert_int_equal(clb_memory_allocated(ctx), 0);
    CLBT_OK(clb_empty_cache(ctx));
    assert_int_equal(clb_memory_reserved(ctx), 0);
    printf("%s: %d live tensors made in %.3f s (%.1f us each), %d from the pool %.1f us each, "
           "%d of a new size beside %d pooled %.1f us each\n",
           selector, LIVE, make, make / LIVE * 1e6, LIVE / 2, reuse / (LIVE / 2) * 1e6, NEW, LIVE,
           fresh / NEW * 1e6);
    /* Time only in the slow suite, bounded generously for a loaded machine:
       milliseconds per operation, not the seconds each once took. */
    if (CLBT_SLOW && make / LIVE > 2e-3)
        fail_msg("%s: %.2f ms per live tensor made", selector, make / LIVE * 1e3);
    free(vals);
    free(t);
}

static void test_many_live(void **state)
{
    (void)state;
    clbt_for_each_device(many_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_many_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
