/* White-box tests of the launch planner (src/core/plan.h): dropping size-1 axes,
 * ordering axes by the output's stride, coalescing, and the reference loop
 * clb__plan_for_each that the host backend runs. */
#include "testutil.h"

#include "plan.h"

/* ---- helpers ------------------------------------------------------------- */

#define MAXOPS CLB__MAX_OPERANDS

/* Builds a plan from per-operand stride rows (each row CLB__PLAN_MAX_DIMS long). */
static void make_plan(clb__plan *p, int nops, int ndim, const int64_t *shape,
                      int64_t strides[][CLB__PLAN_MAX_DIMS], const int64_t *offsets)
{
    const int64_t *rows[MAXOPS];
    for (int k = 0; k < nops; k++) rows[k] = strides[k];
    memset(p, 0xA5, sizeof *p); /* garbage: plan_make must set every field it reports */
    clb__plan_make(p, nops, ndim, shape, rows, offsets);
}

static void expect_plan(const clb__plan *p, int nops, int ndim, const int64_t *shape,
                        int64_t strides[][CLB__PLAN_MAX_DIMS])
{
    assert_int_equal(p->nops, nops);
    if (p->ndim != ndim) fail_msg("plan ndim %d, expected %d", p->ndim, ndim);
    for (int d = 0; d < ndim; d++) {
        if (p->shape[d] != shape[d])
            fail_msg("plan shape[%d] = %lld, expected %lld", d, (long long)p->shape[d],
                     (long long)shape[d]);
        for (int k = 0; k < nops; k++)
            if (p->strides[k][d] != strides[k][d])
                fail_msg("plan strides[%d][%d] = %lld, expected %lld", k, d,
                         (long long)p->strides[k][d], (long long)strides[k][d]);
    }
}

/* A growing list of visited offset tuples. */
typedef struct visits {
    int nops;
    size_t count, cap;
    int64_t *data; /* count * nops */
} visits;

static void record(const int64_t *offsets, void *user)
{
    visits *v = user;
    if (v->count == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->data = realloc(v->data, v->cap * (size_t)v->nops * sizeof(int64_t));
        assert_non_null(v->data);
    }
    memcpy(v->data + v->count * (size_t)v->nops, offsets, (size_t)v->nops * sizeof(int64_t));
    v->count++;
}

static void count_only(const int64_t *offsets, void *user)
{
    (void)offsets;
    (*(int64_t *)user)++;
}

