/* The on-disk caches as a security boundary (issue 26, findings 4-6; docs/cache.md):
 * whoever can write the cache directory can run code in every process that loads
 * it, so the library uses only a directory owned by the user and writable by
 * nobody else, opens only regular files of the user's inside it, never follows a
 * planted link nor waits on a FIFO, and writes only inside it through files it
 * creates itself. The file layer is tested directly (no device); then on every
 * OpenCL device planted FIFOs (under an alarm: a hang fails), swapped and forged
 * entries, and refused directories end in programs built from source and right
 * numbers. Root runs the ownership cases (chown); everyone the rest. */
#include "testutil.h"

#include "cl_backend.h"
#include "files.h"
#include "cl_tuning_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[512]; /* a fresh private directory per run */

#define NOBODY 65534

static void spill(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    fclose(f);
}

/* The whole content of path, as a string (caller frees). */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}

static void path_of(char *buf, size_t cap, const char *a, const char *b)
{
    if (snprintf(buf, cap, "%s/%s", a, b) >= (int)cap) fail_msg("path too long: %s/%s", a, b);
}

/* A victim: a private file of the user's that no cache write may touch. */
static void make_victim(char *victim, size_t cap)
{
    path_of(victim, cap, root, "victim");
    spill(victim, "the user's own data");
    chmod(victim, 0600);
}

static void victim_intact(const char *victim)
{
    char *text = slurp(victim, NULL);
    assert_string_equal(text, "the user's own data");
    free(text);
}

static void dir_refused(const char *dir, const char *reason)
{
    char why[8192];
    int fd = clb__cache_dir_open(dir, true, why, sizeof why);
    if (fd >= 0) fail_msg("cache directory %s was accepted; expected: %s", dir, reason);
    if (!strstr(why, reason) || !strstr(why, dir) || !strstr(why, "CLB_CACHE_DIR"))
        fail_msg("refusing %s: the message \"%s\" should name it, say \"%s\" and the way out",
                 dir, why, reason);
}

/* ---- the file layer -------------------------------------------------------------- */

/* Runs first: the temporary names a write tries next are then predictable. */
static void test_planted_temporaries(void **state)
{
    (void)state;
    char dir[1024], victim[1024], link[1536];
    make_victim(victim, sizeof victim);
    path_of(dir, sizeof dir, root, "planted-tmp");
    int fd = clb__cache_dir_open(dir, true, NULL, 0);
    assert_true(fd >= 0);
    /* Finding 4: links at the names the writer would have used, to the victim. */
    for (int k = 0; k < 32; k++) {
        snprintf(link, sizeof link, "%s/entry.clbin.tmp.%ld.%d", dir, (long)getpid(), k);
        assert_int_equal(symlink(victim, link), 0);
    }
    const void *parts[2] = {"cache ", "entry"};
    const size_t lens[2] = {6, 5};
    assert_true(clb__cache_write(fd, "entry.clbin", 2, parts, lens));
    victim_intact(victim);
    path_of(link, sizeof link, dir, "entry.clbin");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    char *text = slurp(link, NULL);
    assert_string_equal(text, "cache entry");
    free(text);
    close(fd);
}

