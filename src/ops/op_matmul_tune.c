/* clb_matmul_tune: the search. It times the library's own kernel, CLBlast's
 * defaults and a handful of CLBlast parameter sets chosen for CPUs through the
 * public calls, naming the implementation each time (clb__matmul_impl), and
 * writes the winner to the device's tuning file (matmul_tuning.h).
 *
 * CLBlast 1.5 has no parameters for PoCL; its defaults route (B, 256, 256) @
 * (256, 256) float32 to XgemmDirect with 16 x 16 tiles, about a tenth of what
 * the CPU does. The candidates (each costs one compilation of CLBlast's GEMM
 * program, 15-30 s on PoCL): Xgemm with 8-wide vectors and 64 accumulators per
 * work item, without local memory (no barriers, which PoCL pays for by
 * splitting work-item loops) and with it, and two XgemmDirect shapes. Each
 * candidate's result is checked against our kernel's before it is timed. */
#include "cl_matmul_tune.h"
#include "dtype.h"
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PATH_CAP 4096

/* ---- the search ------------------------------------------------------------------------ */

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST

/* A candidate: the GemmRoutine threshold (m*n*k below its cube runs XgemmDirect)
   and the values of one kernel family, in CLBlast's order (see the name tables). */
typedef struct candidate {
    size_t min_indirect;
    int family; /* CLB__MM_XGEMM or CLB__MM_DIRECT */
    size_t v[CLB__MM_MAX_PARAMS];
} candidate;

/* Most promising first: max_candidates = 1 takes the first.
   Xgemm:       GEMMK KREG KWG KWI MDIMA MDIMC MWG NDIMB NDIMC NWG SA SB STRM STRN VWM VWN
   XgemmDirect: KWID MDIMAD MDIMCD NDIMBD NDIMCD PADA PADB VWMD VWND WGD
   Xgemm computes an MWG/MDIMC x NWG/NDIMC tile per work item in VWM-wide
   vectors; 64 float accumulators fill eight AVX registers, like our kernel. */
static const candidate float_candidates[] = {
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 4, 4, 64, 16, 16, 64, 1, 1, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 128, 8, 8, 32, 1, 1, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 64, 8, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 16, 2, 16, 16, 128, 16, 16, 128, 0, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 0, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 64, 8, 4, 4, 32, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {1024, CLB__MM_DIRECT, {2, 8, 8, 8, 8, 0, 0, 8, 8, 64}},
};
static const candidate double_candidates[] = {
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 32, 8, 8, 64, 0, 0, 0, 0, 4, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 32, 0, 0, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 32, 8, 8, 64, 1, 1, 0, 0, 4, 8}},
    {1024, CLB__MM_DIRECT, {2, 8, 8, 8, 8, 0, 0, 4, 4, 32}},
};