static int g_cmp_nops;
static int cmp_tuple(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int k = 0; k < g_cmp_nops; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

static void sort_visits(visits *v)
{
    g_cmp_nops = v->nops;
    if (v->count) qsort(v->data, v->count, (size_t)v->nops * sizeof(int64_t), cmp_tuple);
}

/* Every element of the original N-D loop, in row-major order. */
static void reference_visits(int nops, int ndim, const int64_t *shape,
                             int64_t strides[][CLB__PLAN_MAX_DIMS], const int64_t *offsets,
                             visits *out)
{
    out->nops = nops;
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= shape[d];
    if (numel == 0) return;
    int64_t idx[CLB__PLAN_MAX_DIMS] = {0};
    for (;;) {
        int64_t off[MAXOPS];
        for (int k = 0; k < nops; k++) {
            off[k] = offsets ? offsets[k] : 0;
            for (int d = 0; d < ndim; d++) off[k] += idx[d] * strides[k][d];
        }
        record(off, out);
        int d = ndim - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
        if (d < 0) break;
    }
}

/* Structural invariants every plan must have, whatever the input. */
static void check_invariants(const clb__plan *p, int ndim_in, const int64_t *shape_in)
{
    int64_t numel = 1;
    for (int d = 0; d < ndim_in; d++) numel *= shape_in[d];
    assert_int_equal(p->numel, numel);
    if (numel == 0) return;
    assert_true(p->ndim >= 0 && p->ndim <= ndim_in);
    int64_t prod = 1;
    for (int d = 0; d < p->ndim; d++) {
        /* size-1 axes are dropped */
        if (p->shape[d] < 2) fail_msg("plan keeps axis %d of size %lld", d, (long long)p->shape[d]);
        prod *= p->shape[d];
    }
    assert_int_equal(prod, numel);
    /* maximal coalescing: no neighbour pair is contiguous for every operand */
    for (int d = 0; d + 1 < p->ndim; d++) {
        int mergeable = 1;
        for (int k = 0; k < p->nops; k++)
            if (p->strides[k][d] != p->strides[k][d + 1] * p->shape[d + 1]) mergeable = 0;
        if (mergeable) fail_msg("plan axes %d and %d could still be merged", d, d + 1);
    }
}

/* for_each visits exactly the elements of the original loop (as a multiset) and
   does so in row-major order of the plan itself. */
static void check_for_each(const clb__plan *p, int nops, int ndim, const int64_t *shape,
                           int64_t strides[][CLB__PLAN_MAX_DIMS], const int64_t *offsets)
{
    visits want = {nops, 0, 0, NULL}, got = {nops, 0, 0, NULL}, order = {nops, 0, 0, NULL};
    reference_visits(nops, ndim, shape, strides, offsets, &want);
    clb__plan_for_each(p, record, &got);
    if (got.count != want.count)
        fail_msg("for_each visited %zu elements, expected %zu", got.count, want.count);

    /* row-major order over the plan's own axes */
    int64_t pstr[MAXOPS][CLB__PLAN_MAX_DIMS];
    for (int k = 0; k < nops; k++)
        for (int d = 0; d < p->ndim; d++) pstr[k][d] = p->strides[k][d];
    if (p->numel > 0) { /* an empty plan's axes are unspecified */
        reference_visits(nops, p->ndim, p->shape, pstr, p->offsets, &order);
        assert_int_equal(order.count, got.count);
    }
    if (got.count && order.count && memcmp(order.data, got.data, got.count * (size_t)nops * sizeof(int64_t)) != 0)
        fail_msg("for_each does not walk the plan in row-major order");

    sort_visits(&want);
    sort_visits(&got);
    for (size_t i = 0; i < want.count; i++)
        for (int k = 0; k < nops; k++)
            if (got.data[i * (size_t)nops + (size_t)k] != want.data[i * (size_t)nops + (size_t)k])
                fail_msg("for_each element %zu operand %d: offset %lld, expected %lld", i, k,
                         (long long)got.data[i * (size_t)nops + (size_t)k],
                         (long long)want.data[i * (size_t)nops + (size_t)k]);
    free(want.data);
    free(got.data);
    free(order.data);
}

static void contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 1 ? shape[d] : 1;
    }
}

/* ---- tables ------------------------------------------------------------ */

static void test_contiguous_collapses_to_one_axis(void **state)
{
    (void)state;
    const int64_t shape[3] = {2, 3, 4};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {12, 4, 1}};
    const int64_t off[2] = {0, 5};
    clb__plan p;
    make_plan(&p, 2, 3, shape, st, off);
    int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{1}, {1}};
    expect_plan(&p, 2, 1, (const int64_t[]){24}, ws);
    assert_int_equal(p.numel, 24);
    assert_int_equal(p.offsets[0], 0);
    assert_int_equal(p.offsets[1], 5);
    check_invariants(&p, 3, shape);
    check_for_each(&p, 2, 3, shape, st, off);
}

/* The seed's (4,3) + (3,): b is broadcast over the rows (stride 0). */
static void test_row_broadcast_keeps_two_axes(void **state)
{
    (void)state;
    const int64_t shape[2] = {4, 3};
    int64_t st[3][CLB__PLAN_MAX_DIMS] = {{3, 1}, {3, 1}, {0, 1}};
    const int64_t off[3] = {0, 0, 0};
    clb__plan p;
    make_plan(&p, 3, 2, shape, st, off);
    int64_t ws[3][CLB__PLAN_MAX_DIMS] = {{3, 1}, {3, 1}, {0, 1}};
    expect_plan(&p, 3, 2, shape, ws);
    assert_int_equal(p.numel, 12);
    check_invariants(&p, 2, shape);
    check_for_each(&p, 3, 2, shape, st, off);
}

