/* Released handles (issue 26, finding 16): a tensor used after its last release,
 * released twice, or retained after it is gone, and a context used or released
 * after it is freed, is CLB_ERR_INVALID_ARGUMENT with a message naming the
 * function, at every public entry point that takes one, and nothing reads the
 * freed record (the asan stage runs this under AddressSanitizer: a read of
 * freed memory would stop it). Functions without a status (release, retain,
 * accessors) leave the message in clb_last_error() and return what NULL gives.
 *
 * The released tensor's address could be handed to a later record by the
 * allocator: each case makes every live operand first and releases the victim
 * last, and the calls under test fail before they allocate a tensor. On the
 * host backend (the checks are the library's own, above every backend). */
#include "testutil.h"

static clb_context *ctx;
static clb_tensor *a, *idx, *mask, *dead;

/* The call fails with CLB_ERR_INVALID_ARGUMENT naming fn and saying why. */
#define REFUSED(fn, call)                                                                          \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_ERR_INVALID_ARGUMENT)                                                       \
            fail_msg("%s: %s, expected CLB_ERR_INVALID_ARGUMENT (%s)", #call, clb_status_name(st_), \
                     clb_last_error());                                                            \
        if (!strstr(clb_last_error(), fn) || !strstr(clb_last_error(), "not a live"))              \
            fail_msg("%s: the message should name %s and say the handle is not live: \"%s\"",    \
                     #call, fn, clb_last_error());                                                 \
    } while (0)

/* ... and leaves *out NULL. */
#define REFUSED_OUT(fn, call)                                                                      \
    do {                                                                                           \
        out = (clb_tensor *)(uintptr_t)0x5A5A5A5A;                                                 \
        REFUSED(fn, call);                                                                         \
        if (out) fail_msg("%s: *out not NULL after a failure", #call);                            \
    } while (0)

static void setup_tensors(void)
{
    ctx = clbt_host();
    const int64_t s23[2] = {2, 3}, s2[1] = {2};
    const float v[6] = {1, 2, 3, 4, 5, 6};
    const int64_t iv[2] = {0, 1};
    const uint8_t mv[6] = {1, 0, 1, 0, 1, 0};
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, s23, v, &a));
    CLBT_OK(clb_tensor_from_host(ctx, CLB_INT64, 1, s2, iv, &idx));
    CLBT_OK(clb_tensor_from_host(ctx, CLB_BOOL, 2, s23, mv, &mask));
    /* the victim last: nothing is allocated between its release and the calls */
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, s23, v, &dead));
    clb_tensor_release(dead);
}

static void teardown_tensors(void)
{
    clb_tensor_release(a);
    clb_tensor_release(idx);
    clb_tensor_release(mask);
    clb_context_release(ctx);
}

