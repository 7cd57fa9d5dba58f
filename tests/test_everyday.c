/* The everyday API of issue 25 on every device against NumPy's and PyTorch's
 * results written out as literals: powers with a constant exponent (never pow:
 * x ** 2 equals x * x bit for bit), clb_binary_scalar's NEP 50 weak scalars,
 * clb_context_set_promotion (torch.result_type), and literals that fold in the
 * dtype they end up in (no float64 asked of a device without it). Tables made
 * with NumPy 1.24 (ndarray ** scalar, whose fast paths NumPy 2 keeps) and PyTorch
 * 1.13. Each device builds a handful of programs only. */
#include "testutil.h"

#include <math.h>

/* x ** p for p in 2, 3, 4, -1, -2, 0.5, -0.5, 1, 0 (NumPy: x ** p, x float32). */
static const char *const pow_expr[9] = {"x ** 2", "x ** 3", "x ** 4", "x ** -1", "x ** -2",
                                        "x ** 0.5", "x ** -0.5", "x ** 1", "x ** 0"};
static const double pow_p[9] = {2, 3, 4, -1, -2, 0.5, -0.5, 1, 0};
static const float pow_x[12] = {0x1.8p-1f, 0x1.8p+1f, -0x1.4p+1f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1.5af1d8p+66f, 0x1.1b578cp-66f, 0x1.cp+2f, 0x1.0624dep-10f};
static const float pow_want[9][12] = {
    {0x1.2p-1f, 0x1.2p+3f, 0x1.9p+2f, 0.0f, 0.0f, INFINITY, INFINITY, NAN, INFINITY, 0x1.399a8p-132f, 0x1.88p+5f, 0x1.0c6f7cp-20f},
    {0x1.bp-2f, 0x1.bp+4f, -0x1.f4p+3f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, INFINITY, 0.0f, 0x1.57p+8f, 0x1.12e0cp-30f},
    {0x1.44p-2f, 0x1.44p+6f, 0x1.388p+5f, 0.0f, 0.0f, INFINITY, INFINITY, NAN, INFINITY, 0.0f, 0x1.2c2p+11f, 0x1.19799cp-40f},
    {0x1.555556p+0f, 0x1.555556p-2f, -0x1.99999ap-2f, INFINITY, -INFINITY, 0.0f, -0.0f, NAN, 0x1.79ca1p-67f, 0x1.ce97ccp+65f, 0x1.24924ap-3f, 0x1.f3fffep+9f},
    {0x1.c71c72p+0f, 0x1.c71c72p-4f, 0x1.47ae14p-3f, INFINITY, INFINITY, 0.0f, 0.0f, NAN, 0x1.16c2p-133f, INFINITY, 0x1.4e5e0cp-6f, 0x1.e847fep+19f},
    {0x1.bb67aep-1f, 0x1.bb67aep+0f, NAN, 0.0f, -0.0f, INFINITY, NAN, NAN, 0x1.2a05f2p+33f, 0x1.0d5302p-33f, 0x1.52a7fap+1f, 0x1.030dc6p-5f},
    {0x1.279a74p+0f, 0x1.279a74p-1f, NAN, INFINITY, INFINITY, 0.0f, 0.0f, NAN, 0x1.b7cdfep-34f, 0x1.e6ab7ep+32f, 0x1.83092p-2f, 0x1.f9f6e4p+4f},
    {0x1.8p-1f, 0x1.8p+1f, -0x1.4p+1f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1.5af1d8p+66f, 0x1.1b578cp-66f, 0x1.cp+2f, 0x1.0624dep-10f},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
};
/* int8 x ** p for p = 0..4: NumPy's wrapped results. */
static const int8_t ipow_x[8] = {-128, -3, -1, 0, 1, 2, 5, 127};
static const int8_t ipow_want[5][8] = {
    {1, 1, 1, 1, 1, 1, 1, 1},
    {-128, -3, -1, 0, 1, 2, 5, 127},
    {0, 9, 1, 0, 1, 4, 25, 1},
    {0, -27, -1, 0, 1, 8, 125, 127},
    {0, 81, 1, 0, 1, 16, 113, 1},
};

