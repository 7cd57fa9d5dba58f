/* Views and copies on every device: broadcast_to / broadcast_tensors / expand
 * are zero-copy (stride 0 on broadcast axes, shared storage, nothing
 * allocated), unsqueeze / squeeze / permute, reshape as a view exactly where
 * PyTorch's view() works and a contiguous copy otherwise, contiguous, and
 * repeat with torch.Tensor.repeat's values. */
#include "testutil.h"

static size_t mem(const clb_context *ctx)
{
    return clb_memory_allocated(ctx);
}

static void assert_strides(const clb_tensor *t, int ndim, const int64_t *strides)
{
    assert_int_equal(clb_tensor_ndim(t), ndim);
    for (int d = 0; d < ndim; d++) {
        /* the stride of a size-1 axis is never used: don't pin it down */
        if (clb_tensor_shape(t)[d] == 1) continue;
        if (clb_tensor_strides(t)[d] != strides[d])
            fail_msg("strides[%d] = %lld, expected %lld", d, (long long)clb_tensor_strides(t)[d],
                     (long long)strides[d]);
    }
}

static void assert_f32(const clb_tensor *t, const float *want, int64_t n)
{
    assert_int_equal(clb_tensor_dtype(t), CLB_FLOAT32);
    assert_int_equal(clb_tensor_numel(t), n);
    float *got = clbt_read(t);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %lld = %g, expected %g", (long long)i, (double)got[i], (double)want[i]);
    free(got);
}

static void assert_i32(const clb_tensor *t, const int32_t *want, int64_t n)
{
    assert_int_equal(clb_tensor_dtype(t), CLB_INT32);
    assert_int_equal(clb_tensor_numel(t), n);
    int32_t *got = clbt_read(t);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("element %lld = %d, expected %d", (long long)i, got[i], want[i]);
    free(got);
}

static clb_tensor *arange_f32(clb_context *ctx, int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *data = malloc((size_t)(n ? n : 1) * sizeof(float));
    assert_non_null(data);
    for (int64_t i = 0; i < n; i++) data[i] = (float)i;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, ndim, shape, data);
    free(data);
    return t;
}

static clb_tensor *arange_i32(clb_context *ctx, int ndim, const int64_t *shape, int32_t start)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    int32_t *data = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    assert_non_null(data);
    for (int64_t i = 0; i < n; i++) data[i] = start + (int32_t)i;
    clb_tensor *t = clbt_tensor(ctx, CLB_INT32, ndim, shape, data);
    free(data);
    return t;
}

/* The result of a failing call: the status, a message, *out NULL, nothing allocated. */
#define GARBAGE ((clb_tensor *)(uintptr_t)0x5A5A5A5A)
#define EXPECT_FAIL(ctx, status, call_with_out)                                                    \
    do {                                                                                           \
        size_t m_before_ = mem(ctx);                                                               \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        CLBT_FAILS(status, call_with_out);                                                         \
        assert_null(out_);                                                                         \
        assert_int_equal(mem(ctx), m_before_);                                                     \
    } while (0)
/* Either of two statuses (where the contract does not pin one down). */
#define EXPECT_FAIL2(ctx, s1, s2, call_with_out)                                                   \
    do {                                                                                           \
        size_t m_before_ = mem(ctx);                                                               \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        clb_status s_ = (call_with_out);                                                           \
        if (s_ != (s1) && s_ != (s2))                                                              \
            fail_msg("%s -> %s, expected %s or %s", #call_with_out, clb_status_name(s_),          \
                     clb_status_name(s1), clb_status_name(s2));                                    \
        assert_true(clb_last_error()[0] != '\0');                                                  \
        assert_null(out_);                                                                         \
        assert_int_equal(mem(ctx), m_before_);                                                     \
    } while (0)

/* ---- broadcast_to ---------------------------------------------------------- */

