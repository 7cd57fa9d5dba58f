/* cmocka glue shared by the test programs: device enumeration, status checks,
 * tensor helpers and comparison against the host backend. Header-only so each
 * test stays one file. */
#ifndef CLB_TESTUTIL_H
#define CLB_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "clbroadcast.h"

/* Fails the test with the status name and clb_last_error() unless expr is CLB_OK. */
#define CLBT_OK(expr)                                                                              \
    do {                                                                                           \
        clb_status clbt_s_ = (expr);                                                               \
        if (clbt_s_ != CLB_OK)                                                                     \
            fail_msg("%s -> %s: %s", #expr, clb_status_name(clbt_s_), clb_last_error());           \
    } while (0)

/* Asserts expr fails with `status` and leaves a non-empty message. */
#define CLBT_FAILS(status, expr)                                                                   \
    do {                                                                                           \
        clb_status clbt_s_ = (expr);                                                               \
        if (clbt_s_ != (status))                                                                   \
            fail_msg("%s -> %s (expected %s): %s", #expr, clb_status_name(clbt_s_),               \
                     clb_status_name(status), clb_last_error());                                   \
        assert_true(clb_last_error()[0] != '\0');                                                  \
    } while (0)

#define CLBT_MAX_DEVICES 32

/* The devices every device-facing test runs on: "host", then each OpenCL
   device by global index. Environment:
     CLB_TEST_DEVICES  comma-free single selector to restrict to (e.g. "host")
     CLB_TEST_REQUIRE  comma-separated selectors (e.g. "pocl,rusticl") that must each
                       match an OpenCL device, else the test fails: CI sets it so a
                       missing implementation is a failure, not a silent skip. */
static inline int clbt_selectors(char sel[CLBT_MAX_DEVICES][32])
{
    const char *only = getenv("CLB_TEST_DEVICES");
    if (only && only[0]) {
        snprintf(sel[0], 32, "%s", only);
        return 1;
    }
    int n = 0;
    snprintf(sel[n++], 32, "host");
    int count = 0;
    CLBT_OK(clb_device_count(&count));
    for (int i = 0; i < count && n < CLBT_MAX_DEVICES; i++) snprintf(sel[n++], 32, "%d", i);
    /* The library's own selector matching (platform, vendor, platform vendor, device
       name) decides whether each required device is present. */
    const char *require = getenv("CLB_TEST_REQUIRE");
    char name[64];
    for (const char *p = require ? require : ""; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        p += len + (p[len] == ',');
        if (!name[0]) continue;
        clb_context *probe = NULL;
        clb_device_info info;
        if (clb_context_create(name, &probe) != CLB_OK)
            fail_msg("CLB_TEST_REQUIRE names %s, but no OpenCL device matches it: %s", name,
                     clb_last_error());
        CLBT_OK(clb_context_get_info(probe, &info));
        clb_context_release(probe);
        if (info.type == CLB_DEVICE_HOST)
            fail_msg("CLB_TEST_REQUIRE names %s, which resolved to the host backend, not an "
                     "OpenCL device", name);
    }
    return n;
}

/* Runs body(ctx, selector) once per test device with a fresh context, and
   checks that everything the body allocated was released. */
typedef void (*clbt_device_fn)(clb_context *ctx, const char *selector);
static inline void clbt_for_each_device(clbt_device_fn body)
{
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    for (int i = 0; i < n; i++) {
        clb_context *ctx = NULL;
        CLBT_OK(clb_context_create(sel[i], &ctx));
        body(ctx, sel[i]);
        CLBT_OK(clb_finish(ctx));
        if (clb_memory_allocated(ctx) != 0)
            fail_msg("device %s (%s): %zu bytes still allocated after the test body", sel[i],
                     clb_context_device_name(ctx), clb_memory_allocated(ctx));
        clb_context_release(ctx);
    }
}

/* Whether ctx computes in float64: the host backend and devices with cl_khr_fp64. */
static inline bool clbt_has_fp64(const clb_context *ctx)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    return info.has_fp64 != 0;
}

/* The float64 policy (docs/platforms.md, "float16 and float64"), for a call whose
   computation or result is float64: where the device has float64 the call must
   succeed; where it has none the call must be refused with CLB_ERR_DTYPE, in a
   message that names float64 and the device. Returns whether the call ran, so
   the caller goes on to check its result. */
