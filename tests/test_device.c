/* Device enumeration and the selector grammar: "host", "cpu" | "gpu" |
 * "accelerator", "N", "P:D", case-insensitive name substrings, $CLB_DEVICE
 * with a NULL selector, the default rule, and the NO_DEVICE message that
 * lists what is available. Expectations are derived from the enumeration, so
 * the test holds on any machine (PoCL in CI, real GPUs elsewhere). */
#include "testutil.h"

#include <ctype.h>
#include <stdbool.h>
#include <strings.h>

static int device_count(void)
{
    int n = -1;
    CLBT_OK(clb_device_count(&n));
    assert_true(n >= 0);
    return n;
}

static clb_device_info device_info(int i)
{
    clb_device_info info;
    CLBT_OK(clb_device_get_info(i, &info));
    return info;
}

/* Global index of the device a selector picks (-1 = host), or fails the test. */
static int resolve(const char *selector)
{
    clb_context *ctx = NULL;
    CLBT_OK(clb_context_create(selector, &ctx));
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    int index = info.type == CLB_DEVICE_HOST ? -1 : info.index;
    if (index >= 0) assert_string_equal(clb_context_device_name(ctx), info.name);
    clb_context_release(ctx);
    return index;
}

static void expect_no_device(const char *selector)
{
    clb_context *ctx = (clb_context *)&ctx; /* garbage that must be overwritten */
    CLBT_FAILS(CLB_ERR_NO_DEVICE, clb_context_create(selector, &ctx));
    assert_null(ctx);
    const char *msg = clb_last_error();
    /* The message offers every selector that would have worked. */
    assert_non_null(strstr(msg, "available: host"));
    int n = device_count();
    for (int i = 0; i < n; i++) {
        char item[64];
        snprintf(item, sizeof item, ", %d (", i);
        if (!strstr(msg, item)) fail_msg("message lacks device %d: %s", i, msg);
    }
}

static int first_of_type(clb_device_type type)
{
    int n = device_count();
    for (int i = 0; i < n; i++)
        if (device_info(i).type == type) return i;
    return -1;
}

static void lower(char *s)
{
    for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

static bool ci_contains(const char *hay, const char *needle)
{
    char h[300], n[300];
    snprintf(h, sizeof h, "%s", hay);
    snprintf(n, sizeof n, "%s", needle);
    lower(h);
    lower(n);
    return strstr(h, n) != NULL;
}

/* ---- enumeration ------------------------------------------------------------ */

static void test_info_fields(void **state)
{
    (void)state;
    int n = device_count();
    for (int i = 0; i < n; i++) {
        clb_device_info info = device_info(i);
        assert_int_equal(info.index, i);
        assert_true(info.type != CLB_DEVICE_HOST);
        assert_true(info.name[0] && info.vendor[0] && info.platform[0]);
        assert_true(info.driver_version[0]);
        assert_non_null(strstr(info.opencl_c_version, "OpenCL C"));
        assert_true(info.compute_units >= 1);
        assert_true(info.global_mem_bytes > 0);
        assert_true(info.max_alloc_bytes > 0 && info.max_alloc_bytes <= info.global_mem_bytes);
        assert_true(info.has_fp16 == 0 || info.has_fp16 == 1);
        assert_true(info.has_fp64 == 0 || info.has_fp64 == 1);
        if (info.type == CLB_DEVICE_CPU) assert_int_equal(info.host_unified_memory, 1);
        int p = -1, d = -1;
        char extra = 0;
        if (sscanf(info.selector, "%d:%d%c", &p, &d, &extra) != 2 || p < 0 || d < 0)
            fail_msg("device %d: selector \"%s\" is not P:D", i, info.selector);
    }
}

static void test_info_bad_index(void **state)
{
    (void)state;
    clb_device_info info;
    int n = device_count();
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_get_info(-1, &info));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_get_info(n, &info));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_get_info(0, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_device_count(NULL));
}

/* ---- selectors ----------------------------------------------------------------- */

static void test_host(void **state)
{
    (void)state;
    assert_int_equal(resolve("host"), -1);
    assert_int_equal(resolve("HOST"), -1);
    assert_int_equal(resolve(" host\n"), -1);
    clb_context *ctx = NULL;
    CLBT_OK(clb_context_create("host", &ctx));
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    assert_int_equal(info.type, CLB_DEVICE_HOST);
    assert_string_equal(info.selector, "host");
    assert_int_equal(info.index, -1);
    assert_true(clb_context_device_name(ctx)[0] != '\0');
    clb_context_release(ctx);
}

