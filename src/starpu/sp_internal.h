/* The StarPU adapter's private pieces (include/clbroadcast_starpu.h is the public side).
 * The adapter is a client of the public API only: clbroadcast.h, clbroadcast_cl.h. */
#ifndef CLB_SP_INTERNAL_H
#define CLB_SP_INTERNAL_H

#include "clbroadcast_starpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define CLB_SP_MAGIC 0x55505453u /* "STPU" */

/* How a task is handed to StarPU: starpu_task_insert, or StarPU-MPI's
   (clbroadcast_starpu_mpi.h). args is malloc'd and passes to the call. */
typedef int (*clb_sp_insert_fn)(clb_starpu *sp, struct starpu_codelet *cl, void *args,
                                size_t size, struct starpu_data_descr *descrs, int n);

struct clb_starpu {
    uint32_t magic;
    unsigned nworkers;
    clb_context **contexts;          /* per worker id; NULL for workers of other kinds */
    clb_context *host;               /* shared by the CPU workers */
    unsigned char *finish;           /* per worker id: wait for the queue inside the task
                                        (drivers whose events StarPU's polling sees late) */
    atomic_ulong *tasks;             /* per worker id */
    pthread_mutex_t lock;            /* guards the failure record */
    clb_status failure;              /* first task failure since the last clb_starpu_wait */
    char failure_message[1024];
    atomic_int pin;                  /* worker the tasks go to; -1: the scheduler decides */
    clb_sp_insert_fn insert;         /* NULL: starpu_task_insert */
    void *mpi_comm;                  /* the MPI_Comm for insert (sp_mpi.c), malloc'd */
};

/* Formats a message into clb_last_error() and returns s. */
clb_status clb_sp_fail(clb_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* CLB_ERR_INVALID_ARGUMENT naming fn when sp is not a live adapter. */
clb_status clb_sp_check(const clb_starpu *sp, const char *fn);
/* Records a task's failure (the first one wins) for clb_starpu_wait. */
void clb_sp_record_failure(clb_starpu *sp, int workerid, const char *task, clb_status s,
                           const char *message);

/* CLB_ERR_INVALID_ARGUMENT naming fn and what when t is not a usable description. */
clb_status clb_sp_check_tensor(const char *fn, const char *what, const clb_starpu_tensor *t);
/* A tensor on ctx over a codelet buffer, t's dtype and shape, no copy (sp_data.c). */
clb_status clb_sp_view(const char *fn, clb_context *ctx, int on_device, void *buffer,
                       clb_dtype dtype, int ndim, const int64_t *shape, clb_tensor **out);
/* "(2, 3)" into buf. */
const char *clb_sp_shape_text(int ndim, const int64_t *shape, char *buf, size_t size);

/* ---- tasks (sp_tasks.c) and their checks before submission (sp_check.c) ---- */
typedef enum clb_sp_kind {
    CLB_SP_EVAL = 0, CLB_SP_EVAL_REDUCE, CLB_SP_REDUCE, CLB_SP_SUM_TO_SHAPE, CLB_SP_MATMUL,
    CLB_SP_KINDS
} clb_sp_kind;

typedef struct clb_sp_desc {
    clb_dtype dtype;
    int ndim;
    int64_t shape[CLB_MAX_DIMS];
} clb_sp_desc;

/* A task's argument (the codelet's cl_arg), one malloc'd block. */
typedef struct clb_sp_args {
    clb_starpu *sp;
    clb_sp_kind kind;
    int n;                    /* inputs: buffers[0 .. n-1]; buffers[n] is the output */
    clb_reduce_op op;
    int naxes;                /* -1: all axes */
    int axes[CLB_MAX_DIMS];
    int keepdim;
    clb_sp_desc desc[CLB_EVAL_MAX_INPUTS + 1]; /* inputs, then the output */
    int name_at[CLB_EVAL_MAX_INPUTS];          /* offsets of the names in text */
    char text[];              /* the expression, then each name, NUL-terminated */
} clb_sp_args;

/* Checks a task before it is submitted, as the library would check the call (a dry
   run on one-element stand-ins on the host backend, and the shapes): the usual
   statuses and messages, naming fn. */
clb_status clb_sp_check_args(clb_starpu *sp, const char *fn, const clb_sp_args *a);

#endif /* CLB_SP_INTERNAL_H */