/* (2,3,4) with an input broadcast along axis 0: the inner two axes merge. */
static void test_partial_coalescing(void **state)
{
    (void)state;
    const int64_t shape[3] = {2, 3, 4};
    {
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {0, 4, 1}};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, NULL);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{12, 1}, {0, 1}};
        expect_plan(&p, 2, 2, (const int64_t[]){2, 12}, ws);
        check_for_each(&p, 2, 3, shape, st, (const int64_t[]){0, 0});
    }
    /* broadcast along the middle axis: nothing can merge */
    {
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {4, 0, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, off);
        expect_plan(&p, 2, 3, shape, st);
        check_for_each(&p, 2, 3, shape, st, off);
    }
    /* broadcast along the two outer axes: those two merge (stride 0 == 0 * 3) */
    {
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {0, 0, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, off);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{4, 1}, {0, 1}};
        expect_plan(&p, 2, 2, (const int64_t[]){6, 4}, ws);
        check_for_each(&p, 2, 3, shape, st, off);
    }
}

static void test_size_one_axes_dropped(void **state)
{
    (void)state;
    /* the strides of size-1 axes are arbitrary and must not matter */
    {
        const int64_t shape[3] = {1, 5, 1};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{5, 1, 1}, {7, 2, 99}};
        const int64_t off[2] = {3, 4};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, off);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{1}, {2}};
        expect_plan(&p, 2, 1, (const int64_t[]){5}, ws);
        check_invariants(&p, 3, shape);
        check_for_each(&p, 2, 3, shape, st, off);
    }
    /* a size-1 axis between two mergeable ones does not block the merge */
    {
        const int64_t shape[3] = {3, 1, 4};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{4, 4, 1}, {4, 123, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, off);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{1}, {1}};
        expect_plan(&p, 2, 1, (const int64_t[]){12}, ws);
        check_for_each(&p, 2, 3, shape, st, off);
    }
    /* only size-1 axes: a scalar plan */
    {
        const int64_t shape[4] = {1, 1, 1, 1};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1, 1, 1, 1}, {0, 8, 0, 3}};
        const int64_t off[2] = {2, 9};
        clb__plan p;
        make_plan(&p, 2, 4, shape, st, off);
        assert_int_equal(p.ndim, 0);
        assert_int_equal(p.numel, 1);
        check_for_each(&p, 2, 4, shape, st, off);
    }
}

/* A transposed input cannot be merged with the contiguous output. */
static void test_permuted_not_coalesced(void **state)
{
    (void)state;
    const int64_t shape[2] = {3, 4};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{4, 1}, {1, 3}};
    const int64_t off[2] = {0, 0};
    clb__plan p;
    make_plan(&p, 2, 2, shape, st, off);
    expect_plan(&p, 2, 2, shape, st);
    check_invariants(&p, 2, shape);
    check_for_each(&p, 2, 2, shape, st, off);

    /* a 3-D input stored in reverse axis order: no two neighbours merge */
    const int64_t shape3[3] = {2, 3, 4};
    int64_t st3[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {1, 2, 6}};
    make_plan(&p, 2, 3, shape3, st3, off);
    expect_plan(&p, 2, 3, shape3, st3);
    check_for_each(&p, 2, 3, shape3, st3, off);

    /* the input permuted by (2,0,1) from a (4,2,3) block: its first two axes are
       still contiguous with each other, so those (and only those) merge */
    int64_t st4[2][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {3, 1, 6}};
    make_plan(&p, 2, 3, shape3, st4, off);
    int64_t w4[2][CLB__PLAN_MAX_DIMS] = {{4, 1}, {1, 6}};
    expect_plan(&p, 2, 2, (const int64_t[]){6, 4}, w4);
    check_for_each(&p, 2, 3, shape3, st4, off);
}

