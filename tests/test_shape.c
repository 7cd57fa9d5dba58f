/* clb_broadcast_shapes: the broadcasting rule itself (pure, no device).
 *
 * Covers every compatible / incompatible table row of the seed tutorials
 * (shared/seeds/000 Korean, 001 Korean, 004 Chinese) with the exact output
 * shape, NumPy's edge cases (0-d scalars, zero-size dimensions, n-ary,
 * n = 0, 64 / 65 dimensions, negative sizes, NULL arguments, int64 element
 * count overflow) and PyTorch's error text. */
#include "testutil.h"

#define MAXC 8

/* out_shape gets CLB_MAX_DIMS entries; GUARD more after it detect overruns. */
#define GUARD 8
#define SENTINEL ((int64_t)0x5EED5EED5EED5EEDll)

typedef struct shape_case {
    const char *where; /* which seed / reference the row comes from */
    int na;
    int64_t a[MAXC];
    int nb;
    int64_t b[MAXC];
    clb_status status;
    int nout;
    int64_t out[MAXC];
    const char *message; /* exact PyTorch text for a two-shape mismatch, NULL otherwise */
} shape_case;

/* Runs broadcast_shapes on (x, y) and checks the result. */
static void check_pair(const char *where, int nx, const int64_t *x, int ny, const int64_t *y,
                       clb_status status, int nout, const int64_t *out, const char *message)
{
    int ndims[2] = {nx, ny};
    const int64_t *shapes[2] = {x, y};
    int64_t result[CLB_MAX_DIMS + GUARD];
    for (int i = 0; i < CLB_MAX_DIMS + GUARD; i++) result[i] = SENTINEL;
    int out_ndim = -12345;
    clb_status s = clb_broadcast_shapes(2, ndims, shapes, &out_ndim, result);
    if (s != status)
        fail_msg("%s: status %s, expected %s (%s)", where, clb_status_name(s),
                 clb_status_name(status), clb_last_error());
    for (int i = CLB_MAX_DIMS; i < CLB_MAX_DIMS + GUARD; i++)
        if (result[i] != SENTINEL) fail_msg("%s: out_shape written past CLB_MAX_DIMS", where);
    if (status != CLB_OK) {
        const char *msg = clb_last_error();
        if (msg[0] == '\0') fail_msg("%s: empty clb_last_error()", where);
        if (message && !strstr(msg, message))
            fail_msg("%s: message \"%s\" lacks \"%s\"", where, msg, message);
        return;
    }
    if (out_ndim != nout) fail_msg("%s: out_ndim %d, expected %d", where, out_ndim, nout);
    for (int i = 0; i < nout; i++)
        if (result[i] != out[i])
            fail_msg("%s: out_shape[%d] = %lld, expected %lld", where, i, (long long)result[i],
                     (long long)out[i]);
}

/* Checks the row as given and with the operands swapped (broadcasting is
   symmetric; the PyTorch message then names the sizes the other way round). */
static void run_cases(const shape_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const shape_case *c = &cases[i];
        char where[128];
        snprintf(where, sizeof where, "%s row %zu", c->where, i);
        check_pair(where, c->na, c->a, c->nb, c->b, c->status, c->nout, c->out, c->message);
        snprintf(where, sizeof where, "%s row %zu swapped", c->where, i);
        check_pair(where, c->nb, c->b, c->na, c->a, c->status, c->nout, c->out, NULL);
    }
}

/* ---- seed tables --------------------------------------------------------- */

