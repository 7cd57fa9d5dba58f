/* examples/multi_device.c: one program, every device.
 *
 * A batch of G groups, each (N, C), goes through the demo's batch-norm step (per-group
 * statistics over the N rows) and its backward for gamma and beta, which is
 * clb_sum_to_shape of the broadcast gradients back to (1, C) per group. The groups
 * are split across every OpenCL device clb_device_count reports plus the host
 * backend; each part moves to its device with clb_tensor_to_context and the results
 * are gathered back the same way, then checked against one device doing the whole
 * batch. Prints each device's share and time.
 *
 *   build/examples/multi_device [G N C]      (default 48 256 64)
 *
 * Exit status 0 when every result matches the single-device run. */
#include "clbroadcast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEVICES 16

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "multi_device: %s failed: %s: %s\n", #call, clb_status_name(st_),     \
                    clb_last_error());                                                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* x, dy: (g, N, C) on one context. xhat = (x - mean) / sqrt(var + eps) over axis 1;
   dgamma = sum_to_shape(dy * xhat, (g, 1, C)); dbeta = sum_to_shape(dy, (g, 1, C)). */
static void step(const clb_tensor *x, const clb_tensor *dy, clb_tensor **xhat,
                 clb_tensor **dgamma, clb_tensor **dbeta)
{
    clb_context *ctx = clb_tensor_context(x);
    const int64_t *s = clb_tensor_shape(x);
    int64_t stat_shape[3] = {s[0], 1, s[2]};
    int axis = 1;
    clb_tensor *mu = NULL, *d = NULL, *d2 = NULL, *var = NULL, *eps = NULL, *ve = NULL,
               *sd = NULL, *g = NULL;
    float eps_v = 1e-5f;
    int64_t one[1] = {1};
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 1, one, &eps_v, &eps));
    CHECK(clb_reduce(CLB_MEAN, x, 1, &axis, 1, &mu));
    CHECK(clb_binary(CLB_SUB, x, mu, &d));
    CHECK(clb_binary(CLB_MUL, d, d, &d2));
    CHECK(clb_reduce(CLB_MEAN, d2, 1, &axis, 1, &var));
    CHECK(clb_binary(CLB_ADD, var, eps, &ve));
    CHECK(clb_unary(CLB_SQRT, ve, &sd));
    CHECK(clb_binary(CLB_DIV, d, sd, xhat));
    CHECK(clb_binary(CLB_MUL, dy, *xhat, &g));
    CHECK(clb_sum_to_shape(g, 3, stat_shape, dgamma));
    CHECK(clb_sum_to_shape(dy, 3, stat_shape, dbeta));
    clb_tensor *tmp[] = {mu, d, d2, var, eps, ve, sd, g};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) clb_tensor_release(tmp[i]);
}

/* Moves t to `home` and copies its values into dst (float32). */
static void gather(const clb_tensor *t, clb_context *home, float *dst)
{
    clb_tensor *h = NULL;
    CHECK(clb_tensor_to_context(t, home, &h));
    CHECK(clb_tensor_to_host(h, dst, (size_t)clb_tensor_numel(h) * sizeof(float)));
    clb_tensor_release(h);
}

