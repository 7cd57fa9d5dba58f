/* The tasks: one codelet per kind of operation, with a CPU implementation (the
 * host backend on StarPU's memory) and an OpenCL one (the worker's context, on
 * StarPU's cl_context and queue, asynchronous: the library enqueues on StarPU's
 * in-order queue and StarPU waits for it), and the submit functions. */
#include "sp_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[CLB_SP_KINDS] = {
    "clb_eval", "clb_eval_reduce", "clb_reduce", "clb_sum_to_shape", "clb_matmul"};

/* The operation of a task on ctx over its buffers' tensors; *r: a result to copy
   into out (the library has no _into form of these), or NULL. */
static clb_status compute(clb_context *ctx, const clb_sp_args *a, clb_tensor *const *t,
                          clb_tensor **r)
{
    const char *names[CLB_EVAL_MAX_INPUTS];
    for (int i = 0; i < a->n; i++) names[i] = a->text + a->name_at[i];
    const clb_tensor *const *in = (const clb_tensor *const *)t;
    int naxes = a->naxes < 0 ? 0 : a->naxes;
    const int *axes = a->naxes < 0 ? NULL : a->axes;
    const clb_sp_desc *o = &a->desc[a->n];
    switch (a->kind) {
    case CLB_SP_EVAL:
        return clb_eval_into(ctx, a->text, a->n, names, in, t[a->n]);
    case CLB_SP_EVAL_REDUCE:
        return clb_eval_reduce(ctx, a->text, a->n, names, in, a->op, naxes, axes, a->keepdim, r);
    case CLB_SP_REDUCE:
        return clb_reduce(a->op, t[0], naxes, axes, a->keepdim, r);
    case CLB_SP_SUM_TO_SHAPE:
        return clb_sum_to_shape(t[0], o->ndim, o->shape, r);
    default:
        return clb_matmul(t[0], t[1], r);
    }
}

static void run(void *buffers[], void *cl_arg, int on_device)
{
    const clb_sp_args *a = cl_arg;
    int w = starpu_worker_get_id();
    clb_context *ctx = a->sp->contexts[w];
    clb_tensor *t[CLB_EVAL_MAX_INPUTS + 1] = {0}, *r = NULL;
    atomic_fetch_add(&a->sp->tasks[w], 1);
    clb_status st = CLB_OK;
    for (int i = 0; i <= a->n && st == CLB_OK; i++)
        st = clb_sp_view(kind_names[a->kind], ctx, on_device, buffers[i], a->desc[i].dtype,
                         a->desc[i].ndim, a->desc[i].shape, &t[i]);
    if (st == CLB_OK) st = compute(ctx, a, t, &r);
    if (st == CLB_OK && r) {
        static const char *const result[] = {"r"};
        st = clb_eval_into(ctx, "r", 1, result, (const clb_tensor *const *)&r, t[a->n]);
    }
    if (st != CLB_OK) clb_sp_record_failure(a->sp, w, kind_names[a->kind], st, clb_last_error());
    clb_tensor_release(r);
    for (int i = 0; i <= a->n; i++) clb_tensor_release(t[i]);
}

static void run_cpu(void *buffers[], void *cl_arg)
{
    run(buffers, cl_arg, 0);
}

#if CLB_SP_OPENCL
static void run_opencl(void *buffers[], void *cl_arg)
{
    run(buffers, cl_arg, 1);
    /* StarPU waits for the queue by polling an event: the commands must be
       submitted to the device, which some drivers only do on a flush. Where that
       polling sees the end late (sp->finish), the task waits for its queue. */
    const clb_sp_args *a = cl_arg;
    cl_command_queue queue = NULL;
    starpu_opencl_get_current_queue(&queue);
    if (a->sp->finish[starpu_worker_get_id()])
        clFinish(queue);
    else
        clFlush(queue);
}
#define CLB_SP_WHERE (STARPU_CPU | STARPU_OPENCL)
#define CLB_SP_OPENCL_FUNCS .opencl_funcs = {run_opencl}, .opencl_flags = {STARPU_OPENCL_ASYNC},
#else
#define CLB_SP_WHERE STARPU_CPU
#define CLB_SP_OPENCL_FUNCS
#endif

/* History-based models (dmda and the other model-driven schedulers use them;
   they live under $STARPU_HOME/.starpu/sampling). */
static struct starpu_perfmodel models[CLB_SP_KINDS] = {
    {.type = STARPU_HISTORY_BASED, .symbol = "clb_eval"},
    {.type = STARPU_HISTORY_BASED, .symbol = "clb_eval_reduce"},
    {.type = STARPU_HISTORY_BASED, .symbol = "clb_reduce"},
    {.type = STARPU_HISTORY_BASED, .symbol = "clb_sum_to_shape"},
    {.type = STARPU_HISTORY_BASED, .symbol = "clb_matmul"},
};

