/* Copies on every device, checked against the host backend: transfers of every
 * dtype, materialising views (broadcast, permuted, expanded, reshaped, 0-d,
 * zero-size, more axes than fit in kernel arguments), contiguous(), repeat()
 * and cast() for all 12 x 12 dtype pairs on edge values.
 *
 * Each distinct (dtype pair, rank) compiles an OpenCL program (0.1-1 s on
 * PoCL), so the cases are chosen to share them: all casts run at rank 1, and
 * same-dtype copies of any dtype share the four bit-copy programs per rank. */
#include "testutil.h"

#include "plan.h"

#include <math.h>
#include <stdbool.h>

extern _Atomic int clb__host_loops_enabled; /* src/cpu/host_loops.h */

#define NDTYPES 12
static const clb_dtype all_dtypes[NDTYPES] = {
    CLB_BOOL,   CLB_INT8,   CLB_UINT8,  CLB_INT16,   CLB_UINT16,  CLB_INT32,
    CLB_UINT32, CLB_INT64,  CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64,
};

static clb_context *host; /* the reference backend */

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

/* ---- helpers ----------------------------------------------------------------- */

static int64_t prod(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* Deterministic valid bytes for n elements of dt: bool 0/1, finite floats. */
static void *make_data(clb_dtype dt, int64_t n, uint64_t seed)
{
    size_t isz = clb_dtype_size(dt);
    unsigned char *buf = malloc(n ? (size_t)n * isz : 1);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = clbt_rand(&seed);
        unsigned char *p = buf + (size_t)i * isz;
        if (dt == CLB_BOOL) {
            p[0] = (unsigned char)(r & 1);
        } else if (dt == CLB_FLOAT16) {
            uint16_t h = (uint16_t)((r & 0x83FF) | (((r >> 16) % 31) << 10)); /* exponent < 31 */
            memcpy(p, &h, 2);
        } else if (dt == CLB_FLOAT32) {
            float f = (float)((int64_t)(r % 20001) - 10000) / 64.0f;
            memcpy(p, &f, 4);
        } else if (dt == CLB_FLOAT64) {
            double d = (double)((int64_t)(r % 2000001) - 1000000) / 1024.0;
            memcpy(p, &d, 8);
        } else {
            memcpy(p, &r, isz);
        }
    }
    return buf;
}

/* Requires identical shapes, dtypes and values, floats bit for bit. The
   reference is read by the host's element-by-element rule, so on the host
   backend its typed copy loops are checked against that rule. */
static void assert_matches(const clb_tensor *dev, const clb_tensor *ref, const char *what,
                           const char *selector)
{
    char label[256];
    snprintf(label, sizeof label, "%s on device %s", what, selector);
    clb_tensor *plain = NULL;
    int loops = clb__host_loops_enabled;
    clb__host_loops_enabled = 0;
    CLBT_OK(clb_contiguous(ref, &plain)); /* element by element on the host backend */
    clb__host_loops_enabled = loops;
    clbt_assert_matches_host(dev, plain, CLBT_EXACT, 0, label);
    clb_tensor_release(plain);
}

/* The same tensor on the device under test and on the host backend. */
typedef struct pair {
    clb_tensor *dev, *ref;
} pair;

static pair make_pair(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape,
                      uint64_t seed)
{
    void *data = make_data(dt, prod(ndim, shape), seed);
    pair p = {clbt_tensor(ctx, dt, ndim, shape, data), clbt_tensor(host, dt, ndim, shape, data)};
    free(data);
    return p;
}

static void release_pair(pair p)
{
    clb_tensor_release(p.dev);
    clb_tensor_release(p.ref);
}

/* ---- transfers ----------------------------------------------------------------- */