/* NumPy's value within a few units in the last place (OpenCL's sqrt may be 3 ulp
   off); specials, and the sign of zero, exactly; results below float32's normal
   range may flush. */
static void assert_close(float got, float want, const char *what, int i, const char *dev)
{
    bool ok;
    if (isnan(want)) ok = isnan(got);
    else if (isinf(want) || want == 0.0f) ok = got == want && signbit(got) == signbit(want);
    else if (fabsf(want) < 0x1p-126f) ok = fabsf(got) < 0x1p-126f;
    else ok = fabsf(got - want) <= 4e-7f * fabsf(want);
    if (!ok)
        fail_msg("%s on %s: element %d (x = %a) is %a, NumPy gives %a", what, dev, i,
                 (double)pow_x[i], (double)got, (double)want);
}

static void powers_on(clb_context *ctx, const char *sel)
{
    (void)sel;
    const char *dev = clb_context_device_name(ctx);
    const int64_t n12[1] = {12}, n8[1] = {8};
    clb_tensor *x = clbt_tensor(ctx, CLB_FLOAT32, 1, n12, pow_x);
    const char *names[1] = {"x"};
    const clb_tensor *in[1] = {x};
    float sq[12], got[12];
    clb_tensor *r = NULL;
    CLBT_OK(clb_eval(ctx, "x * x", 1, names, in, &r));
    CLBT_OK(clb_tensor_to_host(r, sq, sizeof sq));
    clb_tensor_release(r);
    for (int p = 0; p < 9; p++) {
        CLBT_OK(clb_eval(ctx, pow_expr[p], 1, names, in, &r));
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
        CLBT_OK(clb_tensor_to_host(r, got, sizeof got));
        clb_tensor_release(r);
        for (int i = 0; i < 12; i++) assert_close(got[i], pow_want[p][i], pow_expr[p], i, dev);
        if (p == 0 && memcmp(got, sq, sizeof sq) != 0) fail_msg("x ** 2 != x * x bit for bit on %s", dev);
        /* clb_binary_scalar takes the same paths. */
        clb_scalar s = {.kind = pow_p[p] == floor(pow_p[p]) ? CLB_SCALAR_INT : CLB_SCALAR_FLOAT,
                        .i = (int64_t)pow_p[p], .f = pow_p[p]};
        CLBT_OK(clb_binary_scalar(CLB_POW, x, s, 0, &r));
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
        CLBT_OK(clb_tensor_to_host(r, got, sizeof got));
        clb_tensor_release(r);
        for (int i = 0; i < 12; i++) assert_close(got[i], pow_want[p][i], "clb_binary_scalar(CLB_POW)", i, dev);
        if (p == 0 && memcmp(got, sq, sizeof sq) != 0)
            fail_msg("clb_binary_scalar(CLB_POW, x, 2) != x * x bit for bit on %s", dev);
    }
    /* "(x - y) ** 2" reads x - y once per element and squares it. */
    CLBT_OK(clb_eval(ctx, "(x - 1.5) ** 2 == (x - 1.5) * (x - 1.5)", 1, names, in, &r));
    bool eq[12];
    CLBT_OK(clb_tensor_to_host(r, eq, sizeof eq));
    clb_tensor_release(r);
    for (int i = 0; i < 12; i++)
        if (!eq[i] && !isnan(pow_x[i])) fail_msg("(x - 1.5) ** 2 on %s: element %d differs", dev, i);
    clb_tensor_release(x);

    /* Integer powers: exact, wrapped as NumPy's. */
    clb_tensor *xi = clbt_tensor(ctx, CLB_INT8, 1, n8, ipow_x);
    in[0] = xi;
    for (int p = 0; p < 5; p++) {
        char text[16];
        int8_t ig[8];
        snprintf(text, sizeof text, "x ** %d", p);
        CLBT_OK(clb_eval(ctx, text, 1, names, in, &r));
        assert_int_equal(clb_tensor_dtype(r), CLB_INT8);
        CLBT_OK(clb_tensor_to_host(r, ig, sizeof ig));
        clb_tensor_release(r);
        for (int i = 0; i < 8; i++)
            if (ig[i] != ipow_want[p][i])
                fail_msg("int8 %s on %s: element %d is %d, NumPy gives %d", text, dev, i, ig[i],
                         ipow_want[p][i]);
    }
    clb_tensor_release(xi);
}