static void test_dir_created_private(void **state)
{
    (void)state;
    char dir[1024], mid[1024];
    mode_t old = umask(0);
    path_of(mid, sizeof mid, root, "fresh");
    path_of(dir, sizeof dir, mid, "levels");
    int fd = clb__cache_dir_open(dir, true, NULL, 0);
    umask(old);
    assert_true(fd >= 0);
    close(fd);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(stat(mid, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    /* Absent and not to be created: -1 without a complaint. */
    char why[64] = "x", absent[1024];
    path_of(absent, sizeof absent, root, "absent");
    assert_int_equal(clb__cache_dir_open(absent, false, why, sizeof why), -1);
    assert_string_equal(why, "");
    assert_int_equal(clb__cache_dir_open("", true, why, sizeof why), -1);
}

static void test_dir_refused(void **state)
{
    (void)state;
    char dir[1024], file[1024], link[1024];
    path_of(dir, sizeof dir, root, "shared");
    assert_int_equal(mkdir(dir, 0700), 0);
    chmod(dir, 0777);
    dir_refused(dir, "writable by other users");
    chmod(dir, 01777); /* sticky, as /tmp: others still create names in it */
    dir_refused(dir, "writable by other users");
    chmod(dir, 0770);
    dir_refused(dir, "writable by its group");
    chmod(dir, 0755); /* readable by others is no risk */
    int fd = clb__cache_dir_open(dir, true, NULL, 0);
    assert_true(fd >= 0);
    close(fd);

    path_of(file, sizeof file, root, "a-file");
    spill(file, "x");
    dir_refused(file, "not a directory");
    char below[1536];
    path_of(below, sizeof below, file, "cache"); /* its parent is a file */
    dir_refused(below, "not a directory");

    if (geteuid() == 0) { /* ownership needs chown */
        assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
        dir_refused(dir, "owned by uid 65534");
        assert_int_equal(chown(dir, 0, 0), 0);
        /* A link another user planted where the directory should be. */
        path_of(link, sizeof link, root, "planted-link");
        assert_int_equal(symlink(dir, link), 0);
        assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
        dir_refused(link, "symbolic link owned by uid 65534");
    }
    /* The user's own link to a private directory is the user's choice. */
    path_of(link, sizeof link, root, "own-link");
    assert_int_equal(symlink(dir, link), 0);
    fd = clb__cache_dir_open(link, false, NULL, 0);
    assert_true(fd >= 0);
    close(fd);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_cache_trust: a cache operation hung (alarm)\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(2);
}

static void test_only_regular_files(void **state)
{
    (void)state;
    char dir[1024], victim[1024], p[1536];
    make_victim(victim, sizeof victim);
    path_of(dir, sizeof dir, root, "odd-files");
    int fd = clb__cache_dir_open(dir, true, NULL, 0);
    assert_true(fd >= 0);
    size_t size = 7;
    path_of(p, sizeof p, dir, "link.clbin");
    assert_int_equal(symlink(victim, p), 0);
    assert_null(clb__cache_read(fd, "link.clbin", 1 << 20, &size));
    assert_int_equal(size, 0);
    char head[8];
    assert_int_equal(clb__cache_read_head(fd, "link.clbin", head, sizeof head), 0);
    path_of(p, sizeof p, dir, "fifo.clbin");
    assert_int_equal(mkfifo(p, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(20); /* finding 5: a blocking open would wait for a writer forever */
    assert_null(clb__cache_read(fd, "fifo.clbin", 1 << 20, &size));
    assert_int_equal(clb__cache_read_head(fd, "fifo.clbin", head, sizeof head), 0);
    alarm(0);
    path_of(p, sizeof p, dir, "dir.clbin");
    assert_int_equal(mkdir(p, 0700), 0);
    assert_null(clb__cache_read(fd, "dir.clbin", 1 << 20, &size));
    path_of(p, sizeof p, dir, "big.clbin");
    spill(p, "0123456789");
    assert_null(clb__cache_read(fd, "big.clbin", 9, &size));
    unsigned char *data = clb__cache_read(fd, "big.clbin", 10, &size);
    assert_non_null(data);
    assert_int_equal(size, 10);
    free(data);
    if (geteuid() == 0) {
        assert_int_equal(chown(p, NOBODY, NOBODY), 0);
        assert_null(clb__cache_read(fd, "big.clbin", 10, &size));
    }
    /* A write replaces a planted link at the entry's name, never follows it. */
    const void *parts[1] = {"new"};
    const size_t lens[1] = {3};
    assert_true(clb__cache_write(fd, "link.clbin", 1, parts, lens));
    victim_intact(victim);
    assert_false(clb__cache_write(fd, "../escape", 1, parts, lens)); /* names, never paths */
    close(fd);
}

/* The matmul tuning file goes through the same rules. */
static void test_tuning_file(void **state)
{
    (void)state;
    static const clb_device_info dev = {.name = "dev", .platform = "plat", .vendor = "v",
                                        .driver_version = "1"};
    char dir[1024], victim[1024], id[2048], path[4096], why[8192];
    make_victim(victim, sizeof victim);
    path_of(dir, sizeof dir, root, "tuning");
    setenv("CLB_CACHE_DIR", dir, 1);
    clb__mm_tuning t, back;
    memset(&t, 0, sizeof t);
    t.batch = t.m = t.n = t.k = 256;
    t.choice = CLB__MM_CHOICE_KERNEL;
    clb__mm_tuning_identity(&dev, CLB_FLOAT32, "clblast", id, sizeof id);
    assert_true(clb__mm_tuning_path(id, path, sizeof path));
    assert_true(clb__mm_tuning_save(path, id, &t, why, sizeof why));
    assert_true(clb__mm_tuning_load(path, id, &back));
    /* A link in the file's place: not read, and replaced rather than followed. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(victim, path), 0);
    assert_false(clb__mm_tuning_load(path, id, &back));
    assert_true(clb__mm_tuning_save(path, id, &t, why, sizeof why));
    victim_intact(victim);
    /* A directory others can write: neither read nor written, and the reason. */
    chmod(dir, 0777);
    assert_false(clb__mm_tuning_load(path, id, &back));
    assert_false(clb__mm_tuning_save(path, id, &t, why, sizeof why));
    assert_non_null(strstr(why, "writable by other users"));
    chmod(dir, 0700);
    assert_true(clb__mm_tuning_load(path, id, &back));
}

/* ---- on the devices ------------------------------------------------------------- */

/* A float32 -> int32 cast of a permuted view and an int16 broadcast copy: two
   programs. Returns the cache statistics; the values are checked. */
static clb__program_cache_stats work(const char *selector, const char *dir)
{
    static const float a[6] = {1.5f, -2.0f, 3.25f, 40.0f, -5.0f, 6.0f};
    static const int16_t s[4] = {1, -2, 3, -4};
    static const int32_t want[6] = {1, 40, -2, -5, 3, 6};
    setenv("CLB_CACHE_DIR", dir, 1);
    clb_context *ctx = NULL;
    clb_tensor *ta = NULL, *tp = NULL, *tc = NULL, *ts = NULL, *tb = NULL;
    int32_t got[6];
    int16_t got16[8];
    CLBT_OK(clb_context_create(selector, &ctx));
    CLBT_OK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, (const int64_t[]){2, 3}, a, &ta));
    CLBT_OK(clb_permute(ta, (const int[]){1, 0}, &tp));
    CLBT_OK(clb_cast(tp, CLB_INT32, &tc));
    CLBT_OK(clb_tensor_to_host(tc, got, sizeof got));
    CLBT_OK(clb_tensor_from_host(ctx, CLB_INT16, 1, (const int64_t[]){4}, s, &ts));
    CLBT_OK(clb_broadcast_to(ts, 2, (const int64_t[]){2, 4}, &tb));
    CLBT_OK(clb_tensor_to_host(tb, got16, sizeof got16));
    assert_memory_equal(got, want, sizeof want);
    assert_memory_equal(got16, s, sizeof s);
    assert_memory_equal(got16 + 4, s, sizeof s);
    clb__program_cache_stats st;
    clb__program_cache_get_stats(clb__cl_context_programs(ctx), &st);
    clb_tensor_release(tb);
    clb_tensor_release(ts);
    clb_tensor_release(tc);
    clb_tensor_release(tp);
    clb_tensor_release(ta);
    clb_context_release(ctx); /* waits for the disk writes */
    return st;
}

/* The names of dir's cache entries (at most 8), sorted. */
static int entries(const char *dir, char names[8][64])
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".clbin") != 0 || n == 8) continue;
        snprintf(names[n++], 64, "%s", e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[64];
            memcpy(t, names[j], 64);
            memcpy(names[j], names[j - 1], 64);
            memcpy(names[j - 1], t, 64);
        }
    return n;
}

