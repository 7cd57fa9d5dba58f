/* Tasks through StarPU-MPI: the same submission, starpu_mpi_task_insert on a
 * communicator. A task runs on the rank owning its output; on the others
 * StarPU-MPI only posts the transfers and does not take the argument block, so
 * they free it here. */
#include "clbroadcast_starpu_mpi.h"
#include "sp_internal.h"

#include <stdlib.h>

static int mpi_insert(clb_starpu *sp, struct starpu_codelet *cl, void *args, size_t size,
                      struct starpu_data_descr *descrs, int n)
{
    MPI_Comm comm = *(MPI_Comm *)sp->mpi_comm;
    int me = 0;
    starpu_mpi_comm_rank(comm, &me);
    int runs_here = starpu_mpi_data_get_rank(descrs[n - 1].handle) == me;
    int ret = starpu_mpi_task_insert(comm, cl, runs_here ? STARPU_CL_ARGS : STARPU_CL_ARGS_NFREE,
                                     args, size, STARPU_DATA_MODE_ARRAY, descrs, n, 0);
    if (!runs_here) free(args);
    return ret;
}

clb_status clb_starpu_mpi_attach(clb_starpu *sp, MPI_Comm comm)
{
    clb_status st = clb_sp_check(sp, "clb_starpu_mpi_attach");
    if (st != CLB_OK) return st;
    MPI_Comm *copy = malloc(sizeof *copy);
    if (!copy) return clb_sp_fail(CLB_ERR_OUT_OF_MEMORY, "clb_starpu_mpi_attach: out of host memory");
    *copy = comm;
    free(sp->mpi_comm);
    sp->mpi_comm = copy;
    sp->insert = mpi_insert;
    return CLB_OK;
}
