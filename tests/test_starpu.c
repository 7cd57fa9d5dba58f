/* The StarPU adapter (issue 31): tasks on every worker StarPU sees (CPU workers on
 * the host backend, OpenCL workers on StarPU's own context and queue), one
 * operation split over all of them, misuse, and no storage left behind.
 *
 * Environment, set here when unset so a run is small, quiet and leaves nothing in
 * $HOME: STARPU_OPENCL_ON_CPUS=1 (PoCL and rusticl are CPU devices), STARPU_NCPU=1,
 * STARPU_SILENT=1, STARPU_HOME a temporary directory (performance models and
 * calibration), removed at the end. CLB_TEST_DEVICES=host: CPU workers only
 * (STARPU_NOPENCL=0). CLB_TEST_REQUIRE: each named device must be a StarPU worker. */
#define _XOPEN_SOURCE 700
#include "clbroadcast_starpu.h"
#include "testutil.h"

#include <ftw.h>
#include <unistd.h>

static clb_starpu *sp;
static clb_context *host;
static unsigned nworkers;
static char home[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    (void)state;
    setenv("STARPU_OPENCL_ON_CPUS", "1", 0);
    setenv("STARPU_NCPU", "1", 0);
    setenv("STARPU_SILENT", "1", 0);
    const char *only = getenv("CLB_TEST_DEVICES");
    if (only && strcmp(only, "host") == 0) setenv("STARPU_NOPENCL", "0", 1);
    if (!getenv("STARPU_HOME")) {
        snprintf(home, sizeof home, "/tmp/clb-starpu-XXXXXX");
        if (!mkdtemp(home)) return -1;
        setenv("STARPU_HOME", home, 1);
    }
    if (starpu_init(NULL) != 0) return -1;
    if (clb_starpu_create(&sp) != CLB_OK) {
        fprintf(stderr, "clb_starpu_create: %s\n", clb_last_error());
        return -1;
    }
    nworkers = starpu_worker_get_count();
    return clb_context_create("host", &host) == CLB_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    clb_context_release(host);
    clb_starpu_release(sp);
    starpu_shutdown();
    if (home[0]) nftw(home, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)(((i + seed) * 7919 % 2003) / 1001.0 - 1.0);
}

/* want = op on the host backend, directly; compares got (n floats). */
static void assert_close(const float *got, const clb_tensor *want, size_t n, double rtol)
{
    float *w = malloc(n * sizeof *w);
    assert_non_null(w);
    CLBT_OK(clb_tensor_to_host(want, w, n * sizeof *w));
    for (size_t i = 0; i < n; i++)
        if (fabs((double)got[i] - w[i]) > rtol * fmax(1.0, fabs((double)w[i])))
            fail_msg("element %zu: %g, the host backend directly gives %g", i, got[i], w[i]);
    free(w);
}

/* Every required device (CLB_TEST_REQUIRE) is one of StarPU's OpenCL workers. */
static void test_workers(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    clbt_selectors(sel); /* fails the test when a required device is missing */
    const char *require = getenv("CLB_TEST_REQUIRE");
    char name[64];
    for (const char *p = require ? require : ""; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        p += len + (p[len] == ',');
        clb_context *probe = NULL;
        CLBT_OK(clb_context_create(name, &probe));
        int found = 0;
        for (unsigned w = 0; w < nworkers; w++) {
            clb_context *ctx = NULL;
            if (clb_starpu_worker_context(sp, (int)w, &ctx) == CLB_OK &&
                strcmp(clb_context_device_name(ctx), clb_context_device_name(probe)) == 0)
                found = 1;
        }
        if (!found)
            fail_msg("CLB_TEST_REQUIRE names %s (%s), but no StarPU worker runs on it "
                     "(STARPU_OPENCL_ON_CPUS=1? STARPU_NOPENCL?)", name, clb_context_device_name(probe));
        clb_context_release(probe);
    }
}

/* The broadcast expression and the reduction, in blocks pinned round-robin to every
   worker, equal the whole done directly on the host backend. */
