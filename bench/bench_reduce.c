/* Reduction benchmark (issue 4's targets): per device, GB/s of
     sum (R,C) float32 over axis 0 -> (C,)      (column reduction)
     sum_to_shape (R,C) -> (R,1)                 (row reduction)
     sum_to_shape (R,C) -> (1,C)                 (column reduction, as broadcasting's gradient)
     mean (N,3,H,W) over (0,2,3) keepdim         (per-channel statistics)
   against the device's copy bandwidth measured in the same run, interleaved:
   a plain and a streaming copy kernel (bench/refcopy.h) over x's size, and
   the library's own copy (clb_cast float32 -> float32); bytes read + written;
   and against NumPy timed in the same run through /usr/bin/python3
   (skipped with a note when NumPy is not importable). GB = 1e9 bytes; GB/s,
   % of copy and x numpy from median times (the min column shows how far a
   loaded machine spreads them).

   usage: bench_reduce [--device SEL] [--quick] */
#include "harness.h"
#if CLBB_HAVE_REFCOPY
#include "refcopy.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_state {
    clb_tensor *x;   /* (R, C) float32 */
    clb_tensor *img; /* (N, 3, H, W) float32 */
    int64_t rows, cols;
} bench_state;

static bench_state state;

static clb_status run_copy(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_cast(state.x, CLB_FLOAT32, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_columns(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const int axis[1] = {0};
    clb_status st = clb_reduce(CLB_SUM, state.x, 1, axis, 0, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_rows(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const int64_t shape[2] = {state.rows, 1};
    clb_status st = clb_sum_to_shape(state.x, 2, shape, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_columns_to(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const int64_t shape[2] = {1, state.cols};
    clb_status st = clb_sum_to_shape(state.x, 2, shape, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_channels(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const int axes[3] = {0, 2, 3};
    clb_status st = clb_reduce(CLB_MEAN, state.img, 3, axes, 1, &y);
    clb_tensor_release(y);
    return st;
}

/* NumPy's median seconds for the four reductions on the same shapes, or 0s
   when python3 or NumPy is missing. */
static void numpy_times(int64_t r, int64_t c, int64_t n, int64_t hw, double *t)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import numpy as np, time\n"
             "x = np.random.rand(%lld, %lld).astype(np.float32)\n"
             "img = np.random.rand(%lld, 3, %lld, %lld).astype(np.float32)\n"
             "def med(f):\n"
             "    f(); ts = []\n"
             "    for i in range(5):\n"
             "        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)\n"
             "    return sorted(ts)[2]\n"
             "print(med(lambda: x.sum(axis=0)), med(lambda: x.sum(axis=1, keepdims=True)),\n"
             "      med(lambda: img.mean(axis=(0, 2, 3), keepdims=True)),\n"
             "      med(lambda: x.sum(axis=0, keepdims=True)))\n"
             "\" 2>/dev/null",
             (long long)r, (long long)c, (long long)n, (long long)hw, (long long)hw);
    t[0] = t[1] = t[2] = t[3] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (fscanf(p, "%lf %lf %lf %lf", &t[0], &t[1], &t[2], &t[3]) != 4) t[0] = t[1] = t[2] = t[3] = 0;
    pclose(p);
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--device SEL] [--quick]\n", argv[0]);
            return 2;
        }
    }
    int64_t r = quick ? 2048 : 16384, c = 4096, n = quick ? 16 : 256, hw = 224;
    clb_context *ctx = NULL;
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_reduce: %s\n", clb_last_error());
        return 2;
    }
    state.rows = r, state.cols = c;
    const int64_t xs[2] = {r, c}, is[4] = {n, 3, hw, hw};
    clb_status st = clbb_random_tensor(ctx, 2, xs, 42, 0, &state.x);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 4, is, 42, 0, &state.img);
    if (st != CLB_OK) {
        fprintf(stderr, "bench_reduce: setup: %s\n", clb_last_error());
        return 1;
    }
    double xn = (double)r * (double)c, in = (double)n * 3 * (double)hw * (double)hw;
    enum { NCASES = 7 };
    struct {
        const char *name;
        clbb_run_fn run;
        void *user;
        double bytes;
    } cases[NCASES] = {
        {"copy: plain copy kernel", NULL, NULL, 8.0 * xn},
        {"stream: streaming copy kernel", NULL, NULL, 8.0 * xn},
        {"clb_cast f32 -> f32 (same size as x)", run_copy, NULL, 8.0 * xn},
        {"sum (R,C) axis 0 -> (C,)", run_columns, NULL, 4.0 * xn + 4.0 * (double)c},
        {"sum_to_shape (R,C) -> (R,1)", run_rows, NULL, 4.0 * xn + 4.0 * (double)r},
        {"mean (N,3,H,W) over (0,2,3)", run_channels, NULL, 4.0 * in + 12.0},
        {"sum_to_shape (R,C) -> (1,C)", run_columns_to, NULL, 4.0 * xn + 4.0 * (double)c},
    };
#if CLBB_HAVE_REFCOPY
    /* The raw reference copies (bench/refcopy.h) over x's size, when the
       context's device is an OpenCL device. */
    clbb_ref ref = {0};
    clbb_ref_copy plain = {0}, streaming = {0};
    if (clbb_ref_open(clb_context_device_name(ctx), &ref) == 0 &&
        clbb_ref_copy_setup(&ref, ref.copy, (size_t)(4.0 * xn), &plain) == 0 &&
        clbb_ref_copy_setup(&ref, ref.copy_stream, (size_t)(4.0 * xn), &streaming) == 0) {
        cases[0].run = clbb_ref_copy_run, cases[0].user = &plain;
        cases[1].run = clbb_ref_copy_run, cases[1].user = &streaming;
    }
#endif
    double np_t[4];
    numpy_times(r, c, n, hw, np_t);
    /* Timed interleaved, a run of each case in turn: ratios between cases then
       compare runs made under the same machine load. */
    clbb_timed timed[NCASES];
    int which[NCASES], count = 0;
    for (int k = 0; k < NCASES; k++)
        if (cases[k].run) {
            timed[count] = (clbb_timed){cases[k].run, cases[k].user, cases[k].bytes};
            which[count++] = k;
        }
    clbb_result got[NCASES];
    clbb_measure_interleaved(ctx, count, timed, quick ? 7 : 15, got);
    clbb_result res[NCASES] = {{0}};
    for (int i = 0; i < count; i++) res[which[i]] = got[i];
    /* % copy: of the plain copy kernel, else (no OpenCL reference) of clb_cast;
       % strm: of the streaming copy kernel. */
    double copy_gbps = cases[0].run ? res[0].gbps : res[2].gbps;
    double stream_gbps = cases[1].run ? res[1].gbps : 0;
    printf("device: %s\nx = (%lld, %lld) float32, img = (%lld, 3, %d, %d) float32\n",
           clb_context_device_name(ctx), (long long)r, (long long)c, (long long)n, (int)hw, (int)hw);
    printf("median of %d interleaved rounds; %% copy: of the plain copy kernel's GB/s%s\n",
           quick ? 7 : 15, cases[0].run ? "" : " (no OpenCL reference: of clb_cast's)");
    printf("  %-36s %8s %10s %8s %8s %8s %9s %8s\n", "case", "min ms", "median ms", "GB/s",
           "% copy", "% strm", "numpy ms", "x numpy");
    int rc = 0;
    for (int k = 0; k < NCASES; k++) {
        if (!cases[k].run) continue;
        if (res[k].status != CLB_OK) {
            printf("  %-36s %s: %s\n", cases[k].name, clb_status_name(res[k].status),
                   clb_last_error());
            rc = 1;
            continue;
        }
        double npt = k > 2 ? np_t[k - 3] : 0;
        printf("  %-36s %8.2f %10.2f %8.2f %7.1f%% %7.1f%% %9.2f %7.2fx\n", cases[k].name,
               res[k].min_s * 1e3, res[k].median_s * 1e3, res[k].gbps,
               copy_gbps > 0 ? 100.0 * res[k].gbps / copy_gbps : 0,
               stream_gbps > 0 ? 100.0 * res[k].gbps / stream_gbps : 0, npt * 1e3,
               npt > 0 ? npt / res[k].median_s : 0);
    }
#if CLBB_HAVE_REFCOPY
    clbb_ref_copy_close(&plain);
    clbb_ref_copy_close(&streaming);
    clbb_ref_close(&ref);
#endif
    if (np_t[0] == 0) printf("  (numpy not available: no comparison)\n");
    clb_tensor_release(state.x);
    clb_tensor_release(state.img);
    clb_context_release(ctx);
    return rc;
}