static void roundtrip_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    static const int64_t s1[] = {7}, s2[] = {3, 0, 2}, s3[] = {2, 3, 5}, s0[] = {0};
    static const struct {
        int ndim;
        const int64_t *shape;
    } shapes[] = {{0, NULL}, {1, s0}, {1, s1}, {3, s2}, {3, s3}};
    for (int k = 0; k < NDTYPES; k++) {
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t n = prod(shapes[s].ndim, shapes[s].shape);
            void *data = make_data(all_dtypes[k], n, 11 + (uint64_t)k);
            clb_tensor *t = clbt_tensor(ctx, all_dtypes[k], shapes[s].ndim, shapes[s].shape, data);
            assert_int_equal(clb_memory_allocated(ctx), (size_t)n * clb_dtype_size(all_dtypes[k]));
            void *back = clbt_read(t);
            /* A transfer moves bytes: the same bytes come back, NaN payloads included. */
            if (n > 0) assert_memory_equal(back, data, (size_t)n * clb_dtype_size(all_dtypes[k]));
            free(back);
            free(data);
            clb_tensor_release(t);
        }
    }
}

static void test_roundtrip(void **state)
{
    (void)state;
    clbt_for_each_device(roundtrip_body);
}

/* ---- views ---------------------------------------------------------------------- */

typedef clb_status (*view_fn)(const clb_tensor *t, clb_tensor **out);

static const int perm_201[] = {2, 0, 1}, perm_120[] = {1, 2, 0};
static clb_status v_perm_201(const clb_tensor *t, clb_tensor **o) { return clb_permute(t, perm_201, o); }
static clb_status v_perm_120(const clb_tensor *t, clb_tensor **o) { return clb_permute(t, perm_120, o); }
static clb_status v_broadcast(const clb_tensor *t, clb_tensor **o)
{
    static const int64_t shape[] = {5, 2, 3, 4};
    return clb_broadcast_to(t, 4, shape, o);
}
static clb_status v_unsqueeze_expand(const clb_tensor *t, clb_tensor **o)
{
    static const int64_t shape[] = {-1, 4, -1, -1};
    clb_tensor *u = NULL;
    clb_status st = clb_unsqueeze(t, 1, &u);
    if (st == CLB_OK) st = clb_expand(u, 4, shape, o);
    clb_tensor_release(u);
    return st;
}
static clb_status v_reshape_view(const clb_tensor *t, clb_tensor **o)
{
    static const int64_t shape[] = {6, -1};
    return clb_reshape(t, 2, shape, o);
}
/* Permuted then reshaped: not expressible as a view, so reshape copies. */
static clb_status v_perm_reshape(const clb_tensor *t, clb_tensor **o)
{
    static const int64_t shape[] = {4, 6};
    clb_tensor *p = NULL;
    clb_status st = clb_permute(t, perm_120, &p);
    if (st == CLB_OK) st = clb_reshape(p, 2, shape, o);
    clb_tensor_release(p);
    return st;
}
/* Broadcast along a middle axis, then permuted: stride 0 off the innermost axis. */
static clb_status v_mid_broadcast_perm(const clb_tensor *t, clb_tensor **o)
{
    static const int64_t shape[] = {2, 3, 3, 4};
    static const int perm[] = {3, 1, 0, 2};
    clb_tensor *u = NULL, *b = NULL;
    clb_status st = clb_unsqueeze(t, 1, &u);
    if (st == CLB_OK) st = clb_broadcast_to(u, 4, shape, &b);
    if (st == CLB_OK) st = clb_permute(b, perm, o);
    clb_tensor_release(u);
    clb_tensor_release(b);
    return st;
}

static const struct {
    const char *name;
    view_fn fn;
} views[] = {
    {"permute(2,0,1)", v_perm_201},
    {"permute(1,2,0)", v_perm_120},
    {"broadcast_to(5,2,3,4)", v_broadcast},
    {"unsqueeze+expand", v_unsqueeze_expand},
    {"reshape(6,-1)", v_reshape_view},
    {"permute+reshape", v_perm_reshape},
    {"unsqueeze+broadcast+permute", v_mid_broadcast_perm},
};

