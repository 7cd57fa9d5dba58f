/* Test of clb_device_cached_programs, the query behind the KERNELS CACHED
 * column of `clb devices`: in a fresh cache directory it counts 0, after one
 * kernel build at least 1, and it ignores files that are not ours or belong to
 * another device, driver or version; "off" and bad arguments behave.
 * Exit status: 0 pass, 1 fail, 77 skip (no OpenCL device). Public API only. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clbroadcast.h"

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, clb_last_error()); \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int cached(int index)
{
    int n = -1;
    clb_status st = clb_device_cached_programs(index, &n);
    CHECK(st == CLB_OK);
    return n;
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, len, f) == len);
        fclose(f);
    }
}

/* A well-formed header whose key names another library version. */
static void write_foreign(const char *dir)
{
    static const char key[] = "clbroadcast 0.0.0-other\nplatform x\ndevice y\n";
    unsigned char buf[256];
    uint64_t len = sizeof key - 1;
    memcpy(buf, "CLBBIN01", 8);
    memcpy(buf + 8, &len, 8);
    memcpy(buf + 16, key, len);
    write_file(dir, "0000000000000001.clbin", buf, 16 + len);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[4096];
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

int main(void)
{
    char dir[] = "/tmp/clb-cache-query-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("CLB_CACHE_DIR", dir, 1);

    int count = 0, n = 0;
    CHECK(clb_device_count(&count) == CLB_OK);
    CHECK(clb_device_cached_programs(-1, &n) == CLB_ERR_INVALID_ARGUMENT);
    CHECK(clb_device_cached_programs(count, &n) == CLB_ERR_INVALID_ARGUMENT);
    if (count == 0) {
        remove_dir(dir);
        puts("SKIP: no OpenCL device");
        return failures ? 1 : 77;
    }
    CHECK(clb_device_cached_programs(0, NULL) == CLB_ERR_INVALID_ARGUMENT);
    CHECK(cached(0) == 0);

    /* One cast builds (and stores) the copy kernel. */
    clb_context *ctx = NULL;
    clb_tensor *x = NULL, *y = NULL;
    const float v[4] = {1, 2, 3, 4};
    CHECK(clb_context_create("0", &ctx) == CLB_OK);
    if (ctx) {
        CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, (const int64_t[]){4}, v, &x) == CLB_OK);
        if (x) CHECK(clb_cast(x, CLB_FLOAT32, &y) == CLB_OK);
        if (y) CHECK(clb_finish(ctx) == CLB_OK);
    }
    clb_tensor_release(y);
    clb_tensor_release(x);
    clb_context_release(ctx);
    int built = cached(0);
    CHECK(built >= 1);

    /* Junk, truncated and foreign files are not this device's programs. */
    write_file(dir, "junk.clbin", "not a program", 13);
    write_file(dir, "0000000000000000.clbin", "CLBBIN01", 8);
    write_foreign(dir);
    write_file(dir, "notes.txt", "CLBBIN01", 8);
    CHECK(cached(0) == built);

    setenv("CLB_CACHE_DIR", "off", 1);
    CHECK(cached(0) == 0);

    remove_dir(dir);
    if (failures) return 1;
    printf("OK: 0 before, %d after one build, foreign files ignored, 0 when off\n", built);
    return 0;
}
