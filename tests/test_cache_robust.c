/* The on-disk program cache never decides a result: truncated, zero-length,
 * corrupted, foreign-device and stale-driver files, an unwritable or missing
 * directory, and two processes filling one directory at once all end in a
 * program built from source (or no caching) and the right numbers. Runs on
 * every OpenCL device; the host backend has no programs.
 *
 * The work is a float32 -> int32 cast of a permuted view and an int16 copy,
 * so each run needs two programs; the cache's statistics tell whether they
 * came from disk or from the compiler. */
#include "testutil.h"

#include "cl_backend.h"

#include <dirent.h>
#include <ftw.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[512]; /* a fresh directory per test run */

/* Runs the work on a new context of `selector` with the cache in `dir`;
   checks the values; returns the cache statistics. In a child process
   failures exit instead of using cmocka. */
static bool run_work(const char *selector, const char *dir, clb__program_cache_stats *stats)
{
    static const float a[6] = {1.5f, -2.0f, 3.25f, 40.0f, -5.0f, 6.0f};
    static const int16_t s[4] = {1, -2, 3, -4};
    setenv("CLB_CACHE_DIR", dir, 1);
    clb_context *ctx = NULL;
    clb_tensor *ta = NULL, *tp = NULL, *tc = NULL, *ts = NULL, *tb = NULL;
    int32_t got[6];
    int16_t got16[8];
    bool ok = clb_context_create(selector, &ctx) == CLB_OK &&
              clb_tensor_from_host(ctx, CLB_FLOAT32, 2, (const int64_t[]){2, 3}, a, &ta) == CLB_OK &&
              clb_permute(ta, (const int[]){1, 0}, &tp) == CLB_OK &&
              clb_cast(tp, CLB_INT32, &tc) == CLB_OK &&
              clb_tensor_to_host(tc, got, sizeof got) == CLB_OK &&
              clb_tensor_from_host(ctx, CLB_INT16, 1, (const int64_t[]){4}, s, &ts) == CLB_OK &&
              clb_broadcast_to(ts, 2, (const int64_t[]){2, 4}, &tb) == CLB_OK &&
              clb_tensor_to_host(tb, got16, sizeof got16) == CLB_OK;
    if (ok) {
        /* transposed (2, 3) -> (3, 2), truncated toward zero */
        static const int32_t want[6] = {1, 40, -2, -5, 3, 6};
        ok = memcmp(got, want, sizeof want) == 0 && memcmp(got16, s, sizeof s) == 0 &&
             memcmp(got16 + 4, s, sizeof s) == 0;
        if (!ok) fprintf(stderr, "cache_robust: wrong values with cache dir %s\n", dir);
    } else {
        fprintf(stderr, "cache_robust: %s\n", clb_last_error());
    }
    if (ok) clb__program_cache_get_stats(clb__cl_context_programs(ctx), stats);
    clb_tensor_release(tb);
    clb_tensor_release(ts);
    clb_tensor_release(tc);
    clb_tensor_release(tp);
    clb_tensor_release(ta);
    clb_context_release(ctx);
    return ok;
}

static clb__program_cache_stats work(const char *selector, const char *dir)
{
    clb__program_cache_stats st = {0};
    if (!run_work(selector, dir, &st)) fail_msg("%s: the work failed with cache dir %s", selector, dir);
    return st;
}

/* Applies fn to every cache file in dir; returns how many there were. */
static int each_file(const char *dir, void (*fn)(const char *path))
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    char path[4096];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".clbin") != 0) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            fail_msg("cache path too long: %s/%s", dir, e->d_name);
        if (fn) fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void spill(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* ---- the ways a file goes bad ------------------------------------------------- */

static void truncate_half(const char *path)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    spill(path, d, n / 2);
    free(d);
}

static void zero_length(const char *path)
{
    spill(path, (const unsigned char *)"", 0);
}

static void flip_binary(const char *path)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    d[n - 1 - n / 7] ^= 0x5a; /* inside the binary: the checksum no longer matches */
    spill(path, d, n);
    free(d);
}

static void garbage(const char *path)
{
    unsigned char d[300];
    uint64_t r = 42;
    for (size_t i = 0; i < sizeof d; i++) d[i] = (unsigned char)clbt_rand(&r);
    memcpy(d, "CLBBIN01", 8); /* right magic, nonsense after it */
    spill(path, d, sizeof d);
}

/* Rewrites the value of one key line ("device ", "driver ") in place, keeping
   the file name: what a file from another device or an older driver that
   happens to sit under this name looks like. */
