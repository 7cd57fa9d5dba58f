/* Element-wise broadcast patterns on one OpenCL device (issue 3's targets).
 *
 * Reference: the device's copy bandwidth, measured with a plain float4 copy
 * kernel (bench/ref_kernels.cl) over the same number of bytes as the largest
 * case. Each pattern reports its effective bandwidth (distinct bytes read +
 * bytes written, GB = 1e9) and its % of that copy bandwidth, once into a
 * preallocated output (clb_binary_into) and once with a new output per call.
 * Then the tiny bias add (32,30)+(30,): 1000 calls and one clb_finish, per
 * call, against 1000 enqueues of an empty kernel measured the same way, with
 * no arguments and with clb_map's argument list (the driver's own floor);
 * once as the library runs it (on CPU devices with SVM storage, on the calling
 * thread) and once with CLB_HOST_TINY=0, a kernel launch per call.
 *
 * Last, NumPy times the same patterns (bench/numpy_elementwise.py) for the
 * "x NumPy" speed-ups, when python3 with numpy is there.
 *
 * usage: bench_elementwise [--device N] [--quick]   (N: global OpenCL device index) */
#include "harness.h"

#include "refcopy.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern {
    const char *name;
    int ndim_a, ndim_b;
    int64_t a[4], b[4];
    int ndim_out;
    int64_t out[4];
    bool materialize; /* a broadcast to out, copied: no b */
} pattern;

static clb_context *ctx;
static clb_tensor *ta, *tb, *tout;

static clb_status run_into(void *u)
{
    (void)u;
    return clb_binary_into(CLB_ADD, ta, tb, tout);
}

static clb_status run_new(void *u)
{
    (void)u;
    clb_tensor *r = NULL;
    clb_status st = clb_binary(CLB_SUB, ta, tb, &r);
    clb_tensor_release(r);
    return st;
}

/* Materialising an expand: into out through clb_eval_into's broadcast, and as
   a new tensor through clb_expand + clb_contiguous (NumPy: copyto, and
   broadcast_to(...).copy()). */
static clb_status run_materialize_into(void *u)
{
    (void)u;
    const char *names[1] = {"a"};
    const clb_tensor *in[1] = {ta};
    return clb_eval_into(ctx, "a", 1, names, in, tout);
}

static clb_status run_materialize_new(void *u)
{
    (void)u;
    clb_tensor *view = NULL, *r = NULL;
    clb_status st = clb_expand(ta, clb_tensor_ndim(tout), clb_tensor_shape(tout), &view);
    if (st == CLB_OK) st = clb_contiguous(view, &r);
    clb_tensor_release(view);
    clb_tensor_release(r);
    return st;
}

static int64_t numel(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* ---- NumPy ------------------------------------------------------------------------------ */

/* Times the same patterns in NumPy (bench/numpy_elementwise.py, through
   $CLB_BENCH_PYTHON or /usr/bin/python3) in this run and prints the speed-ups:
   our new-output call against NumPy's expression, our preallocated output
   against NumPy's out=. Says so and prints nothing else without NumPy. */
static void numpy_ratios(int quick, const pattern *patterns, int npat, const double *into_s,
                         const double *new_s)
{
    const char *py = getenv("CLB_BENCH_PYTHON");
    if (!py || !py[0]) py = "/usr/bin/python3";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s/numpy_elementwise.py%s 2>/dev/null", py, CLB_BENCH_DIR,
             quick ? " --quick" : "");
    FILE *f = popen(cmd, "r");
    char line[256];
    int found = 0;
    printf("\n%-36s %10s %10s %12s %12s\n", "NumPy, timed after the above", "new ms", "out= ms",
           "x NumPy new", "x NumPy out=");
    while (f && fgets(line, sizeof line, f)) {
        for (int c = 0; c < npat; c++) {
            size_t len = strlen(patterns[c].name);
            double np_new, np_out;
            if (strncmp(line, patterns[c].name, len) != 0 ||
                sscanf(line + len, "%lf %lf", &np_new, &np_out) != 2 || new_s[c] <= 0)
                continue;
            printf("%-36s %10.3f %10.3f %11.2fx %11.2fx\n", patterns[c].name, np_new, np_out,
                   np_new / (1e3 * new_s[c]), np_out / (1e3 * into_s[c]));
            found++;
        }
    }
    if (f) pclose(f);
    if (!found) printf("  not measured (%s with numpy not found)\n", py);
}

