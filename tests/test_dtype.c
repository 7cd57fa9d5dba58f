/* Dtype facts and type rules (pure, no device): item sizes and names, the full
 * numpy.promote_types table (NumPy 2 / NEP 50; the literal table below was
 * printed by /usr/bin/python3 with numpy, whose promote_types equals NumPy 2's
 * for these dtypes), and the result dtype or error of every op family. */
#include "testutil.h"

#include "dtype.h"

/* Short names so the table below reads like NumPy's printout. */
#define B CLB_BOOL
#define I8 CLB_INT8
#define U8 CLB_UINT8
#define I16 CLB_INT16
#define U16 CLB_UINT16
#define I32 CLB_INT32
#define U32 CLB_UINT32
#define I64 CLB_INT64
#define U64 CLB_UINT64
#define F16 CLB_FLOAT16
#define F32 CLB_FLOAT32
#define F64 CLB_FLOAT64

static const clb_dtype all_dtypes[CLB__NUM_DTYPES] = {B, I8, U8, I16, U16, I32, U32, I64, U64, F16, F32, F64};

/* numpy.promote_types(row, column), rows and columns in enum order. */
static const clb_dtype promote_table[CLB__NUM_DTYPES][CLB__NUM_DTYPES] = {
    /*          B    I8   U8   I16  U16  I32  U32  I64  U64  F16  F32  F64 */
    /* B   */ {B,   I8,  U8,  I16, U16, I32, U32, I64, U64, F16, F32, F64},
    /* I8  */ {I8,  I8,  I16, I16, I32, I32, I64, I64, F64, F16, F32, F64},
    /* U8  */ {U8,  I16, U8,  I16, U16, I32, U32, I64, U64, F16, F32, F64},
    /* I16 */ {I16, I16, I16, I16, I32, I32, I64, I64, F64, F32, F32, F64},
    /* U16 */ {U16, I32, U16, I32, U16, I32, U32, I64, U64, F32, F32, F64},
    /* I32 */ {I32, I32, I32, I32, I32, I32, I64, I64, F64, F64, F64, F64},
    /* U32 */ {U32, I64, U32, I64, U32, I64, U32, I64, U64, F64, F64, F64},
    /* I64 */ {I64, I64, I64, I64, I64, I64, I64, I64, F64, F64, F64, F64},
    /* U64 */ {U64, F64, U64, F64, U64, F64, U64, F64, U64, F64, F64, F64},
    /* F16 */ {F16, F16, F16, F32, F32, F64, F64, F64, F64, F16, F32, F64},
    /* F32 */ {F32, F32, F32, F32, F32, F64, F64, F64, F64, F32, F32, F64},
    /* F64 */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64},
};

static void test_promote_table(void **state)
{
    (void)state;
    for (int a = 0; a < CLB__NUM_DTYPES; a++)
        for (int b = 0; b < CLB__NUM_DTYPES; b++) {
            clb_dtype got = clb_promote_types(all_dtypes[a], all_dtypes[b]);
            if (got != promote_table[a][b])
                fail_msg("promote_types(%s, %s) = %s, NumPy says %s", clb_dtype_name(all_dtypes[a]),
                         clb_dtype_name(all_dtypes[b]), clb_dtype_name(got),
                         clb_dtype_name(promote_table[a][b]));
        }
}