static void body_broadcast_to(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* seed 004 section 7.1: broadcast_to([1,2,3], (2,3)) */
    {
        const float v[3] = {1, 2, 3};
        const int64_t s3[1] = {3}, s23[2] = {2, 3};
        clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, s3, v);
        size_t m0 = mem(ctx);
        clb_tensor *b = NULL;
        CLBT_OK(clb_broadcast_to(t, 2, s23, &b));
        clbt_assert_shape(b, 2, s23);
        assert_strides(b, 2, (const int64_t[]){0, 1});
        assert_true(clb_tensor_shares_storage(t, b));
        assert_int_equal(mem(ctx), m0);
        assert_false(clb_tensor_is_contiguous(b));
        assert_int_equal(clb_tensor_offset(b), clb_tensor_offset(t));
        const float want[6] = {1, 2, 3, 1, 2, 3};
        assert_f32(b, want, 6);
        clb_tensor_release(b);
        clb_tensor_release(t);
    }
    /* 0-d scalar to (2,2) */
    {
        const float v = 7;
        clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &v);
        clb_tensor *b = NULL;
        const int64_t s22[2] = {2, 2};
        CLBT_OK(clb_broadcast_to(t, 2, s22, &b));
        assert_strides(b, 2, (const int64_t[]){0, 0});
        assert_int_equal(mem(ctx), 4);
        const float want[4] = {7, 7, 7, 7};
        assert_f32(b, want, 4);
        clb_tensor_release(b);
        clb_tensor_release(t);
    }
    /* (3,1) to (2,3,4): stride 0 on the new axis and on the stretched one */
    {
        const int64_t s31[2] = {3, 1}, s234[3] = {2, 3, 4};
        clb_tensor *t = arange_f32(ctx, 2, s31);
        clb_tensor *b = NULL;
        CLBT_OK(clb_broadcast_to(t, 3, s234, &b));
        assert_strides(b, 3, (const int64_t[]){0, 1, 0});
        assert_int_equal(mem(ctx), 12);
        float want[24];
        for (int i = 0; i < 24; i++) want[i] = (float)((i / 4) % 3);
        assert_f32(b, want, 24);
        clb_tensor_release(b);
        /* to its own shape: the same layout */
        CLBT_OK(clb_broadcast_to(t, 2, s31, &b));
        clbt_assert_shape(b, 2, s31);
        assert_true(clb_tensor_is_contiguous(b));
        assert_true(clb_tensor_shares_storage(t, b));
        clb_tensor_release(b);
        clb_tensor_release(t);
    }
    /* (1,3) to (0,3): empty */
    {
        const int64_t s13[2] = {1, 3}, s03[2] = {0, 3};
        clb_tensor *t = arange_f32(ctx, 2, s13);
        clb_tensor *b = NULL;
        CLBT_OK(clb_broadcast_to(t, 2, s03, &b));
        clbt_assert_shape(b, 2, s03);
        assert_int_equal(clb_tensor_numel(b), 0);
        float dummy;
        CLBT_OK(clb_tensor_to_host(b, &dummy, 0));
        assert_int_equal(mem(ctx), 12);
        clb_tensor_release(b);
        clb_tensor_release(t);
    }
    /* a permuted view broadcast further: (2,3)^T = (3,2) -> (4,3,2) */
    {
        const int64_t s23[2] = {2, 3}, s432[3] = {4, 3, 2};
        clb_tensor *t = arange_f32(ctx, 2, s23);
        clb_tensor *tt = NULL, *b = NULL;
        CLBT_OK(clb_permute(t, (const int[]){1, 0}, &tt));
        CLBT_OK(clb_broadcast_to(tt, 3, s432, &b));
        assert_strides(b, 3, (const int64_t[]){0, 1, 3});
        assert_true(clb_tensor_shares_storage(t, b));
        float want[24];
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 2; j++) want[k * 6 + i * 2 + j] = (float)(j * 3 + i);
        assert_f32(b, want, 24);
        clb_tensor_release(b);
        clb_tensor_release(tt);
        clb_tensor_release(t);
    }
    /* 64 dimensions */
    {
        const int64_t s23[2] = {2, 3};
        int64_t big[CLB_MAX_DIMS];
        for (int d = 0; d < CLB_MAX_DIMS; d++) big[d] = 1;
        big[0] = 2;
        big[CLB_MAX_DIMS - 2] = 2;
        big[CLB_MAX_DIMS - 1] = 3;
        clb_tensor *t = arange_f32(ctx, 2, s23);
        clb_tensor *b = NULL;
        CLBT_OK(clb_broadcast_to(t, CLB_MAX_DIMS, big, &b));
        clbt_assert_shape(b, CLB_MAX_DIMS, big);
        assert_int_equal(clb_tensor_strides(b)[0], 0);
        assert_int_equal(mem(ctx), 24);
        const float want[12] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
        assert_f32(b, want, 12);
        clb_tensor_release(b);
        clb_tensor_release(t);
    }
}

static void test_broadcast_to(void **state)
{
    (void)state;
    clbt_for_each_device(body_broadcast_to);
}

static void body_broadcast_to_errors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s23[2] = {2, 3}, s3[1] = {3};
    clb_tensor *t = arange_f32(ctx, 2, s23);
    clb_tensor *v = arange_f32(ctx, 1, s3);

    /* (2,3) -> (2,4): dimension 1 is in the way; the message says so */
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(t, 2, (const int64_t[]){2, 4}, outp_));
    {
        const char *msg = clb_last_error();
        if (!strstr(msg, "dimension 1") || !strstr(msg, "3") || !strstr(msg, "4"))
            fail_msg("broadcast_to message does not name dimension 1 and sizes 3, 4: \"%s\"", msg);
    }
    /* (3,) -> (2,4): the tensor's dimension 0 against the target's dimension 1 */
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(v, 2, (const int64_t[]){2, 4}, outp_));
    assert_non_null(strstr(clb_last_error(), "dimension"));
    /* 0 is not 1 */
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(v, 1, (const int64_t[]){0}, outp_));
    /* fewer dimensions than the tensor */
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_broadcast_to(t, 1, (const int64_t[]){3}, outp_));
    /* broadcast_to takes no -1, no negative sizes */
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(t, 2, (const int64_t[]){-1, 3}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(t, 3, (const int64_t[]){-2, 2, 3}, outp_));
    /* too many dimensions, NULL shape, NULL tensor, NULL out */
    int64_t ones[CLB_MAX_DIMS + 1];
    for (int d = 0; d <= CLB_MAX_DIMS; d++) ones[d] = 1;
    ones[CLB_MAX_DIMS] = 3;
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, CLB_MAX_DIMS + 1, ones, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, -1, ones, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 2, NULL, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(NULL, 2, s23, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 2, s23, NULL));
    /* the element count of the target overflows int64 */
    const int64_t huge[3] = {(int64_t)1 << 40, (int64_t)1 << 40, 3};
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_broadcast_to(v, 3, huge, outp_));
    clb_tensor_release(t);
    clb_tensor_release(v);
}

static void test_broadcast_to_errors(void **state)
{
    (void)state;
    clbt_for_each_device(body_broadcast_to_errors);
}

/* ---- broadcast_tensors ------------------------------------------------------ */

