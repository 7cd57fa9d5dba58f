/* Cold start (docs/performance.md, "Cold start"): the first tier never changes a result, and
 * the number of programs a fixed sweep builds stays within its recorded bound.
 *
 * Every case runs in a context with its own empty CLB_CACHE_DIR (set before the
 * context is created, when options are read). The suite's CLB_HOST_TINY=0
 * turns the first tier off; the tier contexts here set the default back. */
#include "testutil.h"

#include "cl_backend.h"
#include "cl_launch.h"

#include <stdlib.h>
#include <unistd.h>

static clb_context *host;

static int setup(void **state)
{
    (void)state;
    return clbt_host_open(&host); /* tests/testutil.h */
}

static int teardown(void **state)
{
    (void)state;
    return clbt_host_close(&host, false);
}

/* A context on `selector` over the program cache in dir; tier: whether maps
   may run on the host while their programs build. */
static clb_context *context_on(const char *selector, bool tier, const char *dir)
{
    char *old_cache = getenv("CLB_CACHE_DIR") ? strdup(getenv("CLB_CACHE_DIR")) : NULL;
    char *old_tiny = getenv("CLB_HOST_TINY") ? strdup(getenv("CLB_HOST_TINY")) : NULL;
    setenv("CLB_CACHE_DIR", dir, 1);
    setenv("CLB_HOST_TINY", tier ? "8192" : "0", 1);
    clb_context *ctx = NULL;
    CLBT_OK(clb_context_create(selector, &ctx));
    if (old_cache) setenv("CLB_CACHE_DIR", old_cache, 1);
    else unsetenv("CLB_CACHE_DIR");
    if (old_tiny) setenv("CLB_HOST_TINY", old_tiny, 1);
    else unsetenv("CLB_HOST_TINY");
    free(old_cache);
    free(old_tiny);
    return ctx;
}

/* The same over a fresh empty program cache; dir receives its path. */
static clb_context *cold_context(const char *selector, bool tier, char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/clb-test-cold-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return context_on(selector, tier, dir);
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Values with the edge cases the exact ops single out. */
static clb_tensor *values(clb_context *ctx, clb_dtype t, int ndim, const int64_t *shape, int seed)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    double *v = malloc((size_t)n * sizeof *v);
    assert_non_null(v);
    static const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, 1e30, -1e-30, 100.0, -7.0};
    for (int64_t i = 0; i < n; i++) v[i] = edge[(i * 7 + seed) % 12];
    /* Converted on the host backend, so the device builds no cast program. */
    clb_tensor *d = clbt_tensor(host, CLB_FLOAT64, ndim, shape, v), *c = NULL;
    free(v);
    CLBT_OK(clb_cast(d, t, &c));
    clb_tensor_release(d);
    void *bytes = clbt_read(c);
    clb_tensor_release(c);
    clb_tensor *out = clbt_tensor(ctx, t, ndim, shape, bytes);
    free(bytes);
    return out;
}

typedef struct map_case {
    int kind; /* 0 unary, 1 binary, 2 where */
    int op;
    clb_dtype dtype;
} map_case;