int main(int argc, char **argv)
{
    int64_t G = argc > 1 ? atoll(argv[1]) : 48, N = argc > 2 ? atoll(argv[2]) : 256,
            C = argc > 3 ? atoll(argv[3]) : 64;
    if (G < 1 || N < 2 || C < 1) {
        fprintf(stderr, "usage: multi_device [G N C]\n");
        return 2;
    }
    int count = 0;
    CHECK(clb_device_count(&count));
    if (count > MAX_DEVICES - 1) count = MAX_DEVICES - 1;
    clb_context *devs[MAX_DEVICES];
    int ndev = 0;
    for (int i = 0; i < count; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        CHECK(clb_context_create(sel, &devs[ndev++]));
    }
    CHECK(clb_context_create("host", &devs[ndev++]));
    clb_context *home = devs[ndev - 1]; /* the data starts and ends in host memory */

    size_t n = (size_t)(G * N * C), ns = (size_t)(G * C);
    float *xv = malloc(n * sizeof *xv), *dyv = malloc(n * sizeof *dyv);
    float *xhat = malloc(n * sizeof *xhat), *dg = malloc(ns * sizeof *dg), *db = malloc(ns * sizeof *db);
    float *rxhat = malloc(n * sizeof *rxhat), *rdg = malloc(ns * sizeof *rdg), *rdb = malloc(ns * sizeof *rdb);
    if (!xv || !dyv || !xhat || !dg || !db || !rxhat || !rdg || !rdb) return 1;
    uint64_t r = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        xv[i] = (float)((r % 20001) / 1000.0 - 10.0) * (float)(1 + (i / (size_t)(N * C)) % 5);
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        dyv[i] = (float)((r % 2001) / 1000.0 - 1.0);
    }
    int64_t shape[3] = {G, N, C};
    clb_tensor *x = NULL, *dy = NULL;
    CHECK(clb_tensor_from_host(home, CLB_FLOAT32, 3, shape, xv, &x));
    CHECK(clb_tensor_from_host(home, CLB_FLOAT32, 3, shape, dyv, &dy));

    printf("batch-norm + sum_to_shape over %lld groups of (%lld, %lld) float32, split across "
           "%d devices\n", (long long)G, (long long)N, (long long)C, ndev);
    /* Split: equal shares of groups (the first devices take the remainder). */
    int64_t start = 0;
    double total0 = now(); /* includes the warm-up passes */
    for (int k = 0; k < ndev; k++) {
        int64_t share = G / ndev + (k < G % ndev);
        if (share == 0) continue;
        /* Pass 0 warms the device up (its kernels compile on first use, or come from
           the on-disk cache); pass 1 is timed. */
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) CHECK(clb_finish(devs[k]));
            double t0 = now();
            clb_tensor *xs = NULL, *dys = NULL, *xd = NULL, *dyd = NULL, *oh = NULL, *og = NULL,
                       *ob = NULL;
            CHECK(clb_slice(x, 0, start, start + share, 1, &xs));
            CHECK(clb_slice(dy, 0, start, start + share, 1, &dys));
            CHECK(clb_tensor_to_context(xs, devs[k], &xd));
            CHECK(clb_tensor_to_context(dys, devs[k], &dyd));
            step(xd, dyd, &oh, &og, &ob);
            gather(oh, home, xhat + (size_t)(start * N * C));
            gather(og, home, dg + (size_t)(start * C));
            gather(ob, home, db + (size_t)(start * C));
            double t1 = now();
            if (pass == 1)
                printf("  %-44.44s groups %3lld..%-3lld  %8.2f ms\n", clb_context_device_name(devs[k]),
                       (long long)start, (long long)(start + share - 1), (t1 - t0) * 1e3);
            clb_tensor *tmp[] = {xs, dys, xd, dyd, oh, og, ob};
            for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) clb_tensor_release(tmp[i]);
        }
        start += share;
    }
    double total1 = now();

    /* The reference: the whole batch on one device (the first OpenCL one, else host). */
    clb_context *one = devs[0];
    double r0 = 0, r1 = 0;
    for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up the whole-batch shapes */
        CHECK(clb_finish(one));
        r0 = now();
        clb_tensor *xd = NULL, *dyd = NULL, *oh = NULL, *og = NULL, *ob = NULL;
        CHECK(clb_tensor_to_context(x, one, &xd));
        CHECK(clb_tensor_to_context(dy, one, &dyd));
        step(xd, dyd, &oh, &og, &ob);
        gather(oh, home, rxhat);
        gather(og, home, rdg);
        gather(ob, home, rdb);
        r1 = now();
        clb_tensor *tmp[] = {xd, dyd, oh, og, ob};
        for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) clb_tensor_release(tmp[i]);
    }
    clb_tensor_release(x);
    clb_tensor_release(dy);

    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(xhat[i] - rxhat[i]));
    for (size_t i = 0; i < ns; i++) {
        worst = fmax(worst, fabs(dg[i] - rdg[i]) / fmax(1.0, fabs(rdg[i])));
        worst = fmax(worst, fabs(db[i] - rdb[i]) / fmax(1.0, fabs(rdb[i])));
    }
    bool ok = worst < 1e-3;
    printf("  whole split run incl. warm-up: %.2f ms; the whole batch on %s: %.2f ms\n",
           (total1 - total0) * 1e3, clb_context_device_name(one), (r1 - r0) * 1e3);
    printf("  gathered with clb_tensor_to_context; largest difference from the single-device "
           "run: %.3g -> %s\n", worst, ok ? "OK" : "MISMATCH");
    for (int k = 0; k < ndev; k++) clb_context_release(devs[k]);
    free(xv), free(dyv), free(xhat), free(dg), free(db), free(rxhat), free(rdg), free(rdb);
    return ok ? 0 : 1;
}
