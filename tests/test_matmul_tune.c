/* Matmul tuning (clb_matmul_tune, src/opencl/cl_matmul_tune.c).
 *
 * Default build: the cache file's format (write, read, apply), files that must
 * be ignored (corrupt, truncated, another driver, parameters CLBlast would
 * reject) and the entry point's argument checks; nothing here compiles a
 * CLBlast kernel. Built with CLBT_SLOW=1 (suite 'slow'): one real tuning with
 * one candidate on every OpenCL device, then matmuls through the tuned CLBlast
 * and the dispatcher's choice, compared with the host backend. Every case runs
 * in a fresh temporary CLB_CACHE_DIR. */
#include "testutil.h"

#include "cl_matmul_tune.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CLBT_SLOW
#define CLBT_SLOW 0
#endif

static char cache_dir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "/tmp/clb-tune-test-XXXXXX");
    if (!mkdtemp(cache_dir)) return -1;
    setenv("CLB_CACHE_DIR", cache_dir, 1);
    unsetenv("CLB_MATMUL_TUNING");
    unsetenv("CLB_MATMUL_IMPL");
#if CLB_HAVE_OPENCL
    clb__mm_tuning_forget(); /* the OpenCL backend's record */
#endif
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- the format, without a device ------------------------------------------------------ */

static const clb_device_info fake_device = {
    .selector = "0:0", .index = 0, .type = CLB_DEVICE_CPU, .name = "pthread-test-cpu",
    .vendor = "TestVendor", .platform = "Portable Computing Language",
    .driver_version = "3.1+debian"};

static clb__mm_tuning sample_tuning(void)
{
    clb__mm_tuning t;
    memset(&t, 0, sizeof t);
    t.batch = 16, t.m = 256, t.n = 256, t.k = 256;
    t.default_gflops = 7.9, t.tuned_gflops = 48.25, t.kernel_gflops = 107.5;
    t.choice = CLB__MM_CHOICE_KERNEL;
    t.params.set[CLB__MM_ROUTINE] = true;
    t.params.v[CLB__MM_ROUTINE][0] = 128;
    t.params.set[CLB__MM_XGEMM] = true;
    const size_t x[16] = {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8};
    memcpy(t.params.v[CLB__MM_XGEMM], x, sizeof x);
    return t;
}

static void test_round_trip(void **state)
{
    (void)state;
    char id[2048], text[8192];
    clb__mm_tuning t = sample_tuning(), back;
    clb__mm_tuning_identity(&fake_device, CLB_FLOAT32, "libclblast.so.1.5.3", id, sizeof id);
    assert_true(clb__mm_params_valid(&t.params));
    assert_true(clb__mm_tuning_format(id, &t, text, sizeof text));
    assert_non_null(strstr(text, "\nXgemm GEMMK=0 KREG=1 KWG=32 "));
    assert_true(clb__mm_tuning_parse(text, strlen(text), id, &back));
    assert_int_equal(back.choice, CLB__MM_CHOICE_KERNEL);
    assert_int_equal(back.batch, 16);
    assert_true(fabs(back.tuned_gflops - 48.25) < 1e-9);
    assert_true(back.params.set[CLB__MM_ROUTINE] && back.params.set[CLB__MM_XGEMM]);
    assert_false(back.params.set[CLB__MM_DIRECT]);
    assert_memory_equal(back.params.v, t.params.v, sizeof t.params.v);

    /* defaults won: no override lines, default_gflops -1 allowed */
    t.params.set[CLB__MM_ROUTINE] = t.params.set[CLB__MM_XGEMM] = false;
    t.default_gflops = -1;
    t.choice = CLB__MM_CHOICE_CLBLAST;
    assert_true(clb__mm_tuning_format(id, &t, text, sizeof text));
    assert_true(clb__mm_tuning_parse(text, strlen(text), id, &back));
    assert_int_equal(back.choice, CLB__MM_CHOICE_CLBLAST);
    assert_false(back.params.set[CLB__MM_XGEMM]);
}