static void views_body(clb_context *ctx, const char *selector)
{
    static const int64_t shape[] = {2, 3, 4};
    static const clb_dtype dts[] = {CLB_BOOL, CLB_INT8, CLB_FLOAT16, CLB_INT32, CLB_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        pair base = make_pair(ctx, dts[k], 3, shape, 100 + k);
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
            pair view = {NULL, NULL};
            CLBT_OK(views[v].fn(base.dev, &view.dev));
            CLBT_OK(views[v].fn(base.ref, &view.ref));
            assert_matches(view.dev, view.ref, views[v].name, selector);
            /* Materialising for to_host leaves nothing allocated behind. */
            size_t expect = (size_t)clb_tensor_numel(base.dev) * clb_dtype_size(dts[k]);
            if (!clb_tensor_shares_storage(view.dev, base.dev))
                expect += (size_t)clb_tensor_numel(view.dev) * clb_dtype_size(dts[k]);
            assert_int_equal(clb_memory_allocated(ctx), expect);
            release_pair(view);
        }
        release_pair(base);
    }
}

static void test_views(void **state)
{
    (void)state;
    clbt_for_each_device(views_body);
}

/* A 0-d tensor: transfers, broadcasting it, casting it. */
static void scalar_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    float x = 3.75f;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 0, NULL, &x);
    assert_int_equal(clb_tensor_numel(t), 1);
    float back = 0;
    CLBT_OK(clb_tensor_to_host(t, &back, sizeof back));
    assert_true(back == x);

    static const int64_t shape[] = {2, 3};
    clb_tensor *b = NULL, *c = NULL;
    CLBT_OK(clb_broadcast_to(t, 2, shape, &b));
    assert_int_equal(clb_tensor_strides(b)[0], 0);
    float six[6];
    CLBT_OK(clb_tensor_to_host(b, six, sizeof six));
    for (int i = 0; i < 6; i++) assert_true(six[i] == x);

    CLBT_OK(clb_cast(t, CLB_INT8, &c));
    assert_int_equal(clb_tensor_ndim(c), 0);
    int8_t i8 = 0;
    CLBT_OK(clb_tensor_to_host(c, &i8, 1));
    assert_int_equal(i8, 3);
    clb_tensor_release(c);

    static const int64_t reps[] = {2, 2};
    CLBT_OK(clb_repeat(t, 2, reps, &c));
    clbt_assert_shape(c, 2, reps);
    float four[4];
    CLBT_OK(clb_tensor_to_host(c, four, sizeof four));
    for (int i = 0; i < 4; i++) assert_true(four[i] == x);
    clb_tensor_release(c);
    clb_tensor_release(b);
    clb_tensor_release(t);
}

static void test_scalar(void **state)
{
    (void)state;
    clbt_for_each_device(scalar_body);
}

/* Zero-size tensors: storage accounted as 0 bytes, every copy a no-op. */
static void zero_size_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    static const int64_t shape[] = {2, 0, 3};
    static const int perm[] = {2, 0, 1};
    char dummy = 0;
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 3, shape, &dummy);
    clb_tensor *p = NULL, *c = NULL, *k = NULL, *r = NULL;
    assert_int_equal(clb_memory_allocated(ctx), 0);
    CLBT_OK(clb_tensor_to_host(t, NULL, 0));
    CLBT_OK(clb_permute(t, perm, &p));
    CLBT_OK(clb_contiguous(p, &c));
    CLBT_OK(clb_cast(p, CLB_INT16, &k));
    static const int64_t reps[] = {3, 1, 2, 4};
    CLBT_OK(clb_repeat(t, 4, reps, &r));
    static const int64_t rshape[] = {3, 2, 0, 12};
    clbt_assert_shape(r, 4, rshape);
    assert_int_equal(clb_tensor_numel(c) + clb_tensor_numel(k) + clb_tensor_numel(r), 0);
    CLBT_OK(clb_tensor_to_host(k, &dummy, 0));
    assert_int_equal(clb_memory_allocated(ctx), 0);
    clb_tensor_release(r);
    clb_tensor_release(k);
    clb_tensor_release(c);
    clb_tensor_release(p);
    clb_tensor_release(t);

    /* Repeating a non-empty tensor zero times. */
    int32_t v[3] = {1, 2, 3};
    static const int64_t s3[] = {3}, zero[] = {0, 2};
    t = clbt_tensor(ctx, CLB_INT32, 1, s3, v);
    CLBT_OK(clb_repeat(t, 2, zero, &r));
    assert_int_equal(clb_tensor_numel(r), 0);
    assert_int_equal(clb_memory_allocated(ctx), sizeof v);
    clb_tensor_release(r);
    clb_tensor_release(t);
}

