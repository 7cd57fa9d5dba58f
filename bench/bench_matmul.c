/* Matmul benchmark (issue 4): GFLOP/s of (B,N,N) @ (N,N) float32 through
   CLBlast (the library's default path for float32) and through the library's
   own kernel (CLB_MATMUL_IMPL=kernel), against NumPy timed in the same run
   through /usr/bin/python3. FLOP = 2 * B * N^3; GFLOP = 1e9.

   usage: bench_matmul [--device SEL] [--quick] */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clb_tensor *a_t, *b_t;

static clb_status run_matmul(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_matmul(a_t, b_t, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status random_tensor(clb_context *ctx, int ndim, const int64_t *shape, clb_tensor **out)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    float *data = malloc((size_t)n * sizeof *data);
    if (!data) return CLB_ERR_OUT_OF_MEMORY;
    uint64_t s = 7;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        data[i] = (float)(s >> 40) / (float)(1 << 24) - 0.5f;
    }
    clb_status st = clb_tensor_from_host(ctx, CLB_FLOAT32, ndim, shape, data, out);
    free(data);
    return st;
}

static double numpy_seconds(int64_t batch, int64_t side)
{
    char cmd[768];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import numpy as np, time\n"
             "a = np.random.rand(%lld, %lld, %lld).astype(np.float32)\n"
             "b = np.random.rand(%lld, %lld).astype(np.float32)\n"
             "a @ b; ts = []\n"
             "for i in range(3):\n"
             "    t0 = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t0)\n"
             "print(sorted(ts)[1])\n"
             "\" 2>/dev/null",
             (long long)batch, (long long)side, (long long)side, (long long)side, (long long)side);
    double t = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    if (fscanf(p, "%lf", &t) != 1) t = 0;
    pclose(p);
    return t;
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
    int64_t batch = quick ? 8 : 64, side = 256;
    clb_context *ctx = NULL;
    if (clb_context_create(device, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_matmul: %s\n", clb_last_error());
        return 2;
    }
    const int64_t as[3] = {batch, side, side}, bs[2] = {side, side};
    if (random_tensor(ctx, 3, as, &a_t) != CLB_OK || random_tensor(ctx, 2, bs, &b_t) != CLB_OK) {
        fprintf(stderr, "bench_matmul: setup: %s\n", clb_last_error());
        return 1;
    }
    double flop = 2.0 * (double)batch * (double)side * (double)side * (double)side;
    printf("device: %s\n(%lld,%lld,%lld) @ (%lld,%lld) float32, %.2f GFLOP per run\n",
           clb_context_device_name(ctx), (long long)batch, (long long)side, (long long)side,
           (long long)side, (long long)side, flop / 1e9);
    const char *impls[2] = {"clblast", "kernel"};
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        setenv("CLB_MATMUL_IMPL", impls[k], 1);
        clbb_result res = clbb_measure(ctx, run_matmul, NULL, 0, quick ? 0.5 : 3.0, 20);
        if (res.status != CLB_OK) {
            printf("  %-10s %s: %s\n", impls[k], clb_status_name(res.status), clb_last_error());
            rc = 1;
            continue;
        }
        printf("  %-10s median %8.2f ms  %8.2f GFLOP/s\n", impls[k], res.median_s * 1e3,
               flop / res.median_s / 1e9);
    }
    unsetenv("CLB_MATMUL_IMPL");
    double np_s = numpy_seconds(batch, side);
    if (np_s > 0)
        printf("  %-10s median %8.2f ms  %8.2f GFLOP/s\n", "numpy", np_s * 1e3, flop / np_s / 1e9);
    else
        printf("  numpy not available: no comparison\n");
    clb_tensor_release(a_t);
    clb_tensor_release(b_t);
    clb_context_release(ctx);
    return rc;
}