/* The brief's examples, spelled out so a table typo cannot hide them. */
static void test_promote_examples(void **state)
{
    (void)state;
    assert_int_equal(clb_promote_types(CLB_INT64, CLB_UINT64), CLB_FLOAT64);
    assert_int_equal(clb_promote_types(CLB_INT8, CLB_UINT8), CLB_INT16);
    assert_int_equal(clb_promote_types(CLB_FLOAT16, CLB_INT16), CLB_FLOAT32);
    assert_int_equal(clb_promote_types(CLB_UINT64, CLB_INT8), CLB_FLOAT64);
    assert_int_equal(clb_promote_types(CLB_FLOAT16, CLB_INT8), CLB_FLOAT16);
    assert_int_equal(clb_promote_types(CLB_FLOAT16, CLB_UINT8), CLB_FLOAT16);
    assert_int_equal(clb_promote_types(CLB_FLOAT16, CLB_INT32), CLB_FLOAT64);
    assert_int_equal(clb_promote_types(CLB_FLOAT32, CLB_INT32), CLB_FLOAT64);
    assert_int_equal(clb_promote_types(CLB_FLOAT32, CLB_INT16), CLB_FLOAT32);
    for (int a = 0; a < CLB__NUM_DTYPES; a++)
        assert_int_equal(clb_promote_types(CLB_BOOL, all_dtypes[a]), all_dtypes[a]);
}

static void test_promote_invalid(void **state)
{
    (void)state;
    /* An invalid value comes back unchanged (still invalid) with a message. */
    assert_int_equal((int)clb_promote_types((clb_dtype)99, CLB_INT8), 99);
    assert_non_null(strstr(clb_last_error(), "99"));
    assert_int_equal((int)clb_promote_types(CLB_FLOAT32, (clb_dtype)-1), -1);
    assert_int_equal(clb_dtype_size(clb_promote_types(CLB_FLOAT32, (clb_dtype)12)), 0);
}

static void test_sizes_and_names(void **state)
{
    (void)state;
    static const size_t sizes[CLB__NUM_DTYPES] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};
    static const char *const names[CLB__NUM_DTYPES] = {
        "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
        "float16", "float32", "float64"};
    for (int t = 0; t < CLB__NUM_DTYPES; t++) {
        assert_int_equal(clb_dtype_size(all_dtypes[t]), sizes[t]);
        assert_string_equal(clb_dtype_name(all_dtypes[t]), names[t]);
        assert_true(clb__dtype_valid(all_dtypes[t]));
    }
    assert_int_equal(clb_dtype_size((clb_dtype)12), 0);
    assert_int_equal(clb_dtype_size((clb_dtype)-1), 0);
    assert_string_equal(clb_dtype_name((clb_dtype)12), "invalid");
    assert_false(clb__dtype_valid((clb_dtype)12));
    assert_false(clb__dtype_valid((clb_dtype)-1));

    assert_true(clb__dtype_is_float(CLB_FLOAT16));
    assert_false(clb__dtype_is_float(CLB_INT64));
    assert_true(clb__dtype_is_integer(CLB_UINT8));
    assert_false(clb__dtype_is_integer(CLB_BOOL));
    assert_true(clb__dtype_is_unsigned(CLB_UINT64));
    assert_false(clb__dtype_is_unsigned(CLB_INT64));
    assert_true(clb__dtype_is_signed(CLB_INT8));
    assert_false(clb__dtype_is_signed(CLB_BOOL));
    assert_false(clb__dtype_is_signed(CLB_FLOAT32));

    assert_string_equal(clb_binary_op_name(CLB_ADD), "add");
    assert_string_equal(clb_binary_op_name(CLB_DIV), "divide");
    assert_string_equal(clb_binary_op_name(CLB_MOD), "remainder");
    assert_string_equal(clb_binary_op_name(CLB_BITWISE_XOR), "bitwise_xor");
    assert_string_equal(clb_binary_op_name((clb_binary_op)27), "invalid");
    assert_string_equal(clb_unary_op_name(CLB_NEG), "negative");
    assert_string_equal(clb_unary_op_name(CLB_SQRT), "sqrt");
    assert_string_equal(clb_unary_op_name(CLB_LOGICAL_NOT), "logical_not");
    assert_string_equal(clb_unary_op_name((clb_unary_op)36), "invalid");
    assert_string_equal(clb_reduce_op_name(CLB_SUM), "sum");
    assert_string_equal(clb_reduce_op_name(CLB_PROD), "prod");
    assert_string_equal(clb_reduce_op_name((clb_reduce_op)7), "invalid");
    assert_string_equal(clb_reduce_op_name((clb_reduce_op)-1), "invalid");
}