static void test_zero_size(void **state)
{
    (void)state;
    clbt_for_each_device(zero_size_body);
}

/* Plans of more axes than the kernel takes by value (12 axes that cannot be
   merged, inside a 64-axis tensor), copied and cast. */
static void high_rank_body(clb_context *ctx, const char *selector)
{
    int64_t shape[CLB_MAX_DIMS];
    int perm[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) {
        shape[d] = d % 5 == 0 && d < 60 ? 2 : 1; /* 12 axes of 2 among 52 of 1 */
        perm[d] = CLB_MAX_DIMS - 1 - d;
    }
    pair base = make_pair(ctx, CLB_INT32, CLB_MAX_DIMS, shape, 7);
    pair view = {NULL, NULL}, cast = {NULL, NULL};
    CLBT_OK(clb_permute(base.dev, perm, &view.dev));
    CLBT_OK(clb_permute(base.ref, perm, &view.ref));
    assert_matches(view.dev, view.ref, "reversed 64-axis permute", selector);
    CLBT_OK(clb_cast(view.dev, CLB_FLOAT32, &cast.dev));
    CLBT_OK(clb_cast(view.ref, CLB_FLOAT32, &cast.ref));
    assert_matches(cast.dev, cast.ref, "cast of a reversed 64-axis permute", selector);
    release_pair(cast);
    release_pair(view);
    release_pair(base);
}

static void test_high_rank(void **state)
{
    (void)state;
    clbt_for_each_device(high_rank_body);
}

/* ---- contiguous -------------------------------------------------------------------- */

static void contiguous_body(clb_context *ctx, const char *selector)
{
    static const int64_t shape[] = {3, 5};
    static const int perm[] = {1, 0};
    pair t = make_pair(ctx, CLB_UINT16, 2, shape, 21);
    size_t bytes = 15 * 2;

    clb_tensor *same = NULL;
    CLBT_OK(clb_contiguous(t.dev, &same));
    assert_ptr_equal(same, t.dev); /* a new reference to the same tensor */
    assert_int_equal(clb_memory_allocated(ctx), bytes);
    clb_tensor_release(same);

    pair p = {NULL, NULL}, c = {NULL, NULL};
    CLBT_OK(clb_permute(t.dev, perm, &p.dev));
    CLBT_OK(clb_permute(t.ref, perm, &p.ref));
    assert_false(clb_tensor_is_contiguous(p.dev));
    CLBT_OK(clb_contiguous(p.dev, &c.dev));
    CLBT_OK(clb_contiguous(p.ref, &c.ref));
    assert_true(clb_tensor_is_contiguous(c.dev));
    assert_false(clb_tensor_shares_storage(c.dev, t.dev));
    assert_int_equal(clb_memory_allocated(ctx), 2 * bytes);
    assert_matches(c.dev, c.ref, "contiguous(permute)", selector);
    release_pair(c);

    /* A broadcast view materialises every repeated element. */
    static const int64_t big[] = {4, 3, 5};
    pair b = {NULL, NULL};
    CLBT_OK(clb_broadcast_to(t.dev, 3, big, &b.dev));
    CLBT_OK(clb_broadcast_to(t.ref, 3, big, &b.ref));
    CLBT_OK(clb_contiguous(b.dev, &c.dev));
    CLBT_OK(clb_contiguous(b.ref, &c.ref));
    assert_int_equal(clb_memory_allocated(ctx), bytes + 4 * bytes);
    assert_matches(c.dev, c.ref, "contiguous(broadcast_to)", selector);
    release_pair(c);
    release_pair(b);
    release_pair(p);
    release_pair(t);
}

static void test_contiguous(void **state)
{
    (void)state;
    clbt_for_each_device(contiguous_body);
}

/* ---- repeat ------------------------------------------------------------------------- */