static void test_split_every_worker(void **state)
{
    (void)state;
    enum { C = 48 };
    int P = (int)(2 * nworkers);
    int64_t N = 16 * P, xs[2] = {N, C}, rs[2] = {1, C}, ps[2] = {P, C}, vs[1] = {C};
    size_t n = (size_t)(N * C);
    float *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), mu[C], sigma[C], v[C] = {0};
    float *partial = calloc((size_t)(P * C), sizeof *partial);
    clb_starpu_tensor X, MU, S, Y, PART, V, xp[64], yp[64], pp[64];
    assert_true(x && y && partial && P <= 64);
    fill(x, n, 1);
    for (int j = 0; j < C; j++) mu[j] = (float)(0.01 * j), sigma[j] = (float)(1 + 0.1 * (j % 5));
    CLBT_OK(clb_starpu_register(x, CLB_FLOAT32, 2, xs, &X));
    CLBT_OK(clb_starpu_register(mu, CLB_FLOAT32, 2, rs, &MU));
    CLBT_OK(clb_starpu_register(sigma, CLB_FLOAT32, 2, rs, &S));
    CLBT_OK(clb_starpu_register(y, CLB_FLOAT32, 2, xs, &Y));
    CLBT_OK(clb_starpu_register(partial, CLB_FLOAT32, 2, ps, &PART));
    CLBT_OK(clb_starpu_register(v, CLB_FLOAT32, 1, vs, &V));
    CLBT_OK(clb_starpu_partition(&X, P, xp));
    CLBT_OK(clb_starpu_partition(&Y, P, yp));
    CLBT_OK(clb_starpu_partition(&PART, P, pp));
    unsigned long before[64] = {0};
    for (unsigned w = 0; w < nworkers && w < 64; w++) before[w] = clb_starpu_worker_tasks(sp, (int)w);
    const char *names[] = {"x", "mu", "sigma"};
    int axis0 = 0;
    for (int p = 0; p < P; p++) {
        const clb_starpu_tensor *in[] = {&xp[p], &MU, &S};
        CLBT_OK(clb_starpu_pin(sp, p % (int)nworkers));
        CLBT_OK(clb_starpu_eval(sp, "(x - mu) / sigma * tanh(x)", 3, names, in, &yp[p]));
        CLBT_OK(clb_starpu_eval_reduce(sp, "(x - mu) ** 2", 2, names, in, CLB_SUM, 1, &axis0, 1, &pp[p]));
    }
    CLBT_OK(clb_starpu_pin(sp, -1));
    clb_starpu_unpartition(&PART);
    CLBT_OK(clb_starpu_reduce(sp, CLB_SUM, &PART, 1, &axis0, 0, &V));
    CLBT_OK(clb_starpu_wait(sp));
    for (unsigned w = 0; w < nworkers && w < 64; w++)
        if (clb_starpu_worker_tasks(sp, (int)w) - before[w] < 4)
            fail_msg("worker %u ran %lu tasks, 4 were pinned to it", w,
                     clb_starpu_worker_tasks(sp, (int)w) - before[w]);
    clb_starpu_unpartition(&X);
    clb_starpu_unpartition(&Y);
    clb_starpu_tensor *all[] = {&X, &MU, &S, &Y, &PART, &V};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_starpu_unregister(all[i]);

    clb_tensor *tx = clbt_tensor(host, CLB_FLOAT32, 2, xs, x), *tmu = clbt_tensor(host, CLB_FLOAT32, 2, rs, mu);
    clb_tensor *ts = clbt_tensor(host, CLB_FLOAT32, 2, rs, sigma), *ty = NULL, *tv = NULL;
    const clb_tensor *in[] = {tx, tmu, ts};
    CLBT_OK(clb_eval(host, "(x - mu) / sigma * tanh(x)", 3, names, in, &ty));
    CLBT_OK(clb_eval_reduce(host, "(x - mu) ** 2", 2, names, in, CLB_SUM, 1, &axis0, 0, &tv));
    assert_close(y, ty, n, 1e-5);
    assert_close(v, tv, C, 1e-4);
    clb_tensor *t[] = {tx, tmu, ts, ty, tv};
    for (size_t i = 0; i < 5; i++) clb_tensor_release(t[i]);
    free(x);
    free(y);
    free(partial);
}