/* Axes are ordered by the output's stride, largest outermost. */
static void test_axes_sorted_by_output_stride(void **state)
{
    (void)state;
    /* column-major (Fortran) output, row-major input */
    {
        const int64_t shape[2] = {3, 4};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1, 3}, {4, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 2, shape, st, off);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{3, 1}, {1, 4}};
        expect_plan(&p, 2, 2, (const int64_t[]){4, 3}, ws);
        check_for_each(&p, 2, 2, shape, st, off);
    }
    /* column-major output and input: after sorting they are one contiguous run */
    {
        const int64_t shape[2] = {3, 4};
        int64_t st[3][CLB__PLAN_MAX_DIMS] = {{1, 3}, {1, 3}, {0, 1}};
        const int64_t off[3] = {0, 0, 0};
        clb__plan p;
        make_plan(&p, 3, 2, shape, st, off);
        /* b (stride 0 along axis 0, 1 along axis 1) keeps the two axes apart */
        int64_t ws[3][CLB__PLAN_MAX_DIMS] = {{3, 1}, {3, 1}, {1, 0}};
        expect_plan(&p, 3, 2, (const int64_t[]){4, 3}, ws);
        check_for_each(&p, 3, 2, shape, st, off);

        make_plan(&p, 2, 2, shape, st, off);
        int64_t ws2[2][CLB__PLAN_MAX_DIMS] = {{1}, {1}};
        expect_plan(&p, 2, 1, (const int64_t[]){12}, ws2);
        check_for_each(&p, 2, 2, shape, st, off);
    }
    /* output permuted (1,2,0) in memory; row-major input */
    {
        const int64_t shape[3] = {2, 3, 4};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1, 8, 2}, {12, 4, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 3, shape, st, off);
        /* order (axis1, axis2, axis0) = (3,4,2) with out (8,2,1); axes 1 and 2 merge */
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{2, 1}, {1, 12}};
        expect_plan(&p, 2, 2, (const int64_t[]){12, 2}, ws);
        check_for_each(&p, 2, 3, shape, st, off);
    }
    /* a reduction-style output: stride 0 on the reduced (inner) axis stays inner */
    {
        const int64_t shape[2] = {3, 4};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1, 0}, {4, 1}};
        const int64_t off[2] = {0, 0};
        clb__plan p;
        make_plan(&p, 2, 2, shape, st, off);
        expect_plan(&p, 2, 2, shape, st);
        check_for_each(&p, 2, 2, shape, st, off);
    }
}

static void test_64_dims(void **state)
{
    (void)state;
    /* 62 axes of size 2 and two of size 1: 2^62 elements, one contiguous run */
    int64_t shape[CLB_MAX_DIMS];
    for (int d = 0; d < CLB_MAX_DIMS; d++) shape[d] = (d == 10 || d == 40) ? 1 : 2;
    int64_t st[3][CLB__PLAN_MAX_DIMS];
    contiguous_strides(CLB_MAX_DIMS, shape, st[0]);
    contiguous_strides(CLB_MAX_DIMS, shape, st[1]);
    for (int d = 0; d < CLB_MAX_DIMS; d++) st[2][d] = 0; /* a fully broadcast scalar */
    const int64_t off[3] = {0, 0, 7};
    clb__plan p;
    make_plan(&p, 3, CLB_MAX_DIMS, shape, st, off);
    int64_t ws[3][CLB__PLAN_MAX_DIMS] = {{1}, {1}, {0}};
    expect_plan(&p, 3, 1, (const int64_t[]){(int64_t)1 << 62}, ws);
    assert_int_equal(p.numel, (int64_t)1 << 62);
    assert_int_equal(p.offsets[2], 7);

    /* 64 axes, 20 of them of size 2 in scattered places: visit all 2^20 elements */
    for (int d = 0; d < CLB_MAX_DIMS; d++) shape[d] = (d % 3 == 1 && d < 60) ? 2 : 1;
    contiguous_strides(CLB_MAX_DIMS, shape, st[0]);
    contiguous_strides(CLB_MAX_DIMS, shape, st[1]);
    make_plan(&p, 3, CLB_MAX_DIMS, shape, st, off);
    int64_t w2[3][CLB__PLAN_MAX_DIMS] = {{1}, {1}, {0}};
    expect_plan(&p, 3, 1, (const int64_t[]){(int64_t)1 << 20}, w2);
    int64_t n = 0;
    clb__plan_for_each(&p, count_only, &n);
    assert_int_equal(n, (int64_t)1 << 20);
}

