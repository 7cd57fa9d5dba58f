/* clbroadcast_starpu_mpi.h: the StarPU adapter's tasks through StarPU-MPI (built
 * when libstarpumpi is found, with the adapter).
 *
 * After clb_starpu_mpi_attach, every clb_starpu_* task submission goes through
 * starpu_mpi_task_insert on comm: every rank submits the same tasks in the same
 * order, each task runs on the rank that owns its output (starpu_mpi_data_register
 * of the output handle), and StarPU-MPI sends it the inputs other ranks own.
 * Register each tensor on every rank (clb_starpu_register with data NULL where the
 * rank does not own it), then give the handle its tag and owner with
 * starpu_mpi_data_register. */
#ifndef CLBROADCAST_STARPU_MPI_H
#define CLBROADCAST_STARPU_MPI_H

#include <starpu_mpi.h>

#include "clbroadcast_starpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* From now on sp submits through StarPU-MPI on comm (which StarPU-MPI must have
   been started on: starpu_mpi_init_conf). */
CLB_STARPU_API clb_status clb_starpu_mpi_attach(clb_starpu *sp, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* CLBROADCAST_STARPU_MPI_H */
