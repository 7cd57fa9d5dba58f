/* The adapter's state: the workers' clbroadcast contexts (made once, at
 * clb_starpu_create, on StarPU's own OpenCL objects), task counts, failures. */
#include "sp_internal.h"

#if CLB_SP_OPENCL
#include "clbroadcast_cl.h"
#endif

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

clb_status clb_sp_fail(clb_status s, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return clb_set_last_error(s, message);
}

clb_status clb_sp_check(const clb_starpu *sp, const char *fn)
{
    if (!sp || sp->magic != CLB_SP_MAGIC)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "%s: sp is NULL or not a live adapter (clb_starpu_create)", fn);
    return CLB_OK;
}

void clb_sp_record_failure(clb_starpu *sp, int workerid, const char *task, clb_status s,
                           const char *message)
{
    char name[64] = "?";
    if (workerid >= 0) starpu_worker_get_name(workerid, name, sizeof name);
    pthread_mutex_lock(&sp->lock);
    if (sp->failure == CLB_OK) {
        sp->failure = s;
        snprintf(sp->failure_message, sizeof sp->failure_message,
                 "clb_starpu: task %s on worker %d (%s) failed: %s: %s", task, workerid, name,
                 clb_status_name(s), message);
    }
    pthread_mutex_unlock(&sp->lock);
}

#if CLB_SP_OPENCL
/* The context of OpenCL worker w on StarPU's cl_context, device and queue. */
static clb_status opencl_worker_context(int w, clb_context **out)
{
    int devid = starpu_worker_get_devid(w);
    cl_context context = NULL;
    cl_device_id device = NULL;
    cl_command_queue queue = NULL;
    starpu_opencl_get_context(devid, &context);
    starpu_opencl_get_device(devid, &device);
    starpu_opencl_get_queue(devid, &queue);
    clb_status st = clb_context_create_from_cl(context, device, queue, out);
    if (st != CLB_OK) {
        char name[64];
        starpu_worker_get_name(w, name, sizeof name);
        char inner[1024];
        snprintf(inner, sizeof inner, "%s", clb_last_error());
        return clb_sp_fail(st, "clb_starpu_create: worker %d (%s): %s", w, name, inner);
    }
    return CLB_OK;
}
#endif

static clb_status make_contexts(clb_starpu *sp)
{
    /* The CPU workers' context, also the one of the checks before submission. */
    clb_status st = clb_context_create("host", &sp->host);
    if (st != CLB_OK) return st;
    for (unsigned w = 0; w < sp->nworkers; w++) {
        enum starpu_worker_archtype type = starpu_worker_get_type((int)w);
        if (type == STARPU_CPU_WORKER) sp->contexts[w] = sp->host;
#if CLB_SP_OPENCL
        if (type == STARPU_OPENCL_WORKER) {
            st = opencl_worker_context((int)w, &sp->contexts[w]);
            if (st != CLB_OK) return st;
            /* Mesa's rusticl: StarPU's asynchronous wait (polling an event) sees its
               tasks end milliseconds late (6.8 ms a small task, against 1.0 ms when
               the task waits for its queue itself). */
            clb_device_info info;
            if (clb_context_get_info(sp->contexts[w], &info) == CLB_OK)
                sp->finish[w] = strstr(info.platform, "rusticl") != NULL;
        }
#endif
    }
    return CLB_OK;
}

clb_status clb_starpu_create(clb_starpu **out)
{
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "clb_starpu_create: out is NULL");
    *out = NULL;
    if (!starpu_is_initialized())
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "clb_starpu_create: StarPU is not running; call starpu_init (or "
                           "starpu_mpi_init_conf) first");
    clb_starpu *sp = calloc(1, sizeof *sp);
    if (!sp) return clb_sp_fail(CLB_ERR_OUT_OF_MEMORY, "clb_starpu_create: out of host memory");
    sp->nworkers = starpu_worker_get_count();
    sp->contexts = calloc(sp->nworkers + 1, sizeof *sp->contexts);
    sp->tasks = calloc(sp->nworkers + 1, sizeof *sp->tasks);
    sp->finish = calloc(sp->nworkers + 1, 1);
    if (!sp->contexts || !sp->tasks || !sp->finish || pthread_mutex_init(&sp->lock, NULL) != 0) {
        free(sp->contexts);
        free(sp->tasks);
        free(sp->finish);
        free(sp);
        return clb_sp_fail(CLB_ERR_OUT_OF_MEMORY, "clb_starpu_create: out of host memory");
    }
    for (unsigned w = 0; w <= sp->nworkers; w++) atomic_init(&sp->tasks[w], 0);
    atomic_init(&sp->pin, -1);
    sp->magic = CLB_SP_MAGIC;
    clb_status st = make_contexts(sp);
    if (st != CLB_OK) {
        char message[1024];
        snprintf(message, sizeof message, "%s", clb_last_error());
        clb_starpu_release(sp);
        return clb_set_last_error(st, message);
    }
    *out = sp;
    return CLB_OK;
}

