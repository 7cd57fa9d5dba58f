/* Cold start: how long a user waits for the OpenCL compiler (issue "first results
 * without waiting for the compiler").
 *
 *   bench_cold [--device SEL]... [--trace]   (default: pocl, and rusticl when present)
 *
 * --trace prints each sweep case's time (since the previous case) to stderr.
 *
 * For each device, four child processes of this program (fresh processes, as a
 * user's first run is), each timed from clb_context_create to its last
 * clb_tensor_to_host:
 *   first, cold   one (512,256)+(256,) float32 add, with empty CLB_CACHE_DIR,
 *                 POCL_CACHE_DIR and MESA_SHADER_CACHE_DIR (fresh temporary
 *                 directories);
 *   first, warm   the same again over the caches the cold run filled;
 *   sweep, cold   all 21 binary ops on float32 (512,256)+(256,) (int32 for the
 *                 bitwise ops), add on each of the 12 dtypes, all 14 unary ops,
 *                 sum/mean/max/min/prod over one axis, one sum_to_shape and one
 *                 (64,128)@(128,64) matmul, in one process with empty caches;
 *   sweep, warm   the same over the filled caches.
 * "programs" is how many programs the sweep left in the on-disk cache
 * (clb_device_cached_programs): the programs it built. CLBlast keeps its own in
 * memory only, so a CLBlast GEMM is not counted. Sizes are above CLB_HOST_TINY,
 * so CPU devices launch kernels as GPUs do. */
#include "clbroadcast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "bench_cold: %s: %s: %s\n", #call, clb_status_name(st_),               \
                    clb_last_error());                                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A tensor of dtype t holding 1, 2, 3, 4, 5, 1, ... written on the host in t's
   own representation (no cast kernel: the sweep counts the ops' programs only). */
static clb_tensor *filled(clb_context *ctx, clb_dtype t, int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    size_t sz = clb_dtype_size(t);
    unsigned char *v = calloc((size_t)n, sz);
    if (!v) exit(1);
    for (int64_t i = 0; i < n; i++) {
        int x = 1 + (int)(i % 5);
        unsigned char *p = v + (size_t)i * sz;
        if (t == CLB_BOOL) *p = 1;
        else if (t == CLB_FLOAT16) {
            const unsigned short half[6] = {0, 0x3C00, 0x4000, 0x4200, 0x4400, 0x4500};
            memcpy(p, &half[x], 2);
        } else if (t == CLB_FLOAT32) {
            float f = (float)x;
            memcpy(p, &f, 4);
        } else if (t == CLB_FLOAT64) {
            double d = x;
            memcpy(p, &d, 8);
        } else {
            memcpy(p, &x, 1); /* little-endian: the low byte holds 1..5, the rest stays 0 */
        }
    }
    clb_tensor *c = NULL;
    CHECK(clb_tensor_from_host(ctx, t, ndim, shape, v, &c));
    free(v);
    return c;
}

/* With --trace, each sweep case's time goes to stderr (where the cold time goes). */
static int trace;
static double trace_t0;
static char trace_what[64];
#define WHAT(...) snprintf(trace_what, sizeof trace_what, __VA_ARGS__)

/* Reads t back (the point where the user has the result) and releases it. */
static void take(clb_tensor *t)
{
    size_t bytes = (size_t)clb_tensor_numel(t) * clb_dtype_size(clb_tensor_dtype(t));
    void *buf = malloc(bytes ? bytes : 1);
    if (!buf) exit(1);
    CHECK(clb_tensor_to_host(t, buf, bytes));
    free(buf);
    clb_tensor_release(t);
    if (trace) {
        double t1 = now_s();
        fprintf(stderr, "  %8.1f ms  %s\n", (t1 - trace_t0) * 1e3, trace_what);
        trace_t0 = t1;
    }
}

static const int64_t big[2] = {512, 256}, row[1] = {256};

static void child_first(const char *sel)
{
    double t0 = now_s();
    clb_context *ctx = NULL;
    CHECK(clb_context_create(sel, &ctx));
    clb_tensor *a = filled(ctx, CLB_FLOAT32, 2, big), *b = filled(ctx, CLB_FLOAT32, 1, row), *c = NULL;
    CHECK(clb_binary(CLB_ADD, a, b, &c));
    take(c);
    printf("%.1f\n", (now_s() - t0) * 1e3);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_context_release(ctx);
}

static void child_sweep(const char *sel)
{
    double t0 = now_s();
    trace_t0 = t0;
    clb_context *ctx = NULL;
    CHECK(clb_context_create(sel, &ctx));
    clb_device_info info;
    CHECK(clb_context_get_info(ctx, &info));
    clb_tensor *f[2] = {filled(ctx, CLB_FLOAT32, 2, big), filled(ctx, CLB_FLOAT32, 1, row)};
    clb_tensor *i32[2] = {filled(ctx, CLB_INT32, 2, big), filled(ctx, CLB_INT32, 1, row)};
    for (int op = CLB_ADD; op <= CLB_BITWISE_XOR; op++) {
        clb_tensor **in = op >= CLB_BITWISE_AND ? i32 : f, *c = NULL;
        WHAT("binary %s", clb_binary_op_name((clb_binary_op)op));
        CHECK(clb_binary((clb_binary_op)op, in[0], in[1], &c));
        take(c);
    }
    for (int t = CLB_BOOL; t <= CLB_FLOAT64; t++) {
        if (t == CLB_FLOAT64 && !info.has_fp64) continue; /* refused there (float64 policy) */
        clb_tensor *a = filled(ctx, (clb_dtype)t, 2, big), *b = filled(ctx, (clb_dtype)t, 1, row), *c = NULL;
        WHAT("add %s", clb_dtype_name((clb_dtype)t));
        CHECK(clb_binary(CLB_ADD, a, b, &c));
        take(c);
        clb_tensor_release(a);
        clb_tensor_release(b);
    }
    for (int op = CLB_NEG; op <= CLB_LOGICAL_NOT; op++) {
        clb_tensor *c = NULL;
        WHAT("unary %s", clb_unary_op_name((clb_unary_op)op));
        CHECK(clb_unary((clb_unary_op)op, f[0], &c));
        take(c);
    }
    const int axis = 1;
    for (int op = CLB_SUM; op <= CLB_PROD; op++) {
        clb_tensor *c = NULL;
        WHAT("reduce %s", clb_reduce_op_name((clb_reduce_op)op));
        CHECK(clb_reduce((clb_reduce_op)op, f[0], 1, &axis, 0, &c));
        take(c);
    }
    clb_tensor *s = NULL;
    WHAT("sum_to_shape");
    CHECK(clb_sum_to_shape(f[0], 1, row, &s));
    take(s);
    const int64_t ma[2] = {64, 128}, mb[2] = {128, 64};
    clb_tensor *x = filled(ctx, CLB_FLOAT32, 2, ma), *y = filled(ctx, CLB_FLOAT32, 2, mb), *m = NULL;
    WHAT("matmul");
    CHECK(clb_matmul(x, y, &m));
    take(m);
    double secs = now_s() - t0;
    int programs = 0;
    if (info.index >= 0) CHECK(clb_device_cached_programs(info.index, &programs));
    printf("%.2f %d\n", secs, programs);
    for (int k = 0; k < 2; k++) clb_tensor_release(f[k]), clb_tensor_release(i32[k]);
    clb_tensor_release(x);
    clb_tensor_release(y);
    clb_context_release(ctx);
}

/* Runs this program as `--child MODE SEL` with the two cache directories under
   dir; returns its one line of output in line. */
static int run_child(const char *self, const char *mode, const char *sel, const char *dir,
                     char *line, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "CLB_CACHE_DIR=%s/clb POCL_CACHE_DIR=%s/pocl MESA_SHADER_CACHE_DIR=%s/mesa "
             "'%s' --child %s '%s'",
             dir, dir, dir, self, mode, sel);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    line[0] = '\0';
    if (!fgets(line, (int)cap, p)) line[0] = '\0';
    int rc = pclose(p);
    line[strcspn(line, "\n")] = '\0';
    return rc == 0 && line[0] ? 0 : -1;
}

