/* Reduction benchmark (issue 4's targets): per device, GB/s of
     sum (R,C) float32 over axis 0 -> (C,)      (column reduction)
     sum_to_shape (R,C) -> (R,1)                 (row reduction)
     mean (N,3,H,W) over (0,2,3) keepdim         (per-channel statistics)
   against the device's copy bandwidth measured in the same run (clb_cast
   float32 -> float32 of a contiguous tensor of the same size; bytes read +
   written), and against NumPy timed in the same run through /usr/bin/python3
   (skipped with a note when NumPy is not importable). GB = 1e9 bytes; GB/s,
   % of copy and x numpy from median times (the min column shows how far a
   loaded machine spreads them).

   usage: bench_reduce [--device SEL] [--quick] */
#include "harness.h"

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

static clb_status run_channels(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    const int axes[3] = {0, 2, 3};
    clb_status st = clb_reduce(CLB_MEAN, state.img, 3, axes, 1, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status random_tensor(clb_context *ctx, int ndim, const int64_t *shape, clb_tensor **out)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *data = malloc((size_t)n * sizeof *data);
    if (!data) return CLB_ERR_OUT_OF_MEMORY;
    uint64_t s = 42;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        data[i] = (float)(s >> 40) / (float)(1 << 24);
    }
    clb_status st = clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, data, out);
    free(data);
    return st;
}

/* NumPy's median seconds for the three reductions on the same shapes, or 0s
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
             "      med(lambda: img.mean(axis=(0, 2, 3), keepdims=True)))\n"
             "\" 2>/dev/null",
             (long long)r, (long long)c, (long long)n, (long long)hw, (long long)hw);
    t[0] = t[1] = t[2] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (fscanf(p, "%lf %lf %lf", &t[0], &t[1], &t[2]) != 3) t[0] = t[1] = t[2] = 0;
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
    clb_status st = random_tensor(ctx, 2, xs, &state.x);
    if (st == CLB_OK) st = random_tensor(ctx, 4, is, &state.img);
    if (st != CLB_OK) {
        fprintf(stderr, "bench_reduce: setup: %s\n", clb_last_error());
        return 1;
    }
    double xn = (double)r * (double)c, in = (double)n * 3 * (double)hw * (double)hw;
    struct {
        const char *name;
        clbb_run_fn run;
        double bytes;
    } cases[4] = {
        {"copy f32 (cast, same size as x)", run_copy, 8.0 * xn},
        {"sum (R,C) axis 0 -> (C,)", run_columns, 4.0 * xn + 4.0 * (double)c},
        {"sum_to_shape (R,C) -> (R,1)", run_rows, 4.0 * xn + 4.0 * (double)r},
        {"mean (N,3,H,W) over (0,2,3)", run_channels, 4.0 * in + 12.0},
    };
    double np_t[3];
    numpy_times(r, c, n, hw, np_t);
    printf("device: %s\nx = (%lld, %lld) float32, img = (%lld, 3, %d, %d) float32\n",
           clb_context_device_name(ctx), (long long)r, (long long)c, (long long)n, (int)hw, (int)hw);
    printf("  %-34s %8s %10s %10s %11s %10s %9s\n", "case", "min ms", "median ms", "GB/s",
           "% of copy", "numpy ms", "x numpy");
    double copy_gbps = 0;
    int rc = 0;
    for (int k = 0; k < 4; k++) {
        clbb_result res = clbb_measure(ctx, cases[k].run, NULL, cases[k].bytes, quick ? 0.3 : 2.0, 50);
        if (res.status != CLB_OK) {
            printf("  %-34s %s: %s\n", cases[k].name, clb_status_name(res.status), clb_last_error());
            rc = 1;
            continue;
        }
        if (k == 0) copy_gbps = res.gbps;
        double npt = k > 0 ? np_t[k - 1] : 0;
        printf("  %-34s %8.2f %10.2f %10.2f %10.1f%% %10.2f %8.2fx\n", cases[k].name,
               res.min_s * 1e3, res.median_s * 1e3,
               res.gbps, copy_gbps > 0 ? 100.0 * res.gbps / copy_gbps : 0, npt * 1e3,
               npt > 0 ? npt / res.median_s : 0);
    }
    if (np_t[0] == 0) printf("  (numpy not available: no comparison)\n");
    clb_tensor_release(state.x);
    clb_tensor_release(state.img);
    clb_context_release(ctx);
    return rc;
}
