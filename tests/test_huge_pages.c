/* White-box tests of the huge-page advice for large host storage
 * (src/core/huge_pages.h): which blocks get it, that Linux takes it where it has
 * transparent huge pages, and that the storage stays ordinary memory. */
#include "testutil.h"

#include "huge_pages.h"

#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* "always", "madvise" or "never" from the sysfs policy line, "" without THP. */
static const char *thp_policy(void)
{
    static char word[16];
    word[0] = '\0';
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return word;
    char line[128] = {0};
    if (fgets(line, sizeof line, f)) {
        const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b && (size_t)(b - a - 1) < sizeof word) {
            memcpy(word, a + 1, (size_t)(b - a - 1));
            word[b - a - 1] = '\0';
        }
    }
    fclose(f);
    return word;
}

static void small_and_null_blocks_are_left_alone(void **state)
{
    (void)state;
    assert_int_equal(clb__huge_pages_advise(NULL, (size_t)64 << 20), 0);
    static char small[4096];
    assert_int_equal(clb__huge_pages_advise(small, sizeof small), 0);
    /* 4 MiB - 1: under the threshold whatever its alignment. */
    char *p = malloc(CLB__HUGE_PAGES_MIN - 1);
    assert_non_null(p);
    assert_int_equal(clb__huge_pages_advise(p, CLB__HUGE_PAGES_MIN - 1), 0);
    free(p);
}

static void large_blocks_get_the_advice(void **state)
{
    (void)state;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t n = (size_t)16 << 20;
    /* Unaligned on purpose: the advice covers the 2 MiB-aligned interior. */
    char *base = mmap(NULL, n + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    char *p = base + 4096 - 64;
    const char *policy = thp_policy();
    int took = clb__huge_pages_advise(p, n);
    if (policy[0]) {
        /* A kernel with THP takes the advice whatever its policy. */
        if (took != 1) fail_msg("madvise(MADV_HUGEPAGE) refused with THP policy \"%s\"", policy);
    } else {
        assert_int_equal(took, 0);
    }
    /* The storage is ordinary memory either way. */
    memset(p, 0x5a, n);
    for (size_t i = 0; i < n; i += 4093) assert_int_equal((unsigned char)p[i], 0x5a);
    print_message("THP policy \"%s\": advice %s\n", policy[0] ? policy : "(no THP)",
                  took ? "taken" : "not taken");
    munmap(base, n + 4096);
#else
    char *p = malloc((size_t)16 << 20);
    assert_non_null(p);
    assert_int_equal(clb__huge_pages_advise(p, (size_t)16 << 20), 0);
    free(p);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_and_null_blocks_are_left_alone),
        cmocka_unit_test(large_blocks_get_the_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
