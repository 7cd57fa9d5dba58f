/* Threads: one context shared by 8 threads doing 1,000 mixed operations each,
 * then one context per thread, on the host backend and on every OpenCL device.
 * Every result is checked against a naive loop in this file, so a race that
 * corrupts data fails the test, and the ThreadSanitizer build (./dev test)
 * reports races that happen not to corrupt anything.
 *
 * The mix: transfers, views, contiguous, cast, repeat, element-wise add, a
 * full sum, sort + cumsum and take + masked_select (and the cases 7-8 below),
 * every one required on every device (casts to float64 refused
 * where the device has none). $CLB_TEST_THREAD_OPS overrides the 1,000. */
#include "testutil.h"

#include "../cl/random.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define NTHREADS 8
#define MAXN 256 /* elements of the largest tensor an op creates (4^4) */

typedef struct worker {
    clb_context *ctx; /* shared, or NULL: the worker creates its own on `selector` */
    const char *selector;
    uint64_t seed;
    int ops;
    char error[512]; /* first failure, "" if none */
    bool fp64;       /* the device computes float64 (else casts to it are refused) */
} worker;

/* Records the first failure of a worker; cmocka's asserts are not thread-safe. */
#define WFAIL(w, ...)                                                                              \
    do {                                                                                           \
        if (!(w)->error[0]) snprintf((w)->error, sizeof (w)->error, __VA_ARGS__);                  \
        goto done;                                                                                 \
    } while (0)