/* Replaces the first occurrence of `from` in text by `to` (same buffer). */
static void edit(char *text, size_t cap, const char *from, const char *to)
{
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t fl = strlen(from), tl = strlen(to), rest = strlen(at + fl);
    assert_true((size_t)(at - text) + tl + rest < cap);
    memmove(at + tl, at + fl, rest + 1);
    memcpy(at, to, tl);
}

static void test_rejects(void **state)
{
    (void)state;
    char id[2048], other[2048], good[8192], text[8192];
    clb__mm_tuning t = sample_tuning(), back;
    clb__mm_tuning_identity(&fake_device, CLB_FLOAT32, "libclblast.so.1.5.3", id, sizeof id);
    assert_true(clb__mm_tuning_format(id, &t, good, sizeof good));
    size_t len = strlen(good);

    /* another driver, CLBlast, dtype or device: a miss */
    clb_device_info d = fake_device;
    snprintf(d.driver_version, sizeof d.driver_version, "3.2");
    clb__mm_tuning_identity(&d, CLB_FLOAT32, "libclblast.so.1.5.3", other, sizeof other);
    assert_false(clb__mm_tuning_parse(good, len, other, &back));
    clb__mm_tuning_identity(&fake_device, CLB_FLOAT32, "libclblast.so.1.6.0", other, sizeof other);
    assert_false(clb__mm_tuning_parse(good, len, other, &back));
    clb__mm_tuning_identity(&fake_device, CLB_FLOAT64, "libclblast.so.1.5.3", other, sizeof other);
    assert_false(clb__mm_tuning_parse(good, len, other, &back));

    /* every truncation */
    for (size_t cut = 0; cut < len; cut++) assert_false(clb__mm_tuning_parse(good, cut, id, &back));

    /* trailing bytes, an embedded NUL */
    memcpy(text, good, len + 1);
    strcat(text, "x");
    assert_false(clb__mm_tuning_parse(text, len + 1, id, &back));
    memcpy(text, good, len + 1);
    text[len - 3] = '\0';
    assert_false(clb__mm_tuning_parse(text, len, id, &back));

    struct {
        const char *from, *to;
    } bad[] = {
        {"MWG=64", "MWG=48"},        /* not a power of two */
        {"VWM=8", "VWM=16"},         /* MWG % (MDIMC * VWM) != 0 */
        {"KWG=32", "KWG=4"},         /* KWG % (MDIMC * NDIMC / MDIMA) != 0 */
        {"GEMMK=0", "GEMMK=1"},      /* not searched */
        {"SA=1", "SA=2"},
        {"KWI=2", "KWI=-2"},
        {"KWI=2", "KWI=2x"},
        {"NWG=64", "NWG=99999999999"},
        {"STRN=0 ", ""},             /* a missing parameter */
        {"MDIMA=8 MDIMC=8", "MDIMC=8 MDIMA=8"}, /* out of order */
        {"XGEMM_MIN_INDIRECT_SIZE=128", "XGEMM_MIN_INDIRECT_SIZE=0"},
        {"choice kernel", "choice gpu"},
        {"shape 16 ", "shape 0 "},
        {"gflops 7.900", "gflops nan"},
        {"gflops 7.900", "gflops 7.900x"},
        {"\nend\n", "\nXgemmFoo A=1\nend\n"},
        {"\nend\n", "\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(text, good, len + 1);
        edit(text, sizeof text, bad[i].from, bad[i].to);
        if (clb__mm_tuning_parse(text, strlen(text), id, &back))
            fail_msg("accepted %s -> %s", bad[i].from, bad[i].to);
    }
    /* a family twice */
    memcpy(text, good, len + 1);
    edit(text, sizeof text, "\nend\n", "\nGemmRoutine XGEMM_MIN_INDIRECT_SIZE=128\nend\n");
    assert_false(clb__mm_tuning_parse(text, strlen(text), id, &back));
}

static void test_save_load(void **state)
{
    (void)state;
    if (!CLB_HAVE_OPENCL) skip(); /* the cache directory belongs to the OpenCL program cache */
    char id[2048], path[4096];
    clb__mm_tuning t = sample_tuning(), back;
    clb__mm_tuning_identity(&fake_device, CLB_FLOAT32, "libclblast.so.1.5.3", id, sizeof id);
    assert_true(clb__mm_tuning_path(id, path, sizeof path));
    assert_int_equal(strncmp(path, cache_dir, strlen(cache_dir)), 0);
    assert_false(clb__mm_tuning_load(path, id, &back)); /* absent */
    assert_true(clb__mm_tuning_save(path, id, &t, NULL, 0));
    assert_true(clb__mm_tuning_load(path, id, &back));
    assert_int_equal(back.params.v[CLB__MM_XGEMM][6], 64);

    /* a file of garbage in its place is a miss */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("clbroadcast matmul tuning 1\n\x01\x02 garbage", f);
    fclose(f);
    assert_false(clb__mm_tuning_load(path, id, &back));

    /* caching off: no path */
    setenv("CLB_CACHE_DIR", "off", 1);
    assert_false(clb__mm_tuning_path(id, path, sizeof path));
    setenv("CLB_CACHE_DIR", cache_dir, 1);
}

/* ---- the public entry point's checks ------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    clb_matmul_tune_result r;
    clb_context *host = NULL;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_matmul_tune(NULL, CLB_FLOAT32, 0, &r));
    CLBT_OK(clb_context_create("host", &host));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_matmul_tune(host, CLB_FLOAT32, 0, NULL));
    CLBT_FAILS(CLB_ERR_DTYPE, clb_matmul_tune(host, CLB_INT32, 0, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_matmul_tune(host, CLB_FLOAT32, -1, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_matmul_tune(host, CLB_FLOAT32, CLB_MATMUL_TUNE_MAX_CANDIDATES + 1, &r));
    CLBT_FAILS(CLB_ERR_UNSUPPORTED, clb_matmul_tune(host, CLB_FLOAT32, 1, &r));
    assert_non_null(strstr(clb_last_error(), CLB_HAVE_CLBLAST ? "host backend" : "no CLBlast"));
    clb_context_release(host);
}

/* ---- on OpenCL devices ----------------------------------------------------------------- */

static int opencl_count(void)
{
    int n = 0;
    CLBT_OK(clb_device_count(&n));
    return n;
}

/* The same GEMMs on ctx and on the host backend; values agree to float32 rounding. */
static void compare_with_host(clb_context *ctx, const char *what)
{
    static const struct {
        int an, bn;
        int64_t a[3], b[3];
    } cases[] = {
        {3, 2, {4, 128, 128}, {128, 128}},  /* batch against a broadcast b: one tall GEMM */
        {2, 3, {128, 128}, {4, 128, 128}},  /* broadcast a: GemmBatched */
        {3, 3, {4, 128, 128}, {4, 128, 128}}, /* packed: GemmStridedBatched */
        {3, 2, {2, 200, 150}, {150, 130}},  /* sizes no tile divides */
        {2, 2, {20, 32}, {32, 48}},         /* small: XgemmDirect */
    };
    clb_context *host = NULL;
    CLBT_OK(clb_context_create("host", &host));
    uint64_t rng = 42;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        clb_tensor *t[2][2] = {{NULL, NULL}, {NULL, NULL}}, *y[2] = {NULL, NULL};
        const int64_t *shapes[2] = {cases[c].a, cases[c].b};
        const int nds[2] = {cases[c].an, cases[c].bn};
        for (int k = 0; k < 2; k++) {
            int64_t n = 1;
            for (int d = 0; d < nds[k]; d++) n *= shapes[k][d];
            float *data = malloc((size_t)n * sizeof *data);
            assert_non_null(data);
            for (int64_t i = 0; i < n; i++)
                data[i] = (float)(clbt_rand(&rng) % 2001) / 1000.0f - 1.0f;
            CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, nds[k], shapes[k], data, &t[0][k]));
            CLBT_OK(clb_tensor_from_host(host, CLB_FLOAT32, nds[k], shapes[k], data, &t[1][k]));
            free(data);
        }
        CLBT_OK(clb_matmul(t[0][0], t[0][1], &y[0]));
        CLBT_OK(clb_matmul(t[1][0], t[1][1], &y[1]));
        char label[160];
        snprintf(label, sizeof label, "%s, case %zu", what, c);
        clbt_assert_matches_host(y[0], y[1], 1e-3, 1e-3, label);
        for (int k = 0; k < 2; k++) clb_tensor_release(t[0][k]), clb_tensor_release(t[1][k]);
        clb_tensor_release(y[0]);
        clb_tensor_release(y[1]);
    }
    clb_context_release(host);
}

