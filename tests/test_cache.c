/* The program caches seen from an element-wise op, on every OpenCL device:
 *  - a second context in the same process loads from disk, builds nothing;
 *  - a second process (this binary, re-executed) builds nothing from source;
 *  - corrupted cache files are ignored: the program is rebuilt, results stay right.
 *  - by default a PoCL process leaves the next one's warmth to PoCL's own kernel
 *    cache and writes no entry (so its clb_context_release never waits for the
 *    compiler); every other driver writes its entries.
 * White-box: counts builds with the program cache's counters. The disk cache
 * lives in a fresh temporary directory ($CLB_CACHE_DIR), removed at the end; the
 * disk level's tests write entries on every driver (CLB_CACHE_WRITE=always). */
#include "testutil.h"

#include "cl_backend.h"

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char cache_dir[256];

/* Runs a few element-wise ops (and checks one result), then returns the
   context's program-cache counters. */
static clb__program_cache_stats run_ops(const char *selector)
{
    clb_context *ctx = NULL;
    CLBT_OK(clb_context_create(selector, &ctx));
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30}, got[6];
    int64_t sa[2] = {2, 3}, sb[1] = {3};
    clb_tensor *ta = clbt_tensor(ctx, CLB_FLOAT32, 2, sa, a);
    clb_tensor *tb = clbt_tensor(ctx, CLB_FLOAT32, 1, sb, b);
    clb_tensor *sum = NULL, *neg = NULL;
    CLBT_OK(clb_binary(CLB_ADD, ta, tb, &sum));
    CLBT_OK(clb_unary(CLB_NEG, sum, &neg));
    CLBT_OK(clb_tensor_to_host(neg, got, sizeof got));
    for (int i = 0; i < 6; i++) assert_true(got[i] == -(a[i] + b[i % 3]));
    clb__program_cache_stats stats;
    clb__program_cache_get_stats(clb__cl_context_programs(ctx), &stats);
    clb_tensor_release(neg);
    clb_tensor_release(sum);
    clb_tensor_release(ta);
    clb_tensor_release(tb);
    clb_context_release(ctx);
    return stats;
}

static bool is_opencl(const char *selector)
{
    return strcmp(selector, "host") != 0;
}

/* Applies fn to every regular file of the cache directory. */
static int for_each_file(void (*fn)(const char *path))
{
    DIR *dir = opendir(cache_dir);
    if (!dir) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        fn(path);
        n++;
    }
    closedir(dir);
    return n;
}

static void remove_file(const char *path)
{
    unlink(path);
}

/* Keeps the header and flips bytes in the middle: a damaged binary. */
static void corrupt_file(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f) return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    fwrite("garbage!", 1, 8, f);
    fclose(f);
}

static void truncate_file(const char *path)
{
    truncate(path, 20);
}

static void test_second_context_loads_from_disk(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    for (int i = 0; i < n; i++) {
        if (!is_opencl(sel[i])) continue;
        for_each_file(remove_file);
        clb__program_cache_stats first = run_ops(sel[i]);
        assert_true(first.source_builds >= 2);
        clb__program_cache_stats second = run_ops(sel[i]);
        if (second.source_builds != 0)
            fail_msg("device %s: a second context compiled %lu programs from source", sel[i],
                     second.source_builds);
        assert_true(second.binary_loads >= 2);
    }
}

/* The child half of the next test: exit status 0 when nothing was compiled. */
static int child_main(const char *selector)
{
    clb__program_cache_stats stats = run_ops(selector);
    return stats.source_builds == 0 && stats.binary_loads >= 2 ? 0 : 3;
}

static void test_second_process_builds_nothing(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    for (int i = 0; i < n; i++) {
        if (!is_opencl(sel[i])) continue;
        run_ops(sel[i]); /* make sure the programs are on disk */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            execl("/proc/self/exe", "test_cache", "--child", sel[i], (char *)NULL);
            _exit(127);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("device %s: the second process compiled programs from source (status %d)",
                     sel[i], status);
    }
}