/* shared/seeds/000: section 3 table (Korean textbook, "가능" / "불가능"). */
static void test_seed000_table(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"seed000", 2, {3, 4}, 1, {4}, CLB_OK, 2, {3, 4}, NULL},
        {"seed000", 2, {3, 4}, 2, {3, 1}, CLB_OK, 2, {3, 4}, NULL},
        {"seed000", 3, {2, 3, 4}, 2, {3, 4}, CLB_OK, 3, {2, 3, 4}, NULL},
        {"seed000", 3, {5, 1, 4}, 3, {1, 3, 1}, CLB_OK, 3, {5, 3, 4}, NULL},
        /* PyTorch scans from the last dimension: the first mismatch is dim 1 (4 vs 3). */
        {"seed000", 2, {3, 4}, 2, {4, 3}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"},
        {"seed000", 2, {2, 3}, 2, {2, 4}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* shared/seeds/001: the compatible / incompatible table (호환 / 비호환), the three
   rules' examples and the step-by-step (4,3)+(3,) and (3,1)+(1,4) walk-throughs. */
static void test_seed001_table(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"seed001 table", 1, {3}, 1, {3}, CLB_OK, 1, {3}, NULL},
        {"seed001 table", 2, {3, 4}, 1, {4}, CLB_OK, 2, {3, 4}, NULL},
        {"seed001 table", 2, {3, 1}, 2, {1, 4}, CLB_OK, 2, {3, 4}, NULL},
        {"seed001 table", 3, {2, 3, 4}, 2, {3, 4}, CLB_OK, 3, {2, 3, 4}, NULL},
        {"seed001 table", 3, {2, 3, 4}, 3, {1, 1, 4}, CLB_OK, 3, {2, 3, 4}, NULL},
        {"seed001 table", 2, {3, 4}, 2, {3, 5}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"},
        {"seed001 table", 2, {2, 3}, 1, {2}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"},
        {"seed001 table", 3, {2, 3, 4}, 2, {2, 4}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"},
        /* rule 1 / rule 2 examples */
        {"seed001 rule1", 2, {3, 4}, 2, {1, 4}, CLB_OK, 2, {3, 4}, NULL},
        /* walk-through: (4,3) + (3,) */
        {"seed001 walk", 2, {4, 3}, 1, {3}, CLB_OK, 2, {4, 3}, NULL},
        {"seed001 walk", 2, {4, 3}, 2, {1, 3}, CLB_OK, 2, {4, 3}, NULL},
        /* scalar + vector: tensor([1,2,3]) + tensor(2) */
        {"seed001 scalar", 1, {3}, 0, {0}, CLB_OK, 1, {3}, NULL},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* shared/seeds/004: every shape pair the Chinese article broadcasts or rejects. */
static void test_seed004_examples(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        /* 3.2 example 1: scalar () with (3,4) */
        {"seed004 ex1", 0, {0}, 2, {3, 4}, CLB_OK, 2, {3, 4}, NULL},
        /* example 2: (3,) with (4,3) */
        {"seed004 ex2", 1, {3}, 2, {4, 3}, CLB_OK, 2, {4, 3}, NULL},
        /* example 3: (5,1,4,1) * (3,1,1) */
        {"seed004 ex3", 4, {5, 1, 4, 1}, 3, {3, 1, 1}, CLB_OK, 4, {5, 3, 4, 1}, NULL},
        /* example 4: (3,4) + (2,4), the quoted RuntimeError */
        {"seed004 ex4", 2, {3, 4}, 2, {2, 4}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"},
        /* 2.1 images (100,3,32,32) - mean (3,1,1) */
        {"seed004 images", 4, {100, 3, 32, 32}, 3, {3, 1, 1}, CLB_OK, 4, {100, 3, 32, 32}, NULL},
        /* 4.1 batch normalisation (128,10) - (10,) */
        {"seed004 bn", 2, {128, 10}, 1, {10}, CLB_OK, 2, {128, 10}, NULL},
        /* 4.2 bias (32,30) + (30,) */
        {"seed004 bias", 2, {32, 30}, 1, {30}, CLB_OK, 2, {32, 30}, NULL},
        /* 4.3 predictions - targets, same shape */
        {"seed004 mse", 2, {10, 5}, 2, {10, 5}, CLB_OK, 2, {10, 5}, NULL},
        /* 5.1 (2,2) + scalar */
        {"seed004 view", 2, {2, 2}, 0, {0}, CLB_OK, 2, {2, 2}, NULL},
        /* 5.1 expand (1,5,1,1) -> (4,5,32,32); 5.2 (1,256,1,1) -> (32,256,224,224) */
        {"seed004 expand", 4, {1, 5, 1, 1}, 4, {4, 5, 32, 32}, CLB_OK, 4, {4, 5, 32, 32}, NULL},
        {"seed004 expand", 4, {1, 256, 1, 1}, 4, {32, 256, 224, 224}, CLB_OK, 4, {32, 256, 224, 224}, NULL},
        /* 6.1 trap: (5,4) + (3,) is an error; the fixes (4,) and (5,1) work; (1,3) still fails */
        {"seed004 trap", 2, {5, 4}, 1, {3}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"},
        {"seed004 trap", 2, {5, 4}, 2, {1, 3}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"},
        {"seed004 trap", 2, {5, 4}, 1, {4}, CLB_OK, 2, {5, 4}, NULL},
        {"seed004 trap", 2, {5, 4}, 2, {5, 1}, CLB_OK, 2, {5, 4}, NULL},
        /* 6.2 keepdim: (10,3,32,32) - (1,3,1,1) works, - (3,) does not (32 vs 3) */
        {"seed004 keepdim", 4, {10, 3, 32, 32}, 4, {1, 3, 1, 1}, CLB_OK, 4, {10, 3, 32, 32}, NULL},
        {"seed004 keepdim", 4, {10, 3, 32, 32}, 1, {3}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (32) must match the size of tensor b (3) at non-singleton dimension 3"},
        /* 6.3 the asserted (5,1,4) with (3,1) */
        {"seed004 assert", 3, {5, 1, 4}, 2, {3, 1}, CLB_OK, 3, {5, 3, 4}, NULL},
        /* 7.1 broadcast_to([1,2,3], (2,3)) */
        {"seed004 broadcast_to", 1, {3}, 2, {2, 3}, CLB_OK, 2, {2, 3}, NULL},
        /* 7.1 broadcast_tensors: the article says (3,1) with (2,) fails; it does not
           (NumPy and PyTorch both give (3,2)). (3,1) with (3,) is (3,3); with
           c.reshape(3,1) both stay (3,1) (the article's "(3,3)" comment is wrong). */
        {"seed004 broadcast_tensors", 2, {3, 1}, 1, {2}, CLB_OK, 2, {3, 2}, NULL},
        {"seed004 broadcast_tensors", 2, {3, 1}, 1, {3}, CLB_OK, 2, {3, 3}, NULL},
        {"seed004 broadcast_tensors", 2, {3, 1}, 2, {3, 1}, CLB_OK, 2, {3, 1}, NULL},
        /* 7.2 batch matmul: batch dims of (10,3,4) @ (1,4,5) -> (10,); weights (4,5) -> none */
        {"seed004 matmul batch", 1, {10}, 1, {1}, CLB_OK, 1, {10}, NULL},
        {"seed004 matmul batch", 1, {10}, 0, {0}, CLB_OK, 1, {10}, NULL},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* NumPy documentation's broadcasting examples. */
static void test_numpy_doc_examples(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"numpy doc", 3, {256, 256, 3}, 1, {3}, CLB_OK, 3, {256, 256, 3}, NULL},
        {"numpy doc", 4, {8, 1, 6, 1}, 3, {7, 1, 5}, CLB_OK, 4, {8, 7, 6, 5}, NULL},
        {"numpy doc", 2, {5, 4}, 1, {1}, CLB_OK, 2, {5, 4}, NULL},
        {"numpy doc", 3, {15, 3, 5}, 3, {15, 1, 5}, CLB_OK, 3, {15, 3, 5}, NULL},
        {"numpy doc", 3, {15, 3, 5}, 2, {3, 1}, CLB_OK, 3, {15, 3, 5}, NULL},
        {"numpy doc", 1, {3}, 1, {4}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"},
        {"numpy doc", 2, {2, 1}, 3, {8, 4, 3}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* ---- NumPy edges --------------------------------------------------------- */

static void test_scalars(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"0-d with 0-d", 0, {0}, 0, {0}, CLB_OK, 0, {0}, NULL},
        {"0-d with (1,)", 0, {0}, 1, {1}, CLB_OK, 1, {1}, NULL},
        {"0-d with (2,3,4)", 0, {0}, 3, {2, 3, 4}, CLB_OK, 3, {2, 3, 4}, NULL},
        {"0-d with (0,)", 0, {0}, 1, {0}, CLB_OK, 1, {0}, NULL},
        {"(1,) with (1,1,1)", 1, {1}, 3, {1, 1, 1}, CLB_OK, 3, {1, 1, 1}, NULL},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_zero_size(void **state)
{
    (void)state;
    static const shape_case cases[] = {
        {"0 with 1", 1, {0}, 1, {1}, CLB_OK, 1, {0}, NULL},
        {"0 with 0", 1, {0}, 1, {0}, CLB_OK, 1, {0}, NULL},
        {"(0,3) with (1,3)", 2, {0, 3}, 2, {1, 3}, CLB_OK, 2, {0, 3}, NULL},
        {"(0,3) with (3,)", 2, {0, 3}, 1, {3}, CLB_OK, 2, {0, 3}, NULL},
        {"(2,1,4) with (0,1)", 3, {2, 1, 4}, 2, {0, 1}, CLB_OK, 3, {2, 0, 4}, NULL},
        {"(5,0) with (5,1)", 2, {5, 0}, 2, {5, 1}, CLB_OK, 2, {5, 0}, NULL},
        /* 0 is not 1: it does not stretch, and nothing stretches to it but 1 */
        {"0 with 2", 1, {0}, 1, {2}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0"},
        {"(3,0) with (3,2)", 2, {3, 0}, 2, {3, 2}, CLB_ERR_SHAPE_MISMATCH, 0, {0},
         "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1"},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_nary(void **state)
{
    (void)state;
    /* numpy.broadcast_shapes((1, 2), (3, 1), (3, 2)) == (3, 2) */
    {
        const int64_t s0[] = {1, 2}, s1[] = {3, 1}, s2[] = {3, 2};
        const int64_t *shapes[] = {s0, s1, s2};
        const int nd[] = {2, 2, 2};
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        CLBT_OK(clb_broadcast_shapes(3, nd, shapes, &on, out));
        assert_int_equal(on, 2);
        assert_int_equal(out[0], 3);
        assert_int_equal(out[1], 2);
    }
    /* numpy.broadcast_shapes((6, 7), (5, 6, 1), (7,), (5, 1, 7)) == (5, 6, 7) */
    {
        const int64_t s0[] = {6, 7}, s1[] = {5, 6, 1}, s2[] = {7}, s3[] = {5, 1, 7};
        const int64_t *shapes[] = {s0, s1, s2, s3};
        const int nd[] = {2, 3, 1, 3};
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        CLBT_OK(clb_broadcast_shapes(4, nd, shapes, &on, out));
        assert_int_equal(on, 3);
        assert_int_equal(out[0], 5);
        assert_int_equal(out[1], 6);
        assert_int_equal(out[2], 7);
    }
    /* five shapes including a scalar and a zero-size one */
    {
        const int64_t s0[] = {0}, s1[] = {2, 1, 1}, s2[] = {1}, s3[] = {1, 1, 1, 1}, dummy[] = {0};
        const int64_t *shapes[] = {s0, s1, s2, dummy, s3};
        const int nd[] = {1, 3, 1, 0, 4};
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        CLBT_OK(clb_broadcast_shapes(5, nd, shapes, &on, out));
        assert_int_equal(on, 4);
        const int64_t want[] = {1, 2, 1, 0};
        for (int i = 0; i < 4; i++) assert_int_equal(out[i], want[i]);
    }
    /* a single shape is returned as is */
    {
        const int64_t s0[] = {4, 1, 2};
        const int64_t *shapes[] = {s0};
        const int nd[] = {3};
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        CLBT_OK(clb_broadcast_shapes(1, nd, shapes, &on, out));
        assert_int_equal(on, 3);
        assert_int_equal(out[0], 4);
        assert_int_equal(out[1], 1);
        assert_int_equal(out[2], 2);
    }
    /* three shapes where only the first and the last clash */
    {
        const int64_t s0[] = {3, 1}, s1[] = {1, 1}, s2[] = {2, 1};
        const int64_t *shapes[] = {s0, s1, s2};
        const int nd[] = {2, 2, 2};
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        CLBT_FAILS(CLB_ERR_SHAPE_MISMATCH, clb_broadcast_shapes(3, nd, shapes, &on, out));
    }
}

static void test_no_shapes(void **state)
{
    (void)state;
    /* numpy.broadcast_shapes() == () */
    int on = -1;
    int64_t out[CLB_MAX_DIMS];
    CLBT_OK(clb_broadcast_shapes(0, NULL, NULL, &on, out));
    assert_int_equal(on, 0);
    const int nd[1] = {0};
    const int64_t *shapes[1] = {NULL};
    on = -1;
    CLBT_OK(clb_broadcast_shapes(0, nd, shapes, &on, out));
    assert_int_equal(on, 0);
}

static void test_max_dims(void **state)
{
    (void)state;
    int64_t a[CLB_MAX_DIMS + 1], b[CLB_MAX_DIMS + 1];
    for (int i = 0; i <= CLB_MAX_DIMS; i++) {
        a[i] = (i % 3 == 0) ? 2 : 1;
        b[i] = (i % 5 == 0) ? 1 : ((i % 3 == 0) ? 2 : 1 + (i % 2));
    }
    /* 64 dims each: fine, elementwise max of compatible sizes */
    int64_t want[CLB_MAX_DIMS];
    for (int i = 0; i < CLB_MAX_DIMS; i++) want[i] = a[i] > b[i] ? a[i] : b[i];
    check_pair("64 with 64", CLB_MAX_DIMS, a, CLB_MAX_DIMS, b, CLB_OK, CLB_MAX_DIMS, want, NULL);

    /* 64 with 1 dim aligned on the right */
    const int64_t last[1] = {2};
    int64_t want2[CLB_MAX_DIMS];
    int64_t ones[CLB_MAX_DIMS];
    for (int i = 0; i < CLB_MAX_DIMS; i++) ones[i] = want2[i] = 1;
    want2[CLB_MAX_DIMS - 1] = 2;
    check_pair("64 ones with (2,)", CLB_MAX_DIMS, ones, 1, last, CLB_OK, CLB_MAX_DIMS, want2, NULL);

    /* a mismatch at dimension 63 (the last) of 64 */
    int64_t c[CLB_MAX_DIMS];
    for (int i = 0; i < CLB_MAX_DIMS; i++) c[i] = 1;
    c[CLB_MAX_DIMS - 1] = 3;
    const int64_t two[1] = {2};
    check_pair("64-d mismatch", CLB_MAX_DIMS, c, 1, two, CLB_ERR_SHAPE_MISMATCH, 0, NULL,
               "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 63");

    /* 65 dims: beyond CLB_MAX_DIMS, either operand */
    int64_t ones65[CLB_MAX_DIMS + 1];
    for (int i = 0; i <= CLB_MAX_DIMS; i++) ones65[i] = 1;
    check_pair("65 with 1", CLB_MAX_DIMS + 1, ones65, 1, last, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    check_pair("1 with 65", 1, last, CLB_MAX_DIMS + 1, ones65, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* 65 dims of a single shape */
    {
        const int64_t *shapes[1] = {ones65};
        const int nd[1] = {CLB_MAX_DIMS + 1};
        int on;
        int64_t out[CLB_MAX_DIMS + GUARD];
        CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(1, nd, shapes, &on, out));
    }
}

static void test_invalid_sizes(void **state)
{
    (void)state;
    const int64_t ok[2] = {3, 4};
    const int64_t neg[2] = {3, -1};
    const int64_t neg1[1] = {-4};
    check_pair("negative size in a", 2, neg, 2, ok, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    check_pair("negative size in b", 2, ok, 2, neg, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    check_pair("negative size -4", 1, neg1, 1, neg1, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* a negative size that a 1 would otherwise "stretch" over */
    const int64_t one[1] = {1};
    check_pair("negative vs 1", 1, neg1, 1, one, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* negative ndim */
    check_pair("negative ndim", -1, ok, 2, ok, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* negative count of shapes */
    int on;
    int64_t out[CLB_MAX_DIMS];
    const int nd[1] = {2};
    const int64_t *shapes[1] = {ok};
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(-1, nd, shapes, &on, out));
}

static void test_overflow(void **state)
{
    (void)state;
    const int64_t big = (int64_t)1 << 40;
    /* one shape whose element count 2^80 overflows int64 */
    const int64_t bb[2] = {big, big};
    const int64_t one[1] = {1};
    check_pair("(2^40,2^40) with (1,)", 2, bb, 1, one, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* two shapes each fine, whose broadcast result overflows */
    const int64_t col[2] = {big, 1};
    const int64_t row[2] = {1, big};
    check_pair("(2^40,1) with (1,2^40)", 2, col, 2, row, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
    /* just below the limit is fine: 2^31 * 2^31 = 2^62 */
    const int64_t h[2] = {(int64_t)1 << 31, 1};
    const int64_t v[2] = {1, (int64_t)1 << 31};
    const int64_t want[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
    check_pair("(2^31,1) with (1,2^31)", 2, h, 2, v, CLB_OK, 2, want, NULL);
    /* INT64_MAX as one size is representable */
    const int64_t m[1] = {INT64_MAX};
    const int64_t mw[1] = {INT64_MAX};
    check_pair("(INT64_MAX,) with (1,)", 1, m, 1, one, CLB_OK, 1, mw, NULL);
    /* INT64_MAX * 2 overflows */
    const int64_t m2[2] = {2, INT64_MAX};
    check_pair("(2,INT64_MAX)", 2, m2, 1, one, CLB_ERR_INVALID_ARGUMENT, 0, NULL, NULL);
}

static void test_null_args(void **state)
{
    (void)state;
    const int64_t s0[2] = {3, 4}, s1[1] = {4};
    const int64_t *shapes[2] = {s0, s1};
    const int64_t *shapes_null[2] = {s0, NULL};
    const int nd[2] = {2, 1};
    int on;
    int64_t out[CLB_MAX_DIMS];
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, NULL, shapes, &on, out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, NULL, &on, out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, shapes, NULL, out));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, shapes, &on, NULL));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb_broadcast_shapes(2, nd, shapes_null, &on, out));
    /* and the same call with valid arguments works */
    CLBT_OK(clb_broadcast_shapes(2, nd, shapes, &on, out));
    assert_int_equal(on, 2);
}

/* Inputs are read-only: the shapes passed in are not modified. */
static void test_inputs_untouched(void **state)
{
    (void)state;
    int64_t s0[3] = {5, 1, 4}, s1[3] = {1, 3, 1};
    const int64_t *shapes[2] = {s0, s1};
    int nd[2] = {3, 3};
    int on;
    int64_t out[CLB_MAX_DIMS];
    CLBT_OK(clb_broadcast_shapes(2, nd, shapes, &on, out));
    assert_int_equal(s0[0], 5);
    assert_int_equal(s0[1], 1);
    assert_int_equal(s0[2], 4);
    assert_int_equal(s1[0], 1);
    assert_int_equal(s1[1], 3);
    assert_int_equal(s1[2], 1);
    assert_int_equal(nd[0], 3);
    assert_int_equal(nd[1], 3);
    /* out may alias nothing; result in place */
    assert_int_equal(out[0], 5);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 4);
}

/* Randomised check against a direct implementation of the rule. */
static void test_random_against_rule(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    for (int iter = 0; iter < 2000; iter++) {
        int n = 1 + (int)(clbt_rand(&rng) % 4);
        int nd[4];
        int64_t sh[4][6];
        const int64_t *shapes[4];
        int maxnd = 0;
        for (int k = 0; k < n; k++) {
            nd[k] = (int)(clbt_rand(&rng) % 6);
            if (nd[k] > maxnd) maxnd = nd[k];
            for (int d = 0; d < nd[k]; d++) {
                uint64_t r = clbt_rand(&rng) % 10;
                sh[k][d] = r < 5 ? 1 : (r < 9 ? 3 : (int64_t)(r % 3)); /* 1, 3 or 0 */
            }
            shapes[k] = sh[k];
        }
        /* reference */
        int64_t want[6];
        int ok = 1;
        for (int d = 0; d < maxnd; d++) {
            int64_t size = 1;
            for (int k = 0; k < n; k++) {
                int dd = d - (maxnd - nd[k]);
                if (dd < 0) continue;
                int64_t s = sh[k][dd];
                if (s == 1) continue;
                if (size == 1) size = s;
                else if (size != s) ok = 0;
            }
            want[d] = size;
        }
        int on = -1;
        int64_t out[CLB_MAX_DIMS];
        clb_status s = clb_broadcast_shapes(n, nd, shapes, &on, out);
        if (ok) {
            if (s != CLB_OK) fail_msg("iteration %d: %s: %s", iter, clb_status_name(s), clb_last_error());
            assert_int_equal(on, maxnd);
            for (int d = 0; d < maxnd; d++)
                if (out[d] != want[d])
                    fail_msg("iteration %d: out[%d] = %lld, expected %lld", iter, d,
                             (long long)out[d], (long long)want[d]);
        } else {
            if (s != CLB_ERR_SHAPE_MISMATCH)
                fail_msg("iteration %d: %s, expected CLB_ERR_SHAPE_MISMATCH", iter, clb_status_name(s));
            assert_true(clb_last_error()[0] != '\0');
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed000_table),
        cmocka_unit_test(test_seed001_table),
        cmocka_unit_test(test_seed004_examples),
        cmocka_unit_test(test_numpy_doc_examples),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_zero_size),
        cmocka_unit_test(test_nary),
        cmocka_unit_test(test_no_shapes),
        cmocka_unit_test(test_max_dims),
        cmocka_unit_test(test_invalid_sizes),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_null_args),
        cmocka_unit_test(test_inputs_untouched),
        cmocka_unit_test(test_random_against_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