static void test_ops_refuse_released(void **state)
{
    (void)state;
    setup_tensors();
    clb_tensor *out = NULL, *out2 = NULL;
    const int64_t s23[2] = {2, 3}, s6[1] = {6}, reps[2] = {1, 2};
    const int perm[2] = {1, 0}, axes[1] = {0};
    const clb_scalar two = {.kind = CLB_SCALAR_FLOAT, .f = 2.0};
    const clb_tensor *with_dead[2] = {a, dead};
    const char *names[2] = {"x", "y"};
    float host[6];
    char text[256];
    size_t needed = 0;

    REFUSED("clb_tensor_to_host", clb_tensor_to_host(dead, host, sizeof host));
    REFUSED("clb_tensor_format", clb_tensor_format(dead, text, sizeof text, &needed));
    REFUSED_OUT("clb_broadcast_to", clb_broadcast_to(dead, 2, s23, &out));
    REFUSED_OUT("clb_expand", clb_expand(dead, 2, s23, &out));
    REFUSED_OUT("clb_unsqueeze", clb_unsqueeze(dead, 0, &out));
    REFUSED_OUT("clb_squeeze", clb_squeeze(dead, 0, &out));
    REFUSED_OUT("clb_permute", clb_permute(dead, perm, &out));
    REFUSED_OUT("clb_swapaxes", clb_swapaxes(dead, 0, 1, &out));
    REFUSED_OUT("clb_reshape", clb_reshape(dead, 1, s6, &out));
    REFUSED_OUT("clb_slice", clb_slice(dead, 0, 0, 1, 1, &out));
    REFUSED_OUT("clb_contiguous", clb_contiguous(dead, &out));
    REFUSED_OUT("clb_repeat", clb_repeat(dead, 2, reps, &out));
    REFUSED_OUT("clb_cast", clb_cast(dead, CLB_INT32, &out));
    REFUSED_OUT("clb_tensor_to_context", clb_tensor_to_context(dead, ctx, &out));
    REFUSED_OUT("clb_zeros_like", clb_zeros_like(dead, &out));
    REFUSED_OUT("clb_ones_like", clb_ones_like(dead, &out));
    REFUSED_OUT("clb_binary", clb_binary(CLB_ADD, a, dead, &out));
    REFUSED_OUT("clb_binary", clb_binary(CLB_ADD, dead, a, &out));
    REFUSED("clb_binary_into", clb_binary_into(CLB_ADD, a, a, dead));
    REFUSED("clb_binary_into", clb_binary_into(CLB_ADD, dead, a, a));
    REFUSED_OUT("clb_binary_scalar", clb_binary_scalar(CLB_MUL, dead, two, 0, &out));
    REFUSED_OUT("clb_unary", clb_unary(CLB_NEG, dead, &out));
    REFUSED_OUT("clb_where", clb_where(mask, dead, a, &out));
    REFUSED_OUT("clb_where", clb_where(dead, a, a, &out));
    REFUSED_OUT("clb_reduce", clb_reduce(CLB_SUM, dead, 1, axes, 0, &out));
    REFUSED_OUT("clb_sum_to_shape", clb_sum_to_shape(dead, 1, s6 + 0, &out));
    REFUSED_OUT("clb_matmul", clb_matmul(a, dead, &out));
    REFUSED_OUT("clb_var", clb_var(dead, 1, axes, 0, 0, &out));
    REFUSED_OUT("clb_std", clb_std(dead, 1, axes, 0, 0, &out));
    REFUSED_OUT("clb_argmax", clb_argmax(dead, 0, 0, &out));
    REFUSED_OUT("clb_argmin", clb_argmin(dead, 0, 0, &out));
    REFUSED_OUT("clb_softmax", clb_softmax(dead, 0, &out));
    REFUSED_OUT("clb_log_softmax", clb_log_softmax(dead, 0, &out));
    REFUSED_OUT("clb_logsumexp", clb_logsumexp(dead, 1, axes, 0, &out));
    REFUSED_OUT("clb_take", clb_take(dead, idx, 0, &out));
    REFUSED_OUT("clb_take", clb_take(a, dead, 0, &out));
    REFUSED_OUT("clb_take_along_axis", clb_take_along_axis(dead, idx, 0, &out));
    REFUSED_OUT("clb_cumsum", clb_cumsum(dead, 0, &out));
    REFUSED_OUT("clb_cumprod", clb_cumprod(dead, 0, &out));
    REFUSED_OUT("clb_nonzero", clb_nonzero(dead, &out));
    REFUSED_OUT("clb_masked_select", clb_masked_select(a, dead, &out));
    out = out2 = (clb_tensor *)(uintptr_t)0x5A5A5A5A;
    REFUSED("clb_sort", clb_sort(dead, 0, 0, &out, &out2));
    assert_null(out);
    assert_null(out2);
    out = out2 = (clb_tensor *)(uintptr_t)0x5A5A5A5A;
    REFUSED("clb_topk", clb_topk(dead, 1, 0, 1, &out, &out2));
    assert_null(out);
    assert_null(out2);
    /* arrays of inputs */
    REFUSED_OUT("clb_concat", clb_concat(2, with_dead, 0, &out));
    REFUSED_OUT("clb_stack", clb_stack(2, with_dead, 0, &out));
    clb_tensor *outs[2] = {(clb_tensor *)(uintptr_t)0x5A5A5A5A, (clb_tensor *)(uintptr_t)0x5A5A5A5A};
    REFUSED("clb_broadcast_tensors", clb_broadcast_tensors(2, with_dead, outs));
    assert_null(outs[0]);
    assert_null(outs[1]);
    REFUSED_OUT("clb_eval", clb_eval(ctx, "x + y", 2, names, with_dead, &out));
    REFUSED("clb_eval_into", clb_eval_into(ctx, "x + x", 1, names, with_dead, dead));
    REFUSED_OUT("clb_eval_reduce",
                clb_eval_reduce(ctx, "x * y", 2, names, with_dead, CLB_SUM, 0, NULL, 0, &out));
    REFUSED_OUT("clb_einsum", clb_einsum("ij,ij->i", 2, with_dead, &out));
    assert_int_equal(clb_memory_allocated(ctx), 6 * sizeof(float) + 2 * 8 + 6);
    teardown_tensors();
}

