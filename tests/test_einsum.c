/* clb_einsum on every device against the host backend and hand-computed
 * (NumPy) values: the cases NumPy's test_einsum.py checks (the error table,
 * views, implicit output order, ellipsis broadcasting, traces, short sums in
 * every dtype). */
#include "testutil.h"

#define GARBAGE ((clb_tensor *)(uintptr_t)0x5A5A5A5A)
#define EXPECT_FAIL(ctx, status, needle, call_with_out)                                            \
    do {                                                                                           \
        size_t m_before_ = clb_memory_allocated(ctx);                                              \
        clb_tensor *out_ = GARBAGE;                                                                \
        clb_tensor **outp_ = &out_;                                                                \
        (void)outp_;                                                                               \
        CLBT_FAILS(status, call_with_out);                                                         \
        assert_null(out_);                                                                         \
        assert_int_equal(clb_memory_allocated(ctx), m_before_);                                    \
        if (!strstr(clb_last_error(), (needle)))                                                   \
            fail_msg("%s: the message \"%s\" does not mention \"%s\"", #call_with_out,            \
                     clb_last_error(), (needle));                                                  \
    } while (0)

static clb_tensor *arange(clb_context *ctx, clb_dtype dt, int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    for (int64_t i = 0; i < n; i++) v[i] = (double)(i % 7) - 2.0;
    clb_context *h = clbt_host();
    clb_tensor *d64 = clbt_tensor(h, CLB_FLOAT64, ndim, shape, v), *c = NULL;
    CLBT_OK(clb_cast(d64, dt, &c));
    void *buf = clbt_read(c);
    clb_tensor *t = clbt_tensor(ctx, dt, ndim, shape, buf);
    free(buf);
    free(v);
    clb_tensor_release(c);
    clb_tensor_release(d64);
    clb_context_release(h);
    return t;
}

static void expect_values(const clb_tensor *t, const double *want, int64_t n, const char *what)
{
    assert_int_equal(clb_tensor_numel(t), n);
    void *buf = clbt_read(t);
    for (int64_t i = 0; i < n; i++) {
        double g = clb_tensor_dtype(t) == CLB_INT64 ? (double)((int64_t *)buf)[i]
                                                    : clbt_value_at(buf, clb_tensor_dtype(t), i);
        if (fabs(g - want[i]) > 1e-5 * fabs(want[i]))
            fail_msg("%s: element %lld is %.9g, expected %.9g", what, (long long)i, g, want[i]);
    }
    free(buf);
}

/* Issue 26, finding 10: size-1 dimensions broadcast between operands sharing a
   label, as NumPy's einsum does; references computed here from arange's values
   ((i % 7) - 2). A diagonal within one operand still needs equal sizes. */
static double av(int64_t i)
{
    return (double)(i % 7) - 2.0;
}

