/* Copy-bandwidth benchmark of the foundation's device work: the strided
   copy/cast kernel behind clb_contiguous, clb_repeat, clb_cast and to_host.
   Per device: GB/s of each case, % of that device's plain contiguous copy
   (the practical limit for memory-bound work), and speed-up over the host
   backend measured in the same run.

   usage: bench_copy [--device SEL|all] [--quick] */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_case {
    clb_status (*run)(void *user);
    double bytes; /* distinct bytes read + written per run */
} bench_case;

typedef struct bench_state {
    clb_tensor *x;          /* contiguous (n) float32 */
    clb_tensor *square;     /* (side, side) float32 */
    clb_tensor *square_t;   /* its transpose (a view) */
    clb_tensor *channels;   /* (1, 256, 1, 1) float32 */
    int64_t expand_shape[4];
    void *host_buf;
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

static clb_status run_cast_f16(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_cast(state.x, CLB_FLOAT16, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_transpose(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    clb_status st = clb_contiguous(state.square_t, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_expand(void *u)
{
    (void)u;
    clb_tensor *v = NULL, *y = NULL;
    clb_status st = clb_expand(state.channels, 4, state.expand_shape, &v);
    if (st == CLB_OK) st = clb_contiguous(v, &y);
    clb_tensor_release(y);
    clb_tensor_release(v);
    return st;
}

static clb_status run_repeat(void *u)
{
    (void)u;
    clb_tensor *y = NULL;
    int64_t reps[4] = {state.expand_shape[0], 1, state.expand_shape[2], state.expand_shape[3]};
    clb_status st = clb_repeat(state.channels, 4, reps, &y);
    clb_tensor_release(y);
    return st;
}

static clb_status run_to_host(void *u)
{
    (void)u;
    return clb_tensor_to_host(state.x, state.host_buf, (size_t)clb_tensor_numel(state.x) * 4);
}

static clb_status setup(clb_context *ctx, int64_t n, int64_t side, int64_t spatial)
{
    float *data = malloc((size_t)n * sizeof *data);
    if (!data) return CLB_ERR_OUT_OF_MEMORY;
    uint64_t s = 42;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        data[i] = (float)(s >> 40) / (float)(1 << 24);
    }
    int64_t shape1[1] = {n}, shape2[2] = {side, side}, shape4[4] = {1, 256, 1, 1};
    int perm[2] = {1, 0};
    state.expand_shape[0] = 32, state.expand_shape[1] = 256;
    state.expand_shape[2] = spatial, state.expand_shape[3] = spatial;
    state.host_buf = malloc((size_t)n * sizeof(float));
    clb_status st = state.host_buf ? CLB_OK : CLB_ERR_OUT_OF_MEMORY;
    if (st == CLB_OK) st = clb_tensor_from_host(ctx, CLB_FLOAT32, 1, shape1, data, &state.x);
    if (st == CLB_OK) st = clb_tensor_from_host(ctx, CLB_FLOAT32, 2, shape2, data, &state.square);
    if (st == CLB_OK) st = clb_permute(state.square, perm, &state.square_t);
    if (st == CLB_OK) st = clb_tensor_from_host(ctx, CLB_FLOAT32, 4, shape4, data, &state.channels);
    free(data);
    return st;
}

static void teardown(void)
{
    clb_tensor_release(state.x);
    clb_tensor_release(state.square);
    clb_tensor_release(state.square_t);
    clb_tensor_release(state.channels);
    free(state.host_buf);
    memset(&state, 0, sizeof state);
}

#define NUM_CASES 6
static const char *const case_names[NUM_CASES] = {
    "copy f32 (contiguous)", "cast f32->f16",      "transpose -> contiguous",
    "expand (1,256,1,1) -> contiguous", "repeat (1,256,1,1)", "to_host f32",
};

/* Measures every case on one device; gbps[] receives the results. */
static int bench_device(const char *selector, int quick, double *gbps, char *name, size_t cap)
{
    clb_context *ctx = NULL;
    if (clb_context_create(selector, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_copy: %s\n", clb_last_error());
        return 2;
    }
    snprintf(name, cap, "%s", clb_context_device_name(ctx));
    int64_t n = quick ? (1 << 20) : (1 << 24);
    int64_t side = quick ? 1024 : 4096;
    int64_t spatial = quick ? 8 : 56;
    double expand_bytes = 32.0 * 256 * (double)spatial * (double)spatial * 4 + 256 * 4;
    const bench_case cases[NUM_CASES] = {
        {run_copy, 8.0 * (double)n},
        {run_cast_f16, 6.0 * (double)n},
        {run_transpose, 8.0 * (double)side * (double)side},
        {run_expand, expand_bytes},
        {run_repeat, expand_bytes},
        {run_to_host, 8.0 * (double)n},
    };
    clb_status st = setup(ctx, n, side, spatial);
    for (int c = 0; c < NUM_CASES; c++) {
        gbps[c] = 0;
        if (st != CLB_OK) break;
        clbb_result r = clbb_measure(ctx, cases[c].run, NULL, cases[c].bytes, quick ? 0.2 : 1.0, 200);
        if (r.status != CLB_OK) {
            fprintf(stderr, "  %-34s %s: %s\n", case_names[c], clb_status_name(r.status), clb_last_error());
            continue;
        }
        gbps[c] = r.gbps;
        fprintf(stderr, "  [%s] %-34s %8.2f GB/s (median of %d)\n", selector, case_names[c], r.gbps,
                r.iterations);
    }
    if (st != CLB_OK) fprintf(stderr, "bench_copy: setup failed: %s\n", clb_last_error());
    teardown();
    clb_context_release(ctx);
    return st == CLB_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *device = "all";
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--device SEL|all] [--quick]\n", argv[0]);
            return 2;
        }
    }
    char selectors[33][16];
    int nsel = 0;
    if (!strcmp(device, "all")) {
        int count = 0;
        if (clb_device_count(&count) != CLB_OK) count = 0;
        snprintf(selectors[nsel++], 16, "host");
        for (int i = 0; i < count && nsel < 33; i++) snprintf(selectors[nsel++], 16, "%d", i);
    } else {
        snprintf(selectors[nsel++], 16, "%s", device);
    }
    double host[NUM_CASES] = {0};
    int rc = 0;
    for (int s = 0; s < nsel; s++) {
        double gbps[NUM_CASES] = {0};
        char name[256];
        rc |= bench_device(selectors[s], quick, gbps, name, sizeof name);
        if (!strcmp(selectors[s], "host")) memcpy(host, gbps, sizeof host);
        printf("\ndevice %s: %s\n", selectors[s], name);
        printf("  %-34s %10s %12s %12s\n", "case", "GB/s", "% of copy", "x host");
        for (int c = 0; c < NUM_CASES; c++) {
            double pct = gbps[0] > 0 ? 100.0 * gbps[c] / gbps[0] : 0;
            double vs = host[c] > 0 ? gbps[c] / host[c] : 0;
            printf("  %-34s %10.2f %11.1f%% %11.2fx\n", case_names[c], gbps[c], pct, vs);
        }
    }
    return rc;
}