/* Functions without a status: what NULL gives, and the message. */
static void test_void_calls(void **state)
{
    (void)state;
    setup_tensors();
    clb_tensor_release(dead); /* a double release */
    if (!strstr(clb_last_error(), "clb_tensor_release") || !strstr(clb_last_error(), "double release"))
        fail_msg("double release: \"%s\"", clb_last_error());
    clb_tensor_retain(dead);
    if (!strstr(clb_last_error(), "clb_tensor_retain") || !strstr(clb_last_error(), "not a live"))
        fail_msg("retain after release: \"%s\"", clb_last_error());
    assert_int_equal(clb_tensor_ndim(dead), 0);
    assert_true(strstr(clb_last_error(), "clb_tensor_ndim") != NULL);
    assert_null(clb_tensor_shape(dead));
    assert_null(clb_tensor_strides(dead));
    assert_int_equal(clb_dtype_size(clb_tensor_dtype(dead)), 0);
    assert_int_equal(clb_tensor_numel(dead), 0);
    assert_int_equal(clb_tensor_offset(dead), 0);
    assert_null(clb_tensor_context(dead));
    assert_int_equal(clb_tensor_is_contiguous(dead), 0);
    assert_int_equal(clb_tensor_shares_storage(dead, a), 0);
    assert_int_equal(clb_tensor_shares_storage(a, dead), 0);
    assert_true(strstr(clb_last_error(), "clb_tensor_shares_storage") != NULL);
    /* a stray pointer is refused the same way, without being read */
    int not_a_tensor = 0;
    REFUSED("clb_unary", clb_unary(CLB_NEG, (const clb_tensor *)&not_a_tensor, &dead));
    /* the live ones were never touched */
    float got[6];
    CLBT_OK(clb_tensor_to_host(a, got, sizeof got));
    assert_true(got[5] == 6.0f);
    teardown_tensors();
}

static void test_contexts(void **state)
{
    (void)state;
    clb_context *c = NULL;
    clb_tensor *t = NULL;
    const int64_t s3[1] = {3};
    const float v[3] = {1, 2, 3};
    /* released while a tensor holds it: a second release is refused, the tensor works */
    CLBT_OK(clb_context_create("host", &c));
    CLBT_OK(clb_tensor_from_host(c, CLB_FLOAT32, 1, s3, v, &t));
    clb_context_release(c);
    clb_context_release(c);
    if (!strstr(clb_last_error(), "clb_context_release") || !strstr(clb_last_error(), "released already"))
        fail_msg("second release with a tensor alive: \"%s\"", clb_last_error());
    clb_tensor *neg = NULL;
    CLBT_OK(clb_unary(CLB_NEG, t, &neg));
    float got[3];
    CLBT_OK(clb_tensor_to_host(neg, got, sizeof got));
    assert_true(got[2] == -3.0f);
    clb_tensor_release(neg);
    clb_tensor_release(t); /* the context goes with its last tensor */
    /* freed: every use is refused without reading it */
    clb_tensor *out = NULL;
    REFUSED_OUT("clb_tensor_from_host", clb_tensor_from_host(c, CLB_FLOAT32, 1, s3, v, &out));
    REFUSED_OUT("clb_tensor_empty", clb_tensor_empty(c, CLB_FLOAT32, 1, s3, &out));
    REFUSED_OUT("clb_zeros", clb_zeros(c, CLB_FLOAT32, 1, s3, &out));
    REFUSED_OUT("clb_arange", clb_arange(c, CLB_FLOAT32, 0, 3, 1, &out));
    REFUSED("clb_finish", clb_finish(c));
    REFUSED("clb_empty_cache", clb_empty_cache(c));
    clb_device_info info;
    REFUSED("clb_context_get_info", clb_context_get_info(c, &info));
    assert_int_equal(clb_memory_allocated(c), 0);
    assert_int_equal(clb_memory_reserved(c), 0);
    assert_string_equal(clb_context_device_name(c), "");
    clb_context_release(c); /* a double release */
    if (!strstr(clb_last_error(), "clb_context_release") || !strstr(clb_last_error(), "not a live"))
        fail_msg("double release of a freed context: \"%s\"", clb_last_error());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_refuse_released),
        cmocka_unit_test(test_void_calls),
        cmocka_unit_test(test_contexts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