#define CLB_SP_CODELET(k)                                                                          \
    {.where = CLB_SP_WHERE, .cpu_funcs = {run_cpu}, CLB_SP_OPENCL_FUNCS.nbuffers =                 \
         STARPU_VARIABLE_NBUFFERS, .model = &models[k], .name = NULL}
static struct starpu_codelet codelets[CLB_SP_KINDS] = {
    CLB_SP_CODELET(0), CLB_SP_CODELET(1), CLB_SP_CODELET(2), CLB_SP_CODELET(3), CLB_SP_CODELET(4)};

/* A zeroed argument block with room for the expression and names. */
static clb_status new_args(const char *fn, clb_starpu *sp, clb_sp_kind kind, const char *expr, int n,
                           const char *const *names, clb_sp_args **out, size_t *size)
{
    size_t text = expr ? strlen(expr) + 1 : 1;
    for (int i = 0; names && i < n; i++) {
        if (!names[i]) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: names[%d] is NULL", fn, i);
        text += strlen(names[i]) + 1;
    }
    *size = sizeof(clb_sp_args) + text;
    clb_sp_args *a = calloc(1, *size);
    if (!a) return clb_sp_fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    a->sp = sp;
    a->kind = kind;
    a->n = n;
    a->naxes = -1;
    size_t at = 0;
    if (expr) memcpy(a->text, expr, strlen(expr));
    at = expr ? strlen(expr) + 1 : 1;
    for (int i = 0; names && i < n; i++) {
        a->name_at[i] = (int)at;
        memcpy(a->text + at, names[i], strlen(names[i]));
        at += strlen(names[i]) + 1;
    }
    *out = a;
    return CLB_OK;
}

/* Fills the descriptions of the n inputs and the output. */
static clb_status describe_ops(const char *fn, clb_sp_args *a, const clb_starpu_tensor *const *in,
                               const clb_starpu_tensor *out)
{
    char what[32];
    for (int i = 0; i <= a->n; i++) {
        const clb_starpu_tensor *t = i < a->n ? in[i] : out;
        snprintf(what, sizeof what, i < a->n ? "inputs[%d]" : "out", i);
        clb_status st = clb_sp_check_tensor(fn, what, t);
        if (st != CLB_OK) return st;
        if (starpu_data_get_nb_children(t->handle) > 0)
            return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s is partitioned: give the task its "
                               "parts, or clb_starpu_unpartition it first", fn, what);
        if (i < a->n && t->handle == out->handle)
            return clb_sp_fail(CLB_ERR_ALIASING, "%s: out is also inputs[%d]; a task writes its "
                               "output whole (STARPU_W): give it another handle", fn, i);
        a->desc[i].dtype = t->dtype;
        a->desc[i].ndim = t->ndim;
        memcpy(a->desc[i].shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    }
    return CLB_OK;
}

static clb_status insert(const char *fn, clb_starpu *sp, clb_sp_args *a, size_t size,
                         const clb_starpu_tensor *const *in, const clb_starpu_tensor *out)
{
    struct starpu_data_descr descr[CLB_EVAL_MAX_INPUTS + 1];
    for (int i = 0; i < a->n; i++) descr[i].handle = in[i]->handle, descr[i].mode = STARPU_R;
    descr[a->n].handle = out->handle;
    descr[a->n].mode = STARPU_W;
    struct starpu_codelet *cl = &codelets[a->kind];
    int pin = atomic_load(&sp->pin), ret = 0;
    if (sp->insert)
        ret = sp->insert(sp, cl, a, size, descr, a->n + 1);
    else if (pin >= 0)
        ret = starpu_task_insert(cl, STARPU_CL_ARGS, a, size, STARPU_DATA_MODE_ARRAY, descr, a->n + 1,
                                 STARPU_EXECUTE_ON_WORKER, pin, STARPU_NAME, kind_names[a->kind], 0);
    else
        ret = starpu_task_insert(cl, STARPU_CL_ARGS, a, size, STARPU_DATA_MODE_ARRAY, descr, a->n + 1,
                                 STARPU_NAME, kind_names[a->kind], 0);
    if (ret == -ENODEV)
        return clb_sp_fail(CLB_ERR_NO_DEVICE, "%s: no StarPU worker can run the task (it needs a "
                           "CPU or OpenCL worker)", fn);
    if (ret != 0)
        return clb_sp_fail(CLB_ERR_UNSUPPORTED, "%s: StarPU refused the task (%d)", fn, ret);
    return CLB_OK;
}

/* Checks a, then submits it (a passes to StarPU, or is freed on failure). */
static clb_status submit(const char *fn, clb_starpu *sp, clb_sp_args *a, size_t size,
                         const clb_starpu_tensor *const *in, const clb_starpu_tensor *out)
{
    clb_status st = describe_ops(fn, a, in, out);
    if (st == CLB_OK) st = clb_sp_check_args(sp, fn, a);
    if (st != CLB_OK) {
        free(a);
        return st;
    }
    return insert(fn, sp, a, size, in, out);
}