static void bench_device(const char *self, const char *sel)
{
    clb_context *probe = NULL;
    if (clb_context_create(sel, &probe) != CLB_OK) {
        printf("%-10s (no such device: %s)\n", sel, clb_last_error());
        return;
    }
    clb_device_info info;
    CHECK(clb_context_get_info(probe, &info));
    clb_context_release(probe);
    char first_dir[] = "/tmp/clb-cold-first-XXXXXX", sweep_dir[] = "/tmp/clb-cold-sweep-XXXXXX";
    if (!mkdtemp(first_dir) || !mkdtemp(sweep_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    char cold[128], warm[128], scold[128], swarm[128];
    int ok = run_child(self, "first", sel, first_dir, cold, sizeof cold) == 0 &&
             run_child(self, "first", sel, first_dir, warm, sizeof warm) == 0 &&
             run_child(self, "sweep", sel, sweep_dir, scold, sizeof scold) == 0 &&
             run_child(self, "sweep", sel, sweep_dir, swarm, sizeof swarm) == 0;
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s' '%s'", first_dir, sweep_dir);
    if (system(rm) != 0) fprintf(stderr, "bench_cold: could not remove the temporary caches\n");
    if (!ok) {
        printf("%-10s a child run failed\n", sel);
        return;
    }
    double sc = 0, sw = 0;
    int pc = 0, pw = 0;
    sscanf(scold, "%lf %d", &sc, &pc);
    sscanf(swarm, "%lf %d", &sw, &pw);
    printf("%-10s %-34.34s  first: %8s ms cold %7s ms warm   sweep: %6.2f s cold (%d programs) "
           "%5.2f s warm\n",
           sel, info.name, cold, warm, sc, pc, sw);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0) {
        trace = getenv("CLB_BENCH_COLD_TRACE") != NULL && strcmp(argv[2], "sweep") == 0;
        if (strcmp(argv[2], "first") == 0) child_first(argv[3]);
        else child_sweep(argv[3]);
        return 0;
    }
    const char *devices[16];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc && n < 16) devices[n++] = argv[++i];
        else if (strcmp(argv[i], "--trace") == 0) setenv("CLB_BENCH_COLD_TRACE", "1", 1);
        else {
            fprintf(stderr, "usage: %s [--device SEL]... [--trace]\n", argv[0]);
            return 2;
        }
    }
    if (n == 0) {
        devices[n++] = "pocl";
        if (getenv("RUSTICL_ENABLE")) devices[n++] = "rusticl";
    }
    printf("cold start: fresh processes; empty CLB_CACHE_DIR, POCL_CACHE_DIR and MESA_SHADER_CACHE_DIR for the cold runs\n");
    for (int i = 0; i < n; i++) bench_device(argv[0], devices[i]);
    return 0;
}