/* An expression task copies nothing: on every worker it runs on StarPU's buffers
   and the library reserves no storage of its own. */
static void test_eval_in_place(void **state)
{
    (void)state;
    float x[64], y[64] = {0}, b[8];
    fill(x, 64, 9), fill(b, 8, 10);
    int64_t xs[2] = {8, 8}, bs[2] = {1, 8};
    const char *names[] = {"x", "b"};
    for (unsigned w = 0; w < nworkers; w++) {
        clb_context *ctx = NULL;
        CLBT_OK(clb_starpu_worker_context(sp, (int)w, &ctx));
        CLBT_OK(clb_starpu_wait(sp));
        CLBT_OK(clb_empty_cache(ctx));
        clb_starpu_tensor X, Y, B;
        CLBT_OK(clb_starpu_register(x, CLB_FLOAT32, 2, xs, &X));
        CLBT_OK(clb_starpu_register(b, CLB_FLOAT32, 2, bs, &B));
        CLBT_OK(clb_starpu_register(y, CLB_FLOAT32, 2, xs, &Y));
        CLBT_OK(clb_starpu_pin(sp, (int)w));
        CLBT_OK(clb_starpu_eval(sp, "x * b - 1", 2, names, (const clb_starpu_tensor *[]){&X, &B}, &Y));
        CLBT_OK(clb_starpu_pin(sp, -1));
        CLBT_OK(clb_starpu_wait(sp));
        if (clb_memory_reserved(ctx) != 0)
            fail_msg("worker %u (%s): an expression task reserved %zu bytes", w,
                     clb_context_device_name(ctx), clb_memory_reserved(ctx));
        clb_starpu_unregister(&X);
        clb_starpu_unregister(&B);
        clb_starpu_unregister(&Y);
        for (int i = 0; i < 64; i++) assert_true(fabsf(y[i] - (x[i] * b[i % 8] - 1)) <= 1e-6f);
    }
}