/* repeat tiles every axis into two, so plans take up to 2 * CLB_MAX_DIMS axes. */
static void test_plan_max_dims(void **state)
{
    (void)state;
    int64_t shape[CLB__PLAN_MAX_DIMS];
    for (int d = 0; d < CLB__PLAN_MAX_DIMS; d++) shape[d] = (d % 8 == 0) ? 2 : 1;
    int64_t st[2][CLB__PLAN_MAX_DIMS];
    contiguous_strides(CLB__PLAN_MAX_DIMS, shape, st[0]);
    /* input: the same but broadcast on every other size-2 axis */
    contiguous_strides(CLB__PLAN_MAX_DIMS, shape, st[1]);
    int nb = 0;
    for (int d = 0; d < CLB__PLAN_MAX_DIMS; d++)
        if (shape[d] == 2 && (nb++ % 2 == 0)) st[1][d] = 0;
    const int64_t off[2] = {0, 0};
    clb__plan p;
    make_plan(&p, 2, CLB__PLAN_MAX_DIMS, shape, st, off);
    check_invariants(&p, CLB__PLAN_MAX_DIMS, shape);
    assert_int_equal(p.numel, 1 << 16);
    assert_int_equal(p.ndim, 16); /* alternating broadcast / not: nothing merges */
    check_for_each(&p, 2, CLB__PLAN_MAX_DIMS, shape, st, off);
}

static void test_zero_size(void **state)
{
    (void)state;
    const int64_t shape[3] = {3, 0, 4};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{4, 4, 1}, {0, 4, 1}};
    const int64_t off[2] = {0, 0};
    clb__plan p;
    make_plan(&p, 2, 3, shape, st, off);
    assert_int_equal(p.numel, 0);
    int64_t n = 0;
    clb__plan_for_each(&p, count_only, &n);
    assert_int_equal(n, 0);

    const int64_t shape1[1] = {0};
    make_plan(&p, 2, 1, shape1, st, off);
    assert_int_equal(p.numel, 0);
    clb__plan_for_each(&p, count_only, &n);
    assert_int_equal(n, 0);
}

static void test_scalar(void **state)
{
    (void)state;
    int64_t st[3][CLB__PLAN_MAX_DIMS] = {{0}, {0}, {0}};
    const int64_t off[3] = {11, 22, 33};
    clb__plan p;
    make_plan(&p, 3, 0, NULL, st, off);
    assert_int_equal(p.ndim, 0);
    assert_int_equal(p.numel, 1);
    assert_int_equal(p.nops, 3);
    assert_int_equal(p.offsets[0], 11);
    assert_int_equal(p.offsets[1], 22);
    assert_int_equal(p.offsets[2], 33);
    visits v = {3, 0, 0, NULL};
    clb__plan_for_each(&p, record, &v);
    assert_int_equal(v.count, 1);
    assert_int_equal(v.data[0], 11);
    assert_int_equal(v.data[1], 22);
    assert_int_equal(v.data[2], 33);
    free(v.data);
}

/* where(): output and three inputs, with offsets */
static void test_four_operands(void **state)
{
    (void)state;
    const int64_t shape[3] = {2, 3, 4};
    int64_t st[4][CLB__PLAN_MAX_DIMS] = {{12, 4, 1}, {12, 4, 1}, {0, 1, 0}, {0, 0, 0}};
    const int64_t off[4] = {100, 0, 5, 6};
    clb__plan p;
    make_plan(&p, 4, 3, shape, st, off);
    assert_int_equal(p.nops, 4);
    assert_int_equal(p.offsets[0], 100);
    assert_int_equal(p.offsets[3], 6);
    check_invariants(&p, 3, shape);
    check_for_each(&p, 4, 3, shape, st, off);
}