/* ---- main --------------------------------------------------------------------------- */

#define TINY_CALLS 1000

/* The best per-call cost of TINY_CALLS bias adds on c, timed alternately with
   the empty kernels; lowers *empty and *empty_args to the best seen. */
static double tiny_per_call(clbb_ref *r, clb_context *c, double *empty, double *empty_args)
{
    int64_t bs[2] = {32, 30}, bias[1] = {30};
    ctx = c;
    clbb_random_tensor(ctx, 2, bs, 3, 0, &ta);
    clbb_random_tensor(ctx, 1, bias, 4, 0, &tb);
    clb_tensor_empty(ctx, CLB_FLOAT32, 2, bs, &tout);
    double best = 1e9;
    for (int rep = 0; rep < 9; rep++) {
        double t0 = clbb_now();
        for (int i = 0; i < TINY_CALLS; i++) run_into(NULL);
        clb_finish(ctx);
        double t = (clbb_now() - t0) / TINY_CALLS;
        if (t < best) best = t;
        t = clbb_ref_empty_per_call(r, TINY_CALLS, 0);
        if (t < *empty) *empty = t;
        t = clbb_ref_empty_per_call(r, TINY_CALLS, 1);
        if (t < *empty_args) *empty_args = t;
    }
    clb_tensor_release(ta);
    clb_tensor_release(tb);
    clb_tensor_release(tout);
    ta = tb = tout = NULL;
    return best;
}