/* eval_reduce with broadcasting, reduce, sum_to_shape and matmul on each worker. */
static void test_ops_each_worker(void **state)
{
    (void)state;
    float x[4 * 3], yv[5 * 3], g[6 * 4], a[3 * 4], b[4 * 2];
    fill(x, 12, 2), fill(yv, 15, 3), fill(g, 24, 4), fill(a, 12, 5), fill(b, 8, 6);
    int64_t xs[3] = {4, 1, 3}, ys[3] = {1, 5, 3}, ds[2] = {4, 5}, gs[2] = {6, 4}, g1[2] = {1, 4},
            gm[2] = {6, 1}, as[2] = {3, 4}, bs[2] = {4, 2}, cs[2] = {3, 2};
    clb_tensor *tx = clbt_tensor(host, CLB_FLOAT32, 3, xs, x), *ty = clbt_tensor(host, CLB_FLOAT32, 3, ys, yv);
    clb_tensor *tg = clbt_tensor(host, CLB_FLOAT32, 2, gs, g), *ta = clbt_tensor(host, CLB_FLOAT32, 2, as, a);
    clb_tensor *tb = clbt_tensor(host, CLB_FLOAT32, 2, bs, b), *wd = NULL, *wg = NULL, *wm = NULL, *wc = NULL;
    const char *names[] = {"x", "y"};
    const clb_tensor *in[] = {tx, ty};
    int last = -1, one = 1;
    CLBT_OK(clb_eval_reduce(host, "(x - y) ** 2", 2, names, in, CLB_SUM, 1, &last, 0, &wd));
    CLBT_OK(clb_sum_to_shape(tg, 2, g1, &wg));
    CLBT_OK(clb_reduce(CLB_MAX, tg, 1, &one, 1, &wm));
    CLBT_OK(clb_matmul(ta, tb, &wc));
    for (unsigned w = 0; w < nworkers; w++) {
        float d[20] = {0}, s[4] = {0}, m[6] = {0}, c[6] = {0};
        clb_starpu_tensor X, Y, D, G, S, M, A, B, Cc;
        CLBT_OK(clb_starpu_register(x, CLB_FLOAT32, 3, xs, &X));
        CLBT_OK(clb_starpu_register(yv, CLB_FLOAT32, 3, ys, &Y));
        CLBT_OK(clb_starpu_register(d, CLB_FLOAT32, 2, ds, &D));
        CLBT_OK(clb_starpu_register(g, CLB_FLOAT32, 2, gs, &G));
        CLBT_OK(clb_starpu_register(s, CLB_FLOAT32, 2, g1, &S));
        CLBT_OK(clb_starpu_register(m, CLB_FLOAT32, 2, gm, &M));
        CLBT_OK(clb_starpu_register(a, CLB_FLOAT32, 2, as, &A));
        CLBT_OK(clb_starpu_register(b, CLB_FLOAT32, 2, bs, &B));
        CLBT_OK(clb_starpu_register(c, CLB_FLOAT32, 2, cs, &Cc));
        CLBT_OK(clb_starpu_pin(sp, (int)w));
        const clb_starpu_tensor *sin[] = {&X, &Y};
        CLBT_OK(clb_starpu_eval_reduce(sp, "(x - y) ** 2", 2, names, sin, CLB_SUM, 1, &last, 0, &D));
        CLBT_OK(clb_starpu_sum_to_shape(sp, &G, &S));
        CLBT_OK(clb_starpu_reduce(sp, CLB_MAX, &G, 1, &one, 1, &M));
        CLBT_OK(clb_starpu_matmul(sp, &A, &B, &Cc));
        CLBT_OK(clb_starpu_pin(sp, -1));
        CLBT_OK(clb_starpu_wait(sp));
        clb_starpu_tensor *all[] = {&X, &Y, &D, &G, &S, &M, &A, &B, &Cc};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_starpu_unregister(all[i]);
        assert_close(d, wd, 20, 1e-5);
        assert_close(s, wg, 4, 1e-5);
        assert_close(m, wm, 6, 0);
        assert_close(c, wc, 6, 1e-5);
    }
    clb_tensor *t[] = {tx, ty, tg, ta, tb, wd, wg, wm, wc};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) clb_tensor_release(t[i]);
}