static void broadcast_body(clb_context *ctx, const char *sel)
{
    char what[96];
    /* "ij,ij->j" on (10, 2) and (1, 2) (and the other way round) */
    const int64_t s102[2] = {10, 2}, s12[2] = {1, 2};
    clb_tensor *a = arange(ctx, CLB_FLOAT32, 2, s102), *b = arange(ctx, CLB_FLOAT32, 2, s12);
    clb_tensor *r = NULL;
    double want[10] = {0};
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 2; j++) want[j] += av(i * 2 + j) * av(j);
    for (int swap = 0; swap < 2; swap++) {
        clb_tensor *o2[2] = {swap ? b : a, swap ? a : b};
        CLBT_OK(clb_einsum("ij,ij->j", 2, (const clb_tensor *const *)o2, &r));
        snprintf(what, sizeof what, "\"ij,ij->j\" (10, 2) with (1, 2) on %s", sel);
        expect_values(r, want, 2, what);
        clb_tensor_release(r);
    }
    /* "ij,jk->ik" with j of size 1 in a: the size-1 j broadcasts against b's 3 */
    const int64_t s41[2] = {4, 1}, s35[2] = {3, 5};
    clb_tensor *c = arange(ctx, CLB_FLOAT32, 2, s41), *d = arange(ctx, CLB_FLOAT32, 2, s35);
    clb_tensor *o3[2] = {c, d};
    CLBT_OK(clb_einsum("ij,jk->ik", 2, (const clb_tensor *const *)o3, &r));
    double w3[20] = {0};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 5; k++)
            for (int j = 0; j < 3; j++) w3[i * 5 + k] += av(i) * av(j * 5 + k);
    snprintf(what, sizeof what, "\"ij,jk->ik\" (4, 1) with (3, 5) on %s", sel);
    expect_values(r, w3, 20, what);
    clb_tensor_release(r);
    /* "ijk,kl,jl,i->i" with i of size 1 in the first operand and 10 in the last */
    const int64_t s123[3] = {1, 2, 3}, s34[2] = {3, 4}, s24[2] = {2, 4}, s10[1] = {10};
    clb_tensor *e = arange(ctx, CLB_FLOAT32, 3, s123), *f = arange(ctx, CLB_FLOAT32, 2, s34);
    clb_tensor *g = arange(ctx, CLB_FLOAT32, 2, s24), *h = arange(ctx, CLB_FLOAT32, 1, s10);
    clb_tensor *o4[4] = {e, f, g, h};
    CLBT_OK(clb_einsum("ijk,kl,jl,i->i", 4, (const clb_tensor *const *)o4, &r));
    double inner = 0, w4[10];
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 4; l++) inner += av(j * 3 + k) * av(k * 4 + l) * av(j * 4 + l);
    for (int i = 0; i < 10; i++) w4[i] = inner * av(i);
    snprintf(what, sizeof what, "\"ijk,kl,jl,i->i\" on %s", sel);
    expect_values(r, w4, 10, what);
    clb_tensor_release(r);
    /* sizes 2 and 3 do not broadcast; a diagonal of sizes 1 and 2 is refused */
    clb_tensor *o5[2] = {a, d};
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, "neither is 1",
                clb_einsum("ij,jk->ik", 2, (const clb_tensor *const *)o5, outp_));
    clb_tensor *o6[1] = {b};
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, "diagonal",
                clb_einsum("ii->i", 1, (const clb_tensor *const *)o6, outp_));
    clb_tensor *all[] = {a, b, c, d, e, f, g, h};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
}

static void test_broadcast(void **state)
{
    (void)state;
    clbt_for_each_device(broadcast_body);
}

/* Runs subscripts on ctx and on the host backend with the same operand values
   and compares. */
static void vs_host(const char *subscripts, int n, clb_tensor *const *ops,
                    const char *sel)
{
    clb_context *h = clbt_host();
    clb_tensor *hops[8] = {NULL}, *got = NULL, *want = NULL;
    for (int k = 0; k < n; k++) {
        void *buf = clbt_read(ops[k]);
        hops[k] = clbt_tensor(h, clb_tensor_dtype(ops[k]), clb_tensor_ndim(ops[k]),
                              clb_tensor_shape(ops[k]), buf);
        free(buf);
    }
    CLBT_OK(clb_einsum(subscripts, n, (const clb_tensor *const *)ops, &got));
    CLBT_OK(clb_einsum(subscripts, n, (const clb_tensor *const *)hops, &want));
    char what[128];
    snprintf(what, sizeof what, "einsum \"%s\" on %s", subscripts, sel);
    clbt_assert_matches_host(got, want, 1e-5, 1e-6, what);
    clb_tensor_release(got);
    clb_tensor_release(want);
    for (int k = 0; k < n; k++) clb_tensor_release(hops[k]);
    clb_context_release(h);
}