static void body_broadcast_tensors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s31[2] = {3, 1}, s4[1] = {4}, s3[1] = {3}, s2[1] = {2};
    const float av[3] = {1, 2, 3}, bv[4] = {10, 20, 30, 40}, cv = 100;
    clb_tensor *a = clbt_tensor(ctx, CLB_FLOAT32, 2, s31, av);
    clb_tensor *b = clbt_tensor(ctx, CLB_FLOAT32, 1, s4, bv);
    clb_tensor *c = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &cv);
    size_t m0 = mem(ctx);
    assert_int_equal(m0, 32);
    {
        const clb_tensor *in[3] = {a, b, c};
        clb_tensor *out[3] = {GARBAGE, GARBAGE, GARBAGE};
        CLBT_OK(clb_broadcast_tensors(3, in, out));
        const int64_t s34[2] = {3, 4};
        for (int k = 0; k < 3; k++) {
            clbt_assert_shape(out[k], 2, s34);
            assert_true(clb_tensor_shares_storage(out[k], in[k]));
        }
        assert_strides(out[0], 2, (const int64_t[]){1, 0});
        assert_strides(out[1], 2, (const int64_t[]){0, 1});
        assert_strides(out[2], 2, (const int64_t[]){0, 0});
        assert_int_equal(mem(ctx), m0);
        float wa[12], wb[12], wc[12];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                wa[i * 4 + j] = av[i];
                wb[i * 4 + j] = bv[j];
                wc[i * 4 + j] = cv;
            }
        assert_f32(out[0], wa, 12);
        assert_f32(out[1], wb, 12);
        assert_f32(out[2], wc, 12);
        for (int k = 0; k < 3; k++) clb_tensor_release(out[k]);
    }
    /* seed 004 section 7.1: a (3,1) with (2,) broadcasts to (3,2) (the article wrongly
       says it fails); a with c (3,) gives (3,3); a with c.reshape(3,1) stays (3,1). */
    {
        const float c3v[3] = {7, 8, 9}, b2v[2] = {4, 5};
        clb_tensor *c3 = clbt_tensor(ctx, CLB_FLOAT32, 1, s3, c3v);
        clb_tensor *b2 = clbt_tensor(ctx, CLB_FLOAT32, 1, s2, b2v);
        clb_tensor *c31 = NULL;
        CLBT_OK(clb_reshape(c3, 2, s31, &c31));
        size_t m1 = mem(ctx);
        clb_tensor *out[2] = {GARBAGE, GARBAGE};

        const clb_tensor *in_ab[2] = {a, b2};
        CLBT_OK(clb_broadcast_tensors(2, in_ab, out));
        const int64_t s32[2] = {3, 2};
        clbt_assert_shape(out[0], 2, s32);
        clbt_assert_shape(out[1], 2, s32);
        const float w0[6] = {1, 1, 2, 2, 3, 3}, w1[6] = {4, 5, 4, 5, 4, 5};
        assert_f32(out[0], w0, 6);
        assert_f32(out[1], w1, 6);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);

        const clb_tensor *in_ac[2] = {a, c3};
        CLBT_OK(clb_broadcast_tensors(2, in_ac, out));
        const int64_t s33[2] = {3, 3};
        clbt_assert_shape(out[0], 2, s33);
        clbt_assert_shape(out[1], 2, s33);
        const float x0[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3}, x1[9] = {7, 8, 9, 7, 8, 9, 7, 8, 9};
        assert_f32(out[0], x0, 9);
        assert_f32(out[1], x1, 9);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);

        const clb_tensor *in_ar[2] = {a, c31};
        CLBT_OK(clb_broadcast_tensors(2, in_ar, out));
        clbt_assert_shape(out[0], 2, s31);
        clbt_assert_shape(out[1], 2, s31);
        assert_f32(out[0], av, 3);
        assert_f32(out[1], c3v, 3);
        assert_int_equal(mem(ctx), m1);
        clb_tensor_release(out[0]);
        clb_tensor_release(out[1]);
        clb_tensor_release(c31);
        clb_tensor_release(c3);
        clb_tensor_release(b2);
    }
    /* one tensor: a view of the same shape */
    {
        const clb_tensor *in[1] = {a};
        clb_tensor *out[1] = {GARBAGE};
        CLBT_OK(clb_broadcast_tensors(1, in, out));
        clbt_assert_shape(out[0], 2, s31);
        assert_true(clb_tensor_shares_storage(out[0], a));
        clb_tensor_release(out[0]);
    }
    /* incompatible: every output NULL, nothing allocated */
    {
        const float dv[3] = {0, 0, 0};
        clb_tensor *d = clbt_tensor(ctx, CLB_FLOAT32, 1, s3, dv);
        const clb_tensor *in[3] = {a, b, d};
        clb_tensor *out[3] = {GARBAGE, GARBAGE, GARBAGE};
        size_t m1 = mem(ctx);
        CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_tensors(3, in, out));
        for (int k = 0; k < 3; k++) assert_null(out[k]);
        assert_int_equal(mem(ctx), m1);
        const clb_tensor *in_null[2] = {a, NULL};
        out[0] = out[1] = GARBAGE;
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, in_null, out));
        assert_null(out[0]);
        assert_null(out[1]);
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(-1, in, out));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, NULL, out));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_tensors(2, in, NULL));
        clb_tensor_release(d);
    }
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
}

static void test_broadcast_tensors(void **state)
{
    (void)state;
    clbt_for_each_device(body_broadcast_tensors);
}

/* ---- expand ------------------------------------------------------------------ */