#define WOK(w, expr)                                                                               \
    do {                                                                                           \
        clb_status s_ = (expr);                                                                    \
        if (s_ != CLB_OK) WFAIL(w, "%s -> %s: %s", #expr, clb_status_name(s_), clb_last_error());  \
    } while (0)

static int64_t numel_of(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* Row-major multi-index of flat index i. */
static void unflatten(int64_t i, int ndim, const int64_t *shape, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = shape[d] ? i % shape[d] : 0;
        i = shape[d] ? i / shape[d] : 0;
    }
}

static int64_t flatten(int ndim, const int64_t *shape, const int64_t *idx)
{
    int64_t f = 0;
    for (int d = 0; d < ndim; d++) f = f * shape[d] + idx[d];
    return f;
}

/* One random operation on a fresh int32 tensor `a` with values 0..99 (exact in
   every dtype the mix casts to). Returns false after recording a failure. */
static bool one_op(worker *w, clb_context *ctx, uint64_t *rng)
{
    int32_t av[MAXN], bv[MAXN], outv[MAXN * 16];
    double dv[MAXN * 16];
    int64_t shape[4], big[4], idx[4];
    clb_tensor *a = NULL, *b = NULL, *v = NULL, *r = NULL;
    int ndim = (int)(clbt_rand(rng) % 4);
    for (int d = 0; d < ndim; d++) shape[d] = 1 + (int64_t)(clbt_rand(rng) % 4);
    int64_t n = numel_of(ndim, shape);
    for (int64_t i = 0; i < n; i++) av[i] = (int32_t)(clbt_rand(rng) % 100);
    WOK(w, clb_tensor_from_host(ctx, CLB_INT32, ndim, shape, av, &a));

    switch (clbt_rand(rng) % 11) {
    case 0: { /* transfer round trip */
        WOK(w, clb_tensor_to_host(a, outv, sizeof outv));
        for (int64_t i = 0; i < n; i++)
            if (outv[i] != av[i]) WFAIL(w, "round trip: element %lld", (long long)i);
        break;
    }
    case 1: { /* broadcast_to a larger shape: size-1 axes grow, one axis is prepended */
        big[0] = 2;
        for (int d = 0; d < ndim; d++) big[d + 1] = shape[d] == 1 ? 3 : shape[d];
        WOK(w, clb_broadcast_to(a, ndim + 1, big, &v));
        WOK(w, clb_tensor_to_host(v, outv, sizeof outv));
        int64_t m = numel_of(ndim + 1, big), src[4];
        for (int64_t i = 0; i < m; i++) {
            unflatten(i, ndim + 1, big, idx);
            for (int d = 0; d < ndim; d++) src[d] = shape[d] == 1 ? 0 : idx[d + 1];
            if (outv[i] != av[flatten(ndim, shape, src)])
                WFAIL(w, "broadcast_to: element %lld", (long long)i);
        }
        break;
    }
    case 2: { /* reversed axes, materialised */
        int perm[4];
        for (int d = 0; d < ndim; d++) perm[d] = ndim - 1 - d, big[d] = shape[ndim - 1 - d];
        WOK(w, clb_permute(a, perm, &v));
        WOK(w, clb_contiguous(v, &r));
        WOK(w, clb_tensor_to_host(r, outv, sizeof outv));
        int64_t src[4];
        for (int64_t i = 0; i < n; i++) {
            unflatten(i, ndim, big, idx);
            for (int d = 0; d < ndim; d++) src[d] = idx[ndim - 1 - d];
            if (outv[i] != av[flatten(ndim, shape, src)])
                WFAIL(w, "permute+contiguous: element %lld", (long long)i);
        }
        break;
    }
    case 3: { /* cast to float64 (refused without float64) and back to int32 through float32 */
        if (w->fp64) {
            WOK(w, clb_cast(a, CLB_FLOAT64, &v));
            WOK(w, clb_tensor_to_host(v, dv, sizeof dv));
            for (int64_t i = 0; i < n; i++)
                if (dv[i] != (double)av[i]) WFAIL(w, "cast float64: element %lld", (long long)i);
            clb_tensor_release(v);
            v = NULL;
        } else {
            clb_status s = clb_cast(a, CLB_FLOAT64, &v);
            if (s != CLB_ERR_DTYPE || v != NULL)
                WFAIL(w, "cast to float64 without float64 -> %s, expected CLB_ERR_DTYPE",
                      clb_status_name(s));
        }
        WOK(w, clb_cast(a, CLB_FLOAT32, &v));
        WOK(w, clb_cast(v, CLB_INT32, &r));
        WOK(w, clb_tensor_to_host(r, outv, sizeof outv));
        for (int64_t i = 0; i < n; i++)
            if (outv[i] != av[i]) WFAIL(w, "cast round trip: element %lld", (long long)i);
        break;
    }
    case 4: { /* repeat twice along every axis */
        int64_t reps[4] = {2, 2, 2, 2};
        WOK(w, clb_repeat(a, ndim, reps, &r));
        for (int d = 0; d < ndim; d++) big[d] = 2 * shape[d];
        WOK(w, clb_tensor_to_host(r, outv, sizeof outv));
        int64_t m = numel_of(ndim, big), src[4];
        for (int64_t i = 0; i < m; i++) {
            unflatten(i, ndim, big, idx);
            for (int d = 0; d < ndim; d++) src[d] = idx[d] % shape[d];
            if (outv[i] != av[flatten(ndim, shape, src)])
                WFAIL(w, "repeat: element %lld", (long long)i);
        }
        break;
    }
    case 5: { /* a + b with b broadcast along the last axis */
        int64_t last = ndim ? shape[ndim - 1] : 1;
        for (int64_t i = 0; i < last; i++) bv[i] = (int32_t)(clbt_rand(rng) % 100);
        WOK(w, clb_tensor_from_host(ctx, CLB_INT32, ndim ? 1 : 0, &last, bv, &b));
        WOK(w, clb_binary(CLB_ADD, a, b, &r));
        WOK(w, clb_tensor_to_host(r, outv, sizeof outv));
        for (int64_t i = 0; i < n; i++)
            if (outv[i] != av[i] + bv[ndim ? i % last : 0])
                WFAIL(w, "add: element %lld", (long long)i);
        break;
    }
    case 7: { /* made on the device: arange and a uniform draw (random.h's formula) */
        float fv[MAXN];
        uint64_t seed = clbt_rand(rng);
        WOK(w, clb_arange(ctx, CLB_INT32, 0, (double)n, 1, &v));
        WOK(w, clb_tensor_to_host(v, outv, sizeof outv));
        for (int64_t i = 0; i < n; i++)
            if (outv[i] != i) WFAIL(w, "arange: element %lld", (long long)i);
        WOK(w, clb_random_uniform(ctx, CLB_FLOAT32, ndim, shape, seed, 7, 0, 1, &r));
        WOK(w, clb_tensor_to_host(r, fv, sizeof fv));
        for (int64_t i = 0; i < n; i++) {
            clb_u32 words[4];
            uint64_t counter;
            int k = clb_rng_locate(7 + (uint64_t)i, 4, &counter); /* 4 uniforms a call */
            clb_philox(counter, seed, words);
            if (fv[i] != clb_rng_unit24(words[k]))
                WFAIL(w, "uniform: element %lld", (long long)i);
        }
        break;
    }
    case 8: { /* text: a swapped view prints as its contiguous copy */
        char x[4096], y[4096];
        size_t need = 0;
        if (ndim == 0) break; /* 0-d has no axes to swap */
        WOK(w, clb_swapaxes(a, 0, -1, &v));
        WOK(w, clb_contiguous(v, &r));
        WOK(w, clb_tensor_format(v, x, sizeof x, &need));
        WOK(w, clb_tensor_format(r, y, sizeof y, &need));
        if (strcmp(x, y) != 0) WFAIL(w, "format: %.200s vs %.200s", x, y);
        break;
    }
    case 9: { /* the values flattened: sorted descending, and their running sum */
        int64_t flat = n, sorted[MAXN], sums[MAXN];
        clb_tensor *fl = NULL, *srt = NULL;
        WOK(w, clb_reshape(a, 1, &flat, &v));
        clb_status s1 = clb_sort(v, 0, 1, &srt, NULL);
        clb_status s2 = s1 == CLB_OK ? clb_cast(srt, CLB_INT64, &fl) : s1;
        clb_status s3 = s2 == CLB_OK ? clb_tensor_to_host(fl, sorted, sizeof sorted) : s2;
        clb_tensor_release(srt);
        clb_tensor_release(fl);
        WOK(w, s3);
        int64_t total = 0, seen = 0;
        for (int64_t i = 0; i < n; i++) total += av[i], seen += sorted[i];
        for (int64_t i = 1; i < n; i++)
            if (sorted[i] > sorted[i - 1]) WFAIL(w, "sort: element %lld out of order", (long long)i);
        if (seen != total) WFAIL(w, "sort: the values changed");
        WOK(w, clb_cumsum(v, 0, &r));
        WOK(w, clb_tensor_to_host(r, sums, sizeof sums));
        total = 0;
        for (int64_t i = 0; i < n; i++)
            if (sums[i] != (total += av[i])) WFAIL(w, "cumsum: element %lld", (long long)i);
        break;
    }
    case 10: { /* the flattened values reversed by take, then those above 50 by masked_select */
        int64_t flat = n, rev[MAXN];
        for (int64_t i = 0; i < n; i++) rev[i] = n - 1 - i;
        WOK(w, clb_reshape(a, 1, &flat, &v));
        WOK(w, clb_tensor_from_host(ctx, CLB_INT64, 1, &flat, rev, &b));
        clb_tensor *t = NULL, *mask = NULL, *fifty = NULL;
        const int32_t f50 = 50;
        clb_status s1 = clb_take(v, b, 0, &t);
        if (s1 == CLB_OK) s1 = clb_tensor_from_host(ctx, CLB_INT32, 0, NULL, &f50, &fifty);
        if (s1 == CLB_OK) s1 = clb_binary(CLB_GT, t, fifty, &mask);
        if (s1 == CLB_OK) s1 = clb_masked_select(t, mask, &r);
        clb_tensor_release(t);
        clb_tensor_release(mask);
        clb_tensor_release(fifty);
        WOK(w, s1);
        int64_t m = 0;
        for (int64_t i = n - 1; i >= 0; i--)
            if (av[i] > 50) outv[MAXN + m++] = av[i];
        if (clb_tensor_numel(r) != m) WFAIL(w, "masked_select: %lld selected, expected %lld",
                                            (long long)clb_tensor_numel(r), (long long)m);
        WOK(w, clb_tensor_to_host(r, outv, sizeof(int32_t) * (size_t)m));
        for (int64_t i = 0; i < m; i++)
            if (outv[i] != outv[MAXN + i]) WFAIL(w, "take + masked_select: element %lld", (long long)i);
        break;
    }
    default: { /* sum of everything (int64 accumulator) */
        int64_t sum = 0, got = 0;
        for (int64_t i = 0; i < n; i++) sum += av[i];
        WOK(w, clb_reduce(CLB_SUM, a, 0, NULL, 0, &r));
        WOK(w, clb_tensor_to_host(r, &got, sizeof got));
        if (got != sum) WFAIL(w, "sum: %lld, expected %lld", (long long)got, (long long)sum);
        break;
    }
    }
done:
    clb_tensor_release(r);
    clb_tensor_release(v);
    clb_tensor_release(b);
    clb_tensor_release(a);
    return w->error[0] == '\0';
}

static void *run_worker(void *arg)
{
    worker *w = arg;
    clb_context *ctx = w->ctx;
    uint64_t rng = w->seed;
    if (!ctx) WOK(w, clb_context_create(w->selector, &ctx));
    clb_device_info info;
    WOK(w, clb_context_get_info(ctx, &info));
    w->fp64 = info.has_fp64 != 0;
    for (int i = 0; i < w->ops; i++)
        if (!one_op(w, ctx, &rng)) break;
    if (!w->ctx) {
        WOK(w, clb_finish(ctx));
        if (clb_memory_allocated(ctx) != 0)
            WFAIL(w, "%zu bytes still allocated on the thread's own context",
                  clb_memory_allocated(ctx));
    }
done:
    if (!w->ctx) clb_context_release(ctx);
    return NULL;
}

static int ops_per_thread(void)
{
    const char *env = getenv("CLB_TEST_THREAD_OPS");
    int n = env && env[0] ? atoi(env) : 1000;
    return n > 0 ? n : 1000;
}

static void run_threads(clb_context *shared, const char *selector)
{
    static worker w[NTHREADS];
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].ctx = shared;
        w[t].selector = selector;
        w[t].seed = 0x1234567ull * (uint64_t)(t + 1) + (shared ? 0 : 99);
        w[t].ops = ops_per_thread();
        assert_int_equal(pthread_create(&th[t], NULL, run_worker, &w[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < NTHREADS; t++) {
        if (w[t].error[0])
            fail_msg("%s, %s context, thread %d: %s", selector, shared ? "shared" : "own", t,
                     w[t].error);
    }
}

static void shared_context(clb_context *ctx, const char *selector)
{
    run_threads(ctx, selector);
}

static void test_shared_context(void **state)
{
    (void)state;
    clbt_for_each_device(shared_context);
}

static void own_contexts(clb_context *ctx, const char *selector)
{
    (void)ctx;
    run_threads(NULL, selector);
}

static void test_context_per_thread(void **state)
{
    (void)state;
    clbt_for_each_device(own_contexts);
}

/* ---- one tensor shared by every thread (issue 26) ----------------------------------- */

/* Eight threads on one tensor of one context at once: whole and partial reads
   (clb_tensor_to_host of the tensor and of slices: partial maps of one buffer,
   which crashed PoCL 3.1 in memcpy, quirk concurrent-map), moves to a second
   context, ops reading it, and retains and releases of views shared with the
   other threads, whose last release may fall to any of them. */
#define SHARED_N 4096
typedef struct sharer {
    const clb_tensor *t;
    clb_tensor *view; /* one reference of the shared view is this thread's to drop */
    clb_context *other;
    int index;
    char error[512];
} sharer;

static void *share_worker(void *arg)
{
    sharer *w = arg;
    float *buf = malloc(SHARED_N * sizeof *buf);
    clb_tensor *v = NULL, *moved = NULL, *sum = NULL;
    if (!buf) WFAIL(w, "out of memory");
    for (int round = 0; round < 40; round++) {
        int64_t start = (int64_t)((w->index * 97 + round * 13) % (SHARED_N - 512));
        WOK(w, clb_tensor_to_host(w->t, buf, SHARED_N * sizeof *buf));
        for (int i = 0; i < SHARED_N; i++)
            if (buf[i] != (float)i) WFAIL(w, "read element %d = %g", i, buf[i]);
        WOK(w, clb_slice(w->t, 0, start, start + 512, 1, &v));
        WOK(w, clb_tensor_to_host(v, buf, 512 * sizeof *buf));
        for (int i = 0; i < 512; i++)
            if (buf[i] != (float)(start + i)) WFAIL(w, "slice element %d = %g", i, buf[i]);
        WOK(w, clb_tensor_to_context(v, w->other, &moved));
        WOK(w, clb_tensor_to_host(moved, buf, 512 * sizeof *buf));
        for (int i = 0; i < 512; i++)
            if (buf[i] != (float)(start + i)) WFAIL(w, "moved element %d = %g", i, buf[i]);
        WOK(w, clb_binary(CLB_ADD, v, v, &sum));
        WOK(w, clb_tensor_to_host(sum, buf, 512 * sizeof *buf));
        for (int i = 0; i < 512; i++)
            if (buf[i] != 2.0f * (float)(start + i)) WFAIL(w, "sum element %d = %g", i, buf[i]);
        clb_tensor_release(v);
        clb_tensor_release(moved);
        clb_tensor_release(sum);
        v = moved = sum = NULL;
    }
done:
    clb_tensor_release(v);
    clb_tensor_release(moved);
    clb_tensor_release(sum);
    clb_tensor_release(w->view); /* the last of these frees the shared view */
    free(buf);
    return NULL;
}

static void shared_tensor(clb_context *ctx, const char *selector)
{
    static float v[SHARED_N];
    for (int i = 0; i < SHARED_N; i++) v[i] = (float)i;
    const int64_t shape[1] = {SHARED_N};
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, shape, v), *view = NULL;
    CLBT_OK(clb_slice(t, 0, 1, SHARED_N, 2, &view));
    clb_context *other = NULL;
    CLBT_OK(clb_context_create(strcmp(selector, "host") == 0 ? "host" : selector, &other));
    static sharer w[NTHREADS];
    pthread_t th[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        memset(&w[k], 0, sizeof w[k]);
        w[k] = (sharer){.t = t, .view = view, .other = other, .index = k};
        if (k > 0) clb_tensor_retain(view);
    }
    for (int k = 0; k < NTHREADS; k++)
        assert_int_equal(pthread_create(&th[k], NULL, share_worker, &w[k]), 0);
    for (int k = 0; k < NTHREADS; k++) assert_int_equal(pthread_join(th[k], NULL), 0);
    for (int k = 0; k < NTHREADS; k++)
        if (w[k].error[0]) fail_msg("%s, shared tensor, thread %d: %s", selector, k, w[k].error);
    clb_tensor_release(t);
    CLBT_OK(clb_finish(other));
    assert_int_equal(clb_memory_allocated(other), 0);
    clb_context_release(other);
}

static void test_shared_tensor(void **state)
{
    (void)state;
    clbt_for_each_device(shared_tensor);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_context),
        cmocka_unit_test(test_context_per_thread),
        cmocka_unit_test(test_shared_tensor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
