/* Negative-stride views and assembling (issue 17): per device, as % of that
   device's plain contiguous copy of the same bytes, timed interleaved (so every
   ratio sees the same machine load):
     - reversing a (16384, 4096) float32 along each axis into a contiguous tensor
       (clb_contiguous of x[::-1, :] and of x[:, ::-1]);
     - clb_concat of 8 (2048, 4096) float32 tensors along axis 0 and along axis 1;
     - an element-wise add with a reversed input, against the same add on the
       forward input (% of forward).
   GB/s count logical bytes read + written (GB = 1e9).

   usage: bench_slice [--device SEL|all] [--quick] [--rounds N]
   "all" (the default) is every OpenCL device; the host backend only by name. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARTS 8

typedef struct bench_state {
    clb_tensor *x, *y;          /* (rows, cols) float32 */
    clb_tensor *x_rev0, *x_rev1; /* x[::-1, :], x[:, ::-1] */
    clb_tensor *parts[PARTS];   /* (rows / 8, cols) each */
} bench_state;

static bench_state state;

/* Runs one call that makes a tensor and releases the result (every run allocates
   its output, as the API does; the pool hands back the block of the last one). */
#define RUN_RELEASE(call)                                                                          \
    do {                                                                                           \
        clb_tensor *t = NULL;                                                                      \
        clb_status st = (call);                                                                    \
        clb_tensor_release(t);                                                                     \
        return st;                                                                                 \
    } while (0)

static clb_status run_copy(void *u)
{
    (void)u;
    RUN_RELEASE(clb_cast(state.x, CLB_FLOAT32, &t));
}

static clb_status run_rev0(void *u)
{
    (void)u;
    RUN_RELEASE(clb_contiguous(state.x_rev0, &t));
}

static clb_status run_rev1(void *u)
{
    (void)u;
    RUN_RELEASE(clb_contiguous(state.x_rev1, &t));
}

static clb_status run_concat0(void *u)
{
    (void)u;
    RUN_RELEASE(clb_concat(PARTS, (const clb_tensor *const *)state.parts, 0, &t));
}

static clb_status run_concat1(void *u)
{
    (void)u;
    RUN_RELEASE(clb_concat(PARTS, (const clb_tensor *const *)state.parts, 1, &t));
}

static clb_status run_add_fwd(void *u)
{
    (void)u;
    RUN_RELEASE(clb_binary(CLB_ADD, state.x, state.y, &t));
}

static clb_status run_add_rev0(void *u)
{
    (void)u;
    RUN_RELEASE(clb_binary(CLB_ADD, state.x_rev0, state.y, &t));
}

static clb_status run_add_rev1(void *u)
{
    (void)u;
    RUN_RELEASE(clb_binary(CLB_ADD, state.x_rev1, state.y, &t));
}

#define NUM_CASES 8
static const char *const case_names[NUM_CASES] = {
    "copy f32 (contiguous)",     "reverse axis 0 -> contiguous", "reverse axis 1 -> contiguous",
    "concat 8 along axis 0",     "concat 8 along axis 1",        "add, forward input",
    "add, input reversed axis 0", "add, input reversed axis 1",
};

static clb_status setup(clb_context *ctx, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols}, part[2] = {rows / PARTS, cols};
    clb_status st = clbb_random_tensor(ctx, 2, shape, 1, 0.0f, &state.x);
    if (st == CLB_OK) st = clbb_random_tensor(ctx, 2, shape, 2, 0.0f, &state.y);
    if (st == CLB_OK) st = clb_slice(state.x, 0, CLB_NONE, CLB_NONE, -1, &state.x_rev0);
    if (st == CLB_OK) st = clb_slice(state.x, 1, CLB_NONE, CLB_NONE, -1, &state.x_rev1);
    for (int k = 0; k < PARTS && st == CLB_OK; k++)
        st = clbb_random_tensor(ctx, 2, part, 10 + (uint64_t)k, 0.0f, &state.parts[k]);
    return st;
}

static void teardown(void)
{
    clb_tensor_release(state.x);
    clb_tensor_release(state.y);
    clb_tensor_release(state.x_rev0);
    clb_tensor_release(state.x_rev1);
    for (int k = 0; k < PARTS; k++) clb_tensor_release(state.parts[k]);
    memset(&state, 0, sizeof state);
}

static int bench_device(const char *selector, int quick, int rounds)
{
    clb_context *ctx = NULL;
    if (clb_context_create(selector, &ctx) != CLB_OK) {
        fprintf(stderr, "bench_slice: %s\n", clb_last_error());
        return 2;
    }
    int64_t rows = quick ? 2048 : 16384, cols = quick ? 1024 : 4096;
    double n = (double)rows * (double)cols;
    clb_status st = setup(ctx, rows, cols);
    if (st != CLB_OK) {
        fprintf(stderr, "bench_slice: setup on %s: %s\n", selector, clb_last_error());
        teardown();
        clb_context_release(ctx);
        return 1;
    }
    const clbb_timed cases[NUM_CASES] = {
        {run_copy, NULL, 8 * n},     {run_rev0, NULL, 8 * n},     {run_rev1, NULL, 8 * n},
        {run_concat0, NULL, 8 * n},  {run_concat1, NULL, 8 * n},  {run_add_fwd, NULL, 12 * n},
        {run_add_rev0, NULL, 12 * n}, {run_add_rev1, NULL, 12 * n},
    };
    clbb_result r[NUM_CASES];
    clbb_measure_interleaved(ctx, NUM_CASES, cases, rounds, r);
    printf("\ndevice %s: %s  (%lld x %lld float32, %d rounds)\n", selector,
           clb_context_device_name(ctx), (long long)rows, (long long)cols, rounds);
    printf("  %-32s %10s %10s %12s\n", "case", "median ms", "GB/s", "% of base");
    int rc = 0;
    for (int c = 0; c < NUM_CASES; c++) {
        if (r[c].status != CLB_OK) {
            printf("  %-32s %s\n", case_names[c], clb_status_name(r[c].status));
            rc = 1;
            continue;
        }
        /* the copy cases against the copy, the adds against the forward add */
        int base = c >= 5 ? 5 : 0;
        double pct = r[base].gbps > 0 ? 100.0 * r[c].gbps / r[base].gbps : 0;
        printf("  %-32s %10.2f %10.2f %11.1f%%%s\n", case_names[c], r[c].median_s * 1e3, r[c].gbps,
               pct, c == 5 ? " (base of the adds)" : c == 0 ? " (base of the copies)" : "");
    }
    teardown();
    clb_context_release(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    const char *device = "all";
    int quick = 0, rounds = 7;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--device SEL|all] [--quick] [--rounds N]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1) rounds = 1;
    int rc = 0;
    if (strcmp(device, "all") != 0) return bench_device(device, quick, rounds);
    int count = 0;
    if (clb_device_count(&count) != CLB_OK) count = 0;
    for (int i = 0; i < count; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        rc |= bench_device(sel, quick, rounds);
    }
    return rc;
}