/* Exact ops (the tier's set) across dtypes, above CLB_HOST_TINY's size. */
static const map_case cases[] = {
    {1, CLB_ADD, CLB_FLOAT32},      {1, CLB_DIV, CLB_FLOAT32},      {1, CLB_MOD, CLB_FLOAT32},
    {1, CLB_FLOOR_DIV, CLB_INT32},  {1, CLB_MUL, CLB_INT8},         {1, CLB_MAXIMUM, CLB_FLOAT16},
    {1, CLB_LT, CLB_FLOAT32},       {1, CLB_BITWISE_XOR, CLB_UINT16}, {0, CLB_NEG, CLB_INT64},
    {0, CLB_SQRT, CLB_FLOAT32},     {0, CLB_RELU, CLB_FLOAT32},     {2, 0, CLB_FLOAT32},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static clb_tensor *run_case(clb_context *ctx, const map_case *c)
{
    const int64_t big[2] = {160, 100}, row[1] = {100};
    clb_tensor *a = values(ctx, c->dtype, 2, big, 1), *b = values(ctx, c->dtype, 1, row, 5);
    clb_tensor *out = NULL;
    if (c->kind == 0) CLBT_OK(clb_unary((clb_unary_op)c->op, a, &out));
    if (c->kind == 1) CLBT_OK(clb_binary((clb_binary_op)c->op, a, b, &out));
    if (c->kind == 2) {
        clb_tensor *cond = NULL;
        CLBT_OK(clb_binary(CLB_GT, a, b, &cond));
        CLBT_OK(clb_where(cond, a, b, &out));
        clb_tensor_release(cond);
    }
    clb_tensor_release(a);
    clb_tensor_release(b);
    return out;
}

/* Each case three times in a cold tier context (the first on the host while its
   program builds, later ones on whichever is ready), against a context that
   always launches and against the host backend: bit for bit. */
static void tier_body(clb_context *probe, const char *selector)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(probe, &info));
    if (info.type == CLB_DEVICE_HOST) return;
    char dir_t[64], dir_k[64];
    clb_context *tier = cold_context(selector, true, dir_t, sizeof dir_t);
    clb_context *kern = cold_context(selector, false, dir_k, sizeof dir_k);
    long runs_before = clb__cl_first_tier_runs;
    for (int i = 0; i < NCASES; i++) {
        clb_tensor *want = run_case(host, &cases[i]), *k = run_case(kern, &cases[i]);
        char what[96];
        snprintf(what, sizeof what, "case %d on %s, always launching", i, selector);
        clbt_assert_matches_host(k, want, CLBT_EXACT, 0, what);
        for (int round = 0; round < 3; round++) {
            clb_tensor *t = run_case(tier, &cases[i]);
            snprintf(what, sizeof what, "case %d on %s, tier context, call %d", i, selector, round);
            clbt_assert_matches_host(t, want, CLBT_EXACT, 0, what);
            clb_tensor_release(t);
        }
        clb_tensor_release(want);
        clb_tensor_release(k);
    }
    /* The tier ran where the device shares its storage with the host and keeps
       subnormals (PoCL here); elsewhere every call launched. */
    if (strstr(info.platform, "Portable")) assert_true(clb__cl_first_tier_runs > runs_before);
    clb_context_release(tier);
    clb_context_release(kern);
    remove_dir(dir_t);
    remove_dir(dir_k);
}

static void test_tier_never_changes_a_result(void **state)
{
    (void)state;
    clbt_for_each_device(tier_body);
}

/* A map called in a loop on the first tier gets its program: the calls ask
   the program cache whether it has arrived, and that question must not count
   as compiler use holding the background build off (it did: a float16 add
   called every 0.35 s stayed on the host for good). Calls 50 ms apart until
   one launches; the bound is a liveness limit, far above the ~3 s the
   build takes here (the 2 s first-build delay and one PoCL compile). */
static void arrival_body(clb_context *probe, const char *selector)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(probe, &info));
    if (info.type == CLB_DEVICE_HOST || !strstr(info.platform, "Portable")) return;
    char dir[64];
    clb_context *tier = cold_context(selector, true, dir, sizeof dir);
    const map_case c = {1, CLB_SUB, CLB_FLOAT16};
    bool launched = false;
    for (int call = 0; call < 2400 && !launched; call++) { /* 2 minutes at most */
        long before = clb__cl_first_tier_runs;
        clb_tensor *t = run_case(tier, &c);
        CLBT_OK(clb_finish(tier));
        clb_tensor_release(t);
        launched = clb__cl_first_tier_runs == before;
        if (!launched) usleep(50000);
    }
    if (!launched) fail_msg("a map in a loop on %s never got its program off the first tier", selector);
    clb_context_release(tier);
    remove_dir(dir);
}

static void test_tier_program_arrives(void **state)
{
    (void)state;
    clbt_for_each_device(arrival_body);
}

/* Tier work that outweighs a compile is not repeated by the next process: a
   short program whose float16 adds ran on the host while their program waited
   (dropped unbuilt at release) leaves the program marked as wanted, and the
   next context on the same disk cache builds it at its first call and
   launches. A single small tier call leaves nothing: the next process takes
   the tier again. */
static int64_t tier_calls(clb_context *ctx, int64_t n, int calls)
{
    const int64_t shape[1] = {n};
    clb_tensor *x = NULL;
    const clb_scalar v = {CLB_SCALAR_FLOAT, 0, 1.5};
    CLBT_OK(clb_full(ctx, CLB_FLOAT16, 1, shape, v, &x));
    const long before = clb__cl_first_tier_runs;
    for (int i = 0; i < calls; i++) {
        clb_tensor *y = NULL;
        CLBT_OK(clb_binary(CLB_ADD, x, x, &y));
        CLBT_OK(clb_finish(ctx));
        clb_tensor_release(y);
    }
    clb_tensor_release(x);
    return clb__cl_first_tier_runs - before;
}