static void body_expand(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* seed 004 section 5.2: (1,256,1,1) -> (32,256,224,224) adds 0 bytes
       (repeat would add 1.6 GB) */
    {
        const int64_t s[4] = {1, 256, 1, 1}, big[4] = {32, 256, 224, 224};
        clb_tensor *t = arange_f32(ctx, 4, s);
        size_t m0 = mem(ctx);
        assert_int_equal(m0, 256 * 4);
        clb_tensor *e = NULL;
        CLBT_OK(clb_expand(t, 4, big, &e));
        clbt_assert_shape(e, 4, big);
        assert_strides(e, 4, (const int64_t[]){0, 1, 0, 0});
        assert_int_equal(clb_tensor_numel(e), (int64_t)32 * 256 * 224 * 224);
        assert_true(clb_tensor_shares_storage(t, e));
        assert_int_equal(mem(ctx), m0);
        clb_tensor_release(e);
        clb_tensor_release(t);
    }
    /* seed 004 section 5.1: (1,5,1,1) -> (4,5,32,32), and its values */
    {
        const int64_t s[4] = {1, 5, 1, 1}, big[4] = {4, 5, 32, 32};
        clb_tensor *t = arange_f32(ctx, 4, s);
        clb_tensor *e = NULL;
        CLBT_OK(clb_expand(t, 4, big, &e));
        assert_true(clb_tensor_shares_storage(t, e));
        assert_int_equal(mem(ctx), 20);
        float *want = malloc(4 * 5 * 32 * 32 * sizeof(float));
        assert_non_null(want);
        for (int i = 0; i < 4 * 5 * 32 * 32; i++) want[i] = (float)((i / (32 * 32)) % 5);
        assert_f32(e, want, 4 * 5 * 32 * 32);
        free(want);
        clb_tensor_release(e);
        clb_tensor_release(t);
    }
    /* -1 keeps a size */
    {
        const int64_t s31[2] = {3, 1};
        clb_tensor *t = arange_f32(ctx, 2, s31);
        clb_tensor *e = NULL;
        CLBT_OK(clb_expand(t, 2, (const int64_t[]){-1, 4}, &e));
        clbt_assert_shape(e, 2, (const int64_t[]){3, 4});
        assert_strides(e, 2, (const int64_t[]){1, 0});
        const float want[12] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
        assert_f32(e, want, 12);
        clb_tensor_release(e);
        CLBT_OK(clb_expand(t, 3, (const int64_t[]){2, -1, -1}, &e));
        clbt_assert_shape(e, 3, (const int64_t[]){2, 3, 1});
        assert_int_equal(clb_tensor_strides(e)[0], 0);
        assert_int_equal(clb_tensor_strides(e)[1], 1);
        assert_true(clb_tensor_shares_storage(t, e));
        clb_tensor_release(e);
        CLBT_OK(clb_expand(t, 2, (const int64_t[]){-1, -1}, &e));
        clbt_assert_shape(e, 2, s31);
        clb_tensor_release(e);
        assert_int_equal(mem(ctx), 12);

        /* errors */
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(t, 3, (const int64_t[]){-1, 3, 4}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(t, 2, (const int64_t[]){-2, 4}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_expand(t, 2, (const int64_t[]){4, 4}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, clb_expand(t, 2, (const int64_t[]){0, 4}, outp_));
        EXPECT_FAIL2(ctx, CLB_ERR_SHAPE_MISMATCH, CLB_ERR_INVALID_ARGUMENT,
                     clb_expand(t, 1, (const int64_t[]){3}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(t, 2, NULL, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(NULL, 2, s31, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_expand(t, CLB_MAX_DIMS + 1, s31, outp_));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_expand(t, 2, s31, NULL));
        clb_tensor_release(t);
    }
}

static void test_expand(void **state)
{
    (void)state;
    clbt_for_each_device(body_expand);
}

/* ---- unsqueeze / squeeze / permute ---------------------------------------------------- */

static void body_unsqueeze_squeeze(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s34[2] = {3, 4};
    clb_tensor *t = arange_f32(ctx, 2, s34);
    float want[12];
    for (int i = 0; i < 12; i++) want[i] = (float)i;
    static const struct { int axis; int64_t shape[3]; } cases[] = {
        {0, {1, 3, 4}}, {1, {3, 1, 4}}, {2, {3, 4, 1}},
        {-1, {3, 4, 1}}, {-2, {3, 1, 4}}, {-3, {1, 3, 4}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clb_tensor *u = NULL, *s = NULL;
        CLBT_OK(clb_unsqueeze(t, cases[i].axis, &u));
        clbt_assert_shape(u, 3, cases[i].shape);
        assert_true(clb_tensor_shares_storage(t, u));
        assert_true(clb_tensor_is_contiguous(u));
        assert_f32(u, want, 12);
        /* squeeze it back, with the positive and the negative axis */
        int a = cases[i].axis < 0 ? cases[i].axis + 3 : cases[i].axis;
        CLBT_OK(clb_squeeze(u, a, &s));
        clbt_assert_shape(s, 2, s34);
        assert_strides(s, 2, (const int64_t[]){4, 1});
        clb_tensor_release(s);
        CLBT_OK(clb_squeeze(u, a - 3, &s));
        clbt_assert_shape(s, 2, s34);
        clb_tensor_release(s);
        /* squeezing an axis that is not size 1 is an error */
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(u, (a + 1) % 3, outp_));
        clb_tensor_release(u);
    }
    assert_int_equal(mem(ctx), 48);
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, 3, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, -4, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 2, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, -3, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(NULL, 0, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(NULL, 0, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(t, 0, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_squeeze(t, 0, NULL));

    /* 0-d: unsqueeze 0 and -1 give (1,); squeeze of that gives 0-d again */
    {
        const float v = 5;
        clb_tensor *z = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &v), *u = NULL, *s = NULL;
        CLBT_OK(clb_unsqueeze(z, 0, &u));
        clbt_assert_shape(u, 1, (const int64_t[]){1});
        clb_tensor_release(u);
        CLBT_OK(clb_unsqueeze(z, -1, &u));
        clbt_assert_shape(u, 1, (const int64_t[]){1});
        CLBT_OK(clb_squeeze(u, 0, &s));
        assert_int_equal(clb_tensor_ndim(s), 0);
        assert_f32(s, &v, 1);
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_squeeze(z, 0, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(z, 1, outp_));
        clb_tensor_release(s);
        clb_tensor_release(u);
        clb_tensor_release(z);
    }
    /* unsqueeze of a broadcast view keeps stride 0 where it was */
    {
        clb_tensor *e = NULL, *u = NULL, *s = NULL;
        const int64_t s31[2] = {3, 1};
        clb_tensor *c = arange_f32(ctx, 2, s31);
        CLBT_OK(clb_expand(c, 2, (const int64_t[]){3, 5}, &e));
        CLBT_OK(clb_unsqueeze(e, 1, &u));
        clbt_assert_shape(u, 3, (const int64_t[]){3, 1, 5});
        assert_int_equal(clb_tensor_strides(u)[2], 0);
        assert_int_equal(clb_tensor_strides(u)[0], 1);
        CLBT_OK(clb_squeeze(c, 1, &s)); /* (3,) */
        clbt_assert_shape(s, 1, (const int64_t[]){3});
        const float w[3] = {0, 1, 2};
        assert_f32(s, w, 3);
        clb_tensor_release(s);
        clb_tensor_release(u);
        clb_tensor_release(e);
        clb_tensor_release(c);
    }
    /* CLB_MAX_DIMS: a 64-d tensor cannot take another axis */
    {
        int64_t ones[CLB_MAX_DIMS];
        for (int d = 0; d < CLB_MAX_DIMS; d++) ones[d] = 1;
        const float v = 1;
        clb_tensor *m = clbt_tensor(ctx, CLB_FLOAT32, CLB_MAX_DIMS, ones, &v), *s = NULL;
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_unsqueeze(m, 0, outp_));
        CLBT_OK(clb_squeeze(m, -1, &s));
        assert_int_equal(clb_tensor_ndim(s), CLB_MAX_DIMS - 1);
        clb_tensor_release(s);
        clb_tensor_release(m);
    }
    clb_tensor_release(t);
}

static void test_unsqueeze_squeeze(void **state)
{
    (void)state;
    clbt_for_each_device(body_unsqueeze_squeeze);
}

static void body_permute(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s234[3] = {2, 3, 4};
    clb_tensor *t = arange_f32(ctx, 3, s234);
    float want[24];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) want[k * 6 + i * 3 + j] = (float)(i * 12 + j * 4 + k);
    static const int perms[2][3] = {{2, 0, 1}, {-1, 0, 1}};
    for (int p = 0; p < 2; p++) {
        clb_tensor *v = NULL;
        CLBT_OK(clb_permute(t, perms[p], &v));
        clbt_assert_shape(v, 3, (const int64_t[]){4, 2, 3});
        assert_strides(v, 3, (const int64_t[]){1, 12, 4});
        assert_true(clb_tensor_shares_storage(t, v));
        assert_false(clb_tensor_is_contiguous(v));
        assert_int_equal(mem(ctx), 96);
        assert_f32(v, want, 24);
        /* the inverse permutation restores the layout */
        clb_tensor *back = NULL;
        CLBT_OK(clb_permute(v, (const int[]){1, 2, 0}, &back));
        clbt_assert_shape(back, 3, s234);
        assert_true(clb_tensor_is_contiguous(back));
        clb_tensor_release(back);
        clb_tensor_release(v);
    }
    /* identity */
    {
        clb_tensor *v = NULL;
        CLBT_OK(clb_permute(t, (const int[]){0, 1, 2}, &v));
        assert_strides(v, 3, (const int64_t[]){12, 4, 1});
        clb_tensor_release(v);
    }
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){0, 0, 1}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){0, 1, 3}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){-4, 0, 1}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){-1, 2, 0}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(t, NULL, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_permute(NULL, (const int[]){0, 1, 2}, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_permute(t, (const int[]){0, 1, 2}, NULL));
    clb_tensor_release(t);
}