static void values_body(clb_context *ctx, const char *sel)
{
    const int64_t s33[2] = {3, 3}, s23[2] = {2, 3}, s34[2] = {3, 4};
    clb_tensor *a = arange(ctx, CLB_FLOAT32, 2, s33), *r = NULL;
    /* a = [[-2,-1,0],[1,2,3],[4,-2,-1]] */
    CLBT_OK(clb_einsum("ii->i", 1, (const clb_tensor *const *)&a, &r));
    assert_true(clb_tensor_shares_storage(r, a));
    const double diag[3] = {-2, 2, -1};
    expect_values(r, diag, 3, "ii->i");
    clb_tensor_release(r);
    CLBT_OK(clb_einsum("ii", 1, (const clb_tensor *const *)&a, &r));
    const double tr[1] = {-1};
    assert_int_equal(clb_tensor_ndim(r), 0);
    expect_values(r, tr, 1, "ii (trace)");
    clb_tensor_release(r);
    CLBT_OK(clb_einsum("ij->ji", 1, (const clb_tensor *const *)&a, &r));
    assert_true(clb_tensor_shares_storage(r, a));
    const double at[9] = {-2, 1, 4, -1, 2, -2, 0, 3, -1};
    expect_values(r, at, 9, "ij->ji");
    clb_tensor_release(r);
    CLBT_OK(clb_einsum("ba", 1, (const clb_tensor *const *)&a, &r)); /* implicit: "ab" = transpose */
    expect_values(r, at, 9, "ba (implicit transpose)");
    clb_tensor_release(r);
    CLBT_OK(clb_einsum("Ba", 1, (const clb_tensor *const *)&a, &r)); /* uppercase first: "Ba" */
    const double ident[9] = {-2, -1, 0, 1, 2, 3, 4, -2, -1};
    expect_values(r, ident, 9, "Ba (uppercase first)");
    clb_tensor_release(r);
    CLBT_OK(clb_einsum("ij->", 1, (const clb_tensor *const *)&a, &r));
    const double total[1] = {4};
    expect_values(r, total, 1, "ij->");
    clb_tensor_release(r);

    clb_tensor *x = arange(ctx, CLB_FLOAT32, 2, s23), *y = arange(ctx, CLB_FLOAT32, 2, s34);
    clb_tensor *xy[2] = {x, y};
    /* x = [[-2,-1,0],[1,2,3]], y = [[-2,-1,0,1],[2,3,4,-2],[-1,0,1,2]] */
    CLBT_OK(clb_einsum("ij,jk", 2, (const clb_tensor *const *)xy, &r));
    const double mm[8] = {2, -1, -4, 0, -1, 5, 11, 3};
    expect_values(r, mm, 8, "ij,jk");
    clb_tensor_release(r);
    vs_host("ij,jk->ik", 2, xy, sel);
    vs_host("ij,jk->ki", 2, xy, sel);
    vs_host("ij,jk->ijk", 2, xy, sel);
    vs_host("ij,jk->", 2, xy, sel);
    clb_tensor *xx[2] = {x, x};
    vs_host("ij,ij->i", 2, xx, sel);
    vs_host("ij,kj->ik", 2, xx, sel);
    vs_host("ij,kl->ijkl", 2, xx, sel);

    const int64_t b1[4] = {2, 1, 3, 4}, b2[3] = {5, 4, 2};
    clb_tensor *p = arange(ctx, CLB_FLOAT32, 4, b1), *q = arange(ctx, CLB_FLOAT32, 3, b2);
    clb_tensor *pq[2] = {p, q};
    CLBT_OK(clb_einsum("...ij,...jk->...ik", 2, (const clb_tensor *const *)pq, &r));
    const int64_t bs[4] = {2, 5, 3, 2};
    clbt_assert_shape(r, 4, bs);
    clb_tensor *mref = NULL;
    CLBT_OK(clb_matmul(p, q, &mref));
    clbt_assert_matches_host(r, mref, 1e-6, 0, "...ij,...jk->...ik against clb_matmul");
    clb_tensor_release(mref);
    clb_tensor_release(r);
    vs_host("...ij,...jk", 2, pq, sel);
    const int64_t c1[3] = {2, 3, 4}, c2[3] = {2, 4, 5}, c3[3] = {2, 5, 4};
    clb_tensor *u = arange(ctx, CLB_FLOAT32, 3, c1), *w = arange(ctx, CLB_FLOAT32, 3, c2);
    clb_tensor *w2 = arange(ctx, CLB_INT16, 3, c3); /* promotes to float32 */
    clb_tensor *uw[2] = {u, w}, *uw2[2] = {u, w2};
    vs_host("bij,bjk->bik", 2, uw, sel);
    vs_host("bij,bjk->ik", 2, uw, sel);
    vs_host("bij,bjk->kbi", 2, uw, sel);
    vs_host("bij,bkj->bki", 2, uw2, sel);
    vs_host("bij,bjk->bi", 2, uw, sel); /* k summed in one operand only: not a matmul */
    clb_tensor_release(u);
    clb_tensor_release(w);
    clb_tensor_release(w2);

    const int64_t s4[4] = {2, 3, 2, 3};
    clb_tensor *f = arange(ctx, CLB_FLOAT32, 4, s4);
    CLBT_OK(clb_einsum("ijij->", 1, (const clb_tensor *const *)&f, &r));
    vs_host("ijij->", 1, &f, sel);
    vs_host("ijij->ij", 1, &f, sel);
    clb_tensor_release(r);
    clb_tensor *three[3] = {x, y, y};
    vs_host("ij,jk,lk->il", 3, three, sel);

    /* The error table. */
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "position 3", clb_einsum("ij,$k", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum("ij", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum("ij,jk,kl", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "position 8", clb_einsum("ij,jk->ii", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "'q'", clb_einsum("ij,jk->q", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "position 1", clb_einsum("i.j,jk", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum("ijk,jk", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum("...i...,jk", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_SHAPE_MISMATCH, "'j'", clb_einsum("ij,kj", 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum(NULL, 2, (const clb_tensor *const *)xy, outp_));
    EXPECT_FAIL(ctx, CLB_ERR_INVALID_ARGUMENT, "", clb_einsum("ij", 0, (const clb_tensor *const *)xy, outp_));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_einsum("ij", 1, (const clb_tensor *const *)xy, NULL));

    clb_tensor_release(f);
    clb_tensor_release(p);
    clb_tensor_release(q);
    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_tensor_release(a);
}

static void test_values(void **state)
{
    (void)state;
    clbt_for_each_device(values_body);
}

/* "i->" and "i,i->" sums of 1 to 16 elements in every dtype, against the host. */
static void sums_body(clb_context *ctx, const char *sel)
{
    for (int dt = CLB_BOOL; dt <= CLB_FLOAT64; dt++) {
        clb_device_info info;
        CLBT_OK(clb_context_get_info(ctx, &info));
        if (dt == CLB_FLOAT64 && !info.has_fp64) continue; /* the float64 policy: test_stats */
        for (int64_t n = 1; n <= 16; n++) {
            clb_tensor *v = arange(ctx, (clb_dtype)dt, 1, &n);
            clb_tensor *vv[2] = {v, v};
            vs_host("i->", 1, &v, sel);
            vs_host("i,i->", 2, vv, sel);
            clb_tensor *r = NULL;
            CLBT_OK(clb_einsum("i,i", 2, (const clb_tensor *const *)vv, &r));
            assert_int_equal(clb_tensor_dtype(r), dt);
            clb_tensor_release(r);
            clb_tensor_release(v);
        }
    }
}

static void test_sums(void **state)
{
    (void)state;
    clbt_for_each_device(sums_body);
}

/* "ij,ij->i" is one fused pass (clb_eval_reduce): on a (16, 2^20) float32 pair
   whose product would take 64 MiB, the memory reserved grows by the output and
   small scratch only; the values match the host backend. */
static void fused_body(clb_context *ctx, const char *sel)
{
    if (clbt_is_simulator(ctx)) return;
    const int64_t shape[2] = {16, (int64_t)1 << 20};
    clb_tensor *a = arange(ctx, CLB_FLOAT32, 2, shape), *b = arange(ctx, CLB_FLOAT32, 2, shape);
    clb_tensor *ab[2] = {a, b}, *r = NULL;
    CLBT_OK(clb_finish(ctx));
    CLBT_OK(clb_empty_cache(ctx));
    size_t before = clb_memory_reserved(ctx);
    CLBT_OK(clb_einsum("ij,ij->i", 2, (const clb_tensor *const *)ab, &r));
    CLBT_OK(clb_finish(ctx));
    size_t used = clb_memory_reserved(ctx) - before;
    print_message("einsum ij,ij->i of (16, 2^20) float32 on %s: %zu bytes reserved\n", sel, used);
    if (used > ((size_t)1 << 20))
        fail_msg("einsum ij,ij->i on %s reserved %zu bytes: more than 1 MiB (the product is "
                 "64 MiB)",
                 sel, used);
    clb_tensor_release(r);
    vs_host("ij,ij->i", 2, ab, sel);
    clb_tensor_release(a);
    clb_tensor_release(b);
}

static void test_fused(void **state)
{
    (void)state;
    clbt_for_each_device(fused_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_sums),
        cmocka_unit_test(test_fused),
        cmocka_unit_test(test_broadcast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