static void marked_body(clb_context *probe, const char *selector)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(probe, &info));
    if (info.type == CLB_DEVICE_HOST || !strstr(info.platform, "Portable")) return;
    for (int heavy = 0; heavy < 2; heavy++) {
        char dir[64];
        clb_context *first = cold_context(selector, true, dir, sizeof dir);
        /* heavy: 2^22 halves, 40 calls (~0.4 s on the host); else one of 2^14 */
        const int64_t n = heavy ? (int64_t)1 << 22 : (int64_t)1 << 14;
        assert_true(tier_calls(first, n, heavy ? 40 : 1) > 0);
        clb_context_release(first);
        clb_context *next = context_on(selector, true, dir);
        const int64_t tiers = tier_calls(next, n, 1);
        if (heavy && tiers != 0)
            fail_msg("%s: the next context ran a heavy map's first call on the tier again", selector);
        if (!heavy && tiers != 1)
            fail_msg("%s: a single small tier call's program was built by the next context", selector);
        clb_context_release(next);
        remove_dir(dir);
    }
}

static void test_tier_work_marks_its_program(void **state)
{
    (void)state;
    clbt_for_each_device(marked_body);
}

/* The programs a fixed sweep builds on the first OpenCL device, with the tier
   off so every one is built in the foreground: a change that adds
   specializations fails here. Recorded on PoCL (device 0 here): 9. */
#define SWEEP_PROGRAMS_BOUND 9

static void test_sweep_program_count(void **state)
{
    (void)state;
    int devices = 0;
    CLBT_OK(clb_device_count(&devices));
    if (devices == 0) skip();
    clb_device_info info;
    CLBT_OK(clb_device_get_info(0, &info));
    char dir[64];
    clb_context *ctx = cold_context(info.selector, false, dir, sizeof dir);
    const int64_t big[2] = {160, 100}, row[1] = {100};
    clb_tensor *a = values(ctx, CLB_FLOAT32, 2, big, 1), *b = values(ctx, CLB_FLOAT32, 1, row, 3);
    clb_tensor *r = NULL;
    /* 4 maps, 2 reductions, a transposing copy, a fused expression, a cast */
    const clb_binary_op bin[] = {CLB_ADD, CLB_SUB, CLB_MUL};
    for (int i = 0; i < 3; i++) {
        CLBT_OK(clb_binary(bin[i], a, b, &r));
        clb_tensor_release(r);
    }
    CLBT_OK(clb_unary(CLB_NEG, a, &r));
    clb_tensor_release(r);
    const int axis = 1;
    CLBT_OK(clb_reduce(CLB_SUM, a, 1, &axis, 0, &r));
    clb_tensor_release(r);
    CLBT_OK(clb_reduce(CLB_MAX, a, 1, &axis, 0, &r));
    clb_tensor_release(r);
    const int perm[2] = {1, 0};
    clb_tensor *at = NULL;
    CLBT_OK(clb_permute(a, perm, &at));
    CLBT_OK(clb_contiguous(at, &r));
    clb_tensor_release(r);
    clb_tensor_release(at);
    const char *names[2] = {"a", "b"};
    const clb_tensor *in[2] = {a, b};
    CLBT_OK(clb_eval(ctx, "a * b + 1", 2, names, in, &r));
    clb_tensor_release(r);
    CLBT_OK(clb_cast(a, CLB_INT32, &r));
    clb_tensor_release(r);
    CLBT_OK(clb_finish(ctx));
    clb_tensor_release(a);
    clb_tensor_release(b);
    /* Programs reach the disk cache from the background thread, which a
       context's release waits for. */
    clb_context_release(ctx);
    int programs = 0;
    char *old = getenv("CLB_CACHE_DIR") ? strdup(getenv("CLB_CACHE_DIR")) : NULL;
    setenv("CLB_CACHE_DIR", dir, 1);
    CLBT_OK(clb_device_cached_programs(info.index, &programs));
    if (old) setenv("CLB_CACHE_DIR", old, 1);
    else unsetenv("CLB_CACHE_DIR");
    free(old);
    remove_dir(dir);
    print_message("fixed sweep on %s: %d programs (bound %d)\n", info.name, programs,
                  SWEEP_PROGRAMS_BOUND);
    if (programs < 1 || programs > SWEEP_PROGRAMS_BOUND)
        fail_msg("the fixed sweep built %d programs on %s; the recorded bound is %d (1..%d): a "
                 "change added specializations, or the count is off",
                 programs, info.name, SWEEP_PROGRAMS_BOUND, SWEEP_PROGRAMS_BOUND);
}

int main(void)
{
    /* The sweep's count is of disk entries: written on every driver, PoCL too. */
    setenv("CLB_CACHE_WRITE", "always", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tier_never_changes_a_result),
        cmocka_unit_test(test_tier_program_arrives),
        cmocka_unit_test(test_tier_work_marks_its_program),
        cmocka_unit_test(test_sweep_program_count),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