/* Random layouts: permuted outputs, permuted / broadcast / gapped inputs. */
static void test_random_layouts(void **state)
{
    (void)state;
    uint64_t rng = 2024;
    for (int iter = 0; iter < 3000; iter++) {
        int ndim = (int)(clbt_rand(&rng) % 7);
        int nops = 2 + (int)(clbt_rand(&rng) % 3);
        int64_t shape[8];
        for (int d = 0; d < ndim; d++) {
            uint64_t r = clbt_rand(&rng) % 12;
            shape[d] = r == 0 ? 0 : (r < 4 ? 1 : (int64_t)(2 + r % 3));
        }
        if (iter % 5) /* mostly non-empty */
            for (int d = 0; d < ndim; d++)
                if (shape[d] == 0) shape[d] = 2;
        int64_t st[MAXOPS][CLB__PLAN_MAX_DIMS];
        int64_t off[MAXOPS];
        for (int k = 0; k < nops; k++) {
            /* a random memory order of the axes */
            int perm[8];
            for (int d = 0; d < ndim; d++) perm[d] = d;
            if (k == 0 ? (iter % 3 == 0) : (clbt_rand(&rng) % 2)) {
                for (int d = ndim - 1; d > 0; d--) {
                    int j = (int)(clbt_rand(&rng) % (uint64_t)(d + 1));
                    int t = perm[d];
                    perm[d] = perm[j];
                    perm[j] = t;
                }
            }
            int64_t gap = (k > 0 && clbt_rand(&rng) % 4 == 0) ? 2 : 1;
            int64_t s = gap;
            for (int i = ndim - 1; i >= 0; i--) {
                int d = perm[i];
                st[k][d] = s;
                s *= shape[d] > 1 ? shape[d] : 1;
            }
            if (k > 0) /* inputs: broadcast some axes */
                for (int d = 0; d < ndim; d++)
                    if (clbt_rand(&rng) % 4 == 0) st[k][d] = 0;
            off[k] = (int64_t)(clbt_rand(&rng) % 7);
        }
        clb__plan p;
        make_plan(&p, nops, ndim, shape, st, off);
        check_invariants(&p, ndim, shape);
        for (int k = 0; k < nops; k++) assert_int_equal(p.offsets[k], off[k]);
        /* the output has no stride-0 axes here, so its strides strictly decrease */
        if (p.numel > 0)
            for (int d = 0; d + 1 < p.ndim; d++)
                if (!(p.strides[0][d] > p.strides[0][d + 1]))
                    fail_msg("iteration %d: output strides not sorted at axis %d (%lld, %lld)",
                             iter, d, (long long)p.strides[0][d], (long long)p.strides[0][d + 1]);
        check_for_each(&p, nops, ndim, shape, st, off);
    }
}

/* ---- 32-bit pieces --------------------------------------------------------- */

/* Every element of the plan is visited by exactly one piece, at the same
   offsets, and every piece fits the limit. */
static void check_pieces(const clb__plan *p, int64_t limit, const int64_t *piece_shape,
                         int64_t count)
{
    visits whole = {p->nops, 0, 0, NULL}, parts = {p->nops, 0, 0, NULL};
    clb__plan_for_each(p, record, &whole);
    clb__plan *piece = malloc(sizeof *piece);
    assert_non_null(piece);
    for (int64_t i = 0; i < count; i++) {
        clb__plan_piece(p, piece_shape, i, piece);
        assert_true(clb__plan_fits(piece, NULL, limit));
        assert_true(piece->numel > 0);
        clb__plan_for_each(piece, record, &parts);
    }
    assert_int_equal(parts.count, whole.count);
    /* Pieces tile the loop nest: compare as sorted tuples of offsets. */
    size_t n = (size_t)p->nops;
    for (size_t a = 0; a < whole.count; a++) {
        bool found = false;
        for (size_t b = 0; b < parts.count && !found; b++)
            found = memcmp(whole.data + a * n, parts.data + b * n, n * sizeof(int64_t)) == 0;
        if (!found) fail_msg("element %zu of the plan is in no piece", a);
    }
    free(piece);
    free(whole.data);
    free(parts.data);
}

/* Negative strides (clb_slice with a negative step): coalescing compares signed
   strides, the flip reverses axes the inputs only descend and keeps every
   (output, input) pairing, and the 32-bit fit counts spans in both directions. */