static void test_powers(void **state)
{
    (void)state;
    clbt_for_each_device(powers_on);
}

/* ---- clb_binary_scalar: NEP 50 -------------------------------------------------- */

static void scalars_on(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t n3[1] = {3};
    const float f[3] = {1.0f, -2.0f, 0.5f};
    const int8_t i8[3] = {1, -2, 127};
    const uint8_t u8[3] = {0, 1, 255};
    clb_tensor *tf = clbt_tensor(ctx, CLB_FLOAT32, 1, n3, f);
    clb_tensor *ti = clbt_tensor(ctx, CLB_INT8, 1, n3, i8);
    clb_tensor *tu = clbt_tensor(ctx, CLB_UINT8, 1, n3, u8);
    clb_tensor *r = NULL;
    /* float32 * 2.5 stays float32: [2.5, -5, 1.25] */
    float gf[3];
    CLBT_OK(clb_binary_scalar(CLB_MUL, tf, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = 2.5}, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    CLBT_OK(clb_tensor_to_host(r, gf, sizeof gf));
    clb_tensor_release(r);
    assert_true(gf[0] == 2.5f && gf[1] == -5.0f && gf[2] == 1.25f);
    /* int8 + 1 stays int8 and wraps: [2, -1, -128] */
    int8_t gi[3];
    CLBT_OK(clb_binary_scalar(CLB_ADD, ti, (clb_scalar){.kind = CLB_SCALAR_INT, .i = 1}, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_INT8);
    CLBT_OK(clb_tensor_to_host(r, gi, sizeof gi));
    clb_tensor_release(r);
    assert_true(gi[0] == 2 && gi[1] == -1 && gi[2] == -128);
    /* 1 - int8 (the scalar first): [0, 3, -126] */
    CLBT_OK(clb_binary_scalar(CLB_SUB, ti, (clb_scalar){.kind = CLB_SCALAR_INT, .i = 1}, 1, &r));
    CLBT_OK(clb_tensor_to_host(r, gi, sizeof gi));
    clb_tensor_release(r);
    assert_true(gi[0] == 0 && gi[1] == 3 && gi[2] == -126);
    /* uint8 * True stays uint8 */
    uint8_t gu[3];
    CLBT_OK(clb_binary_scalar(CLB_MUL, tu, (clb_scalar){.kind = CLB_SCALAR_BOOL, .i = 1}, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_UINT8);
    CLBT_OK(clb_tensor_to_host(r, gu, sizeof gu));
    clb_tensor_release(r);
    assert_true(gu[0] == 0 && gu[1] == 1 && gu[2] == 255);
    /* An int that does not fit: NumPy 2's OverflowError. */
    r = (clb_tensor *)1;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_binary_scalar(CLB_ADD, ti, (clb_scalar){.kind = CLB_SCALAR_INT, .i = 300}, 0, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "clb_binary_scalar"));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_binary_scalar(CLB_SUB, tu, (clb_scalar){.kind = CLB_SCALAR_INT, .i = -1}, 0, &r));
    /* int8 * 2.5: float64 under NumPy (refused without float64, naming the rules),
       float32 under PyTorch's. */
    clb_status st = clb_binary_scalar(CLB_MUL, ti, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = 2.5}, 0, &r);
    if (CLBT_F64(ctx, st)) {
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT64);
        clb_tensor_release(r);
    } else {
        assert_non_null(strstr(clb_last_error(), "CLB_PROMOTE_TORCH"));
        assert_non_null(strstr(clb_last_error(), "clb_binary_scalar"));
    }
    CLBT_OK(clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH));
    CLBT_OK(clb_binary_scalar(CLB_MUL, ti, (clb_scalar){.kind = CLB_SCALAR_FLOAT, .f = 2.5}, 0, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    CLBT_OK(clb_tensor_to_host(r, gf, sizeof gf));
    clb_tensor_release(r);
    assert_true(gf[0] == 2.5f && gf[1] == -5.0f && gf[2] == 317.5f);
    CLBT_OK(clb_context_set_promotion(ctx, CLB_PROMOTE_NUMPY));
    clb_tensor_release(tf);
    clb_tensor_release(ti);
    clb_tensor_release(tu);
}

static void test_scalars(void **state)
{
    (void)state;
    clbt_for_each_device(scalars_on);
}

/* ---- promotion rules ------------------------------------------------------------ */

static const clb_dtype torch_dtypes[9] = {CLB_BOOL, CLB_INT8, CLB_UINT8, CLB_INT16, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64};
/* torch.result_type(torch.empty(0, dtype=a), torch.empty(0, dtype=b)), PyTorch 1.13 */
static const clb_dtype torch_result[9][9] = {
    {CLB_BOOL, CLB_INT8, CLB_UINT8, CLB_INT16, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_INT8, CLB_INT8, CLB_INT16, CLB_INT16, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_UINT8, CLB_INT16, CLB_UINT8, CLB_INT16, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_INT16, CLB_INT16, CLB_INT16, CLB_INT16, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_INT32, CLB_INT32, CLB_INT32, CLB_INT32, CLB_INT32, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_INT64, CLB_INT64, CLB_INT64, CLB_INT64, CLB_INT64, CLB_INT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT32, CLB_FLOAT64},
    {CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64, CLB_FLOAT64},
};

/* Every pair's result dtype on the host backend (dtype rules are the same on every
   device): torch.result_type under TORCH, numpy.promote_types under NUMPY. */
static void test_promotion_table(void **state)
{
    (void)state;
    clb_context *host = clbt_host();
    CLBT_OK(clb_context_set_promotion(host, CLB_PROMOTE_TORCH));
    uint64_t zero = 0;
    for (int i = 0; i < 9; i++) {
        for (int j = 0; j < 9; j++) {
            clb_tensor *a = clbt_tensor(host, torch_dtypes[i], 0, NULL, &zero);
            clb_tensor *b = clbt_tensor(host, torch_dtypes[j], 0, NULL, &zero);
            clb_tensor *r = NULL;
            CLBT_OK(clb_binary(CLB_MUL, a, b, &r));
            if (clb_tensor_dtype(r) != torch_result[i][j])
                fail_msg("TORCH: %s * %s is %s, torch.result_type gives %s",
                         clb_dtype_name(torch_dtypes[i]), clb_dtype_name(torch_dtypes[j]),
                         clb_dtype_name(clb_tensor_dtype(r)), clb_dtype_name(torch_result[i][j]));
            clb_tensor_release(r);
            CLBT_OK(clb_context_set_promotion(host, CLB_PROMOTE_NUMPY));
            CLBT_OK(clb_binary(CLB_MUL, a, b, &r));
            assert_int_equal(clb_tensor_dtype(r), clb_promote_types(torch_dtypes[i], torch_dtypes[j]));
            clb_tensor_release(r);
            CLBT_OK(clb_context_set_promotion(host, CLB_PROMOTE_TORCH));
            clb_tensor_release(a);
            clb_tensor_release(b);
        }
    }
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_context_set_promotion(host, (clb_promotion)7));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_context_set_promotion(NULL, CLB_PROMOTE_TORCH));
    clb_context_release(host);
}

