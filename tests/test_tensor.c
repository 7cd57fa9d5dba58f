/* Tensors on every device: host transfers of every dtype (0-d and zero-size
 * included), reference counts in any order, views outliving their base,
 * tensors outliving their context, storage sharing, exact memory accounting,
 * accessors and contiguity. */
#include "testutil.h"

#define NDTYPES 12
static const clb_dtype all_dtypes[NDTYPES] = {
    CLB_BOOL,   CLB_INT8,   CLB_UINT8,  CLB_INT16,   CLB_UINT16,  CLB_INT32,
    CLB_UINT32, CLB_INT64,  CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64,
};
static const size_t all_sizes[NDTYPES] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};

/* A distinct, valid (finite, bool 0/1) value of element i, written as dtype bytes. */
static void put_value(clb_dtype dt, int64_t i, void *dst)
{
    uint64_t u = (uint64_t)i;
    switch (dt) {
    case CLB_BOOL: { uint8_t v = (uint8_t)((u * 7) % 3 == 0); memcpy(dst, &v, 1); break; }
    case CLB_INT8: { int8_t v = (int8_t)(u * 37 - 100); memcpy(dst, &v, 1); break; }
    case CLB_UINT8: { uint8_t v = (uint8_t)(u * 53 + 1); memcpy(dst, &v, 1); break; }
    case CLB_INT16: { int16_t v = (int16_t)(u * 1231 - 30000); memcpy(dst, &v, 2); break; }
    case CLB_UINT16: { uint16_t v = (uint16_t)(u * 4099 + 7); memcpy(dst, &v, 2); break; }
    case CLB_INT32: { int32_t v = (int32_t)(uint32_t)(u * 2654435761u); memcpy(dst, &v, 4); break; }
    case CLB_UINT32: { uint32_t v = (uint32_t)(u * 2654435761u + 3); memcpy(dst, &v, 4); break; }
    case CLB_INT64: { int64_t v = (int64_t)(u * 0x9E3779B97F4A7C15ull); memcpy(dst, &v, 8); break; }
    case CLB_UINT64: { uint64_t v = u * 0xC2B2AE3D27D4EB4Full + 1; memcpy(dst, &v, 8); break; }
    case CLB_FLOAT16: {
        /* finite half bit patterns: exponent field below 31, both signs */
        uint16_t v = (uint16_t)(((u % 29 + 1) << 10) | ((u * 97) & 0x3FF) | ((u & 1) << 15));
        memcpy(dst, &v, 2);
        break;
    }
    case CLB_FLOAT32: { float v = (float)i * 0.5f - 3.25f; memcpy(dst, &v, 4); break; }
    case CLB_FLOAT64: { double v = (double)i * 1e-3 - 7.5; memcpy(dst, &v, 8); break; }
    }
}

static void *make_data(clb_dtype dt, int64_t numel)
{
    size_t isz = clb_dtype_size(dt);
    unsigned char *buf = malloc(numel ? (size_t)numel * isz : 1);
    assert_non_null(buf);
    for (int64_t i = 0; i < numel; i++) put_value(dt, i, buf + (size_t)i * isz);
    return buf;
}