static void test_index_and_pd(void **state)
{
    (void)state;
    int n = device_count();
    for (int i = 0; i < n; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        assert_int_equal(resolve(sel), i);
        clb_device_info info = device_info(i);
        assert_int_equal(resolve(info.selector), i);
        /* The context describes its device exactly as the enumeration does. */
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create(sel, &ctx));
        clb_device_info got;
        CLBT_OK(clb_context_get_info(ctx, &got));
        assert_string_equal(got.selector, info.selector);
        assert_string_equal(got.name, info.name);
        assert_string_equal(got.vendor, info.vendor);
        assert_string_equal(got.platform, info.platform);
        assert_string_equal(got.driver_version, info.driver_version);
        assert_string_equal(got.opencl_c_version, info.opencl_c_version);
        assert_int_equal(got.index, info.index);
        assert_int_equal(got.type, info.type);
        assert_int_equal(got.compute_units, info.compute_units);
        assert_int_equal(got.global_mem_bytes, info.global_mem_bytes);
        assert_int_equal(got.max_alloc_bytes, info.max_alloc_bytes);
        assert_int_equal(got.has_fp16, info.has_fp16);
        assert_int_equal(got.has_fp64, info.has_fp64);
        assert_int_equal(got.host_unified_memory, info.host_unified_memory);
        clb_context_release(ctx);
    }
    if (n > 0) assert_int_equal(resolve("0:0"), 0);
}

static void test_types(void **state)
{
    (void)state;
    static const struct {
        const char *selector;
        clb_device_type type;
    } kinds[] = {{"cpu", CLB_DEVICE_CPU}, {"GPU", CLB_DEVICE_GPU},
                 {"accelerator", CLB_DEVICE_ACCELERATOR}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int want = first_of_type(kinds[k].type);
        if (want >= 0) assert_int_equal(resolve(kinds[k].selector), want);
        else expect_no_device(kinds[k].selector);
    }
}

/* Substrings of each device's names pick the first device carrying them,
   whatever their case. */