#if CLB_HAVE_CLBLAST && !CLBT_SLOW
/* A file written for the device is applied on the first matmul; corrupt files,
   other drivers and CLB_MATMUL_TUNING=off are ignored. */
static void test_apply(void **state)
{
    (void)state;
    if (opencl_count() == 0) skip();
    clb_context *ctx = NULL;
    clb_device_info info;
    char id[2048], other[2048], path[4096], text[8192];
    CLBT_OK(clb_context_create("0", &ctx));
    CLBT_OK(clb_context_get_info(ctx, &info));
    clb__mm_tuning_identity(&info, CLB_FLOAT32, clb__mm_clblast_version(), id, sizeof id);
    assert_true(clb__mm_tuning_path(id, path, sizeof path));

    clb__mm_tuning t = sample_tuning();
    t.choice = CLB__MM_CHOICE_CLBLAST;
    assert_true(clb__mm_tuning_save(path, id, &t, NULL, 0));
    clb__mm_tuning_forget();
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32), CLB__MM_CHOICE_CLBLAST);
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT64), CLB__MM_CHOICE_NONE); /* no file */

    /* The variable is read when a context is created: the context made before
       keeps the tuning, one made under it ignores it. */
    setenv("CLB_MATMUL_TUNING", "off", 1);
    clb_context *off = NULL;
    CLBT_OK(clb_context_create("0", &off));
    unsetenv("CLB_MATMUL_TUNING");
    assert_int_equal(clb__mm_tuning_choice(off, CLB_FLOAT32), CLB__MM_CHOICE_NONE);
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32), CLB__MM_CHOICE_CLBLAST);
    clb_context_release(off);

    t.choice = CLB__MM_CHOICE_KERNEL;
    assert_true(clb__mm_tuning_save(path, id, &t, NULL, 0));
    clb__mm_tuning_forget();
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32), CLB__MM_CHOICE_KERNEL);

    /* corrupt: a miss */
    assert_true(clb__mm_tuning_format(id, &t, text, sizeof text));
    edit(text, sizeof text, "VWN=8", "VWN=3");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    clb__mm_tuning_forget();
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32), CLB__MM_CHOICE_NONE);

    /* written for another driver version, found under this device's name: a miss */
    clb_device_info d = info;
    snprintf(d.driver_version, sizeof d.driver_version, "%.100s-old", info.driver_version);
    clb__mm_tuning_identity(&d, CLB_FLOAT32, clb__mm_clblast_version(), other, sizeof other);
    assert_true(clb__mm_tuning_format(other, &t, text, sizeof text));
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    clb__mm_tuning_forget();
    assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32), CLB__MM_CHOICE_NONE);

    /* choice kernel with overrides handed to CLBlast: shapes our kernel covers
       run on it, the rest on CLBlast's defaults for sizes below the threshold */
    t.choice = CLB__MM_CHOICE_KERNEL;
    t.params.v[CLB__MM_ROUTINE][0] = 1024; /* keeps these small GEMMs on XgemmDirect */
    assert_true(clb__mm_tuning_save(path, id, &t, NULL, 0));
    clb__mm_tuning_forget();
    clb_tensor *a = NULL, *b = NULL, *y = NULL;
    const float av[4 * 16] = {1, 2, 3}, bv[16 * 16] = {4, 5, 6};
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, (const int64_t[]){4, 16}, av, &a));
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, (const int64_t[]){16, 16}, bv, &b));
    CLBT_OK(clb_matmul(a, b, &y));
    float out[4 * 16];
    CLBT_OK(clb_tensor_to_host(y, out, sizeof out));
    assert_true(out[0] == 4.0f && out[1] == 5.0f && out[2] == 6.0f && out[16] == 0.0f);
    clb_tensor_release(a), clb_tensor_release(b), clb_tensor_release(y);
    clb_context_release(ctx);
    clb__mm_tuning_forget();
}
#endif