static int64_t prod(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

static size_t mem(const clb_context *ctx)
{
    return clb_memory_allocated(ctx);
}

/* ---- transfers ------------------------------------------------------------- */

static void roundtrip_one(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape)
{
    const int64_t dummy = 0;
    if (!shape) shape = &dummy;
    int64_t numel = prod(ndim, shape);
    size_t isz = clb_dtype_size(dt);
    size_t bytes = (size_t)numel * isz;
    void *data = make_data(dt, numel);
    size_t m0 = mem(ctx);

    clb_tensor *t = clbt_tensor(ctx, dt, ndim, shape, data);
    assert_int_equal(mem(ctx) - m0, bytes);
    assert_int_equal(clb_tensor_dtype(t), dt);
    assert_int_equal(clb_tensor_numel(t), numel);
    clbt_assert_shape(t, ndim, shape);
    assert_true(clb_tensor_is_contiguous(t));
    assert_int_equal(clb_tensor_offset(t), 0);
    assert_ptr_equal(clb_tensor_context(t), ctx);

    /* exact size, and a larger buffer whose tail must stay untouched */
    unsigned char *back = malloc(bytes + 16);
    assert_non_null(back);
    memset(back, 0xCD, bytes + 16);
    CLBT_OK(clb_tensor_to_host(t, back, bytes + 16));
    if (bytes && memcmp(back, data, bytes) != 0)
        fail_msg("%s ndim %d: to_host differs from from_host data", clb_dtype_name(dt), ndim);
    for (size_t i = bytes; i < bytes + 16; i++)
        if (back[i] != 0xCD) fail_msg("%s: to_host wrote past numel*itemsize", clb_dtype_name(dt));
    memset(back, 0, bytes + 16);
    CLBT_OK(clb_tensor_to_host(t, back, bytes));
    if (bytes && memcmp(back, data, bytes) != 0)
        fail_msg("%s ndim %d: second to_host differs", clb_dtype_name(dt), ndim);

    /* one byte too few */
    if (bytes) {
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, bytes - 1));
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, 0));
    }
    clb_tensor_release(t);
    assert_int_equal(mem(ctx), m0);
    free(back);
    free(data);
}

static void body_roundtrip_all_dtypes(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t s235[3] = {2, 3, 5};
    const int64_t s1[1] = {1};
    const int64_t s0[1] = {0};
    const int64_t s403[3] = {4, 0, 3};
    const int64_t s_odd[1] = {1001};
    for (int i = 0; i < NDTYPES; i++) {
        assert_int_equal(clb_dtype_size(all_dtypes[i]), all_sizes[i]);
        roundtrip_one(ctx, all_dtypes[i], 3, s235);
        roundtrip_one(ctx, all_dtypes[i], 0, NULL); /* 0-d scalar */
        roundtrip_one(ctx, all_dtypes[i], 1, s1);
        roundtrip_one(ctx, all_dtypes[i], 1, s0);   /* zero-size */
        roundtrip_one(ctx, all_dtypes[i], 3, s403); /* zero-size, 3-d */
        roundtrip_one(ctx, all_dtypes[i], 1, s_odd);
    }
}

static void test_roundtrip_all_dtypes(void **state)
{
    (void)state;
    clbt_for_each_device(body_roundtrip_all_dtypes);
}

/* A 0-d tensor from_host with an explicit shape pointer and with NULL (ndim 0
   reads no shape entries). */
static void body_scalar_null_shape(clb_context *ctx, const char *sel)
{
    (void)sel;
    const double v = 2.5;
    clb_tensor *t = NULL;
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT64, 0, NULL, &v, &t));
    assert_int_equal(clb_tensor_ndim(t), 0);
    assert_int_equal(clb_tensor_numel(t), 1);
    assert_int_equal(mem(ctx), 8);
    double back = 0;
    CLBT_OK(clb_tensor_to_host(t, &back, sizeof back));
    assert_true(back == 2.5);
    clb_tensor_release(t);
}

static void test_scalar_null_shape(void **state)
{
    (void)state;
    clbt_for_each_device(body_scalar_null_shape);
}