static void expect_rebuilt(const char *selector, const char *dir, const char *what)
{
    clb__program_cache_stats st = work(selector, dir);
    if (st.binary_loads != 0 || st.source_builds < 2)
        fail_msg("%s, %s: %lu programs loaded from disk, %lu built", selector, what,
                 st.binary_loads, st.source_builds);
}

static void expect_loaded(const char *selector, const char *dir, const char *what)
{
    clb__program_cache_stats st = work(selector, dir);
    if (st.source_builds != 0)
        fail_msg("%s, %s: %lu programs built, expected all from disk", selector, what,
                 st.source_builds);
}

/* Entry b's key with entry a's binary, checksum recomputed: what an attacker who
   can write the directory makes (finding 6). */
static void forge(const char *dir, const char *a_name, const char *b_name)
{
    char pa[1536], pb[1536];
    path_of(pa, sizeof pa, dir, a_name);
    path_of(pb, sizeof pb, dir, b_name);
    size_t na, nb;
    char *a = slurp(pa, &na), *b = slurp(pb, &nb);
    const unsigned char *bin_a, *bin_b;
    size_t la, lb;
    uint64_t key_len;
    memcpy(&key_len, b + 8, 8);
    /* The parser needs the right key: take each file's own from its bytes. */
    char *key_a = strndup(a + 16, (size_t)((const uint64_t *)(const void *)(a + 8))[0]);
    char *key_b = strndup(b + 16, (size_t)key_len);
    assert_true(clb__program_cache_parse((unsigned char *)a, na, key_a, &bin_a, &la));
    assert_true(clb__program_cache_parse((unsigned char *)b, nb, key_b, &bin_b, &lb));
    uint64_t sum = 0xcbf29ce484222325ull, len = la;
    for (size_t i = 0; i < la; i++) sum = (sum ^ bin_a[i]) * 0x100000001b3ull;
    FILE *f = fopen(pb, "wb");
    assert_non_null(f);
    fwrite("CLBBIN01", 1, 8, f);
    fwrite(&key_len, 8, 1, f);
    fwrite(key_b, 1, (size_t)key_len, f);
    fwrite(&len, 8, 1, f);
    fwrite(&sum, 8, 1, f);
    fwrite(bin_a, 1, la, f);
    fclose(f);
    free(key_a);
    free(key_b);
    free(a);
    free(b);
}