static void repeat_body(clb_context *ctx, const char *selector)
{
    static const int64_t shape[] = {2, 3};
    int16_t data[6] = {1, 2, 3, 4, 5, 6};
    clb_tensor *t = clbt_tensor(ctx, CLB_INT16, 2, shape, data);
    clb_tensor *tr = clbt_tensor(host, CLB_INT16, 2, shape, data);

    /* torch: x.repeat(2, 1, 2) has shape (2, 2, 6), out[a][i][j] = x[i][j % 3]. */
    static const int64_t reps[] = {2, 1, 2}, want_shape[] = {2, 2, 6};
    clb_tensor *r = NULL;
    size_t before = clb_memory_allocated(ctx);
    CLBT_OK(clb_repeat(t, 3, reps, &r));
    clbt_assert_shape(r, 3, want_shape);
    assert_int_equal(clb_memory_allocated(ctx) - before, 24 * sizeof(int16_t));
    int16_t got[24];
    CLBT_OK(clb_tensor_to_host(r, got, sizeof got));
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 6; j++)
                assert_int_equal(got[(a * 2 + i) * 6 + j], data[i * 3 + j % 3]);
    clb_tensor_release(r);

    /* Repeating views (permuted, broadcast) against the host backend. */
    static const int perm[] = {1, 0};
    static const int64_t bshape[] = {4, 2, 3}, reps2[] = {3, 2}, reps3[] = {1, 2, 1, 3};
    pair p = {NULL, NULL}, b = {NULL, NULL}, out = {NULL, NULL};
    CLBT_OK(clb_permute(t, perm, &p.dev));
    CLBT_OK(clb_permute(tr, perm, &p.ref));
    CLBT_OK(clb_repeat(p.dev, 2, reps2, &out.dev));
    CLBT_OK(clb_repeat(p.ref, 2, reps2, &out.ref));
    assert_matches(out.dev, out.ref, "repeat(permute)", selector);
    release_pair(out);
    CLBT_OK(clb_broadcast_to(t, 3, bshape, &b.dev));
    CLBT_OK(clb_broadcast_to(tr, 3, bshape, &b.ref));
    before = clb_memory_allocated(ctx);
    CLBT_OK(clb_repeat(b.dev, 4, reps3, &out.dev));
    CLBT_OK(clb_repeat(b.ref, 4, reps3, &out.ref));
    assert_int_equal(clb_memory_allocated(ctx) - before,
                     (size_t)clb_tensor_numel(out.dev) * sizeof(int16_t));
    assert_matches(out.dev, out.ref, "repeat(broadcast_to)", selector);
    release_pair(out);
    release_pair(b);
    release_pair(p);
    clb_tensor_release(tr);
    clb_tensor_release(t);
}

static void test_repeat(void **state)
{
    (void)state;
    clbt_for_each_device(repeat_body);
}

/* ---- kernel paths ------------------------------------------------------------------- */

/* contiguous() (a bit copy) and cast(to) of `v` on both backends. */
static void check_view(pair v, clb_dtype to, const char *what, const char *selector)
{
    pair c = {NULL, NULL};
    CLBT_OK(clb_contiguous(v.dev, &c.dev));
    CLBT_OK(clb_contiguous(v.ref, &c.ref));
    assert_matches(c.dev, c.ref, what, selector);
    release_pair(c);
    CLBT_OK(clb_cast(v.dev, to, &c.dev));
    CLBT_OK(clb_cast(v.ref, to, &c.ref));
    assert_matches(c.dev, c.ref, what, selector);
    release_pair(c);
}

/* Every branch of cl/copy.cl: contiguous inner axis (inner extents that are
   and are not a multiple of the vector width, with one and many rows),
   broadcast inner axis (expand), strided inner axis (permute), and a repeat;
   for bit copies of each width and for casts. */
