/* The OpenCL backend's side of matmul tuning: the in-process record of what was
 * handed to CLBlast per device and dtype, the cached tuning applied on a
 * device's first float matmul, and the calls the search (op_matmul_tune.c)
 * makes to hand CLBlast its candidates.
 *
 * CLBlastOverrideParameters takes effect per process and device and cannot be
 * undone through CLBlast's C API (it has no call that reads the defaults
 * back), which is why the search times the defaults first and a tuning that
 * lost to them stores no overrides. Thread-safety: the record is one
 * mutex-guarded list. */
#include "cl_matmul_tune.h"

#include "cl_launch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CLB_HAVE_CLBLAST
#include <clblast_c.h>
#include <dlfcn.h>
#endif

#define PATH_CAP 4096

#if CLB_HAVE_CLBLAST
static char clblast_name[256];
static pthread_once_t clblast_once = PTHREAD_ONCE_INIT;

/* The file name of the CLBlast library actually loaded (libclblast.so.1.5.3):
   packages name their files by full version, so an upgrade changes it. */
static void find_clblast_name(void)
{
    Dl_info di;
    char real[PATH_CAP];
    if (!dladdr((void *)CLBlastOverrideParameters, &di) || !di.dli_fname) return;
    const char *p = realpath(di.dli_fname, real) ? real : di.dli_fname;
    const char *base = strrchr(p, '/');
    snprintf(clblast_name, sizeof clblast_name, "%.255s", base ? base + 1 : p);
}
#endif

const char *clb__mm_clblast_version(void)
{
#if CLB_HAVE_CLBLAST
    pthread_once(&clblast_once, find_clblast_name);
    return clblast_name[0] ? clblast_name : "unknown";
#else
    return "none";
#endif
}

/* ---- the in-process record ------------------------------------------------------------ */

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST

typedef struct record {
    struct record *next;
    cl_device_id device;
    clb_dtype dtype;
    bool loaded;     /* the cache file was consulted */
    clb__mm_choice choice;
    bool overridden; /* CLBlast holds parameters of ours for this device and dtype:
                        kept by clb__mm_tuning_forget, as CLBlast keeps them */
} record;

static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static record *records;

/* The record of (device, dtype); created empty if absent. Caller holds the lock.
   NULL only when out of memory. Records live as long as the process (one per
   device and dtype), like the parameters CLBlast holds. */
static record *find_record(cl_device_id device, clb_dtype dtype)
{
    for (record *r = records; r; r = r->next)
        if (r->device == device && r->dtype == dtype) return r;
    record *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->device = device;
    r->dtype = dtype;
    r->next = records;
    records = r;
    return r;
}

static CLBlastStatusCode apply_params(cl_device_id device, clb_dtype dtype, const clb__mm_params *p)
{
    CLBlastPrecision prec = dtype == CLB_FLOAT64 ? CLBlastPrecisionDouble : CLBlastPrecisionSingle;
    for (int f = 0; f < CLB__MM_FAMILIES; f++) {
        if (!p->set[f]) continue;
        const char *names[CLB__MM_MAX_PARAMS];
        for (int i = 0; i < clb__mm_family_counts[f]; i++) names[i] = clb__mm_param_names[f][i];
        CLBlastStatusCode s = CLBlastOverrideParameters(device, clb__mm_family_names[f], prec,
                                                        (size_t)clb__mm_family_counts[f], names,
                                                        p->v[f]);
        if (s != CLBlastSuccess) return s;
    }
    return CLBlastSuccess;
}

static bool params_any(const clb__mm_params *p)
{
    for (int f = 0; f < CLB__MM_FAMILIES; f++)
        if (p->set[f]) return true;
    return false;
}

clb__mm_choice clb__mm_tuning_choice(clb_context *ctx, clb_dtype dtype)
{
    if (!ctx->options.matmul_tuning) return CLB__MM_CHOICE_NONE;
    cl_device_id device = clb__cl_impl(ctx)->device;
    clb__mm_choice choice = CLB__MM_CHOICE_NONE;
    pthread_mutex_lock(&records_lock);
    record *r = find_record(device, dtype);
    if (r && !r->loaded) {
        r->loaded = true;
        /* First matmul of this device and dtype in the process: load and apply. */
        char identity[2048], path[PATH_CAP];
        clb__mm_tuning t;
        clb__mm_tuning_identity(&ctx->info, dtype, clb__mm_clblast_version(), identity,
                                sizeof identity);
        if (clb__mm_tuning_path(identity, path, sizeof path) &&
            clb__mm_tuning_load(path, identity, &t)) {
            /* Overrides CLBlast refuses leave its defaults in place: still correct. */
            if (params_any(&t.params) && apply_params(device, dtype, &t.params) == CLBlastSuccess)
                r->overridden = true;
            r->choice = t.choice;
        }
    }
    if (r) choice = r->choice;
    pthread_mutex_unlock(&records_lock);
    return choice;
}

void clb__mm_tuning_forget(void)
{
    pthread_mutex_lock(&records_lock);
    for (record *r = records; r; r = r->next) {
        r->loaded = false;
        r->choice = CLB__MM_CHOICE_NONE;
    }
    pthread_mutex_unlock(&records_lock);
}

#else /* no CLBlast: nothing to tune, our kernel serves */

clb__mm_choice clb__mm_tuning_choice(clb_context *ctx, clb_dtype dtype)
{
    (void)ctx;
    (void)dtype;
    return CLB__MM_CHOICE_NONE;
}

void clb__mm_tuning_forget(void) {}

#endif

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST
clb_status clb__mm_overridden(clb_context *ctx, clb_dtype dtype, bool *overridden)
{
    pthread_mutex_lock(&records_lock);
    record *r = find_record(clb__cl_impl(ctx)->device, dtype);
    *overridden = r && r->overridden;
    pthread_mutex_unlock(&records_lock);
    return r ? CLB_OK : clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for matmul tuning");
}

int clb__mm_override(clb_context *ctx, clb_dtype dtype, const clb__mm_params *p)
{
    cl_device_id device = clb__cl_impl(ctx)->device;
    pthread_mutex_lock(&records_lock);
    record *r = find_record(device, dtype);
    CLBlastStatusCode s = apply_params(device, dtype, p);
    if (r) r->overridden = true; /* even a refused family may have left others applied */
    pthread_mutex_unlock(&records_lock);
    return (int)s;
}

void clb__mm_settle(clb_context *ctx, clb_dtype dtype, const clb__mm_params *best,
                    clb__mm_choice choice)
{
    cl_device_id device = clb__cl_impl(ctx)->device;
    pthread_mutex_lock(&records_lock);
    record *r = find_record(device, dtype);
    if (best) apply_params(device, dtype, best);
    if (r) {
        r->choice = choice;
        r->loaded = true;
    }
    pthread_mutex_unlock(&records_lock);
}
#endif