/* The seeds' mixed programs under both rules on every device: int32 + float32,
   int32 / int32, the mean of int32, and literals that fold in their end dtype. */
static void mixed_on(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t n4[1] = {4};
    const int32_t iv[4] = {1, 2, 3, 6};
    const float fv[4] = {0.5f, 0.25f, 2.0f, -1.0f};
    clb_tensor *ti = clbt_tensor(ctx, CLB_INT32, 1, n4, iv);
    clb_tensor *tf = clbt_tensor(ctx, CLB_FLOAT32, 1, n4, fv);
    clb_tensor *r = NULL;
    float g[4];
    /* NUMPY: int32 + float32 is float64; without float64 the refusal names the rules. */
    clb_status st = clb_binary(CLB_ADD, ti, tf, &r);
    if (CLBT_F64(ctx, st)) {
        assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT64);
        clb_tensor_release(r);
    } else {
        const char *m = clb_last_error();
        if (!strstr(m, "clb_binary") || !strstr(m, "int32") || !strstr(m, "CLB_PROMOTE_TORCH"))
            fail_msg("the refusal must name the function, the operand and the remedy: %s", m);
    }
    CLBT_OK(clb_context_set_promotion(ctx, CLB_PROMOTE_TORCH));
    CLBT_OK(clb_binary(CLB_ADD, ti, tf, &r)); /* [1.5, 2.25, 5, 5] */
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    CLBT_OK(clb_tensor_to_host(r, g, sizeof g));
    clb_tensor_release(r);
    assert_true(g[0] == 1.5f && g[1] == 2.25f && g[2] == 5.0f && g[3] == 5.0f);
    CLBT_OK(clb_binary(CLB_DIV, ti, ti, &r));
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    clb_tensor_release(r);
    CLBT_OK(clb_reduce(CLB_MEAN, ti, 0, NULL, 0, &r)); /* 3.0 */
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    CLBT_OK(clb_tensor_to_host(r, g, sizeof g[0]));
    clb_tensor_release(r);
    assert_true(g[0] == 3.0f);
    const char *names[2] = {"i", "f"};
    const clb_tensor *in[2] = {ti, tf};
    CLBT_OK(clb_eval(ctx, "i * 2.5 + f", 2, names, in, &r)); /* [3, 5.25, 9.5, 14] */
    assert_int_equal(clb_tensor_dtype(r), CLB_FLOAT32);
    CLBT_OK(clb_tensor_to_host(r, g, sizeof g));
    clb_tensor_release(r);
    assert_true(g[0] == 3.0f && g[1] == 5.25f && g[2] == 9.5f && g[3] == 14.0f);
    CLBT_OK(clb_context_set_promotion(ctx, CLB_PROMOTE_NUMPY));
    /* Literals into float32 never ask for float64, under either rules. */
    CLBT_OK(clb_eval_into(ctx, "3.5", 0, NULL, NULL, tf));
    CLBT_OK(clb_tensor_to_host(tf, g, sizeof g));
    assert_true(g[0] == 3.5f && g[3] == 3.5f);
    CLBT_OK(clb_eval_into(ctx, "float32(1.25)", 0, NULL, NULL, tf));
    CLBT_OK(clb_tensor_to_host(tf, g, sizeof g));
    assert_true(g[0] == 1.25f && g[3] == 1.25f);
    clb_tensor_release(ti);
    clb_tensor_release(tf);
}