/* to_host of a non-contiguous view of every dtype materializes its logical values. */
static void body_strided_to_host_all_dtypes(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[2] = {3, 5};
    const int perm[2] = {1, 0};
    for (int i = 0; i < NDTYPES; i++) {
        clb_dtype dt = all_dtypes[i];
        size_t isz = all_sizes[i];
        unsigned char *data = make_data(dt, 15);
        clb_tensor *t = clbt_tensor(ctx, dt, 2, shape, data);
        clb_tensor *tt = NULL;
        CLBT_OK(clb_permute(t, perm, &tt));
        assert_false(clb_tensor_is_contiguous(tt));
        unsigned char *back = clbt_read(tt);
        for (int r = 0; r < 5; r++)
            for (int c = 0; c < 3; c++)
                if (memcmp(back + (size_t)(r * 3 + c) * isz, data + (size_t)(c * 5 + r) * isz, isz))
                    fail_msg("%s: transposed element (%d,%d) wrong", clb_dtype_name(dt), r, c);
        free(back);
        /* a broadcast view: (5,) row 2 of nothing -> expand a (1,5) row to (4,5) */
        clb_tensor *row = NULL, *rows = NULL;
        const int64_t s15[2] = {1, 15};
        CLBT_OK(clb_reshape(t, 2, s15, &row));
        const int64_t s415[2] = {4, 15};
        CLBT_OK(clb_expand(row, 2, s415, &rows));
        back = clbt_read(rows);
        for (int r = 0; r < 4; r++)
            if (memcmp(back + (size_t)r * 15 * isz, data, 15 * isz))
                fail_msg("%s: broadcast row %d wrong", clb_dtype_name(dt), r);
        free(back);
        clb_tensor_release(rows);
        clb_tensor_release(row);
        clb_tensor_release(tt);
        clb_tensor_release(t);
        free(data);
    }
}

static void test_strided_to_host_all_dtypes(void **state)
{
    (void)state;
    clbt_for_each_device(body_strided_to_host_all_dtypes);
}

static void body_large_roundtrip(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t n = (int64_t)1 << 20;
    float *data = malloc((size_t)n * sizeof(float));
    assert_non_null(data);
    uint64_t rng = 99;
    for (int64_t i = 0; i < n; i++) data[i] = (float)(clbt_rand(&rng) % 100000) * 0.25f;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, &n, data);
    assert_int_equal(mem(ctx), (size_t)n * 4);
    float *back = clbt_read(t);
    assert_memory_equal(back, data, (size_t)n * sizeof(float));
    free(back);
    clb_tensor_release(t);
    free(data);
}

static void test_large_roundtrip(void **state)
{
    (void)state;
    clbt_for_each_device(body_large_roundtrip);
}

static void body_empty(clb_context *ctx, const char *sel)
{
    (void)sel;
    for (int i = 0; i < NDTYPES; i++) {
        const int64_t shape[3] = {2, 1, 7};
        clb_tensor *t = NULL;
        CLBT_OK(clb_tensor_empty(ctx, all_dtypes[i], 3, shape, &t));
        clbt_assert_shape(t, 3, shape);
        assert_int_equal(clb_tensor_dtype(t), all_dtypes[i]);
        assert_int_equal(clb_tensor_numel(t), 14);
        assert_true(clb_tensor_is_contiguous(t));
        assert_int_equal(mem(ctx), 14 * all_sizes[i]);
        void *buf = clbt_read(t); /* contents undefined, but readable */
        free(buf);
        clb_tensor_release(t);
        assert_int_equal(mem(ctx), 0);
    }
    /* zero-size and 0-d */
    const int64_t z[2] = {0, 5};
    clb_tensor *t = NULL;
    CLBT_OK(clb_tensor_empty(ctx, CLB_FLOAT32, 2, z, &t));
    assert_int_equal(clb_tensor_numel(t), 0);
    assert_int_equal(mem(ctx), 0);
    clb_tensor_release(t);
    CLBT_OK(clb_tensor_empty(ctx, CLB_INT16, 0, z, &t));
    assert_int_equal(clb_tensor_numel(t), 1);
    assert_int_equal(mem(ctx), 2);
    clb_tensor_release(t);
}

static void test_empty(void **state)
{
    (void)state;
    clbt_for_each_device(body_empty);
}

/* ---- accessors ------------------------------------------------------------- */