static void test_corrupt_files_are_rebuilt(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    void (*damage[2])(const char *) = {corrupt_file, truncate_file};
    for (int i = 0; i < n; i++) {
        if (!is_opencl(sel[i])) continue;
        for (int d = 0; d < 2; d++) {
            run_ops(sel[i]);
            assert_true(for_each_file(damage[d]) > 0);
            clb__program_cache_stats stats = run_ops(sel[i]); /* checks the values too */
            assert_true(stats.source_builds >= 2);
            /* rebuilt files are whole again */
            stats = run_ops(sel[i]);
            assert_int_equal(stats.source_builds, 0);
        }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first 8 bytes of a file: "CLBBIN01" (a program) or "CLBMRK01" (a marker). */
static char magic_seen[2]; /* [0]: a program seen, [1]: a marker seen */
static void note_magic(const char *path)
{
    char head[9] = "";
    FILE *f = fopen(path, "rb");
    if (f) {
        if (fread(head, 1, 8, f) != 8) head[0] = '\0';
        fclose(f);
    }
    if (!strcmp(head, "CLBBIN01")) magic_seen[0] = 1;
    if (!strcmp(head, "CLBMRK01")) magic_seen[1] = 1;
}

/* Issue 25: a first run's exit never waits for the compiler. A short PoCL
   process writes markers, no binaries (asking PoCL for a binary compiles every
   kernel of the program: 5-10 s in clb_context_release before), and the next
   process rebuilds the marked programs at once (a hit in PoCL's own kernel
   cache) instead of taking the cold-start tier; other drivers write binaries. */
static void test_pocl_leaves_it_to_its_own_cache(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    const char *kcache = getenv("POCL_KERNEL_CACHE");
    unsetenv("CLB_CACHE_WRITE");
    for (int i = 0; i < n; i++) {
        if (!is_opencl(sel[i])) continue;
        for_each_file(remove_file);
        clb_context *ctx = NULL;
        clb_device_info info;
        CLBT_OK(clb_context_create(sel[i], &ctx));
        CLBT_OK(clb_context_get_info(ctx, &info));
        clb_context_release(ctx);
        double t0 = now_s();
        clb__program_cache_stats st = run_ops(sel[i]);
        double took = now_s() - t0;
        assert_true(st.source_builds >= 2);
        bool pocl = strstr(info.platform, "Portable Computing Language") != NULL &&
                    !(kcache && strcmp(kcache, "0") == 0);
        magic_seen[0] = magic_seen[1] = 0;
        int files = for_each_file(note_magic);
        if (files < 2) fail_msg("%s: %d disk entries written, expected 2", sel[i], files);
        if (pocl && (magic_seen[0] || !magic_seen[1]))
            fail_msg("%s: a short PoCL process wrote program binaries (or no markers)", sel[i]);
        if (!pocl && (!magic_seen[0] || magic_seen[1]))
            fail_msg("%s: expected program binaries only", sel[i]);
        /* The next context: marked programs are built, never left to the tier. */
        st = run_ops(sel[i]);
        if (pocl && (st.source_builds < 2 || st.binary_loads != 0))
            fail_msg("%s: over markers, %lu built and %lu loaded", sel[i], st.source_builds,
                     st.binary_loads);
        print_message("%s: %d entries (%s), first context %.2f s\n", sel[i], files,
                      pocl ? "markers" : "binaries", took);
    }
    setenv("CLB_CACHE_WRITE", "always", 1);
}

static int setup(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "/tmp/clb-test-cache-XXXXXX");
    if (!mkdtemp(cache_dir)) return -1;
    return setenv("CLB_CACHE_DIR", cache_dir, 1) || setenv("CLB_CACHE_WRITE", "always", 1);
}

static int teardown(void **state)
{
    (void)state;
    for_each_file(remove_file);
    rmdir(cache_dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) return child_main(argv[2]);
    setenv("CLB_CACHE_WRITE", "always", 1); /* inherited by the child */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_context_loads_from_disk),
        cmocka_unit_test(test_second_process_builds_nothing),
        cmocka_unit_test(test_corrupt_files_are_rebuilt),
        cmocka_unit_test(test_pocl_leaves_it_to_its_own_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