#define CLBT_F64(ctx, expr) clbt_f64_((ctx), (expr), #expr)
static inline bool clbt_f64_(const clb_context *ctx, clb_status s, const char *what)
{
    const char *dev = clb_context_device_name(ctx);
    if (clbt_has_fp64(ctx)) {
        if (s != CLB_OK)
            fail_msg("%s on %s -> %s: %s", what, dev, clb_status_name(s), clb_last_error());
        return true;
    }
    if (s != CLB_ERR_DTYPE)
        fail_msg("%s on %s (no float64) -> %s, expected CLB_ERR_DTYPE: %s", what, dev,
                 clb_status_name(s), clb_last_error());
    if (!strstr(clb_last_error(), "float64") || !strstr(clb_last_error(), dev))
        fail_msg("%s on %s: the refusal must name float64 and the device: \"%s\"", what, dev,
                 clb_last_error());
    return false;
}

static inline clb_tensor *clbt_tensor(clb_context *ctx, clb_dtype dtype, int ndim,
                                      const int64_t *shape, const void *data)
{
    clb_tensor *t = NULL;
    CLBT_OK(clb_tensor_from_host(ctx, dtype, ndim, shape, data, &t));
    return t;
}

/* Reads a tensor back into a malloc'd buffer the caller frees. */
static inline void *clbt_read(const clb_tensor *t)
{
    size_t bytes = (size_t)clb_tensor_numel(t) * clb_dtype_size(clb_tensor_dtype(t));
    void *buf = malloc(bytes ? bytes : 1);
    assert_non_null(buf);
    CLBT_OK(clb_tensor_to_host(t, buf, bytes));
    return buf;
}

static inline void clbt_assert_shape(const clb_tensor *t, int ndim, const int64_t *shape)
{
    assert_int_equal(clb_tensor_ndim(t), ndim);
    for (int i = 0; i < ndim; i++)
        if (clb_tensor_shape(t)[i] != shape[i])
            fail_msg("shape[%d] = %lld, expected %lld", i, (long long)clb_tensor_shape(t)[i],
                     (long long)shape[i]);
}

/* ---- comparing a device's result with the host backend's ------------------------ */