static clb_status check_inputs(const char *fn, clb_starpu *sp, int n, int min, int max,
                               const void *inputs, const void *names, const char *expr,
                               const clb_starpu_tensor *out)
{
    clb_status st = clb_sp_check(sp, fn);
    if (st != CLB_OK) return st;
    if (n < min || n > max)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: n = %d inputs (%d .. %d)", fn, n, min, max);
    if ((n > 0 && !inputs) || (n > 0 && expr && !names))
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: inputs or names is NULL", fn);
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    return CLB_OK;
}

/* The axes into a (naxes < 0: all axes). */
static clb_status set_axes(const char *fn, clb_sp_args *a, clb_reduce_op op, int naxes,
                           const int *axes, int keepdim)
{
    if (naxes < 0 || naxes > CLB_MAX_DIMS || (naxes > 0 && !axes)) {
        free(a);
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: naxes %d (0 .. %d, axes not NULL)", fn,
                           naxes, CLB_MAX_DIMS);
    }
    a->op = op;
    a->naxes = axes ? naxes : -1;
    for (int i = 0; axes && i < naxes; i++) a->axes[i] = axes[i];
    a->keepdim = keepdim;
    return CLB_OK;
}

clb_status clb_starpu_eval(clb_starpu *sp, const char *expr, int n, const char *const *names,
                           const clb_starpu_tensor *const *inputs, const clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_eval";
    clb_status st = check_inputs(fn, sp, n, 0, CLB_EVAL_MAX_INPUTS, inputs, names, "", out);
    if (st != CLB_OK) return st;
    if (!expr) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: expr is NULL", fn);
    clb_sp_args *a = NULL;
    size_t size = 0;
    st = new_args(fn, sp, CLB_SP_EVAL, expr, n, names, &a, &size);
    return st != CLB_OK ? st : submit(fn, sp, a, size, inputs, out);
}

clb_status clb_starpu_eval_reduce(clb_starpu *sp, const char *expr, int n, const char *const *names,
                                  const clb_starpu_tensor *const *inputs, clb_reduce_op op,
                                  int naxes, const int *axes, int keepdim,
                                  const clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_eval_reduce";
    clb_status st = check_inputs(fn, sp, n, 0, CLB_EVAL_MAX_INPUTS, inputs, names, "", out);
    if (st != CLB_OK) return st;
    if (!expr) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: expr is NULL", fn);
    clb_sp_args *a = NULL;
    size_t size = 0;
    st = new_args(fn, sp, CLB_SP_EVAL_REDUCE, expr, n, names, &a, &size);
    if (st == CLB_OK) st = set_axes(fn, a, op, naxes, axes, keepdim);
    return st != CLB_OK ? st : submit(fn, sp, a, size, inputs, out);
}

clb_status clb_starpu_reduce(clb_starpu *sp, clb_reduce_op op, const clb_starpu_tensor *in, int naxes,
                             const int *axes, int keepdim, const clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_reduce";
    const clb_starpu_tensor *inputs[1] = {in};
    clb_status st = check_inputs(fn, sp, 1, 1, 1, in, NULL, NULL, out);
    if (st != CLB_OK) return st;
    clb_sp_args *a = NULL;
    size_t size = 0;
    st = new_args(fn, sp, CLB_SP_REDUCE, NULL, 1, NULL, &a, &size);
    if (st == CLB_OK) st = set_axes(fn, a, op, naxes, axes, keepdim);
    return st != CLB_OK ? st : submit(fn, sp, a, size, inputs, out);
}

clb_status clb_starpu_sum_to_shape(clb_starpu *sp, const clb_starpu_tensor *grad,
                                   const clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_sum_to_shape";
    const clb_starpu_tensor *inputs[1] = {grad};
    clb_status st = check_inputs(fn, sp, 1, 1, 1, grad, NULL, NULL, out);
    if (st != CLB_OK) return st;
    clb_sp_args *a = NULL;
    size_t size = 0;
    st = new_args(fn, sp, CLB_SP_SUM_TO_SHAPE, NULL, 1, NULL, &a, &size);
    return st != CLB_OK ? st : submit(fn, sp, a, size, inputs, out);
}

clb_status clb_starpu_matmul(clb_starpu *sp, const clb_starpu_tensor *a_, const clb_starpu_tensor *b,
                             const clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_matmul";
    const clb_starpu_tensor *inputs[2] = {a_, b};
    clb_status st = check_inputs(fn, sp, 2, 2, 2, a_ && b ? inputs : NULL, NULL, NULL, out);
    if (st != CLB_OK) return st;
    clb_sp_args *a = NULL;
    size_t size = 0;
    st = new_args(fn, sp, CLB_SP_MATMUL, NULL, 2, NULL, &a, &size);
    return st != CLB_OK ? st : submit(fn, sp, a, size, inputs, out);
}
