/* The quirks table (src/opencl/cl_quirks.c): version parsing, platform and driver
 * keys, and the build options and names it hands the program cache and
 * clb_device_info. Whether each entry matches a real defect is
 * tests/quirks/check_quirks.py's job, on the devices of the machine. */
#include "testutil.h"

#include "cl_launch.h"
#include "cl_quirks.h"

#include <string.h>

static void test_parse_version(void **state)
{
    (void)state;
    int ma = -1, mi = -1;
    assert_true(clb__quirk_parse_version("22.3.6", &ma, &mi));
    assert_int_equal(ma, 22);
    assert_int_equal(mi, 3);
    assert_true(clb__quirk_parse_version("3.1+debian", &ma, &mi));
    assert_int_equal(ma, 3);
    assert_int_equal(mi, 1);
    assert_true(clb__quirk_parse_version("Mesa 23.1", &ma, &mi));
    assert_int_equal(ma, 23);
    assert_int_equal(mi, 1);
    assert_true(clb__quirk_parse_version("535", &ma, &mi)); /* NVIDIA: one number */
    assert_int_equal(ma, 535);
    assert_int_equal(mi, 0);
    assert_false(clb__quirk_parse_version("unknown", &ma, &mi));
    assert_false(clb__quirk_parse_version("", &ma, &mi));
}

static void test_keys(void **state)
{
    (void)state;
    size_t n = 0;
    const clb__quirk *q = clb__quirks(&n);
    assert_true(n >= 1);
    const clb__quirk *sat = NULL, *loop = NULL;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        assert_non_null(q[i].name);
        assert_non_null(q[i].reproducer);
        assert_true(q[i].define == NULL || strncmp(q[i].define, "CLB_QUIRK_", 10) == 0);
        assert_true(q[i].bit != 0 && (q[i].bit & (q[i].bit - 1)) == 0); /* one bit each */
        assert_true((bits & q[i].bit) == 0);
        bits |= q[i].bit;
        if (strcmp(q[i].name, "nan-sat-select") == 0) sat = &q[i];
        if (strcmp(q[i].name, "loop-limit") == 0) loop = &q[i];
    }
    assert_non_null(sat);
    assert_non_null(loop);
    assert_int_equal(sat->bit, CLB__QUIRK_NAN_SAT_SELECT);
    assert_int_equal(loop->bit, CLB__QUIRK_LOOP_LIMIT);
    assert_null(loop->define); /* the host side alone works around it */
    assert_int_equal(clb__quirk_mask("rusticl", "22.3.6"),
                     CLB__QUIRK_NAN_SAT_SELECT | CLB__QUIRK_LOOP_LIMIT | CLB__QUIRK_LITERAL_FOLDING |
                         CLB__QUIRK_SEXT_COMPARE | CLB__QUIRK_PARTIAL_VECTOR_LOOPS);
    assert_int_equal(clb__quirk_mask("Portable Computing Language", "3.1+debian"),
                     CLB__QUIRK_TANH_INF | CLB__QUIRK_CONCURRENT_MAP | CLB__QUIRK_SVM_LOOKUP);
    assert_true(clb__quirk_applies(sat, "rusticl", "22.3.6"));
    assert_true(clb__quirk_applies(sat, "RUSTICL", "22.0.0"));
    assert_false(clb__quirk_applies(sat, "rusticl", "23.0.0"));
    assert_false(clb__quirk_applies(sat, "rusticl", "21.3.9"));
    assert_false(clb__quirk_applies(sat, "rusticl", "no version"));
    assert_false(clb__quirk_applies(sat, "Portable Computing Language", "22.3.6"));
    assert_false(clb__quirk_applies(sat, "Clover", "22.3.6"));
}

static void test_names_and_options(void **state)
{
    (void)state;
    char names[128], options[128];
    clb__quirks_for("rusticl", "22.3.6", names, sizeof names, options, sizeof options);
    assert_string_equal(names, "nan-sat-select,loop-limit,literal-folding,sext-compare,"
                               "partial-vector-loops");
    assert_string_equal(options, " -DCLB_QUIRK_NAN_SAT_SELECT=1 -DCLB_QUIRK_LITERAL_FOLDING=1");
    clb__quirks_for("Portable Computing Language", "3.1+debian", names, sizeof names, options,
                    sizeof options);
    assert_string_equal(names, "tanh-inf,concurrent-map,svm-lookup");
    assert_string_equal(options, "");
    /* Either buffer may be left out; a short one is cut, never overrun. */
    clb__quirks_for("rusticl", "22.3.6", NULL, 0, options, sizeof options);
    assert_string_equal(options, " -DCLB_QUIRK_NAN_SAT_SELECT=1 -DCLB_QUIRK_LITERAL_FOLDING=1");
    char tiny[4];
    clb__quirks_for("rusticl", "22.3.6", tiny, sizeof tiny, NULL, 0);
    assert_true(strlen(tiny) < sizeof tiny);
}

/* The documented launch-style rule (src/opencl/cl_launch.h): work-groups as loops on
   PoCL's CPU devices only; lanes everywhere else and under the loop limit. */
static void test_launch_style(void **state)
{
    (void)state;
    assert_true(clb__cl_launch_style(CLB_DEVICE_CPU, "Portable Computing Language", 0));
    assert_false(clb__cl_launch_style(CLB_DEVICE_GPU, "Portable Computing Language", 0));
    assert_false(clb__cl_launch_style(CLB_DEVICE_CPU, "rusticl", 0));
    assert_false(clb__cl_launch_style(CLB_DEVICE_CPU, "rusticl", CLB__QUIRK_LOOP_LIMIT));
    assert_false(clb__cl_launch_style(CLB_DEVICE_CPU, "Portable Computing Language",
                                      CLB__QUIRK_LOOP_LIMIT));
    assert_false(clb__cl_launch_style(CLB_DEVICE_CPU, "Intel(R) OpenCL", 0));
    assert_false(clb__cl_launch_style(CLB_DEVICE_GPU, "NVIDIA CUDA", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_version),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_names_and_options),
        cmocka_unit_test(test_launch_style),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