static void body_accessors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[4] = {2, 1, 3, 4};
    int32_t data[24];
    for (int i = 0; i < 24; i++) data[i] = i;
    clb_tensor *t = clbt_tensor(ctx, CLB_INT32, 4, shape, data);
    assert_int_equal(clb_tensor_ndim(t), 4);
    const int64_t *sh = clb_tensor_shape(t);
    const int64_t *st = clb_tensor_strides(t);
    assert_non_null(sh);
    assert_non_null(st);
    const int64_t want_strides[4] = {12, 12, 4, 1};
    for (int d = 0; d < 4; d++) {
        assert_int_equal(sh[d], shape[d]);
        assert_int_equal(st[d], want_strides[d]);
    }
    assert_int_equal(clb_tensor_numel(t), 24);
    assert_int_equal(clb_tensor_dtype(t), CLB_INT32);
    assert_true(clb_tensor_is_contiguous(t));
    assert_int_equal(clb_tensor_offset(t), 0);
    assert_ptr_equal(clb_tensor_context(t), ctx);
    /* the tensor copied the caller's shape: changing ours changes nothing */
    int64_t mshape[2] = {6, 4};
    clb_tensor *u = clbt_tensor(ctx, CLB_INT32, 2, mshape, data);
    mshape[0] = 99;
    assert_int_equal(clb_tensor_shape(u)[0], 6);
    assert_int_equal(clb_tensor_strides(u)[0], 4);
    assert_int_equal(clb_tensor_strides(u)[1], 1);
    clb_tensor_release(u);

    /* the device name is a non-empty string */
    const char *name = clb_context_device_name(ctx);
    assert_non_null(name);
    assert_true(name[0] != '\0');
    clb_tensor_release(t);
}

static void test_accessors(void **state)
{
    (void)state;
    clbt_for_each_device(body_accessors);
}