static void test_permute(void **state)
{
    (void)state;
    clbt_for_each_device(body_permute);
}

/* ---- reshape -------------------------------------------------------------------------- */

/* reshape that must be a view: shares storage, allocates nothing, has `strides`. */
static void expect_view(clb_context *ctx, const clb_tensor *t, int ndim, const int64_t *shape,
                        const int64_t *want_shape, const int64_t *want_strides)
{
    size_t m0 = mem(ctx);
    clb_tensor *r = NULL;
    CLBT_OK(clb_reshape(t, ndim, shape, &r));
    clbt_assert_shape(r, ndim, want_shape);
    if (!clb_tensor_shares_storage(t, r)) fail_msg("reshape copied where PyTorch's view() works");
    assert_int_equal(mem(ctx), m0);
    if (want_strides) assert_strides(r, ndim, want_strides);
    /* same logical values in row-major order */
    float *a = clbt_read(t), *b = clbt_read(r);
    assert_memory_equal(a, b, (size_t)clb_tensor_numel(t) * sizeof(float));
    free(a);
    free(b);
    clb_tensor_release(r);
}

/* reshape that must copy: new storage of exactly numel * itemsize, contiguous. */
static void expect_copy(clb_context *ctx, const clb_tensor *t, int ndim, const int64_t *shape)
{
    size_t m0 = mem(ctx);
    clb_tensor *r = NULL;
    CLBT_OK(clb_reshape(t, ndim, shape, &r));
    clbt_assert_shape(r, ndim, shape);
    assert_false(clb_tensor_shares_storage(t, r));
    assert_true(clb_tensor_is_contiguous(r));
    assert_int_equal(mem(ctx) - m0, (size_t)clb_tensor_numel(t) * sizeof(float));
    float *a = clbt_read(t), *b = clbt_read(r);
    assert_memory_equal(a, b, (size_t)clb_tensor_numel(t) * sizeof(float));
    free(a);
    free(b);
    clb_tensor_release(r);
    assert_int_equal(mem(ctx), m0);
}