/* ---- binary rules ---------------------------------------------------------- */

static void expect_binary(clb_binary_op op, clb_dtype a, clb_dtype b, clb_dtype compute,
                          clb_dtype result)
{
    clb_dtype c = (clb_dtype)-1, r = (clb_dtype)-1;
    clb_status s = clb__binary_types(op, a, b, &c, &r);
    if (s != CLB_OK || c != compute || r != result)
        fail_msg("%s(%s, %s): %s, compute %s, result %s; expected compute %s, result %s (%s)",
                 clb_binary_op_name(op), clb_dtype_name(a), clb_dtype_name(b), clb_status_name(s),
                 clb_dtype_name(c), clb_dtype_name(r), clb_dtype_name(compute),
                 clb_dtype_name(result), clb_last_error());
}

static void expect_binary_error(clb_status status, clb_binary_op op, clb_dtype a, clb_dtype b)
{
    clb_dtype c, r;
    CLBT_FAILS(status, clb__binary_types(op, a, b, &c, &r));
}

static void test_binary_arithmetic(void **state)
{
    (void)state;
    static const clb_binary_op ops[] = {CLB_ADD, CLB_SUB, CLB_MUL, CLB_FLOOR_DIV, CLB_MOD,
                                        CLB_POW, CLB_MAXIMUM, CLB_MINIMUM};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int a = 1; a < CLB__NUM_DTYPES; a++) /* non-bool: promote(a, b) */
            for (int b = 0; b < CLB__NUM_DTYPES; b++)
                expect_binary(ops[o], all_dtypes[a], all_dtypes[b], promote_table[a][b],
                              promote_table[a][b]);

    /* bool with bool */
    expect_binary(CLB_ADD, B, B, B, B); /* logical or */
    expect_binary(CLB_MUL, B, B, B, B); /* logical and */
    expect_binary(CLB_MAXIMUM, B, B, B, B);
    expect_binary(CLB_MINIMUM, B, B, B, B);
    expect_binary(CLB_FLOOR_DIV, B, B, I8, I8); /* NumPy's first loop, 'bb' */
    expect_binary(CLB_MOD, B, B, I8, I8);
    expect_binary(CLB_POW, B, B, I8, I8);
    expect_binary_error(CLB_ERR_DTYPE, CLB_SUB, B, B);
    assert_non_null(strstr(clb_last_error(), "bitwise_xor"));
    expect_binary(CLB_SUB, B, I8, I8, I8); /* only bool - bool is refused */
    expect_binary(CLB_FLOOR_DIV, B, U8, U8, U8);
}

static void test_binary_divide(void **state)
{
    (void)state;
    for (int a = 0; a < CLB__NUM_DTYPES; a++)
        for (int b = 0; b < CLB__NUM_DTYPES; b++) {
            clb_dtype p = promote_table[a][b];
            clb_dtype want = clb__dtype_is_float(p) ? p : CLB_FLOAT64;
            expect_binary(CLB_DIV, all_dtypes[a], all_dtypes[b], want, want);
        }
    expect_binary(CLB_DIV, I8, I8, F64, F64);
    expect_binary(CLB_DIV, B, B, F64, F64);
    expect_binary(CLB_DIV, F16, F16, F16, F16);
    expect_binary(CLB_DIV, F16, I8, F16, F16);
    expect_binary(CLB_DIV, F32, I32, F64, F64);
}

static void test_binary_comparison_logical(void **state)
{
    (void)state;
    for (int op = CLB_EQ; op <= CLB_GE; op++)
        for (int a = 0; a < CLB__NUM_DTYPES; a++)
            for (int b = 0; b < CLB__NUM_DTYPES; b++)
                expect_binary((clb_binary_op)op, all_dtypes[a], all_dtypes[b], promote_table[a][b], B);
    for (int op = CLB_LOGICAL_AND; op <= CLB_LOGICAL_XOR; op++)
        for (int a = 0; a < CLB__NUM_DTYPES; a++)
            for (int b = 0; b < CLB__NUM_DTYPES; b++)
                expect_binary((clb_binary_op)op, all_dtypes[a], all_dtypes[b], B, B);
}

