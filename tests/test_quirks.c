/* The quirks table (src/cl_quirks.c): version parsing, platform and driver
 * keys, and the build options and names it hands the program cache and
 * clb_device_info. Whether each entry matches a real defect is
 * tests/quirks/check_quirks.py's job, on the devices of the machine. */
#include "testutil.h"

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
    const clb__quirk *sat = NULL;
    for (size_t i = 0; i < n; i++) {
        assert_non_null(q[i].name);
        assert_non_null(q[i].define);
        assert_non_null(q[i].reproducer);
        assert_true(strncmp(q[i].define, "CLB_QUIRK_", 10) == 0);
        if (strcmp(q[i].name, "nan-sat-select") == 0) sat = &q[i];
    }
    assert_non_null(sat);
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
    assert_string_equal(names, "nan-sat-select");
    assert_string_equal(options, " -DCLB_QUIRK_NAN_SAT_SELECT=1");
    clb__quirks_for("Portable Computing Language", "3.1+debian", names, sizeof names, options,
                    sizeof options);
    assert_string_equal(names, "");
    assert_string_equal(options, "");
    /* Either buffer may be left out; a short one is cut, never overrun. */
    clb__quirks_for("rusticl", "22.3.6", NULL, 0, options, sizeof options);
    assert_string_equal(options, " -DCLB_QUIRK_NAN_SAT_SELECT=1");
    char tiny[4];
    clb__quirks_for("rusticl", "22.3.6", tiny, sizeof tiny, NULL, 0);
    assert_true(strlen(tiny) < sizeof tiny);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_version),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_names_and_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