static void on_device(const char *selector)
{
    char dir[1024], names[8][64], p[1536], q[1536];
    snprintf(p, sizeof p, "dev-%s", selector);
    path_of(dir, sizeof dir, root, p);
    expect_rebuilt(selector, dir, "an empty cache");
    int n = entries(dir, names);
    assert_true(n >= 2);
    expect_loaded(selector, dir, "a filled cache");

    /* Two entries swapped: each file's key is not its name's program. */
    path_of(p, sizeof p, dir, names[0]);
    path_of(q, sizeof q, dir, names[1]);
    char tmp[1600];
    snprintf(tmp, sizeof tmp, "%s.swap", p);
    assert_int_equal(rename(p, tmp), 0);
    assert_int_equal(rename(q, p), 0);
    assert_int_equal(rename(tmp, q), 0);
    expect_rebuilt(selector, dir, "swapped entries");
    expect_loaded(selector, dir, "the repaired cache");

    /* A directory others can write is refused whole: a forged entry there (another
       program's binary under this key, checksum recomputed) is never loaded,
       nothing is written, and the device's count says why. */
    chmod(dir, 0777);
    forge(dir, names[0], names[1]);
    struct stat before, after;
    path_of(p, sizeof p, dir, names[1]);
    assert_int_equal(stat(p, &before), 0);
    expect_rebuilt(selector, dir, "a directory others can write");
    assert_int_equal(stat(p, &after), 0);
    assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
    assert_int_equal(before.st_ino, after.st_ino);
    assert_int_equal(entries(dir, names), n);
    clb_context *ctx = NULL;
    clb_device_info info;
    CLBT_OK(clb_context_create(selector, &ctx));
    CLBT_OK(clb_context_get_info(ctx, &info));
    clb_context_release(ctx);
    int count = -1;
    assert_int_equal(clb_device_cached_programs(info.index, &count), CLB_ERR_UNSUPPORTED);
    assert_int_equal(count, 0);
    assert_non_null(strstr(clb_last_error(), "clb_device_cached_programs"));
    assert_non_null(strstr(clb_last_error(), "writable by other users"));
    chmod(dir, 0700);
    assert_int_equal(unlink(p), 0); /* the forged one; the user's own directory again */

    /* FIFOs in every entry's place: misses, never a wait (finding 5). */
    n = entries(dir, names);
    for (int i = 0; i < n; i++) {
        path_of(p, sizeof p, dir, names[i]);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkfifo(p, 0600), 0);
    }
    signal(SIGALRM, on_alarm);
    alarm(300);
    CLBT_OK(clb_device_cached_programs(info.index, &count));
    assert_int_equal(count, 0);
    expect_rebuilt(selector, dir, "FIFOs for entries");
    alarm(0);
    expect_loaded(selector, dir, "FIFOs replaced");

    /* A regular file where the directory should be: no disk cache, right results. */
    path_of(p, sizeof p, root, "not-a-dir");
    spill(p, "x");
    expect_rebuilt(selector, p, "a file for a directory");
    expect_rebuilt(selector, p, "a file for a directory, again");
    setenv("CLB_CACHE_DIR", p, 1);
    assert_int_equal(clb_device_cached_programs(info.index, &count), CLB_ERR_UNSUPPORTED);
    assert_non_null(strstr(clb_last_error(), "not a directory"));

    if (geteuid() == 0) { /* someone else's directory, its modes fine */
        assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
        expect_rebuilt(selector, dir, "another user's directory");
        assert_int_equal(chown(dir, 0, 0), 0);
    }
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void test_devices(void **state)
{
    (void)state;
    char sel[CLBT_MAX_DEVICES][32];
    int n = clbt_selectors(sel), devices = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(sel[i], "host") == 0) continue;
        on_device(sel[i]);
        devices++;
    }
    if (devices == 0) skip();
}

static int setup(void **state)
{
    (void)state;
    setenv("CLB_CACHE_WRITE", "always", 1); /* the disk level on every driver, PoCL too */
    snprintf(root, sizeof root, "%s/trust-XXXXXX", P_tmpdir);
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_temporaries), /* first: see there */
        cmocka_unit_test(test_dir_created_private),
        cmocka_unit_test(test_dir_refused),
        cmocka_unit_test(test_only_regular_files),
        cmocka_unit_test(test_tuning_file),
        cmocka_unit_test(test_devices),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