#if CLBT_SLOW && CLB_HAVE_CLBLAST
/* One real tuning per OpenCL device, one candidate; then the tuned CLBlast and
   the dispatcher's choice against the host backend. */
static void test_tune_real(void **state)
{
    (void)state;
    int n = opencl_count();
    if (n == 0) skip();
    for (int i = 0; i < n; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        clb_context *ctx = NULL;
        clb_matmul_tune_result *r = malloc(sizeof *r);
        assert_non_null(r);
        CLBT_OK(clb_context_create(sel, &ctx));
        clb_device_info info;
        CLBT_OK(clb_context_get_info(ctx, &info));
        if (strstr(info.platform, "Oclgrind") || strstr(info.name, "Oclgrind")) { /* a simulator */
            clb_context_release(ctx);
            free(r);
            continue;
        }
        CLBT_OK(clb_matmul_tune(ctx, CLB_FLOAT32, 1, r));
        print_message("%s: default %.2f, candidate %.2f (%s), kernel %.2f GFLOP/s, choice %s\n",
                      clb_context_device_name(ctx), r->default_gflops, r->candidates[0].gflops,
                      r->candidates[0].error, r->kernel_gflops, r->choice);
        assert_int_equal(r->count, 1);
        assert_true(r->kernel_gflops > 0);
        assert_true(r->default_gflops > 0); /* nothing overrode CLBlast before */
        assert_true(r->best == 0 || r->best == -1);
        assert_true(r->cache_file[0] != '\0');
        assert_int_equal(access(r->cache_file, R_OK), 0);

        /* the tuned parameters stay applied in this process: CLBlast everywhere */
        setenv("CLB_MATMUL_IMPL", "clblast", 1); /* read by contexts created from here */
        clb_context *forced = NULL;
        CLBT_OK(clb_context_create(sel, &forced));
        unsetenv("CLB_MATMUL_IMPL");
        compare_with_host(forced, "tuned CLBlast");
        clb_context_release(forced);
        /* what a later process does: load the file, follow its choice */
        clb__mm_tuning_forget();
        compare_with_host(ctx, "dispatcher after tuning");
        assert_int_equal(clb__mm_tuning_choice(ctx, CLB_FLOAT32),
                         strcmp(r->choice, "kernel") ? CLB__MM_CHOICE_CLBLAST
                                                     : CLB__MM_CHOICE_KERNEL);
        clb_context_release(ctx);
        free(r);
    }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_rejects, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_save_load, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_errors, setup_dir, teardown_dir),
#if CLB_HAVE_CLBLAST && !CLBT_SLOW /* its overrides would stay in the real tuning's way */
        cmocka_unit_test_setup_teardown(test_apply, setup_dir, teardown_dir),
#endif
#if CLBT_SLOW && CLB_HAVE_CLBLAST
        cmocka_unit_test_setup_teardown(test_tune_real, setup_dir, teardown_dir),
#endif
    };
    (void)compare_with_host;
    (void)opencl_count;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