static void test_mixed_programs(void **state)
{
    (void)state;
    clbt_for_each_device(mixed_on);
}

/* Q @ K^T with K^T a permuted view (attention's layout): on CPU devices one copy of
   K^T and the library's blocked kernel (no CLBlast program to build at first use);
   against the host backend. */
static void permuted_matmul_on(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t sq[4] = {2, 3, 8, 16}, sk[4] = {2, 3, 32, 16};
    float q[2 * 3 * 8 * 16], k[2 * 3 * 32 * 16];
    for (int i = 0; i < 2 * 3 * 8 * 16; i++) q[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < 2 * 3 * 32 * 16; i++) k[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    clb_context *host = clbt_host();
    const int perm[4] = {0, 1, 3, 2};
    clb_tensor *r[2] = {NULL, NULL};
    clb_context *ctxs[2] = {ctx, host};
    for (int c = 0; c < 2; c++) {
        clb_tensor *tq = clbt_tensor(ctxs[c], CLB_FLOAT32, 4, sq, q);
        clb_tensor *tk = clbt_tensor(ctxs[c], CLB_FLOAT32, 4, sk, k), *kt = NULL;
        CLBT_OK(clb_permute(tk, perm, &kt));
        CLBT_OK(clb_matmul(tq, kt, &r[c]));
        clb_tensor_release(tq);
        clb_tensor_release(tk);
        clb_tensor_release(kt);
    }
    const int64_t want[4] = {2, 3, 8, 32};
    clbt_assert_shape(r[0], 4, want);
    clbt_assert_matches_host(r[0], r[1], 1e-5, 1e-6, "Q @ K^T (permuted view)");
    clb_tensor_release(r[0]);
    clb_tensor_release(r[1]);
    clb_context_release(host);
}

static void test_permuted_matmul(void **state)
{
    (void)state;
    clbt_for_each_device(permuted_matmul_on);
}

/* Messages a user can act on (host backend: the checks are above the backends). */
static void test_messages(void **state)
{
    (void)state;
    clb_context *host = clbt_host();
    const int64_t s22[2] = {2, 2}, s3[1] = {3};
    const float v[4] = {1, 2, 3, 4};
    clb_tensor *t = clbt_tensor(host, CLB_FLOAT32, 2, s22, v), *o3 = NULL, *r = (clb_tensor *)1;
    /* a positive axis count with no axes: an error, not "every axis" */
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 2, NULL, 0, &r));
    assert_null(r);
    assert_non_null(strstr(clb_last_error(), "clb_reduce"));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_var(t, 1, NULL, 0, 0, &r));
    assert_non_null(strstr(clb_last_error(), "clb_var"));
    /* an axis error names the function */
    const int ax[1] = {2};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reduce(CLB_SUM, t, 1, ax, 0, &r));
    assert_non_null(strstr(clb_last_error(), "clb_reduce: axis 2 is out of bounds"));
    /* _into calls say out */
    CLBT_OK(clb_tensor_empty(host, CLB_FLOAT32, 1, s3, &o3));
    CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_binary_into(CLB_ADD, t, t, o3));
    assert_non_null(strstr(clb_last_error(), "clb_binary_into"));
    assert_non_null(strstr(clb_last_error(), "the size of out (3)"));
    assert_null(strstr(clb_last_error(), "tensor c"));
    /* dtype errors from the rules name the function */
    CLBT_FAILS(CLB_ERR_DTYPE, clb_binary(CLB_BITWISE_AND, t, t, &r));
    assert_non_null(strstr(clb_last_error(), "clb_binary: "));
    /* clb_binary_scalar's arguments */
    clb_scalar one = {.kind = CLB_SCALAR_INT, .i = 1};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_binary_scalar(CLB_ADD, NULL, one, 0, &r));
    assert_null(r);
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_binary_scalar(CLB_ADD, t, one, 0, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_binary_scalar(CLB_ADD, t, (clb_scalar){.kind = (clb_scalar_kind)9}, 0, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT,
               clb_binary_scalar(CLB_ADD, t, (clb_scalar){.kind = CLB_SCALAR_BOOL, .i = 2}, 0, &r));
    clb_tensor_release(o3);
    clb_tensor_release(t);
    assert_int_equal(clb_memory_allocated(host), 0);
    clb_context_release(host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promotion_table),
        cmocka_unit_test(test_powers),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_mixed_programs),
        cmocka_unit_test(test_permuted_matmul),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