static inline double clbt_half_to_double(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Element i of a host buffer of dtype t as a double (exact except 64-bit
   integers, which clbt_assert_matches_host compares bitwise). */
static inline double clbt_value_at(const void *buf, clb_dtype t, int64_t i)
{
    switch (t) {
    case CLB_BOOL: return ((const uint8_t *)buf)[i];
    case CLB_INT8: return ((const int8_t *)buf)[i];
    case CLB_UINT8: return ((const uint8_t *)buf)[i];
    case CLB_INT16: return ((const int16_t *)buf)[i];
    case CLB_UINT16: return ((const uint16_t *)buf)[i];
    case CLB_INT32: return ((const int32_t *)buf)[i];
    case CLB_UINT32: return ((const uint32_t *)buf)[i];
    case CLB_INT64: return (double)((const int64_t *)buf)[i];
    case CLB_UINT64: return (double)((const uint64_t *)buf)[i];
    case CLB_FLOAT16: return clbt_half_to_double(((const uint16_t *)buf)[i]);
    case CLB_FLOAT32: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
    }
}

/* rtol of the comparison below that asks floats to be equal bit for bit. */
#define CLBT_EXACT (-1.0)

/* The one comparison of a device's result `got` with the host backend's `want`:
   same dtype and shape; bool and integers exactly equal; floats within
   atol + rtol * |want| (0 and 0: exactly equal), NaN equal to NaN. rtol ==
   CLBT_EXACT asks floats to be equal bit for bit (NaN still equal to NaN,
   whatever its payload). With a tolerance, a float16 +-65504 also matches an
   infinity of its sign: a last-ulp difference before rounding may land on
   either side of the overflow threshold. On a mismatch `why` (cap bytes) names
   the first element that differs and how many do. */
static inline bool clbt_matches_host(const clb_tensor *got, const clb_tensor *want, double rtol,
                                     double atol, char *why, size_t cap)
{
    clb_dtype t = clb_tensor_dtype(want);
    int nd = clb_tensor_ndim(want);
    if (clb_tensor_dtype(got) != t) {
        snprintf(why, cap, "dtype %s, the host backend gives %s",
                 clb_dtype_name(clb_tensor_dtype(got)), clb_dtype_name(t));
        return false;
    }
    if (clb_tensor_ndim(got) != nd) {
        snprintf(why, cap, "rank %d, the host backend gives %d", clb_tensor_ndim(got), nd);
        return false;
    }
    for (int d = 0; d < nd; d++)
        if (clb_tensor_shape(got)[d] != clb_tensor_shape(want)[d]) {
            snprintf(why, cap, "shape[%d] = %lld, the host backend gives %lld", d,
                     (long long)clb_tensor_shape(got)[d], (long long)clb_tensor_shape(want)[d]);
            return false;
        }
    int64_t n = clb_tensor_numel(want), bad = 0, first = -1;
    bool is_float = t == CLB_FLOAT16 || t == CLB_FLOAT32 || t == CLB_FLOAT64;
    size_t sz = clb_dtype_size(t);
    void *gv = clbt_read(got), *wv = clbt_read(want);
    for (int64_t i = 0; i < n; i++) {
        bool same;
        if (!is_float) {
            same = memcmp((const char *)gv + (size_t)i * sz, (const char *)wv + (size_t)i * sz, sz) == 0;
        } else {
            double a = clbt_value_at(gv, t, i), b = clbt_value_at(wv, t, i);
            if (isnan(a) || isnan(b)) same = isnan(a) && isnan(b);
            else if (rtol == CLBT_EXACT) same = memcmp((const char *)gv + (size_t)i * sz, (const char *)wv + (size_t)i * sz, sz) == 0;
            else if (a == b) same = true;
            else if (isinf(a) || isinf(b))
                same = t == CLB_FLOAT16 && fabs(isinf(a) ? b : a) == 65504.0 && (a > 0) == (b > 0);
            else same = fabs(a - b) <= atol + rtol * fabs(b);
        }
        if (!same && bad++ == 0) first = i;
    }
    if (bad) {
        char gs[64], ws[64];
        if (t == CLB_INT64 || t == CLB_UINT64) {
            snprintf(gs, sizeof gs, "%llu", (unsigned long long)((const uint64_t *)gv)[first]);
            snprintf(ws, sizeof ws, "%llu", (unsigned long long)((const uint64_t *)wv)[first]);
        } else {
            snprintf(gs, sizeof gs, "%.17g", clbt_value_at(gv, t, first));
            snprintf(ws, sizeof ws, "%.17g", clbt_value_at(wv, t, first));
        }
        snprintf(why, cap, "element %lld is %s, the host backend gives %s (%lld of %lld differ)",
                 (long long)first, gs, ws, (long long)bad, (long long)n);
    }
    free(gv);
    free(wv);
    return bad == 0;
}

/* clbt_matches_host as a test assertion; `what` starts the failure message. */
static inline void clbt_assert_matches_host(const clb_tensor *got, const clb_tensor *want,
                                            double rtol, double atol, const char *what)
{
    char why[256];
    if (!clbt_matches_host(got, want, rtol, atol, why, sizeof why)) fail_msg("%s: %s", what, why);
}

/* Oclgrind simulates every work item (the ./dev oclgrind stage runs device tests
   on it, with race and uninitialised-memory checks): there random and large
   cases shrink to a sample that still reaches every kernel path. */
static inline bool clbt_is_simulator(const clb_context *ctx)
{
    const char *name = clb_context_device_name(ctx);
    return strstr(name, "Oclgrind") != NULL || strstr(name, "oclgrind") != NULL;
}

/* A host-backend context for reference results; the caller releases it. */
static inline clb_context *clbt_host(void)
{
    clb_context *h = NULL;
    CLBT_OK(clb_context_create("host", &h));
    return h;
}

/* A test program's host-backend context in its cmocka group fixtures:
   clbt_host_open(&host) in the setup (0, or -1 when it cannot be created),
   clbt_host_close(&host, leaks) in the teardown, which releases it and, with
   leaks true, returns -1 when it still holds storage (a test leaked a tensor). */
static inline int clbt_host_open(clb_context **host)
{
    *host = clbt_host();
    return *host ? 0 : -1;
}

static inline int clbt_host_close(clb_context **host, bool leaks)
{
    size_t left = clb_memory_allocated(*host);
    clb_context_release(*host);
    *host = NULL;
    if (leaks && left) {
        print_error("%zu bytes still allocated at the end of the test\n", left);
        return -1;
    }
    return 0;
}

/* Deterministic pseudo-random numbers (xorshift64*), so failures reproduce. */
static inline uint64_t clbt_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

#endif /* CLB_TESTUTIL_H */