/* Misuse is refused at submission, with the library's statuses and a message. */
static void test_misuse(void **state)
{
    (void)state;
    float x[24] = {0}, o[24] = {0};
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s24[2] = {2, 4}, s6[1] = {6};
    clb_starpu_tensor X, O, Bad;
    starpu_data_handle_t vec = NULL;
    starpu_vector_data_register(&vec, STARPU_MAIN_RAM, (uintptr_t)x, 5, sizeof(float));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_describe(vec, CLB_FLOAT32, 1, s6, &Bad));
    assert_non_null(strstr(clb_last_error(), "holds 5 elements"));
    assert_null(Bad.handle);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_describe(vec, CLB_FLOAT64, 1, s6, &Bad));
    CLBT_OK(clb_starpu_describe(vec, CLB_FLOAT32, 1, (int64_t[]){5}, &Bad));
    starpu_data_unregister(vec);
    CLBT_FAILS(CLB_ERR_UNSUPPORTED, clb_starpu_register(x, CLB_FLOAT32, 2, (int64_t[]){0, 3}, &Bad));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_register(x, (clb_dtype)99, 1, s6, &Bad));

    CLBT_OK(clb_starpu_register(x, CLB_FLOAT32, 2, s23, &X));
    CLBT_OK(clb_starpu_register(o, CLB_FLOAT32, 2, s32, &O));
    const char *names[] = {"x"};
    const clb_starpu_tensor *in[] = {&X};
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_starpu_eval(sp, "x + 1", 1, names, in, &O));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_starpu_matmul(sp, &X, &X, &O));
    assert_non_null(strstr(clb_last_error(), "clb_starpu_matmul"));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_starpu_sum_to_shape(sp, &X, &O));
    CLBT_FAILS(CLB_ERR_ALIASING, clb_starpu_eval(sp, "x + 1", 1, names, in, &X));
    clb_starpu_unregister(&O);
    CLBT_OK(clb_starpu_register(o, CLB_INT32, 2, s23, &O));
    CLBT_FAILS(CLB_ERR_DTYPE, clb_starpu_eval(sp, "x * 2.5", 1, names, in, &O));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_eval(sp, "x +* 1", 1, names, in, &O));
    assert_non_null(strstr(clb_last_error(), "clb_starpu_eval"));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_eval(sp, "z + 1", 1, names, in, &O));
    clb_starpu_unregister(&O);
    CLBT_OK(clb_starpu_register(o, CLB_FLOAT32, 2, s24, &O));
    int bad_axis = 2;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_reduce(sp, CLB_SUM, &X, 1, &bad_axis, 0, &O));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_starpu_reduce(sp, CLB_SUM, &X, 0, NULL, 0, &O));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_pin(sp, 1000));
    clb_starpu_tensor parts[2];
    CLBT_OK(clb_starpu_partition(&X, 2, parts));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_partition(&X, 2, parts));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_reduce(sp, CLB_SUM, &X, 0, NULL, 1, &O));
    assert_non_null(strstr(clb_last_error(), "partitioned"));
    clb_starpu_unpartition(&X);
    clb_starpu_unpartition(&X);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_partition(&X, 3, parts));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_eval(NULL, "x", 1, names, in, &O));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_starpu_current_context(sp, &(clb_context *){NULL}));
    CLBT_OK(clb_starpu_wait(sp));
    clb_starpu_unregister(&X);
    clb_starpu_unregister(&O);
}

/* An application's codelet: a tensor of the wrong context, or mixed contexts. */
struct foreign {
    clb_context *other;       /* a context that is not this worker's */
    clb_context *host;        /* the test's own host context */
    clb_status wrong_ctx, wrong_size, mixed, right;
    char wrong_msg[512], mixed_msg[512];
};

static void foreign_codelet(void *buffers[], void *arg)
{
    struct foreign *f = arg;
    clb_context *mine = NULL;
    clb_tensor *t = NULL, *other = NULL, *sum = NULL;
    int64_t shape[1] = {4};
    f->wrong_ctx = clb_starpu_buffer_tensor(sp, f->other, buffers[0], CLB_FLOAT32, 1, shape, &t);
    snprintf(f->wrong_msg, sizeof f->wrong_msg, "%s", clb_last_error());
    clb_starpu_current_context(sp, &mine);
    int64_t five[1] = {5};
    f->wrong_size = clb_starpu_buffer_tensor(sp, mine, buffers[0], CLB_FLOAT32, 1, five, &t);
    f->right = clb_starpu_buffer_tensor(sp, mine, buffers[0], CLB_FLOAT32, 1, shape, &t);
    if (f->right == CLB_OK && clb_tensor_empty(f->host, CLB_FLOAT32, 1, shape, &other) == CLB_OK) {
        f->mixed = clb_binary(CLB_ADD, t, other, &sum);
        snprintf(f->mixed_msg, sizeof f->mixed_msg, "%s", clb_last_error());
    }
    clb_tensor_release(sum);
    clb_tensor_release(other);
    clb_tensor_release(t);
}