int main(int argc, char **argv)
{
    int device = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--device N] [--quick]\n", argv[0]);
            return 2;
        }
    }
    int64_t s = quick ? 4 : 1; /* --quick divides the large axes */
    const pattern patterns[] = {
        {"same shape 2^26 + 2^26", 1, 1, {((int64_t)1 << 26) / s}, {((int64_t)1 << 26) / s}, 1,
         {((int64_t)1 << 26) / s}, false},
        {"row (16384,4096) + (4096,)", 2, 1, {16384 / s, 4096}, {4096}, 2, {16384 / s, 4096}, false},
        {"column (16384,4096) + (16384,1)", 2, 2, {16384 / s, 4096}, {16384 / s, 1}, 2,
         {16384 / s, 4096}, false},
        {"images (256,3,224,224) - (3,1,1)", 4, 3, {256 / s, 3, 224, 224}, {3, 1, 1}, 4,
         {256 / s, 3, 224, 224}, false},
        {"outer (8192,1) + (1,8192)", 2, 2, {8192 / s, 1}, {1, 8192}, 2, {8192 / s, 8192}, false},
        {"expand (1,256,1,1)->(32,256,224,224)", 4, 0, {1, 256, 1, 1}, {0}, 4,
         {32 / s, 256, 224, 224}, true},
    };
    char selector[16];
    snprintf(selector, sizeof selector, "%d", device);
    if (clb_context_create(selector, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_elementwise: %s\n", clb_last_error());
        return 2;
    }
    clbb_ref r = {0};
    if (clbb_ref_open(clb_context_device_name(ctx), &r) != 0) {
        fprintf(stderr, "bench_elementwise: cannot build the reference kernels on device %d\n",
                device);
        return 2;
    }
    /* Each pattern is timed interleaved with the two reference copies, so its
       ratios compare runs made under the same machine load. */
    size_t copy_bytes = (size_t)(((int64_t)1 << 26) / s) * 4;
    clbb_ref_copy plain = {0}, streaming = {0};
    if (clbb_ref_copy_setup(&r, r.copy, copy_bytes, &plain) != 0 ||
        clbb_ref_copy_setup(&r, r.copy_stream, copy_bytes, &streaming) != 0) {
        fprintf(stderr, "bench_elementwise: cannot set up the reference copies\n");
        return 2;
    }
    const int rounds = quick ? 7 : 15;
    printf("device %d: %s\n", device, clb_context_device_name(ctx));
    printf("references, timed interleaved with each pattern (median of %d rounds):\n", rounds);
    printf("  copy:   a float4 copy kernel, %zu MB each way\n", copy_bytes >> 20);
    printf("  stream: the same with streaming (non-temporal) stores, where the compiler has them\n");
    printf("%% copy / %% strm: the pattern's GB/s as a share of the copy's / stream's GB/s\n\n");
    printf("%-36s %7s %7s %9s %7s %7s %9s %7s %7s %8s %8s\n", "pattern (float32)", "copy", "stream",
           "into GB/s", "% copy", "% strm", "new GB/s", "% copy", "% strm", "into ms", "new ms");
    int rc = 0;
    enum { NPAT = sizeof patterns / sizeof patterns[0] };
    double into_s[NPAT] = {0}, new_s[NPAT] = {0};
    for (size_t c = 0; c < NPAT; c++) {
        const pattern *p = &patterns[c];
        clbb_random_tensor(ctx, p->ndim_a, p->a, 1, 0, &ta);
        clbb_random_tensor(ctx, p->ndim_b, p->b, 2, 0, &tb);
        if (!ta || !tb || clb_tensor_empty(ctx, CLB_FLOAT32, p->ndim_out, p->out, &tout) != CLB_OK) {
            fprintf(stderr, "%s: setup failed: %s\n", p->name, clb_last_error());
            rc = 1;
        } else {
            double bytes = 4.0 * (double)(numel(p->ndim_a, p->a) +
                                          (p->materialize ? 0 : numel(p->ndim_b, p->b)) +
                                          numel(p->ndim_out, p->out));
            const clbb_timed cases[4] = {
                {clbb_ref_copy_run, &plain, 2.0 * (double)copy_bytes},
                {clbb_ref_copy_run, &streaming, 2.0 * (double)copy_bytes},
                {p->materialize ? run_materialize_into : run_into, NULL, bytes},
                {p->materialize ? run_materialize_new : run_new, NULL, bytes},
            };
            clbb_result res[4];
            clbb_measure_interleaved(ctx, 4, cases, rounds, res);
            if (res[0].status != CLB_OK || res[1].status != CLB_OK) {
                fprintf(stderr, "%s: a reference copy failed\n", p->name);
                rc = 1;
            } else if (res[2].status != CLB_OK || res[3].status != CLB_OK) {
                fprintf(stderr, "%s: %s\n", p->name, clb_last_error());
                rc = 1;
            } else {
                double copy = res[0].gbps, stream = res[1].gbps;
                into_s[c] = res[2].median_s;
                new_s[c] = res[3].median_s;
                printf("%-36s %7.2f %7.2f %9.2f %6.1f%% %6.1f%% %9.2f %6.1f%% %6.1f%% %8.3f %8.3f\n",
                       p->name, copy, stream, res[2].gbps, 100 * res[2].gbps / copy,
                       100 * res[2].gbps / stream, res[3].gbps, 100 * res[3].gbps / copy,
                       100 * res[3].gbps / stream, 1e3 * res[2].median_s, 1e3 * res[3].median_s);
            }
        }
        clb_tensor_release(ta);
        clb_tensor_release(tb);
        clb_tensor_release(tout);
        ta = tb = tout = NULL;
    }
    clbb_ref_copy_close(&plain);
    clbb_ref_copy_close(&streaming);
    numpy_ratios(quick, patterns, NPAT, into_s, new_s);

    /* Tiny launches: (32,30) + (30,) into a preallocated out, first as the
       library runs it, then with CLB_HOST_TINY=0 (a kernel launch every call,
       what GPUs and devices without SVM do), each alternated with the empty
       kernels, best of 9. */
    printf("\ntiny bias add (32,30)+(30,), %d calls then one clb_finish, per call:\n", TINY_CALLS);
    double empty = 1e9, empty_args = 1e9, launched = 0;
    double library = tiny_per_call(&r, ctx, &empty, &empty_args);
    clb_context_release(ctx);
    ctx = NULL;
    setenv("CLB_HOST_TINY", "0", 1); /* read when a context is created */
    if (clb_context_create(selector, &ctx) == CLB_OK)
        launched = tiny_per_call(&r, ctx, &empty, &empty_args);
    printf("                                           per call   x empty  x empty with args\n");
    printf("  clb_binary_into                          %6.2f us   %6.2fx  %6.2fx\n", 1e6 * library,
           library / empty, library / empty_args);
    if (launched > 0)
        printf("  clb_binary_into, CLB_HOST_TINY=0         %6.2f us   %6.2fx  %6.2fx\n",
               1e6 * launched, launched / empty, launched / empty_args);
    printf("  empty kernel, no arguments               %6.2f us\n", 1e6 * empty);
    printf("  empty kernel, clb_map's arguments        %6.2f us\n", 1e6 * empty_args);
    clbb_ref_close(&r);
    clb_context_release(ctx);
    return rc;
}