static void layouts_body(clb_context *ctx, const char *selector)
{
    static const struct {
        clb_dtype from, to;
    } dts[] = {{CLB_UINT8, CLB_INT32}, {CLB_INT16, CLB_FLOAT16}, {CLB_FLOAT32, CLB_FLOAT16},
               {CLB_FLOAT64, CLB_INT8}};
    static const int64_t flat[] = {1003}, rows[] = {1, 45}, rows_to[] = {7, 45};
    static const int64_t chan[] = {1, 3, 1, 1}, chan_to[] = {2, 3, 5, 37}, cube[] = {5, 7, 9};
    static const int64_t reps[] = {2, 1, 3};
    static const int perm[] = {2, 0, 1};
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        clb_dtype from = dts[k].from, to = dts[k].to;
        if ((from == CLB_FLOAT64 || to == CLB_FLOAT64) && !info.has_fp64) continue;
        pair t = make_pair(ctx, from, 1, flat, 31 + k), v = {NULL, NULL}, c = {NULL, NULL};
        CLBT_OK(clb_cast(t.dev, to, &c.dev));
        CLBT_OK(clb_cast(t.ref, to, &c.ref));
        assert_matches(c.dev, c.ref, "cast of 1003 elements", selector);
        release_pair(c);
        release_pair(t);

        t = make_pair(ctx, from, 2, rows, 41 + k);
        CLBT_OK(clb_broadcast_to(t.dev, 2, rows_to, &v.dev));
        CLBT_OK(clb_broadcast_to(t.ref, 2, rows_to, &v.ref));
        check_view(v, to, "row broadcast (1,45)->(7,45)", selector);
        release_pair(v);
        release_pair(t);

        t = make_pair(ctx, from, 4, chan, 51 + k);
        CLBT_OK(clb_expand(t.dev, 4, chan_to, &v.dev));
        CLBT_OK(clb_expand(t.ref, 4, chan_to, &v.ref));
        check_view(v, to, "expand (1,3,1,1)->(2,3,5,37)", selector);
        release_pair(v);
        release_pair(t);

        t = make_pair(ctx, from, 3, cube, 61 + k);
        CLBT_OK(clb_permute(t.dev, perm, &v.dev));
        CLBT_OK(clb_permute(t.ref, perm, &v.ref));
        check_view(v, to, "permute (5,7,9)", selector);
        release_pair(v);
        CLBT_OK(clb_repeat(t.dev, 3, reps, &v.dev));
        CLBT_OK(clb_repeat(t.ref, 3, reps, &v.ref));
        assert_matches(v.dev, v.ref, "repeat (5,7,9) x (2,1,3)", selector);
        release_pair(v);
        release_pair(t);
    }
}

static void test_layouts(void **state)
{
    (void)state;
    clbt_for_each_device(layouts_body);
}

#if CLB_HAVE_OPENCL
extern _Atomic int clb__cl_map_blocked;              /* src/opencl/cl_launch.h */
extern _Atomic int64_t clb__cl_streaming_min_bytes; /* src/opencl/cl_launch.h */

/* The other device class's work split (grid stride on a CPU device, blocks on a
   GPU), streaming stores forced on for every size, and the 32-bit piece path:
   with the piece limit lowered, the same layouts run as many pieces, each
   launched with its own offsets. */
static void test_work_splits_and_pieces(void **state)
{
    (void)state;
    for (int forced = 0; forced < 2; forced++) {
        clb__cl_map_blocked = forced;
        clbt_for_each_device(layouts_body);
    }
    clb__cl_map_blocked = -1;
    clb__cl_streaming_min_bytes = 0;
    clbt_for_each_device(layouts_body);
    clb__cl_streaming_min_bytes = -1;
    int64_t saved = clb__plan_piece_limit;
    clb__plan_piece_limit = 50;
    clbt_for_each_device(layouts_body);
    clbt_for_each_device(high_rank_body);
    clb__plan_piece_limit = saved;
}
#endif

/* ---- casts -------------------------------------------------------------------------- */

/* Values that probe every conversion rule: NaN, infinities, signed zero,
   truncation and saturation bounds of each integer width, float16 rounding
   (ties, overflow, subnormals, a float64 that rounds wrongly through float32). */
static const double edge_doubles[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1,
    127.9, 128.0, -128.5, -129.0, 255.5, 256.0, 300.0, -300.0, 32767.5, 32768.0, 65535.9,
    65504.0, 65519.0, 65520.0, 65536.0, 2049.0, 2051.0, 1.0 + 0x1p-11 + 0x1p-40, 1e-8, 6e-8,
    3e-5, 2147483647.0, 2147483648.0, -2147483649.0, 4294967296.0, 1e10, -1e10, 9.3e18, 1.8e19,
    2e19, -9.3e18, 3.4e38, 1e39, -1e300, 1e-300,
};
static const int64_t edge_ints[] = {
    0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, 300, -300, 2049, 2051, 32767, 32768,
    -32769, 65519, 65520, 65535, 65536, 16777217, INT32_MAX, INT32_MIN, (int64_t)1 << 31,
    UINT32_MAX, ((int64_t)1 << 32) + 5, ((int64_t)1 << 53) + 1, INT64_MAX, INT64_MIN,
};
#define N_EDGE_D (sizeof edge_doubles / sizeof edge_doubles[0])
#define N_EDGE_I (sizeof edge_ints / sizeof edge_ints[0])
#define N_EDGE (N_EDGE_D + N_EDGE_I)