static void rewrite_line(const char *path, const char *field)
{
    size_t n;
    unsigned char *d = slurp(path, &n);
    d[n] = '\0';
    size_t key_start = 8 + 8;
    char *line = NULL;
    for (size_t i = key_start; i + strlen(field) < n; i++)
        if ((i == key_start || d[i - 1] == '\n') && memcmp(d + i, field, strlen(field)) == 0) {
            line = (char *)d + i + strlen(field);
            break;
        }
    assert_non_null(line);
    for (char *p = line; *p && *p != '\n'; p++) *p = *p == 'X' ? 'Y' : 'X';
    spill(path, d, n);
    free(d);
}
static void foreign_device(const char *path)
{
    rewrite_line(path, "device ");
}
static void stale_driver(const char *path)
{
    rewrite_line(path, "driver ");
}

typedef struct corruption {
    const char *name;
    void (*apply)(const char *path);
} corruption;

static const corruption corruptions[] = {
    {"truncated", truncate_half},     {"zero-length", zero_length},
    {"corrupted binary", flip_binary}, {"garbage", garbage},
    {"foreign device", foreign_device}, {"stale driver", stale_driver},
};

static void robust(const char *selector)
{
    char dir[2048];
    /* A missing directory (several levels) is created on the first save. */
    snprintf(dir, sizeof dir, "%s/%s/missing/levels", root, selector);
    clb__program_cache_stats st = work(selector, dir);
    assert_true(st.source_builds >= 2);
    int files = each_file(dir, NULL);
    assert_true(files >= 2);
    st = work(selector, dir);
    if (st.source_builds != 0 || st.binary_loads < 2)
        fail_msg("%s: a warm cache still built %lu programs (%lu loaded)", selector,
                 st.source_builds, st.binary_loads);

    for (size_t c = 0; c < sizeof corruptions / sizeof corruptions[0]; c++) {
        each_file(dir, corruptions[c].apply);
        st = work(selector, dir);
        if (st.binary_loads != 0 || st.source_builds < 2)
            fail_msg("%s, %s files: %lu loaded, %lu built", selector, corruptions[c].name,
                     st.binary_loads, st.source_builds);
        /* The rebuilt programs replaced the bad files. */
        st = work(selector, dir);
        if (st.source_builds != 0)
            fail_msg("%s, after %s files: the cache was not repaired", selector,
                     corruptions[c].name);
        assert_int_equal(each_file(dir, NULL), files);
    }
}

/* A directory that cannot be created or written: no caching, right results. */
static void unwritable(const char *selector)
{
    char file[2048], dir[2560];
    snprintf(file, sizeof file, "%s/%s-a-file", root, selector);
    spill(file, (const unsigned char *)"x", 1);
    snprintf(dir, sizeof dir, "%s/cache", file); /* its parent is a regular file */
    clb__program_cache_stats st = work(selector, dir);
    assert_true(st.source_builds >= 2);
    st = work(selector, dir);
    assert_true(st.source_builds >= 2);

    if (geteuid() != 0) { /* root writes through permission bits */
        snprintf(dir, sizeof dir, "%s/%s-read-only", root, selector);
        assert_int_equal(mkdir(dir, 0500), 0);
        st = work(selector, dir);
        assert_true(st.source_builds >= 2);
        assert_int_equal(each_file(dir, NULL), 0);
        chmod(dir, 0700);
    }
}

/* Two processes fill one empty directory at once; then a third loads it all.
   The two are fresh executions of this program (see main): a fork of a process
   that already runs an OpenCL driver's threads may deadlock in the child. */
static void concurrent(const char *selector)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/%s-shared", root, selector);
    fflush(NULL);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k] == 0) {
            execl("/proc/self/exe", "test_cache_robust", "--fill", selector, dir, (char *)NULL);
            _exit(127);
        }
    }
    for (int k = 0; k < 2; k++) {
        int status = 0;
        assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("%s: process %d filling the cache failed (status 0x%x)", selector, k, status);
    }
    clb__program_cache_stats st = work(selector, dir);
    if (st.source_builds != 0) fail_msg("%s: the shared cache was left incomplete", selector);
    /* No temporary files left behind. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp.")) fail_msg("%s: stray temporary file %s", selector, e->d_name);
    closedir(d);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void test_cache(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel);
    setenv("CLB_CACHE_WRITE", "always", 1); /* the disk level on every driver, PoCL too */
    const char *base = getenv("CLB_CACHE_DIR");
    snprintf(root, sizeof root, "%s/robust-XXXXXX",
             base && base[0] == '/' ? base : P_tmpdir);
    if (base && base[0] == '/') mkdir(base, 0700);
    assert_non_null(mkdtemp(root));
    int devices = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(sel[i], "host") == 0) continue;
        robust(sel[i]);
        unwritable(sel[i]);
        concurrent(sel[i]);
        devices++;
    }
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (devices == 0) skip();
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--fill") == 0) { /* one of concurrent()'s processes */
        setenv("CLB_CACHE_WRITE", "always", 1);
        clb__program_cache_stats st;
        return run_work(argv[2], argv[3], &st) ? 0 : 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