static void body_is_contiguous(clb_context *ctx, const char *sel)
{
    (void)sel;
    float data[12] = {0};
    const int64_t s34[2] = {3, 4}, s13[2] = {1, 3}, s03[2] = {0, 3}, s31[2] = {3, 1};
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 2, s34, data);
    clb_tensor *row = clbt_tensor(ctx, CLB_FLOAT32, 2, s13, data);
    clb_tensor *col = clbt_tensor(ctx, CLB_FLOAT32, 2, s31, data);
    clb_tensor *empty = clbt_tensor(ctx, CLB_FLOAT32, 2, s03, data);
    clb_tensor *scalar = clbt_tensor(ctx, CLB_FLOAT32, 0, s34, data);
    clb_tensor *v = NULL;
    const int perm10[2] = {1, 0};

    assert_true(clb_tensor_is_contiguous(t));
    assert_true(clb_tensor_is_contiguous(scalar));
    assert_true(clb_tensor_is_contiguous(empty));

    CLBT_OK(clb_permute(t, perm10, &v)); /* (4,3) transposed */
    assert_false(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    CLBT_OK(clb_permute(row, perm10, &v)); /* (3,1): only a size-1 axis moved */
    assert_true(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    CLBT_OK(clb_permute(empty, perm10, &v)); /* (3,0): nothing to step over */
    assert_true(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    CLBT_OK(clb_unsqueeze(t, 1, &v)); /* (3,1,4) */
    assert_true(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    const int64_t s44[2] = {3, 4};
    CLBT_OK(clb_expand(col, 2, s44, &v)); /* stride 0 on a size-4 axis */
    assert_false(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    const int64_t s113[3] = {1, 1, 3};
    CLBT_OK(clb_broadcast_to(row, 3, s113, &v)); /* only size-1 axes added */
    assert_true(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);

    const int64_t s1[1] = {1};
    CLBT_OK(clb_broadcast_to(scalar, 1, s1, &v));
    assert_true(clb_tensor_is_contiguous(v));
    clb_tensor_release(v);
    const int64_t s5[1] = {5};
    CLBT_OK(clb_broadcast_to(scalar, 1, s5, &v));
    assert_false(clb_tensor_is_contiguous(v));
    assert_int_equal(clb_tensor_strides(v)[0], 0);
    clb_tensor_release(v);

    clb_tensor_release(t);
    clb_tensor_release(row);
    clb_tensor_release(col);
    clb_tensor_release(empty);
    clb_tensor_release(scalar);
}

static void test_is_contiguous(void **state)
{
    (void)state;
    clbt_for_each_device(body_is_contiguous);
}

/* ---- reference counts ------------------------------------------------------ */

static void body_retain_release(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[1] = {6};
    const int16_t data[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *t = clbt_tensor(ctx, CLB_INT16, 1, shape, data);
    assert_int_equal(mem(ctx), 12);
    clb_tensor_retain(t);
    clb_tensor_retain(t);
    clb_tensor_release(t);
    clb_tensor_release(t);
    /* one reference left: still alive and readable */
    assert_int_equal(mem(ctx), 12);
    int16_t back[6];
    CLBT_OK(clb_tensor_to_host(t, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    clb_tensor_release(t);
    assert_int_equal(mem(ctx), 0);
    clb_tensor_release(NULL); /* NULL-safe */
}

static void test_retain_release(void **state)
{
    (void)state;
    clbt_for_each_device(body_retain_release);
}

static void body_views_outlive_base(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[2] = {2, 3};
    const int32_t data[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *t = clbt_tensor(ctx, CLB_INT32, 2, shape, data);
    clb_tensor *tt = NULL, *tt3 = NULL, *bc = NULL;
    const int perm[2] = {1, 0};
    CLBT_OK(clb_permute(t, perm, &tt));           /* (3,2) */
    CLBT_OK(clb_unsqueeze(tt, 0, &tt3));          /* (1,3,2), a view of a view */
    const int64_t bshape[3] = {4, 3, 2};
    CLBT_OK(clb_broadcast_to(tt3, 3, bshape, &bc)); /* (4,3,2) */
    assert_int_equal(mem(ctx), 24);
    clb_tensor_release(t);
    clb_tensor_release(tt);
    clb_tensor_release(tt3);
    assert_int_equal(mem(ctx), 24); /* the storage lives while bc does */
    int32_t *back = clbt_read(bc);
    const int32_t want[6] = {1, 4, 2, 5, 3, 6};
    for (int b = 0; b < 4; b++) assert_memory_equal(back + b * 6, want, sizeof want);
    free(back);
    clb_tensor_release(bc);
    assert_int_equal(mem(ctx), 0);
}

static void test_views_outlive_base(void **state)
{
    (void)state;
    clbt_for_each_device(body_views_outlive_base);
}

/* Base, view and view-of-view released in all six orders. */
static void body_release_orders(clb_context *ctx, const char *sel)
{
    (void)sel;
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int64_t shape[1] = {4};
    const float data[4] = {1, 2, 3, 4};
    for (int o = 0; o < 6; o++) {
        clb_tensor *ts[3] = {NULL, NULL, NULL};
        ts[0] = clbt_tensor(ctx, CLB_FLOAT32, 1, shape, data);
        CLBT_OK(clb_unsqueeze(ts[0], 1, &ts[1]));
        const int64_t b[2] = {4, 3};
        CLBT_OK(clb_expand(ts[1], 2, b, &ts[2]));
        for (int i = 0; i < 3; i++) {
            assert_int_equal(mem(ctx), 16);
            /* every tensor not yet released is readable */
            for (int j = i; j < 3; j++) {
                float *back = clbt_read(ts[orders[o][j]]);
                assert_true(back[0] == 1.0f);
                free(back);
            }
            clb_tensor_release(ts[orders[o][i]]);
        }
        assert_int_equal(mem(ctx), 0);
    }
}

static void test_release_orders(void **state)
{
    (void)state;
    clbt_for_each_device(body_release_orders);
}

/* Tensors stay readable and usable after clb_context_release of their context. */
static void body_outlive_context(clb_context *ctx, const char *sel)
{
    size_t m_outer = mem(ctx);
    clb_context *c2 = NULL;
    CLBT_OK(clb_context_create(sel, &c2));
    const int64_t shape[2] = {2, 3};
    const int32_t data[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *t = clbt_tensor(c2, CLB_INT32, 2, shape, data);
    clb_tensor *tt = NULL;
    const int perm[2] = {1, 0};
    CLBT_OK(clb_permute(t, perm, &tt));
    assert_int_equal(clb_memory_allocated(c2), 24);
    clb_context_release(c2);

    /* the other context is independent */
    assert_int_equal(mem(ctx), m_outer);
    /* reads, metadata ops and copies keep working through the tensor's context */
    clb_context *live = clb_tensor_context(t);
    assert_non_null(live);
    assert_int_equal(clb_memory_allocated(live), 24);
    int32_t back[6];
    CLBT_OK(clb_tensor_to_host(t, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    CLBT_OK(clb_tensor_to_host(tt, back, sizeof back));
    const int32_t want_t[6] = {1, 4, 2, 5, 3, 6};
    assert_memory_equal(back, want_t, sizeof want_t);

    clb_tensor *c = NULL, *r = NULL, *f = NULL;
    CLBT_OK(clb_contiguous(tt, &c)); /* allocates on the released context */
    assert_int_equal(clb_memory_allocated(live), 48);
    const int64_t reps[2] = {1, 2};
    CLBT_OK(clb_repeat(t, 2, reps, &r));
    assert_int_equal(clb_memory_allocated(live), 48 + 48);
    CLBT_OK(clb_cast(t, CLB_INT64, &f));
    assert_int_equal(clb_memory_allocated(live), 96 + 48);
    CLBT_OK(clb_tensor_to_host(c, back, sizeof back));
    assert_memory_equal(back, want_t, sizeof want_t);
    int64_t back64[6];
    CLBT_OK(clb_tensor_to_host(f, back64, sizeof back64));
    for (int i = 0; i < 6; i++) assert_int_equal(back64[i], data[i]);
    CLBT_OK(clb_finish(live));
    clb_tensor_release(t);
    clb_tensor_release(c);
    clb_tensor_release(f);
    clb_tensor_release(tt);
    assert_int_equal(clb_memory_allocated(clb_tensor_context(r)), 48);
    clb_tensor_release(r); /* the last storage: the context goes with it */
    assert_int_equal(mem(ctx), m_outer);
}

static void test_outlive_context(void **state)
{
    (void)state;
    clbt_for_each_device(body_outlive_context);
}

/* ---- storage sharing and memory accounting --------------------------------- */

static void body_shares_storage(clb_context *ctx, const char *sel)
{
    const int64_t shape[2] = {2, 3};
    const float data[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *a = clbt_tensor(ctx, CLB_FLOAT32, 2, shape, data);
    clb_tensor *b = clbt_tensor(ctx, CLB_FLOAT32, 2, shape, data);
    clb_tensor *va = NULL, *vva = NULL, *ca = NULL, *ct = NULL;
    const int perm[2] = {1, 0};
    CLBT_OK(clb_permute(a, perm, &va));
    CLBT_OK(clb_unsqueeze(va, 2, &vva));
    assert_true(clb_tensor_shares_storage(a, a));
    assert_true(clb_tensor_shares_storage(a, va));
    assert_true(clb_tensor_shares_storage(va, a));
    assert_true(clb_tensor_shares_storage(va, vva));
    assert_false(clb_tensor_shares_storage(a, b));
    assert_false(clb_tensor_shares_storage(vva, b));
    CLBT_OK(clb_contiguous(a, &ca)); /* already contiguous: same tensor */
    assert_true(clb_tensor_shares_storage(a, ca));
    CLBT_OK(clb_contiguous(va, &ct)); /* a copy */
    assert_false(clb_tensor_shares_storage(a, ct));
    assert_false(clb_tensor_shares_storage(va, ct));
    assert_false(clb_tensor_shares_storage(a, NULL));
    assert_false(clb_tensor_shares_storage(NULL, a));

    /* same data, another context */
    clb_context *c2 = NULL;
    CLBT_OK(clb_context_create(sel, &c2));
    clb_tensor *o = clbt_tensor(c2, CLB_FLOAT32, 2, shape, data);
    assert_false(clb_tensor_shares_storage(a, o));
    clb_tensor_release(o);
    assert_int_equal(clb_memory_allocated(c2), 0);
    clb_context_release(c2);

    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(va);
    clb_tensor_release(vva);
    clb_tensor_release(ca);
    clb_tensor_release(ct);
}

static void test_shares_storage(void **state)
{
    (void)state;
    clbt_for_each_device(body_shares_storage);
}

static void body_memory_accounting(clb_context *ctx, const char *sel)
{
    (void)sel;
    assert_int_equal(mem(ctx), 0);
    clb_tensor *ts[NDTYPES];
    size_t total = 0;
    for (int i = 0; i < NDTYPES; i++) {
        const int64_t shape[2] = {3, (int64_t)i + 1};
        void *data = make_data(all_dtypes[i], 3 * (i + 1));
        ts[i] = clbt_tensor(ctx, all_dtypes[i], 2, shape, data);
        free(data);
        total += 3 * (size_t)(i + 1) * all_sizes[i];
        assert_int_equal(mem(ctx), total);
    }
    /* views add nothing */
    clb_tensor *v = NULL;
    CLBT_OK(clb_unsqueeze(ts[5], 0, &v));
    assert_int_equal(mem(ctx), total);
    /* a copy adds exactly numel * itemsize */
    clb_tensor *c = NULL;
    const int perm[2] = {1, 0};
    clb_tensor *p = NULL;
    CLBT_OK(clb_permute(ts[10], perm, &p));
    CLBT_OK(clb_contiguous(p, &c));
    assert_int_equal(mem(ctx), total + 3 * 11 * 4);
    clb_tensor_release(c);
    clb_tensor_release(p);
    assert_int_equal(mem(ctx), total);
    for (int i = 0; i < NDTYPES; i++) {
        clb_tensor_release(ts[i]);
        if (i != 5) total -= 3 * (size_t)(i + 1) * all_sizes[i];
        assert_int_equal(mem(ctx), total); /* ts[5] is held by v */
    }
    clb_tensor_release(v);
    assert_int_equal(mem(ctx), 0);
    assert_int_equal(clb_memory_allocated(NULL), 0);
}

static void test_memory_accounting(void **state)
{
    (void)state;
    clbt_for_each_device(body_memory_accounting);
}

/* ---- to_host argument checks --------------------------------------------------- */

static void body_to_host_errors(clb_context *ctx, const char *sel)
{
    (void)sel;
    const int64_t shape[2] = {4, 4};
    const double data[16] = {0};
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT64, 2, shape, data);
    double back[16];
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, sizeof back - 1));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, back, 8));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(t, NULL, sizeof back));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(NULL, back, sizeof back));
    /* a broadcast view needs room for every logical element, not its storage */
    clb_tensor *row = NULL, *big = NULL;
    const int64_t r[2] = {1, 16};
    CLBT_OK(clb_reshape(t, 2, r, &row));
    const int64_t b[2] = {3, 16};
    CLBT_OK(clb_expand(row, 2, b, &big));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_tensor_to_host(big, back, sizeof back));
    assert_int_equal(mem(ctx), sizeof back); /* nothing leaked by the failures */
    clb_tensor_release(big);
    clb_tensor_release(row);
    clb_tensor_release(t);
}

static void test_to_host_errors(void **state)
{
    (void)state;
    clbt_for_each_device(body_to_host_errors);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_dtypes),
        cmocka_unit_test(test_scalar_null_shape),
        cmocka_unit_test(test_strided_to_host_all_dtypes),
        cmocka_unit_test(test_large_roundtrip),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_is_contiguous),
        cmocka_unit_test(test_retain_release),
        cmocka_unit_test(test_views_outlive_base),
        cmocka_unit_test(test_release_orders),
        cmocka_unit_test(test_outlive_context),
        cmocka_unit_test(test_shares_storage),
        cmocka_unit_test(test_memory_accounting),
        cmocka_unit_test(test_to_host_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