static void test_negative_strides(void **state)
{
    (void)state;
    clb__plan p;
    /* out (4, 6) contiguous, in = x[::-1, ::-1]: one axis, in stride -1 */
    {
        const int64_t shape[2] = {4, 6};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{6, 1}, {-6, -1}};
        const int64_t off[2] = {0, 23};
        make_plan(&p, 2, 2, shape, st, off);
        int64_t ws[2][CLB__PLAN_MAX_DIMS] = {{1}, {-1}};
        expect_plan(&p, 2, 1, (const int64_t[]){24}, ws);
        check_invariants(&p, 2, shape);
        clb__plan_flip_inputs(&p);
        int64_t fs[2][CLB__PLAN_MAX_DIMS] = {{-1}, {1}};
        expect_plan(&p, 2, 1, (const int64_t[]){24}, fs);
        assert_int_equal(p.offsets[0], 23);
        assert_int_equal(p.offsets[1], 0);
        check_for_each(&p, 2, 2, shape, st, off);
    }
    /* x[::-1] (rows reversed) into contiguous: two axes, the row axis flips */
    {
        const int64_t shape[2] = {5, 8};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{8, 1}, {-8, 1}};
        const int64_t off[2] = {0, 32};
        make_plan(&p, 2, 2, shape, st, off);
        clb__plan_flip_inputs(&p);
        int64_t fs[2][CLB__PLAN_MAX_DIMS] = {{-8, 1}, {8, 1}};
        expect_plan(&p, 2, 2, shape, fs);
        assert_int_equal(p.offsets[0], 32);
        assert_int_equal(p.offsets[1], 0);
        check_for_each(&p, 2, 2, shape, st, off);
    }
    /* mixed signs among the inputs, or an output already walked the same way as
       an in-place input: nothing flips */
    {
        const int64_t shape[2] = {3, 4};
        int64_t st[3][CLB__PLAN_MAX_DIMS] = {{4, 1}, {-4, 1}, {4, 1}};
        const int64_t off[3] = {0, 8, 0};
        make_plan(&p, 3, 2, shape, st, off);
        clb__plan before = p;
        clb__plan_flip_inputs(&p);
        assert_memory_equal(&before, &p, sizeof p);
        /* a broadcast input (stride 0) next to a reversed one: the axis flips */
        int64_t sb[3][CLB__PLAN_MAX_DIMS] = {{4, 1}, {-4, 1}, {0, 1}};
        make_plan(&p, 3, 2, shape, sb, off);
        clb__plan_flip_inputs(&p);
        assert_int_equal(p.strides[0][0], -4);
        assert_int_equal(p.strides[1][0], 4);
        assert_int_equal(p.strides[2][0], 0);
        check_for_each(&p, 3, 2, shape, sb, off);
    }
    /* out and input both reversed (an _into through a reversed out): both ascend */
    {
        const int64_t shape[1] = {10};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{-1}, {-2}};
        const int64_t off[2] = {9, 18};
        make_plan(&p, 2, 1, shape, st, off);
        clb__plan_flip_inputs(&p);
        assert_int_equal(p.strides[0][0], 1);
        assert_int_equal(p.strides[1][0], 2);
        assert_int_equal(p.offsets[0], 0);
        assert_int_equal(p.offsets[1], 0);
        check_for_each(&p, 2, 1, shape, st, off);
    }
    /* 32-bit fit and split count a descending span like an ascending one */
    {
        const int64_t shape[2] = {20, 30};
        int64_t st[2][CLB__PLAN_MAX_DIMS] = {{30, 1}, {-1000, 0}};
        make_plan(&p, 2, 2, shape, st, (const int64_t[]){0, 19000});
        assert_true(clb__plan_fits(&p, NULL, 19000));
        assert_false(clb__plan_fits(&p, NULL, 18999));
        int64_t piece[CLB__PLAN_MAX_DIMS], count = 0;
        assert_true(clb__plan_split(&p, 5000, 1000, piece, &count));
        assert_int_equal(piece[0], 5);
        check_pieces(&p, 5000, piece, count);
    }
}

static void test_fits(void **state)
{
    (void)state;
    clb__plan p;
    const int64_t shape[2] = {10, 7};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1, 10}, {0, 100}};
    make_plan(&p, 2, 2, shape, st, (const int64_t[]){1000000, 0});
    /* spans: out 69, in 600 (the base offset does not count); numel 70 */
    assert_true(clb__plan_fits(&p, NULL, 600));
    assert_false(clb__plan_fits(&p, NULL, 599));
    int64_t half[2] = {p.shape[0], (p.shape[1] + 1) / 2};
    assert_true(clb__plan_fits(&p, half, 600));
}