static void test_binary_bitwise(void **state)
{
    (void)state;
    for (int op = CLB_BITWISE_AND; op <= CLB_BITWISE_XOR; op++)
        for (int a = 0; a < CLB__NUM_DTYPES; a++)
            for (int b = 0; b < CLB__NUM_DTYPES; b++) {
                clb_dtype p = promote_table[a][b];
                if (clb__dtype_is_float(p)) {
                    expect_binary_error(CLB_ERR_DTYPE, (clb_binary_op)op, all_dtypes[a], all_dtypes[b]);
                    assert_non_null(strstr(clb_last_error(), clb_binary_op_name((clb_binary_op)op)));
                    assert_non_null(strstr(clb_last_error(), clb_dtype_name(all_dtypes[a])));
                    assert_non_null(strstr(clb_last_error(), clb_dtype_name(all_dtypes[b])));
                } else {
                    expect_binary((clb_binary_op)op, all_dtypes[a], all_dtypes[b], p, p);
                }
            }
    /* int64 & uint64 promote to float64: refused, as NumPy. */
    expect_binary_error(CLB_ERR_DTYPE, CLB_BITWISE_AND, I64, U64);
    expect_binary(CLB_BITWISE_XOR, B, B, B, B);
}

static void test_binary_invalid(void **state)
{
    (void)state;
    expect_binary_error(CLB_ERR_INVALID_ARGUMENT, (clb_binary_op)27, I8, I8);
    expect_binary_error(CLB_ERR_INVALID_ARGUMENT, (clb_binary_op)-1, I8, I8);
    expect_binary_error(CLB_ERR_INVALID_ARGUMENT, CLB_ADD, (clb_dtype)12, I8);
    assert_non_null(strstr(clb_last_error(), "add"));
    expect_binary_error(CLB_ERR_INVALID_ARGUMENT, CLB_ADD, I8, (clb_dtype)-3);
}

/* ---- unary rules ----------------------------------------------------------- */

static void expect_unary(clb_unary_op op, clb_dtype a, clb_dtype want)
{
    clb_dtype c = (clb_dtype)-1, r = (clb_dtype)-1;
    clb_status s = clb__unary_types(op, a, &c, &r);
    if (s != CLB_OK || c != want || r != want)
        fail_msg("%s(%s): %s, compute %s, result %s; expected %s (%s)", clb_unary_op_name(op),
                 clb_dtype_name(a), clb_status_name(s), clb_dtype_name(c), clb_dtype_name(r),
                 clb_dtype_name(want), clb_last_error());
}