static void candidate_params(const candidate *c, clb__mm_params *p)
{
    memset(p, 0, sizeof *p);
    p->set[CLB__MM_ROUTINE] = true;
    p->v[CLB__MM_ROUTINE][0] = c->min_indirect;
    p->set[c->family] = true;
    memcpy(p->v[c->family], c->v, sizeof c->v);
}

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
static clb_status time_gemm(bench_case *bc, int impl, bool fill_ref, double *gflops)
{
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

static clb_status search(clb_context *ctx, clb_dtype dtype, int max_candidates,
                         clb_matmul_tune_result *out)
{
    clb_status st = CLB_OK;
    bench_case bc = {ctx, dtype, NULL, NULL, 0, NULL, NULL, 0};
    const candidate *list = dtype == CLB_FLOAT64 ? double_candidates : float_candidates;
    int count = dtype == CLB_FLOAT64 ? (int)(sizeof double_candidates / sizeof double_candidates[0])
                                     : (int)(sizeof float_candidates / sizeof float_candidates[0]);
    if (max_candidates > 0 && max_candidates < count) count = max_candidates;
    clb__mm_params params[CLB_MATMUL_TUNE_MAX_CANDIDATES];
    const int64_t side = 256, batch = dtype == CLB_FLOAT64 ? 16 : 64; /* the shape */
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

    /* CLBlast's defaults, unless this process already replaced them. */
    bool overridden = false;
    CLB_TRY(clb__mm_overridden(ctx, dtype, &overridden));
    out->default_gflops = -1;
    if (!overridden && time_gemm(&bc, CLB__MATMUL_CLBLAST, false, &out->default_gflops) != CLB_OK)
        out->default_gflops = 0;

    for (int i = 0; i < count; i++) {
        candidate_params(&list[i], &params[i]);
        clb__mm_params_text(&params[i], out->candidates[i].params, sizeof out->candidates[i].params);
        out->count = i + 1;
        if (!clb__mm_params_valid(&params[i])) {
            snprintf(out->candidates[i].error, sizeof out->candidates[i].error,
                     "violates CLBlast's parameter constraints");
            continue;
        }
        int s = clb__mm_override(ctx, dtype, &params[i]);
        clb_matmul_tune_candidate *c = &out->candidates[i];
        if (s != 0)
            snprintf(c->error, sizeof c->error, "CLBlastOverrideParameters refused it (%d)", s);
        else if (time_gemm(&bc, CLB__MATMUL_CLBLAST, false, &c->gflops) != CLB_OK)
            snprintf(c->error, sizeof c->error, "%.255s", clb_last_error());
        if (c->error[0]) c->gflops = 0;
        if (out->candidates[i].gflops > 0 &&
            (out->best < 0 || out->candidates[i].gflops > out->candidates[out->best].gflops))
            out->best = i;
    }

    clb__mm_tuning t;
    memset(&t, 0, sizeof t);
    t.batch = batch, t.m = side, t.n = side, t.k = side;
    t.default_gflops = out->default_gflops;
    t.kernel_gflops = out->kernel_gflops;
    t.tuned_gflops = out->best >= 0 ? out->candidates[out->best].gflops : 0;
    out->overrides = out->best >= 0 && t.tuned_gflops > out->default_gflops;
    if (out->overrides) t.params = params[out->best];
    double clblast_gflops = out->overrides ? t.tuned_gflops : out->default_gflops;
    t.choice = out->kernel_gflops >= clblast_gflops ? CLB__MM_CHOICE_KERNEL : CLB__MM_CHOICE_CLBLAST;
    snprintf(out->choice, sizeof out->choice, "%s",
             t.choice == CLB__MM_CHOICE_KERNEL ? "kernel" : "clblast");

    /* In this process: the winner's parameters (when the defaults won, the
       fastest candidate: CLBlast's C API cannot restore its defaults). */
    clb__mm_settle(ctx, dtype, out->best >= 0 ? &params[out->best] : NULL, t.choice);

    char identity[2048], path[PATH_CAP];
    clb__mm_tuning_identity(&ctx->info, dtype, clb__mm_clblast_version(), identity, sizeof identity);
    if (clb__mm_tuning_path(identity, path, sizeof path)) {
        char why[PATH_CAP + 512];
        if (!clb__mm_tuning_save(path, identity, &t, why, sizeof why))
            CLB_FAIL(CLB_ERR_UNSUPPORTED,
                     "clb_matmul_tune: cannot write the tuning cache file %s (%s); set "
                     "CLB_CACHE_DIR to a writable directory only you can write, or to off to "
                     "tune without caching",
                     path, why);
        snprintf(out->cache_file, sizeof out->cache_file, "%.1023s", path);
    }
cleanup:
    clb_tensor_release(bc.a);
    clb_tensor_release(bc.b);
    free(bc.ref);
    free(bc.got);
    return st;
}
#endif

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
#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST
    if (ctx->info.type == CLB_DEVICE_HOST)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "clb_matmul_tune: the context runs on the host backend, which has no "
                         "CLBlast to tune; create it on an OpenCL device");
    if (dtype == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_matmul_tune: OpenCL device %s has no float64 arithmetic "
                         "(cl_khr_fp64); tune float32",
                         ctx->info.name);
    return search(ctx, dtype, max_candidates, out);
#else
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "clb_matmul_tune: this build of clbroadcast has no CLBlast (configure with "
                     "-Dclblast=enabled and libclblast-dev installed)");
#endif
}
