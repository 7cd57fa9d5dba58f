/* clb_matmul_tune: the measurement. The op validates, makes the operands of the
 * search's GEMM and times it through the public calls, naming the
 * implementation each time (clb__matmul_impl); the backend's matmul_tune slot
 * (backend.h; the OpenCL backend's is cl_matmul_search.c) picks the
 * candidates, hands them to its BLAS, and saves the winner. */
#include "backend.h"
#include "dtype.h"
#include "options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The operands and our kernel's product, which every candidate must reproduce. */
typedef struct bench_case {
    clb_context *ctx;
    clb_dtype dtype;
    clb_tensor *a, *b;
    size_t out_count;
    double *ref, *got; /* out_count values */
    double flop;
} bench_case;

static clb_status read_out(const bench_case *bc, const clb_tensor *y, double *dst)
{
    size_t n = bc->out_count;
    if (bc->dtype == CLB_FLOAT64) return clb_tensor_to_host(y, dst, n * sizeof(double));
    /* float32 widened in place from the back, so dst serves as the staging buffer */
    float *f = (float *)dst;
    clb_status st = clb_tensor_to_host(y, f, n * sizeof(float));
    for (size_t i = n; st == CLB_OK && i-- > 0;) dst[i] = (double)f[i];
    return st;
}

/* One warm-up (builds), a check against the reference (or a copy into bc->ref
   when fill_ref), then timed runs for at least 0.5 s (5 to 10 runs); *gflops
   from the fastest, the figure least disturbed by other work on a shared
   machine. impl: CLB__MATMUL_KERNEL or CLB__MATMUL_CLBLAST. A wrong result is
   CLB_ERR_UNSUPPORTED naming the first wrong element. */
static clb_status time_gemm(void *self, int impl, bool fill_ref, double *gflops)
{
    bench_case *bc = self;
    clb_status st = CLB_OK;
    clb_tensor *y = NULL;
    double times[10];
    int runs = 0;
    *gflops = 0;
    CLB_TRY(clb__matmul_impl(bc->a, bc->b, impl, &y));
    CLB_TRY(clb_finish(bc->ctx));
    CLB_TRY(read_out(bc, y, fill_ref ? bc->ref : bc->got));
    if (!fill_ref) {
        double tol = bc->dtype == CLB_FLOAT64 ? 1e-9 : 1e-3;
        for (size_t i = 0; i < bc->out_count; i++)
            if (!(fabs(bc->got[i] - bc->ref[i]) <= tol * (1 + fabs(bc->ref[i]))))
                CLB_FAIL(CLB_ERR_UNSUPPORTED, "wrong result at element %zu: %g instead of %g", i,
                         bc->got[i], bc->ref[i]);
    }
    clb_tensor_release(y);
    y = NULL;
    double total = 0;
    while (runs < 10 && (runs < 5 || total < 0.5)) {
        double t0 = now_s();
        CLB_TRY(clb__matmul_impl(bc->a, bc->b, impl, &y));
        CLB_TRY(clb_finish(bc->ctx));
        times[runs] = now_s() - t0;
        total += times[runs++];
        clb_tensor_release(y);
        y = NULL;
    }
    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    *gflops = bc->flop / times[0] / 1e9;
cleanup:
    clb_tensor_release(y);
    return st;
}

static clb_status random_operand(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                                 uint64_t seed, clb_tensor **out)
{
    size_t n = 1;
    for (int d = 0; d < ndim; d++) n *= (size_t)shape[d];
    void *data = malloc(n * clb_dtype_size(dtype));
    if (!data) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a tuning operand");
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(seed >> 40) / (double)(1 << 24) - 0.5;
        if (dtype == CLB_FLOAT64) ((double *)data)[i] = v;
        else ((float *)data)[i] = (float)v;
    }
    clb_status st = clb_tensor_from_host(ctx, dtype, ndim, shape, data, out);
    free(data);
    return st;
}


/* The search's GEMM (B, 256, 256) @ (256, 256) (the shape), our kernel's
   product and speed, then the backend's candidates against them. */
static clb_status tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                       clb_matmul_tune_result *out)
{
    clb_status st = CLB_OK;
    bench_case bc = {ctx, dtype, NULL, NULL, 0, NULL, NULL, 0};
    const int64_t side = 256, batch = dtype == CLB_FLOAT64 ? 16 : 64;
    const int64_t ashape[3] = {batch, side, side}, bshape[2] = {side, side};

    out->batch = batch, out->m = side, out->n = side, out->k = side;
    bc.flop = 2.0 * (double)batch * (double)side * (double)side * (double)side;
    bc.out_count = (size_t)(batch * side * side);
    bc.ref = malloc(bc.out_count * sizeof(double));
    bc.got = malloc(bc.out_count * sizeof(double));
    if (!bc.ref || !bc.got) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for matmul tuning");
    CLB_TRY(random_operand(ctx, dtype, 3, ashape, 7, &bc.a));
    CLB_TRY(random_operand(ctx, dtype, 2, bshape, 11, &bc.b));

    /* Our kernel: the reference result and the speed to beat. */
    st = time_gemm(&bc, CLB__MATMUL_KERNEL, true, &out->kernel_gflops);
    if (st != CLB_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", clb_last_error());
        CLB_FAIL(st, "clb_matmul_tune: the library's own matmul kernel failed on %s: %s",
                 ctx->info.name, why);
    }
    const clb__gemm_timer timer = {time_gemm, &bc};
    st = ctx->backend->matmul_tune(ctx, dtype, max_candidates, &timer, out);
cleanup:
    clb_tensor_release(bc.a);
    clb_tensor_release(bc.b);
    free(bc.ref);
    free(bc.got);
    return st;
}

clb_status clb_matmul_tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                           clb_matmul_tune_result *out)
{
    clb_status st = clb__check_context(ctx, "clb_matmul_tune: ctx");
    if (st != CLB_OK) return st;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_matmul_tune: out is NULL");
    memset(out, 0, sizeof *out);
    out->best = -1;
    if (dtype != CLB_FLOAT32 && dtype != CLB_FLOAT64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_matmul_tune: dtype %s: only float32 and float64 matmuls run on "
                         "CLBlast, so only they are tuned",
                         clb_dtype_name(dtype));
    if (max_candidates < 0 || max_candidates > CLB_MATMUL_TUNE_MAX_CANDIDATES)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_matmul_tune: max_candidates is %d; use 0 (all) to %d",
                         max_candidates, CLB_MATMUL_TUNE_MAX_CANDIDATES);
    /* NULL where there is nothing to tune: the host backend, a build without CLBlast. */
    if (!ctx->backend->matmul_tune)
        return clb__fail(CLB_ERR_UNSUPPORTED, "%s",
                         CLB_HAVE_CLBLAST
                             ? "clb_matmul_tune: the context runs on the host backend, which has "
                               "no CLBlast to tune; create it on an OpenCL device"
                             : "clb_matmul_tune: this build of clbroadcast has no CLBlast "
                               "(configure with -Dclblast=enabled and libclblast-dev installed)");
    if (dtype == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_matmul_tune: OpenCL device %s has no float64 arithmetic "
                         "(cl_khr_fp64); tune float32",
                         ctx->info.name);
    return tune(ctx, dtype, max_candidates, out);
}