/* The edge values converted to dtype `dt` by the host backend, as raw bytes. */
static void *edge_source(clb_dtype dt)
{
    const int64_t nd = N_EDGE_D, ni = N_EDGE_I;
    clb_tensor *d = clbt_tensor(host, CLB_FLOAT64, 1, &nd, edge_doubles);
    clb_tensor *i = clbt_tensor(host, CLB_INT64, 1, &ni, edge_ints);
    clb_tensor *dc = NULL, *ic = NULL;
    CLBT_OK(clb_cast(d, dt, &dc));
    CLBT_OK(clb_cast(i, dt, &ic));
    size_t isz = clb_dtype_size(dt);
    unsigned char *buf = malloc(N_EDGE * isz);
    assert_non_null(buf);
    CLBT_OK(clb_tensor_to_host(dc, buf, N_EDGE_D * isz));
    CLBT_OK(clb_tensor_to_host(ic, buf + N_EDGE_D * isz, N_EDGE_I * isz));
    clb_tensor_release(dc);
    clb_tensor_release(ic);
    clb_tensor_release(d);
    clb_tensor_release(i);
    return buf;
}

static void cast_body(clb_context *ctx, const char *selector)
{
    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    const int64_t n = N_EDGE;
    for (int s = 0; s < NDTYPES; s++) {
        void *src = edge_source(all_dtypes[s]);
        clb_tensor *t = clbt_tensor(ctx, all_dtypes[s], 1, &n, src);
        clb_tensor *tr = clbt_tensor(host, all_dtypes[s], 1, &n, src);
        for (int d = 0; d < NDTYPES; d++) {
            clb_tensor *c = NULL, *cr = NULL;
            bool needs_fp64 = (all_dtypes[s] == CLB_FLOAT64) != (all_dtypes[d] == CLB_FLOAT64);
            if (needs_fp64 && !info.has_fp64) {
                CLBT_FAILS(CLB_ERR_DTYPE, clb_cast(t, all_dtypes[d], &c));
                assert_null(c);
                assert_non_null(strstr(clb_last_error(), info.name));
                continue;
            }
            CLBT_OK(clb_cast(t, all_dtypes[d], &c));
            CLBT_OK(clb_cast(tr, all_dtypes[d], &cr));
            char what[64];
            snprintf(what, sizeof what, "cast %s -> %s", clb_dtype_name(all_dtypes[s]),
                     clb_dtype_name(all_dtypes[d]));
            assert_matches(c, cr, what, selector);
            clb_tensor_release(c);
            clb_tensor_release(cr);
        }
        clb_tensor_release(t);
        clb_tensor_release(tr);
        free(src);
    }
}

static void test_cast_pairs(void **state)
{
    (void)state;
    clbt_for_each_device(cast_body);
}

/* Spot checks of the rules themselves, so the device and the host backend
   cannot agree on a wrong answer. */