static void test_split_halves_largest_span(void **state)
{
    (void)state;
    clb__plan p;
    /* out (20, 30) contiguous, in broadcast along rows with a large stride */
    const int64_t shape[2] = {20, 30};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{30, 1}, {1000, 0}};
    make_plan(&p, 2, 2, shape, st, NULL);
    int64_t piece[CLB__PLAN_MAX_DIMS], count = 0;
    assert_true(clb__plan_split(&p, 5000, 1000, piece, &count));
    /* the row axis spans 19000 in the input: halved to 5 rows (4000), columns whole */
    assert_int_equal(piece[0], 5);
    assert_int_equal(piece[1], 30);
    assert_int_equal(count, 4);
    check_pieces(&p, 5000, piece, count);
    /* a tighter limit also cuts the rows into pieces of columns */
    assert_true(clb__plan_split(&p, 40, 1000, piece, &count));
    check_pieces(&p, 40, piece, count);
    /* too many pieces: the caller indexes in 64 bits instead */
    assert_false(clb__plan_split(&p, 40, 4, piece, &count));
}

static void test_split_one_axis(void **state)
{
    (void)state;
    clb__plan p;
    /* a contiguous 1-D plan of 3 * 2^31 elements: three pieces of the limit */
    const int64_t shape[1] = {(int64_t)3 << 31};
    int64_t st[2][CLB__PLAN_MAX_DIMS] = {{1}, {1}};
    make_plan(&p, 2, 1, shape, st, NULL);
    int64_t piece[CLB__PLAN_MAX_DIMS], count = 0;
    assert_false(clb__plan_fits(&p, NULL, INT32_MAX));
    assert_true(clb__plan_split(&p, INT32_MAX, 1 << 16, piece, &count));
    assert_true(piece[0] <= INT32_MAX);
    assert_int_equal(count, (shape[0] + piece[0] - 1) / piece[0]);
    clb__plan last;
    clb__plan_piece(&p, piece, count - 1, &last);
    assert_int_equal(last.offsets[0], (count - 1) * piece[0]);
    assert_int_equal(last.offsets[1], (count - 1) * piece[0]);
    assert_int_equal(last.numel, shape[0] - (count - 1) * piece[0]);
}

static void test_split_random(void **state)
{
    (void)state;
    uint64_t rng = 5;
    for (int iter = 0; iter < 200; iter++) {
        int ndim = 1 + (int)(clbt_rand(&rng) % 4);
        int64_t shape[4];
        int64_t st[3][CLB__PLAN_MAX_DIMS];
        for (int d = 0; d < ndim; d++) shape[d] = 1 + (int64_t)(clbt_rand(&rng) % 6);
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < ndim; d++) st[k][d] = (int64_t)(clbt_rand(&rng) % 4) * (k + 1);
        clb__plan p;
        make_plan(&p, 3, ndim, shape, st, NULL);
        int64_t limit = 1 + (int64_t)(clbt_rand(&rng) % 30);
        int64_t piece[CLB__PLAN_MAX_DIMS], count = 0;
        if (clb__plan_split(&p, limit, 1 << 20, piece, &count)) check_pieces(&p, limit, piece, count);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous_collapses_to_one_axis),
        cmocka_unit_test(test_row_broadcast_keeps_two_axes),
        cmocka_unit_test(test_partial_coalescing),
        cmocka_unit_test(test_size_one_axes_dropped),
        cmocka_unit_test(test_permuted_not_coalesced),
        cmocka_unit_test(test_axes_sorted_by_output_stride),
        cmocka_unit_test(test_64_dims),
        cmocka_unit_test(test_plan_max_dims),
        cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_scalar),
        cmocka_unit_test(test_four_operands),
        cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_negative_strides),
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_split_halves_largest_span),
        cmocka_unit_test(test_split_one_axis),
        cmocka_unit_test(test_split_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
