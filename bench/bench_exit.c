/* Exit never waits for the compiler (issue 25, item 2): a user's first program,
 * batch normalisation of (32, 3, 64, 64) float32 images with per-channel mean and
 * population std, "(x - mean) / std", run as three fresh processes per device:
 *
 *   cold   empty CLB_CACHE_DIR, POCL_CACHE_DIR and MESA_SHADER_CACHE_DIR
 *          (fresh temporary directories);
 *   next   the next process over what the cold one left behind;
 *   warm   once more, under the same cache write policy;
 *   write  a process with CLB_CACHE_WRITE=always (writes every binary at once);
 *   binary a fully warm process: every program's binary on disk.
 *
 * For each: "first result" is from clb_context_create to the end of the
 * clb_tensor_to_host of the normalised images; "release" is how long
 * clb_context_release took after it; "process" is the child's whole life as its
 * parent saw it (exit included).
 *
 *   bench_exit [--device SEL]...        (default: pocl, and rusticl when present) */
#include "clbroadcast.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "bench_exit: %s: %s: %s\n", #call, clb_status_name(st_),               \
                    clb_last_error());                                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* One process's work; prints "first release" in seconds on fd 3's stream. */
static int child(const char *selector, FILE *report)
{
    enum { N = 32, C = 3, H = 64, W = 64 };
    static float x[N * C * H * W], y[N * C * H * W];
    uint64_t r = 12345;
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (float)(r >> 40) / (float)(1u << 24) * 4.0f - 1.0f;
    }
    double t0 = clbb_now();
    clb_context *ctx = NULL;
    clb_tensor *t = NULL, *mean = NULL, *std = NULL, *out = NULL;
    const int axes[3] = {0, 2, 3};
    CHECK(clb_context_create(selector, &ctx));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 4, (const int64_t[]){N, C, H, W}, x, &t));
    CHECK(clb_reduce(CLB_MEAN, t, 3, axes, 1, &mean));
    CHECK(clb_std(t, 3, axes, 0, 1, &std));
    const char *names[3] = {"x", "m", "s"};
    const clb_tensor *in[3] = {t, mean, std};
    CHECK(clb_eval(ctx, "(x - m) / s", 3, names, in, &out));
    CHECK(clb_tensor_to_host(out, y, sizeof y));
    double first = clbb_now() - t0;
    clb_tensor_release(out);
    clb_tensor_release(std);
    clb_tensor_release(mean);
    clb_tensor_release(t);
    double r0 = clbb_now();
    clb_context_release(ctx);
    double release = clbb_now() - r0;
    fprintf(report, "%.3f %.3f\n", first, release);
    fflush(report);
    return 0;
}

static void run(const char *self, const char *selector, const char *label)
{
    int fds[2];
    if (pipe(fds) != 0) exit(1);
    fflush(NULL);
    double t0 = clbb_now();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        execl(self, self, "--child", selector, fd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[128] = "";
    FILE *f = fdopen(fds[0], "r");
    if (!f || !fgets(line, sizeof line, f)) line[0] = '\0';
    if (f) fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    double process = clbb_now() - t0;
    double first = 0, release = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(line, "%lf %lf", &first, &release) != 2) {
        printf("%-8s %-6s failed (status 0x%x)\n", selector, label, status);
        return;
    }
    printf("%-8s %-6s first result %7.3f s   release %7.3f s   process %7.3f s\n", selector, label,
           first, release, process);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--child")) {
        FILE *report = fdopen(atoi(argv[3]), "w");
        return report ? child(argv[2], report) : 1;
    }
    const char *devices[8];
    int n = 0;
    for (int i = 1; i + 1 < argc && n < 8; i += 2)
        if (!strcmp(argv[i], "--device")) devices[n++] = argv[i + 1];
    if (n == 0) {
        devices[n++] = "pocl";
        if (getenv("RUSTICL_ENABLE")) devices[n++] = "rusticl";
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return 1;
    self[len] = '\0';
    for (int d = 0; d < n; d++) {
        char root[] = "/tmp/bench_exit-XXXXXX", dir[64];
        if (!mkdtemp(root)) return 1;
        const char *vars[3] = {"CLB_CACHE_DIR", "POCL_CACHE_DIR", "MESA_SHADER_CACHE_DIR"};
        for (int v = 0; v < 3; v++) {
            snprintf(dir, sizeof dir, "%s/%d", root, v);
            setenv(vars[v], dir, 1);
        }
        run(self, devices[d], "cold");
        run(self, devices[d], "next");
        run(self, devices[d], "warm");
        /* Fully warm: one process that writes every program's binary at once
           (as clb warmup does), then one that loads them. */
        setenv("CLB_CACHE_WRITE", "always", 1);
        run(self, devices[d], "write");
        unsetenv("CLB_CACHE_WRITE");
        run(self, devices[d], "binary");
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", root);
        if (system(cmd) != 0) fprintf(stderr, "bench_exit: could not remove %s\n", root);
    }
    return 0;
}