static void test_foreign_context(void **state)
{
    (void)state;
    static struct starpu_codelet cl = {
        .cpu_funcs = {foreign_codelet}, .opencl_funcs = {foreign_codelet}, .nbuffers = 1,
        .modes = {STARPU_R}, .name = "foreign"};
    float x[4] = {1, 2, 3, 4};
    for (unsigned w = 0; w < nworkers; w++) {
        clb_context *mine = NULL, *other = host; /* the test's own context: no worker's */
        CLBT_OK(clb_starpu_worker_context(sp, (int)w, &mine));
        for (unsigned v = 0; v < nworkers; v++) {
            clb_context *c = NULL; /* better: another worker's, on another device */
            if (clb_starpu_worker_context(sp, (int)v, &c) == CLB_OK && c != mine) other = c;
        }
        struct foreign f = {.other = other, .host = host};
        starpu_data_handle_t h = NULL;
        starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)x, 4, sizeof(float));
        assert_int_equal(starpu_task_insert(&cl, STARPU_R, h, STARPU_EXECUTE_ON_WORKER, (int)w,
                                            STARPU_CL_ARGS_NFREE, &f, sizeof f, 0), 0);
        starpu_task_wait_for_all();
        starpu_data_unregister(h);
        assert_int_equal(f.wrong_ctx, CLB_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(f.wrong_msg, "clb_starpu_current_context"));
        assert_int_equal(f.right, CLB_OK);
        assert_int_equal(f.wrong_size, CLB_ERR_INVALID_ARGUMENT);
        assert_int_equal(f.mixed, CLB_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(f.mixed_msg, clb_context_device_name(mine)));
    }
}

/* The application's own vector handle, described as a (6, 4) tensor and split
   into blocks of whole rows. */
static void test_vector_handle(void **state)
{
    (void)state;
    float x[24], y[24] = {0};
    fill(x, 24, 7);
    int64_t shape[2] = {6, 4}, row[2] = {1, 4};
    float b[4] = {1, 2, 3, 4};
    starpu_data_handle_t hx = NULL, hy = NULL;
    starpu_vector_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t)x, 24, sizeof(float));
    starpu_vector_data_register(&hy, STARPU_MAIN_RAM, (uintptr_t)y, 24, sizeof(float));
    clb_starpu_tensor X, Y, B, xp[3], yp[3];
    CLBT_OK(clb_starpu_describe(hx, CLB_FLOAT32, 2, shape, &X));
    CLBT_OK(clb_starpu_describe(hy, CLB_FLOAT32, 2, shape, &Y));
    CLBT_OK(clb_starpu_register(b, CLB_FLOAT32, 2, row, &B));
    CLBT_OK(clb_starpu_partition(&X, 3, xp));
    CLBT_OK(clb_starpu_partition(&Y, 3, yp));
    const char *names[] = {"x", "b"};
    for (int p = 0; p < 3; p++) {
        assert_int_equal(xp[p].shape[0], 2);
        CLBT_OK(clb_starpu_pin(sp, p % (int)nworkers));
        CLBT_OK(clb_starpu_eval(sp, "x * b", 2, names, (const clb_starpu_tensor *[]){&xp[p], &B}, &yp[p]));
    }
    CLBT_OK(clb_starpu_pin(sp, -1));
    CLBT_OK(clb_starpu_wait(sp));
    clb_starpu_unpartition(&X);
    clb_starpu_unpartition(&Y);
    clb_starpu_unregister(&B);
    starpu_data_unregister(hx);
    starpu_data_unregister(hy);
    for (int i = 0; i < 24; i++) assert_true(y[i] == x[i] * b[i % 4]);
}