static void body_reshape(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s234[3] = {2, 3, 4};
    clb_tensor *t = arange_f32(ctx, 3, s234);
    /* contiguous: always a view */
    expect_view(ctx, t, 2, (const int64_t[]){6, 4}, (const int64_t[]){6, 4}, (const int64_t[]){4, 1});
    expect_view(ctx, t, 1, (const int64_t[]){24}, (const int64_t[]){24}, (const int64_t[]){1});
    expect_view(ctx, t, 2, (const int64_t[]){4, -1}, (const int64_t[]){4, 6}, (const int64_t[]){6, 1});
    expect_view(ctx, t, 1, (const int64_t[]){-1}, (const int64_t[]){24}, NULL);
    expect_view(ctx, t, 5, (const int64_t[]){2, 3, 4, 1, 1}, (const int64_t[]){2, 3, 4, 1, 1}, NULL);
    expect_view(ctx, t, 4, (const int64_t[]){1, -1, 2, 3}, (const int64_t[]){1, 4, 2, 3}, NULL);

    /* transposed (3,4) -> (4,3) with strides (1,4) */
    {
        const int64_t s34[2] = {3, 4};
        clb_tensor *m = arange_f32(ctx, 2, s34), *mt = NULL;
        CLBT_OK(clb_permute(m, (const int[]){1, 0}, &mt));
        expect_copy(ctx, mt, 1, (const int64_t[]){12}); /* the seed's "contiguous() first" case */
        expect_copy(ctx, mt, 2, (const int64_t[]){2, 6});
        expect_copy(ctx, mt, 2, (const int64_t[]){3, 4});
        expect_view(ctx, mt, 3, (const int64_t[]){4, 3, 1}, (const int64_t[]){4, 3, 1}, NULL);
        expect_view(ctx, mt, 3, (const int64_t[]){2, 2, 3}, (const int64_t[]){2, 2, 3},
                    (const int64_t[]){2, 1, 4});
        expect_view(ctx, mt, 3, (const int64_t[]){4, 1, 3}, (const int64_t[]){4, 1, 3}, NULL);
        /* the copy's values: row-major order of the transposed matrix */
        clb_tensor *flat = NULL;
        CLBT_OK(clb_reshape(mt, 1, (const int64_t[]){-1}, &flat));
        const float w[12] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
        assert_f32(flat, w, 12);
        clb_tensor_release(flat);
        clb_tensor_release(mt);
        clb_tensor_release(m);
    }
    /* permuted (2,3,4) by (1,0,2): (3,2,4) with strides (4,12,1) */
    {
        clb_tensor *p = NULL;
        CLBT_OK(clb_permute(t, (const int[]){1, 0, 2}, &p));
        expect_copy(ctx, p, 2, (const int64_t[]){3, 8});
        expect_copy(ctx, p, 2, (const int64_t[]){6, 4});
        expect_view(ctx, p, 4, (const int64_t[]){3, 2, 2, 2}, (const int64_t[]){3, 2, 2, 2},
                    (const int64_t[]){4, 12, 2, 1});
        expect_view(ctx, p, 3, (const int64_t[]){3, 2, 4}, (const int64_t[]){3, 2, 4},
                    (const int64_t[]){4, 12, 1});
        clb_tensor_release(p);
    }
    /* broadcast views: (3,) expanded to (2,3) has strides (0,1) */
    {
        const int64_t s3[1] = {3};
        clb_tensor *v = arange_f32(ctx, 1, s3), *e = NULL;
        CLBT_OK(clb_expand(v, 2, (const int64_t[]){2, 3}, &e));
        expect_view(ctx, e, 3, (const int64_t[]){2, 3, 1}, (const int64_t[]){2, 3, 1}, NULL);
        expect_view(ctx, e, 3, (const int64_t[]){2, 1, 3}, (const int64_t[]){2, 1, 3}, NULL);
        expect_copy(ctx, e, 1, (const int64_t[]){6});
        clb_tensor *flat = NULL;
        CLBT_OK(clb_reshape(e, 1, (const int64_t[]){6}, &flat));
        const float w[6] = {0, 1, 2, 0, 1, 2};
        assert_f32(flat, w, 6);
        clb_tensor_release(flat);
        clb_tensor_release(e);
        /* (1,4) expanded to (3,4) -> (3,2,2): strides (0,2,1) */
        const int64_t s14[2] = {1, 4};
        clb_tensor *r = arange_f32(ctx, 2, s14), *re = NULL;
        CLBT_OK(clb_expand(r, 2, (const int64_t[]){3, 4}, &re));
        expect_view(ctx, re, 3, (const int64_t[]){3, 2, 2}, (const int64_t[]){3, 2, 2},
                    (const int64_t[]){0, 2, 1});
        expect_copy(ctx, re, 2, (const int64_t[]){4, 3});
        clb_tensor_release(re);
        clb_tensor_release(r);
        clb_tensor_release(v);
    }
    /* scalars and zero-size */
    {
        const float x = 3;
        clb_tensor *z = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &x);
        expect_view(ctx, z, 2, (const int64_t[]){1, 1}, (const int64_t[]){1, 1}, NULL);
        expect_view(ctx, z, 1, (const int64_t[]){-1}, (const int64_t[]){1}, NULL);
        clb_tensor *r = NULL, *s = NULL;
        CLBT_OK(clb_reshape(z, 3, (const int64_t[]){1, 1, 1}, &r));
        CLBT_OK(clb_reshape(r, 0, NULL, &s));
        assert_int_equal(clb_tensor_ndim(s), 0);
        assert_true(clb_tensor_shares_storage(s, z));
        assert_f32(s, &x, 1);
        clb_tensor_release(s);
        clb_tensor_release(r);
        clb_tensor_release(z);
        const int64_t s03[2] = {0, 3};
        clb_tensor *e = arange_f32(ctx, 2, s03), *e2 = NULL;
        CLBT_OK(clb_reshape(e, 3, (const int64_t[]){3, 0, 5}, &e2));
        clbt_assert_shape(e2, 3, (const int64_t[]){3, 0, 5});
        assert_int_equal(mem(ctx), 96);
        clb_tensor_release(e2);
        clb_tensor_release(e);
    }
    /* errors */
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 3, (const int64_t[]){-1, -1, 4}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, (const int64_t[]){-2, -12}, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, (const int64_t[]){-3, 8}, outp_));
    /* the contract names no status for a wrong element count: either is accepted */
    EXPECT_FAIL2(ctx, CLB_ERR_SHAPE_MISMATCH, CLB_ERR_INVALID_ARGUMENT,
                 clb_reshape(t, 2, (const int64_t[]){5, 5}, outp_));
    EXPECT_FAIL2(ctx, CLB_ERR_SHAPE_MISMATCH, CLB_ERR_INVALID_ARGUMENT,
                 clb_reshape(t, 2, (const int64_t[]){-1, 5}, outp_));
    EXPECT_FAIL2(ctx, CLB_ERR_SHAPE_MISMATCH, CLB_ERR_INVALID_ARGUMENT,
                 clb_reshape(t, 0, NULL, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 2, NULL, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, -1, s234, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, CLB_MAX_DIMS + 1, s234, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_reshape(NULL, 3, s234, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_reshape(t, 3, s234, NULL));
    clb_tensor_release(t);
}

static void test_reshape(void **state)
{
    (void)state;
    clbt_for_each_device(body_reshape);
}

/* ---- contiguous --------------------------------------------------------------------- */

static void body_contiguous(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s34[2] = {3, 4};
    clb_tensor *t = arange_f32(ctx, 2, s34);
    /* already contiguous: a new reference to the same tensor */
    {
        clb_tensor *c = NULL;
        CLBT_OK(clb_contiguous(t, &c));
        assert_ptr_equal(c, t);
        assert_int_equal(mem(ctx), 48);
        clb_tensor_release(c); /* drops the extra reference only */
        float back[12];
        CLBT_OK(clb_tensor_to_host(t, back, sizeof back));
        assert_true(back[11] == 11.0f);
        /* a contiguous view (unsqueeze) returns that view itself */
        clb_tensor *u = NULL;
        CLBT_OK(clb_unsqueeze(t, 0, &u));
        CLBT_OK(clb_contiguous(u, &c));
        assert_ptr_equal(c, u);
        clb_tensor_release(c);
        clb_tensor_release(u);
        assert_int_equal(mem(ctx), 48);
    }
    /* transposed: exactly numel * itemsize new bytes, row-major strides, the values */
    {
        clb_tensor *tt = NULL, *c = NULL;
        CLBT_OK(clb_permute(t, (const int[]){1, 0}, &tt));
        CLBT_OK(clb_contiguous(tt, &c));
        assert_int_equal(mem(ctx), 96);
        assert_false(clb_tensor_shares_storage(c, t));
        assert_true(clb_tensor_is_contiguous(c));
        clbt_assert_shape(c, 2, (const int64_t[]){4, 3});
        assert_strides(c, 2, (const int64_t[]){3, 1});
        assert_int_equal(clb_tensor_offset(c), 0);
        const float w[12] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
        assert_f32(c, w, 12);
        clb_tensor_release(c);
        clb_tensor_release(tt);
        assert_int_equal(mem(ctx), 48);
    }
    /* broadcast (4,) -> (5,4) materialized: 80 bytes */
    {
        const int64_t s4[1] = {4};
        const float rv[4] = {1.5f, -2, 3, 0.25f};
        clb_tensor *r = clbt_tensor(ctx, CLB_FLOAT32, 1, s4, rv), *e = NULL, *c = NULL;
        CLBT_OK(clb_broadcast_to(r, 2, (const int64_t[]){5, 4}, &e));
        size_t m0 = mem(ctx);
        CLBT_OK(clb_contiguous(e, &c));
        assert_int_equal(mem(ctx) - m0, 80);
        assert_strides(c, 2, (const int64_t[]){4, 1});
        float w[20];
        for (int i = 0; i < 20; i++) w[i] = rv[i % 4];
        assert_f32(c, w, 20);
        clb_tensor_release(c);
        clb_tensor_release(e);
        clb_tensor_release(r);
    }
    /* int32 0-d broadcast to (2,2) */
    {
        const int32_t v = -7;
        clb_tensor *z = clbt_tensor(ctx, CLB_INT32, 0, NULL, &v), *e = NULL, *c = NULL;
        CLBT_OK(clb_broadcast_to(z, 2, (const int64_t[]){2, 2}, &e));
        CLBT_OK(clb_contiguous(e, &c));
        assert_int_equal(mem(ctx), 48 + 4 + 16);
        const int32_t w[4] = {-7, -7, -7, -7};
        assert_i32(c, w, 4);
        clb_tensor_release(c);
        clb_tensor_release(e);
        clb_tensor_release(z);
    }
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_contiguous(NULL, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_contiguous(t, NULL));
    clb_tensor_release(t);
}

static void test_contiguous(void **state)
{
    (void)state;
    clbt_for_each_device(body_contiguous);
}

/* ---- repeat --------------------------------------------------------------------------- */

/* torch.Tensor.repeat reference: out[i] = in[i mod shape] after prepending 1s. */
static void repeat_ref(int ndim, const int64_t *shape, const int32_t *in, int rdim,
                       const int64_t *reps, int32_t *out, int64_t *out_shape)
{
    int64_t sh[CLB_MAX_DIMS];
    int lead = rdim - ndim;
    int64_t n = 1;
    for (int d = 0; d < rdim; d++) {
        sh[d] = d < lead ? 1 : shape[d - lead];
        out_shape[d] = sh[d] * reps[d];
        n *= out_shape[d];
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, src = 0, mult = 1;
        for (int d = rdim - 1; d >= 0; d--) {
            int64_t idx = rem % out_shape[d];
            rem /= out_shape[d];
            src += (idx % sh[d]) * mult;
            mult *= sh[d];
        }
        out[i] = in[src];
    }
}

static void check_repeat(clb_context *ctx, clb_tensor *t, const int32_t *logical, int rdim,
                         const int64_t *reps)
{
    int64_t out_shape[CLB_MAX_DIMS];
    int64_t n = 1;
    for (int d = 0; d < rdim; d++) n *= reps[d];
    n *= clb_tensor_numel(t);
    int32_t *want = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    assert_non_null(want);
    repeat_ref(clb_tensor_ndim(t), clb_tensor_shape(t), logical, rdim, reps, want, out_shape);
    size_t m0 = mem(ctx);
    clb_tensor *r = NULL;
    CLBT_OK(clb_repeat(t, rdim, reps, &r));
    clbt_assert_shape(r, rdim, out_shape);
    assert_int_equal(mem(ctx) - m0, (size_t)n * sizeof(int32_t));
    assert_true(clb_tensor_is_contiguous(r));
    assert_false(clb_tensor_shares_storage(r, t));
    assert_i32(r, want, n);
    clb_tensor_release(r);
    free(want);
}

static void body_repeat(clb_context *ctx, const char *sel)
{
    (void)sel;
    /* [1,2,3].repeat(2,2) = [[1,2,3,1,2,3],[1,2,3,1,2,3]] */
    {
        const int64_t s3[1] = {3};
        const int32_t v[3] = {1, 2, 3};
        clb_tensor *x = clbt_tensor(ctx, CLB_INT32, 1, s3, v), *r = NULL;
        CLBT_OK(clb_repeat(x, 2, (const int64_t[]){2, 2}, &r));
        clbt_assert_shape(r, 2, (const int64_t[]){2, 6});
        assert_int_equal(mem(ctx), 12 + 48);
        const int32_t w[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
        assert_i32(r, w, 12);
        clb_tensor_release(r);
        /* torch docs: x.repeat(4, 2) is (4,6); x.repeat(4, 2, 1) is (4,2,3) */
        check_repeat(ctx, x, v, 2, (const int64_t[]){4, 2});
        check_repeat(ctx, x, v, 3, (const int64_t[]){4, 2, 1});
        /* all ones: still a copy */
        check_repeat(ctx, x, v, 1, (const int64_t[]){1});
        /* a zero repeat: empty, no bytes */
        check_repeat(ctx, x, v, 2, (const int64_t[]){0, 2});
        /* errors: fewer reps than dims, negative, NULL, too many dims */
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(x, 0, NULL, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(x, 1, (const int64_t[]){-1}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(x, 2, NULL, outp_));
        int64_t many[CLB_MAX_DIMS + 1];
        for (int d = 0; d <= CLB_MAX_DIMS; d++) many[d] = 1;
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(x, CLB_MAX_DIMS + 1, many, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT,
                    clb_repeat(x, 3, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40, 1}, outp_));
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(NULL, 1, (const int64_t[]){2}, outp_));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_repeat(x, 1, (const int64_t[]){2}, NULL));
        clb_tensor_release(x);
    }
    /* [[1,2],[3,4]].repeat(2,1,3) */
    {
        const int64_t s22[2] = {2, 2};
        const int32_t v[4] = {1, 2, 3, 4};
        clb_tensor *m = clbt_tensor(ctx, CLB_INT32, 2, s22, v);
        check_repeat(ctx, m, v, 3, (const int64_t[]){2, 1, 3});
        EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, clb_repeat(m, 1, (const int64_t[]){2}, outp_));
        /* of a transposed view: repeats its logical values */
        clb_tensor *mt = NULL;
        CLBT_OK(clb_permute(m, (const int[]){1, 0}, &mt));
        const int32_t vt[4] = {1, 3, 2, 4};
        check_repeat(ctx, mt, vt, 2, (const int64_t[]){3, 2});
        clb_tensor_release(mt);
        clb_tensor_release(m);
    }
    /* of a broadcast view, and of a 0-d tensor */
    {
        const int64_t s31[2] = {3, 1};
        clb_tensor *c = arange_i32(ctx, 2, s31, 10), *e = NULL;
        CLBT_OK(clb_expand(c, 2, (const int64_t[]){3, 2}, &e));
        const int32_t ve[6] = {10, 10, 11, 11, 12, 12};
        check_repeat(ctx, e, ve, 3, (const int64_t[]){2, 2, 2});
        clb_tensor_release(e);
        clb_tensor_release(c);
        const int32_t s = 42;
        clb_tensor *z = clbt_tensor(ctx, CLB_INT32, 0, NULL, &s);
        check_repeat(ctx, z, &s, 1, (const int64_t[]){3});
        check_repeat(ctx, z, &s, 0, NULL);
        clb_tensor_release(z);
    }
    /* the seed's expand-versus-repeat comparison, scaled down: (1,4,1,1) to (2,4,3,3) */
    {
        const int64_t s[4] = {1, 4, 1, 1};
        clb_tensor *t = arange_i32(ctx, 4, s, 0), *e = NULL, *r = NULL;
        size_t m0 = mem(ctx);
        CLBT_OK(clb_repeat(t, 4, (const int64_t[]){2, 1, 3, 3}, &r));
        assert_int_equal(mem(ctx) - m0, 2 * 4 * 3 * 3 * sizeof(int32_t));
        size_t m1 = mem(ctx);
        CLBT_OK(clb_expand(t, 4, (const int64_t[]){2, 4, 3, 3}, &e));
        assert_int_equal(mem(ctx), m1);
        int32_t *a = clbt_read(r), *b = clbt_read(e);
        assert_memory_equal(a, b, 72 * sizeof(int32_t));
        free(a);
        free(b);
        clb_tensor_release(e);
        clb_tensor_release(r);
        clb_tensor_release(t);
    }
}

static void test_repeat(void **state)
{
    (void)state;
    clbt_for_each_device(body_repeat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_to),
        cmocka_unit_test(test_broadcast_to_errors),
        cmocka_unit_test(test_broadcast_tensors),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_unsqueeze_squeeze),
        cmocka_unit_test(test_permute),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_contiguous),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