void clb_starpu_release(clb_starpu *sp)
{
    if (!sp || sp->magic != CLB_SP_MAGIC) return;
    if (starpu_is_initialized()) starpu_task_wait_for_all();
    sp->magic = 0;
    for (unsigned w = 0; w < sp->nworkers; w++)
        if (sp->contexts[w] != sp->host) clb_context_release(sp->contexts[w]);
    clb_context_release(sp->host);
    pthread_mutex_destroy(&sp->lock);
    free(sp->contexts);
    free(sp->tasks);
    free(sp->finish);
    free(sp->mpi_comm);
    free(sp);
}

clb_status clb_starpu_wait(clb_starpu *sp)
{
    clb_status st = clb_sp_check(sp, "clb_starpu_wait");
    if (st != CLB_OK) return st;
    starpu_task_wait_for_all();
    char message[sizeof sp->failure_message];
    pthread_mutex_lock(&sp->lock);
    st = sp->failure;
    memcpy(message, sp->failure_message, sizeof message);
    sp->failure = CLB_OK;
    sp->failure_message[0] = '\0';
    pthread_mutex_unlock(&sp->lock);
    return st == CLB_OK ? CLB_OK : clb_set_last_error(st, message);
}

clb_status clb_starpu_worker_context(clb_starpu *sp, int workerid, clb_context **out)
{
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "clb_starpu_worker_context: out is NULL");
    *out = NULL;
    clb_status st = clb_sp_check(sp, "clb_starpu_worker_context");
    if (st != CLB_OK) return st;
    if (workerid < 0 || (unsigned)workerid >= sp->nworkers)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "clb_starpu_worker_context: workerid %d is not one of StarPU's %u workers",
                           workerid, sp->nworkers);
    if (!sp->contexts[workerid]) {
        char name[64];
        starpu_worker_get_name(workerid, name, sizeof name);
        return clb_sp_fail(CLB_ERR_UNSUPPORTED,
                           "clb_starpu_worker_context: worker %d (%s) is neither a CPU nor an "
                           "OpenCL worker; clbroadcast runs on those only",
                           workerid, name);
    }
    *out = sp->contexts[workerid];
    return CLB_OK;
}

unsigned long clb_starpu_worker_tasks(const clb_starpu *sp, int workerid)
{
    if (!sp || sp->magic != CLB_SP_MAGIC || workerid < 0 || (unsigned)workerid >= sp->nworkers)
        return 0;
    return atomic_load(&sp->tasks[workerid]);
}

clb_status clb_starpu_current_context(clb_starpu *sp, clb_context **out)
{
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "clb_starpu_current_context: out is NULL");
    *out = NULL;
    clb_status st = clb_sp_check(sp, "clb_starpu_current_context");
    if (st != CLB_OK) return st;
    int w = starpu_worker_get_id();
    if (w < 0)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "clb_starpu_current_context: not called from a StarPU worker (call it "
                           "inside a codelet)");
    return clb_starpu_worker_context(sp, w, out);
}

clb_status clb_starpu_pin(clb_starpu *sp, int workerid)
{
    clb_status st = clb_sp_check(sp, "clb_starpu_pin");
    if (st != CLB_OK) return st;
    if (workerid != -1 && (workerid < 0 || (unsigned)workerid >= sp->nworkers || !sp->contexts[workerid]))
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "clb_starpu_pin: workerid %d is not a CPU or OpenCL worker (0 .. %u, or "
                           "-1 for the scheduler's choice)", workerid, sp->nworkers - 1);
    atomic_store(&sp->pin, workerid);
    return CLB_OK;
}