static void test_unary_rules(void **state)
{
    (void)state;
    /* NumPy's smallest float holding the input: bool/8-bit -> float16,
       16-bit -> float32, wider -> float64; floats keep their dtype. */
    static const clb_dtype math_result[CLB__NUM_DTYPES] = {F16, F16, F16, F32, F32, F64,
                                                           F64, F64, F64, F16, F32, F64};
    for (int op = CLB_SQRT; op <= CLB_SIGMOID; op++)
        for (int a = 0; a < CLB__NUM_DTYPES; a++)
            expect_unary((clb_unary_op)op, all_dtypes[a], math_result[a]);
    for (int a = 0; a < CLB__NUM_DTYPES; a++) {
        clb_dtype t = all_dtypes[a];
        expect_unary(CLB_ABS, t, t);
        expect_unary(CLB_FLOOR, t, t);
        expect_unary(CLB_CEIL, t, t);
        expect_unary(CLB_LOGICAL_NOT, t, B);
        if (t != B) {
            expect_unary(CLB_NEG, t, t);
            expect_unary(CLB_RELU, t, t);
        }
    }
    clb_dtype c, r;
    CLBT_FAILS(CLB_ERR_DTYPE, clb__unary_types(CLB_NEG, B, &c, &r));
    assert_non_null(strstr(clb_last_error(), "bool"));
    CLBT_FAILS(CLB_ERR_DTYPE, clb__unary_types(CLB_RELU, B, &c, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__unary_types((clb_unary_op)36, F32, &c, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__unary_types(CLB_EXP, (clb_dtype)12, &c, &r));
    assert_non_null(strstr(clb_last_error(), "exp"));
}

/* ---- where, reduce, matmul -------------------------------------------------- */

static void test_where_rules(void **state)
{
    (void)state;
    for (int c = 0; c < CLB__NUM_DTYPES; c++)
        for (int a = 0; a < CLB__NUM_DTYPES; a++)
            for (int b = 0; b < CLB__NUM_DTYPES; b++) {
                clb_dtype r = (clb_dtype)-1;
                CLBT_OK(clb__where_types(all_dtypes[c], all_dtypes[a], all_dtypes[b], &r));
                assert_int_equal(r, promote_table[a][b]);
            }
    clb_dtype r;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__where_types((clb_dtype)12, I8, I8, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__where_types(B, (clb_dtype)12, I8, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__where_types(B, I8, (clb_dtype)-1, &r));
}

static void test_reduce_rules(void **state)
{
    (void)state;
    /* numpy: sum/prod widen bool and integers to the 64-bit type of their sign. */
    static const clb_dtype sum_result[CLB__NUM_DTYPES] = {I64, I64, U64, I64, U64, I64,
                                                          U64, I64, U64, F16, F32, F64};
    static const clb_dtype mean_result[CLB__NUM_DTYPES] = {F64, F64, F64, F64, F64, F64,
                                                           F64, F64, F64, F16, F32, F64};
    for (int a = 0; a < CLB__NUM_DTYPES; a++) {
        clb_dtype t = all_dtypes[a], r = (clb_dtype)-1;
        CLBT_OK(clb__reduce_types(CLB_SUM, t, &r));
        assert_int_equal(r, sum_result[a]);
        CLBT_OK(clb__reduce_types(CLB_PROD, t, &r));
        assert_int_equal(r, sum_result[a]);
        CLBT_OK(clb__reduce_types(CLB_MEAN, t, &r));
        assert_int_equal(r, mean_result[a]);
        CLBT_OK(clb__reduce_types(CLB_MAX, t, &r));
        assert_int_equal(r, t);
        CLBT_OK(clb__reduce_types(CLB_MIN, t, &r));
        assert_int_equal(r, t);
    }
    clb_dtype r;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__reduce_types((clb_reduce_op)7, F32, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__reduce_types(CLB_SUM, (clb_dtype)12, &r));
}

static void test_matmul_rules(void **state)
{
    (void)state;
    for (int a = 0; a < CLB__NUM_DTYPES; a++)
        for (int b = 0; b < CLB__NUM_DTYPES; b++) {
            clb_dtype r = (clb_dtype)-1;
            CLBT_OK(clb__matmul_types(all_dtypes[a], all_dtypes[b], &r));
            assert_int_equal(r, promote_table[a][b]);
        }
    clb_dtype r;
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__matmul_types((clb_dtype)12, F32, &r));
    CLBT_FAILS(CLB_ERR_INVALID_ARGUMENT, clb__matmul_types(F32, (clb_dtype)12, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promote_table),
        cmocka_unit_test(test_promote_examples),
        cmocka_unit_test(test_promote_invalid),
        cmocka_unit_test(test_sizes_and_names),
        cmocka_unit_test(test_binary_arithmetic),
        cmocka_unit_test(test_binary_divide),
        cmocka_unit_test(test_binary_comparison_logical),
        cmocka_unit_test(test_binary_bitwise),
        cmocka_unit_test(test_binary_invalid),
        cmocka_unit_test(test_unary_rules),
        cmocka_unit_test(test_where_rules),
        cmocka_unit_test(test_reduce_rules),
        cmocka_unit_test(test_matmul_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