static void cast_rules_body(clb_context *ctx, const char *selector)
{
    (void)selector;
    const float f[] = {NAN, 300.0f, -1.0f, 1e10f, -0.0f, -2.9f, 2049.0f, 2051.0f, 65519.0f,
                       65520.0f};
    const int64_t nf = sizeof f / sizeof f[0];
    clb_tensor *t = clbt_tensor(ctx, CLB_FLOAT32, 1, &nf, f);
    clb_tensor *c = NULL;

    int8_t i8[10];
    CLBT_OK(clb_cast(t, CLB_INT8, &c));
    CLBT_OK(clb_tensor_to_host(c, i8, sizeof i8));
    const int8_t want_i8[] = {0, 127, -1, 127, 0, -2, 127, 127, 127, 127};
    assert_memory_equal(i8, want_i8, sizeof i8);
    clb_tensor_release(c);

    uint8_t u8[10];
    CLBT_OK(clb_cast(t, CLB_UINT8, &c));
    CLBT_OK(clb_tensor_to_host(c, u8, sizeof u8));
    const uint8_t want_u8[] = {0, 255, 0, 255, 0, 0, 255, 255, 255, 255};
    assert_memory_equal(u8, want_u8, sizeof u8);
    clb_tensor_release(c);

    int32_t i32[10];
    CLBT_OK(clb_cast(t, CLB_INT32, &c));
    CLBT_OK(clb_tensor_to_host(c, i32, sizeof i32));
    assert_int_equal(i32[0], 0);
    assert_int_equal(i32[3], INT32_MAX);
    assert_int_equal(i32[5], -2);
    clb_tensor_release(c);

    uint8_t b[10];
    CLBT_OK(clb_cast(t, CLB_BOOL, &c));
    CLBT_OK(clb_tensor_to_host(c, b, sizeof b));
    const uint8_t want_b[] = {1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
    assert_memory_equal(b, want_b, sizeof b);
    clb_tensor_release(c);

    uint16_t h[10];
    CLBT_OK(clb_cast(t, CLB_FLOAT16, &c));
    CLBT_OK(clb_tensor_to_host(c, h, sizeof h));
    assert_int_equal(h[4], 0x8000);                      /* -0.0 keeps its sign */
    assert_int_equal(h[6], 0x6800);                      /* 2049 ties to even: 2048 */
    assert_int_equal(h[7], 0x6802);                      /* 2051 ties to even: 2052 */
    assert_int_equal(h[8], 0x7BFF);                      /* 65519 -> 65504 */
    assert_int_equal(h[9], 0x7C00);                      /* 65520 -> inf */
    assert_int_equal(h[1], 0x5CB0);                      /* 300 */
    assert_true((h[0] & 0x7C00) == 0x7C00 && (h[0] & 0x3FF)); /* NaN */
    clb_tensor_release(c);
    clb_tensor_release(t);

    /* int -> int wraps; bool -> int is 0/1. */
    const int32_t iv[] = {300, -129, 65536 + 7};
    const int64_t ni = 3;
    t = clbt_tensor(ctx, CLB_INT32, 1, &ni, iv);
    CLBT_OK(clb_cast(t, CLB_INT8, &c));
    CLBT_OK(clb_tensor_to_host(c, i8, 3));
    assert_int_equal(i8[0], 44);
    assert_int_equal(i8[1], 127);
    assert_int_equal(i8[2], 7);
    clb_tensor_release(c);
    clb_tensor_release(t);

    clb_device_info info;
    CLBT_OK(clb_context_get_info(ctx, &info));
    if (info.has_fp64) {
        /* Straight from float64 to float16: 1 + 2^-11 + 2^-40 is just above a tie,
           so it rounds up; going through float32 first would round to 1.0. */
        const double dv[] = {1.0 + 0x1p-11 + 0x1p-40, 1e-300};
        const int64_t nd = 2;
        t = clbt_tensor(ctx, CLB_FLOAT64, 1, &nd, dv);
        CLBT_OK(clb_cast(t, CLB_FLOAT16, &c));
        CLBT_OK(clb_tensor_to_host(c, h, 4));
        assert_int_equal(h[0], 0x3C01);
        assert_int_equal(h[1], 0x0000);
        clb_tensor_release(c);
        clb_tensor_release(t);
    }
}

static void test_cast_rules(void **state)
{
    (void)state;
    clbt_for_each_device(cast_rules_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),  cmocka_unit_test(test_views),
        cmocka_unit_test(test_scalar),     cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_high_rank),  cmocka_unit_test(test_contiguous),
        cmocka_unit_test(test_repeat),     cmocka_unit_test(test_cast_rules),
        cmocka_unit_test(test_cast_pairs), cmocka_unit_test(test_layouts),
#if CLB_HAVE_OPENCL
        cmocka_unit_test(test_work_splits_and_pieces),
#endif
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