/* clb_tensor_from_host_memory: in place, and its checks. */
static void test_host_memory(void **state)
{
    (void)state;
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3}, strides[2] = {1, 2};
    clb_tensor *t = NULL, *r = NULL;
    CLBT_OK(clb_tensor_from_host_memory(host, data, sizeof data, CLB_FLOAT32, 2, shape, NULL, &t));
    assert_int_equal(clb_memory_allocated(host), 0);
    const char *names[] = {"x"};
    CLBT_OK(clb_eval_into(host, "x * 10", 1, names, (const clb_tensor *[]){t}, t));
    assert_true(data[5] == 60.0f);
    clb_tensor_release(t);
    CLBT_OK(clb_tensor_from_host_memory(host, data, sizeof data, CLB_FLOAT32, 2, shape, strides, &t));
    CLBT_OK(clb_reduce(CLB_SUM, t, 0, NULL, 0, &r));
    float sum = 0;
    CLBT_OK(clb_tensor_to_host(r, &sum, sizeof sum));
    assert_true(sum == 210.0f);
    clb_tensor_release(r);
    clb_tensor_release(t);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host_memory(host, data, sizeof data - 1,
                                                                     CLB_FLOAT32, 2, shape, NULL, &t));
    assert_null(t);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host_memory(host, (char *)data + 1, 20,
                                                                     CLB_FLOAT32, 1, shape, NULL, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host_memory(host, data, sizeof data, CLB_FLOAT32,
                                                                     1, shape, (int64_t[]){-1}, &t));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_from_host_memory(host, NULL, 8, CLB_FLOAT32, 1,
                                                                     shape, NULL, &t));
    /* The error slot the adapter reports through. */
    assert_int_equal(clb_set_last_error(CLB_ERR_UNSUPPORTED, "adapter: why"), CLB_ERR_UNSUPPORTED);
    assert_string_equal(clb_last_error(), "adapter: why");
    assert_int_equal(clb_set_last_error(CLB_ERR_DTYPE, NULL), CLB_ERR_DTYPE);
    assert_string_equal(clb_last_error(), "");
    for (unsigned w = 0; w < nworkers; w++) {
        clb_context *ctx = NULL;
        CLBT_OK(clb_starpu_worker_context(sp, (int)w, &ctx));
        if (ctx != host && starpu_worker_get_type((int)w) == STARPU_OPENCL_WORKER)
            CLBT_FAILS(CLB_ERR_UNSUPPORTED, clb_tensor_from_host_memory(ctx, data, sizeof data,
                                                                        CLB_FLOAT32, 2, shape, NULL, &t));
    }
}

/* The programs StarPU's contexts built are in the on-disk cache under their device
   (keyed by device and driver, not by cl_context): a later process, or a context of
   the application's own on the same device, loads them instead of compiling. */
static void test_programs_shared(void **state)
{
    (void)state;
    const char *dir = getenv("CLB_CACHE_DIR");
    if (dir && strcmp(dir, "off") == 0) skip();
    /* Releasing the workers' contexts finishes their disk writes (a background
       thread makes them when the compiler is idle); new ones then find them. */
    clb_starpu_release(sp);
    sp = NULL;
    CLBT_OK(clb_starpu_create(&sp));
    for (unsigned w = 0; w < nworkers; w++) {
        clb_context *ctx = NULL;
        clb_device_info info;
        int count = 0;
        CLBT_OK(clb_starpu_worker_context(sp, (int)w, &ctx));
        CLBT_OK(clb_context_get_info(ctx, &info));
        if (info.type == CLB_DEVICE_HOST || info.index < 0) continue;
        CLBT_OK(clb_device_cached_programs(info.index, &count));
        if (count == 0)
            fail_msg("worker %u (%s): no program of its in the disk cache", w, info.name);
    }
}

/* No worker context holds storage once the tasks are done. */
static void test_nothing_left(void **state)
{
    (void)state;
    CLBT_OK(clb_starpu_wait(sp));
    for (unsigned w = 0; w < nworkers; w++) {
        clb_context *ctx = NULL;
        CLBT_OK(clb_starpu_worker_context(sp, (int)w, &ctx));
        CLBT_OK(clb_finish(ctx));
        if (clb_memory_allocated(ctx) != 0)
            fail_msg("worker %u (%s): %zu bytes of storage still allocated", w,
                     clb_context_device_name(ctx), clb_memory_allocated(ctx));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers),
        cmocka_unit_test(test_eval_in_place),
        cmocka_unit_test(test_split_every_worker),
        cmocka_unit_test(test_ops_each_worker),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_foreign_context),
        cmocka_unit_test(test_vector_handle),
        cmocka_unit_test(test_host_memory),
        cmocka_unit_test(test_programs_shared),
        cmocka_unit_test(test_nothing_left),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
