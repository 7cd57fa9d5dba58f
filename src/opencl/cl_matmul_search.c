/* The OpenCL backend's matmul_tune slot (backend.h): clb_matmul_tune's search.
 * The op (op_matmul_tune.c) times the library's own kernel; here CLBlast's
 * defaults and a handful of CLBlast parameter sets chosen for CPUs are timed
 * through the op's timer, and the winner goes to the device's tuning file
 * (cl_tuning_file.h).
 *
 * CLBlast 1.5 has no parameters for PoCL; its defaults route (B, 256, 256) @
 * (256, 256) float32 to XgemmDirect with 16 x 16 tiles, about a tenth of what
 * the CPU does. The candidates (each costs one compilation of CLBlast's GEMM
 * program, 15-30 s on PoCL): Xgemm with 8-wide vectors and 64 accumulators per
 * work item, without local memory (no barriers, which PoCL pays for by
 * splitting work-item loops) and with it, and two XgemmDirect shapes. Each
 * candidate's result is checked against our kernel's before it is timed. */
#include "cl_backend.h"
#include "cl_matmul_tune.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

clb_status clb__cl_matmul_tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                               const clb__gemm_timer *timer, clb_matmul_tune_result *out)
{
    clb_status st = CLB_OK;
    const candidate *list = dtype == CLB_FLOAT64 ? double_candidates : float_candidates;
    int count = dtype == CLB_FLOAT64 ? (int)(sizeof double_candidates / sizeof double_candidates[0])
                                     : (int)(sizeof float_candidates / sizeof float_candidates[0]);
    if (max_candidates > 0 && max_candidates < count) count = max_candidates;
    clb__mm_params params[CLB_MATMUL_TUNE_MAX_CANDIDATES];

    /* CLBlast's defaults, unless this process already replaced them. */
    bool overridden = false;
    CLB_TRY(clb__mm_overridden(ctx, dtype, &overridden));
    out->default_gflops = -1;
    if (!overridden && timer->time(timer->self, CLB__MATMUL_CLBLAST, false, &out->default_gflops) != CLB_OK)
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
        else if (timer->time(timer->self, CLB__MATMUL_CLBLAST, false, &c->gflops) != CLB_OK)
            snprintf(c->error, sizeof c->error, "%.255s", clb_last_error());
        if (c->error[0]) c->gflops = 0;
        if (out->candidates[i].gflops > 0 &&
            (out->best < 0 || out->candidates[i].gflops > out->candidates[out->best].gflops))
            out->best = i;
    }

    clb__mm_tuning t;
    memset(&t, 0, sizeof t);
    t.batch = out->batch, t.m = out->m, t.n = out->n, t.k = out->k;
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
    return st;
}
#endif