static void test_substrings(void **state)
{
    (void)state;
    int n = device_count();
    for (int i = 0; i < n; i++) {
        clb_device_info info = device_info(i);
        const char *fields[] = {info.name, info.vendor, info.platform};
        for (int f = 0; f < 3; f++) {
            char sub[8];
            size_t len = strlen(fields[f]);
            snprintf(sub, sizeof sub, "%s", fields[f] + (len > 10 ? 3 : 0));
            /* Skip what the grammar reads otherwise: indices and keywords. */
            if (strspn(sub, "0123456789: ") == strlen(sub)) continue;
            if (!strcasecmp(sub, "host") || !strcasecmp(sub, "cpu") || !strcasecmp(sub, "gpu") ||
                !strcasecmp(sub, "accelerator"))
                continue;
            for (int upper = 0; upper < 2; upper++) {
                for (char *p = sub; *p; p++)
                    *p = (char)(upper ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
                int want = -1;
                for (int j = 0; j < n && want < 0; j++) {
                    clb_device_info o = device_info(j);
                    if (ci_contains(o.name, sub) || ci_contains(o.vendor, sub) ||
                        ci_contains(o.platform, sub))
                        want = j;
                }
                assert_int_equal(resolve(sub), want);
            }
        }
        /* PoCL is the CI device: its platform answers to "pocl" in any case. */
        if (ci_contains(info.platform, "portable computing language")) {
            assert_true(resolve("pocl") <= i);
            assert_int_equal(resolve("pocl"), resolve("PoCL"));
        }
    }
}

static void test_bad_selectors(void **state)
{
    (void)state;
    int n = device_count();
    char past[16], pd[16], pd2[16];
    snprintf(past, sizeof past, "%d", n);
    snprintf(pd, sizeof pd, "0:%d", 999);
    snprintf(pd2, sizeof pd2, "%d:0", 999);
    const char *bad[] = {"no-such-device-xyz", past, "999999999", pd, pd2, "", "   "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_no_device(bad[i]);
    /* The selector is quoted back. */
    clb_context *ctx = NULL;
    CLBT_FAILS(CLB_ERR_NO_DEVICE, clb_context_create("no-such-device-xyz", &ctx));
    assert_non_null(strstr(clb_last_error(), "\"no-such-device-xyz\""));
}

/* ---- $CLB_DEVICE and the default rule ------------------------------------------- */

static int default_rule(void)
{
    int gpu = first_of_type(CLB_DEVICE_GPU);
    if (gpu >= 0) return gpu;
    return first_of_type(CLB_DEVICE_CPU);
}

static void test_env_and_default(void **state)
{
    (void)state;
    const char *saved = getenv("CLB_DEVICE");
    char *keep = saved ? strdup(saved) : NULL;

    unsetenv("CLB_DEVICE");
    assert_int_equal(resolve(NULL), default_rule());
    setenv("CLB_DEVICE", "", 1);
    assert_int_equal(resolve(NULL), default_rule());
    setenv("CLB_DEVICE", "host", 1);
    assert_int_equal(resolve(NULL), -1);
    /* An explicit selector wins over the environment. */
    if (device_count() > 0) {
        assert_int_equal(resolve("0"), 0);
        setenv("CLB_DEVICE", "0", 1);
        assert_int_equal(resolve(NULL), 0);
        assert_int_equal(resolve("host"), -1);
    }
    setenv("CLB_DEVICE", "no-such-device-xyz", 1);
    expect_no_device(NULL);
    assert_non_null(strstr(clb_last_error(), "CLB_DEVICE"));

    if (keep) setenv("CLB_DEVICE", keep, 1);
    else unsetenv("CLB_DEVICE");
    free(keep);
}

/* The float16/float64 policy (docs/platforms.md, "Every OpenCL implementation"), on every
   device: float16 stores and computes everywhere; float64 results, float64
   arithmetic and the NumPy rules that produce float64 from integers (true
   division, mean) either run correctly or are refused with CLB_ERR_DTYPE
   naming float64 and the device; float64 storage itself moves either way. */
static void dtype_policy_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    static const int64_t n = 4;
    const int32_t iv[4] = {1, 2, 3, 7}, two[4] = {2, 2, 2, 2};
    const uint16_t hv[4] = {0x3c00, 0x4000, 0x4200, 0x3800}; /* 1, 2, 3, 0.5 as float16 */
    const double dv[4] = {0.5, -1.25, 3.0, 1e300};
    clb_tensor *a = clbt_tensor(ctx, CLB_INT32, 1, &n, iv), *b = clbt_tensor(ctx, CLB_INT32, 1, &n, two);
    clb_tensor *h = clbt_tensor(ctx, CLB_FLOAT16, 1, &n, hv), *d = clbt_tensor(ctx, CLB_FLOAT64, 1, &n, dv);
    clb_tensor *r = (clb_tensor *)(uintptr_t)1;

    /* float16: h * h + h, in float32, rounded once to half. */
    clb_tensor *hh = NULL, *hs = NULL;
    CLBT_OK(clb_binary(CLB_MUL, h, h, &hh));
    CLBT_OK(clb_binary(CLB_ADD, hh, h, &hs));
    uint16_t got16[4];
    CLBT_OK(clb_tensor_to_host(hs, got16, sizeof got16));
    const uint16_t want16[4] = {0x4000, 0x4600, 0x4a00, 0x3a00}; /* 2, 6, 12, 0.75 */
    assert_memory_equal(got16, want16, sizeof want16);
    clb_tensor_release(hs);
    clb_tensor_release(hh);

    /* float64 storage moves on every device. */
    double back[4];
    CLBT_OK(clb_tensor_to_host(d, back, sizeof back));
    assert_memory_equal(back, dv, sizeof dv);

    /* int32 / int32 -> float64 (true division). */
    if (CLBT_F64(ctx, clb_binary(CLB_DIV, a, b, &r))) {
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT64);
        CLBT_OK(clb_tensor_to_host(r, back, sizeof back));
        assert_true(back[0] == 0.5 && back[3] == 3.5);
        clb_tensor_release(r);
    } else {
        assert_null(r);
    }
    /* mean of int32 -> float64. */
    r = (clb_tensor *)(uintptr_t)1;
    if (CLBT_F64(ctx, clb_reduce(CLB_MEAN, a, 0, NULL, 0, &r))) {
        CLBT_OK(clb_tensor_to_host(r, back, sizeof(double)));
        assert_true(back[0] == 13.0 / 4.0);
        clb_tensor_release(r);
    } else {
        assert_null(r);
    }
    /* float64 arithmetic and casts. */
    r = (clb_tensor *)(uintptr_t)1;
    if (CLBT_F64(ctx, clb_unary(CLB_NEG, d, &r))) {
        CLBT_OK(clb_tensor_to_host(r, back, sizeof back));
        assert_true(back[1] == 1.25 && back[3] == -1e300);
        clb_tensor_release(r);
    } else {
        assert_null(r);
    }
    r = (clb_tensor *)(uintptr_t)1;
    if (CLBT_F64(ctx, clb_cast(a, CLB_FLOAT64, &r))) clb_tensor_release(r);
    else assert_null(r);
    r = (clb_tensor *)(uintptr_t)1;
    if (CLBT_F64(ctx, clb_matmul(d, d, &r))) clb_tensor_release(r);
    else assert_null(r);
    r = (clb_tensor *)(uintptr_t)1;
    if (CLBT_F64(ctx, clb_eval(ctx, "x * 2", 1, (const char *[]){"x"},
                               (const clb_tensor *const[]){d}, &r)))
        clb_tensor_release(r);
    else
        assert_null(r);

    clb_tensor_release(d);
    clb_tensor_release(h);
    clb_tensor_release(b);
    clb_tensor_release(a);
}

static void test_dtype_policy(void **state)
{
    (void)state;
    clbt_for_each_device(dtype_policy_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info_fields),      cmocka_unit_test(test_info_bad_index),
        cmocka_unit_test(test_host),             cmocka_unit_test(test_index_and_pd),
        cmocka_unit_test(test_types),            cmocka_unit_test(test_substrings),
        cmocka_unit_test(test_bad_selectors),    cmocka_unit_test(test_env_and_default),
        cmocka_unit_test(test_dtype_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
