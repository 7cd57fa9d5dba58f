/* examples/mpi_data_parallel.c: data parallelism past one machine with MPI.
 *
 * A batch of B rows of (x, dy), C features, for y = x * w + b (w, b of shape (1, C)
 * broadcast over the batch). Each rank takes the device `rank % devices` (the host
 * backend when there is no OpenCL device), computes its shard's gradients
 * dL/dw = sum_to_shape(dy * x, (1, C)) and dL/db = sum_to_shape(dy, (1, C)), reads
 * them into host memory, and MPI_Allreduce sums them over all ranks. Every rank then
 * checks the sum against one process computing the whole batch on its device.
 *
 *   mpirun -np 2 build/examples/mpi_data_parallel [B C]     (default 4096 256)
 *
 * The library knows nothing of MPI: MPI moves host data, clbroadcast computes. */
#include "clbroadcast.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        clb_status st_ = (call);                                                                   \
        if (st_ != CLB_OK) {                                                                       \
            fprintf(stderr, "rank %d: %s failed: %s: %s\n", rank, #call, clb_status_name(st_),    \
                    clb_last_error());                                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

static int rank = 0;

/* Row i of the global batch, the same on every rank. */
static void fill_rows(int64_t first, int64_t rows, int64_t C, float *x, float *dy)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < C; j++) {
            int64_t g = (first + i) * C + j;
            x[i * C + j] = (float)((g * 7919 % 2003) / 1001.0 - 1.0);
            dy[i * C + j] = (float)((g * 104729 % 997) / 498.0 - 1.0);
        }
}

/* Gradients of rows [first, first + rows) on ctx into dw, db (C floats each). */
static void local_gradient(clb_context *ctx, int64_t first, int64_t rows, int64_t C, float *dw,
                           float *db)
{
    size_t n = (size_t)(rows * C);
    float *x = malloc(n * sizeof *x + 1), *dy = malloc(n * sizeof *dy + 1);
    if (!x || !dy) MPI_Abort(MPI_COMM_WORLD, 1);
    fill_rows(first, rows, C, x, dy);
    int64_t shape[2] = {rows, C}, to[2] = {1, C};
    clb_tensor *tx = NULL, *tdy = NULL, *prod = NULL, *gw = NULL, *gb = NULL;
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, shape, x, &tx));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, shape, dy, &tdy));
    CHECK(clb_binary(CLB_MUL, tdy, tx, &prod));
    CHECK(clb_sum_to_shape(prod, 2, to, &gw));
    CHECK(clb_sum_to_shape(tdy, 2, to, &gb));
    CHECK(clb_tensor_to_host(gw, dw, (size_t)C * sizeof *dw));
    CHECK(clb_tensor_to_host(gb, db, (size_t)C * sizeof *db));
    clb_tensor *tmp[] = {tx, tdy, prod, gw, gb};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) clb_tensor_release(tmp[i]);
    free(x);
    free(dy);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t B = argc > 1 ? atoll(argv[1]) : 4096, C = argc > 2 ? atoll(argv[2]) : 256;
    if (B < size || C < 1) {
        if (rank == 0) fprintf(stderr, "usage: mpi_data_parallel [B >= ranks] [C >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    int devices = 0;
    CHECK(clb_device_count(&devices));
    char sel[16] = "host";
    if (devices > 0) snprintf(sel, sizeof sel, "%d", rank % devices);
    clb_context *ctx = NULL;
    CHECK(clb_context_create(sel, &ctx));

    /* This rank's shard of the batch. */
    int64_t first = B * rank / size, last = B * (rank + 1) / size;
    float *part = calloc((size_t)(2 * C), sizeof *part), *sum = calloc((size_t)(2 * C), sizeof *sum);
    float *ref = calloc((size_t)(2 * C), sizeof *ref);
    if (!part || !sum || !ref) MPI_Abort(MPI_COMM_WORLD, 1);
    /* A warm-up run first: kernels compile on first use (or load from the cache). */
    local_gradient(ctx, first, last - first, C, part, part + C);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    local_gradient(ctx, first, last - first, C, part, part + C);
    double t1 = MPI_Wtime();
    /* One collective for both gradients, on host memory. */
    MPI_Allreduce(part, sum, (int)(2 * C), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    printf("rank %d/%d on %s: rows %lld..%lld, local gradient %.2f ms (warm), allreduce %.2f ms\n", rank,
           size, clb_context_device_name(ctx), (long long)first, (long long)(last - 1),
           (t1 - t0) * 1e3, (t2 - t1) * 1e3);

    /* The single-process result: the whole batch here. */
    local_gradient(ctx, 0, B, C, ref, ref + C);
    double worst = 0;
    for (int64_t j = 0; j < 2 * C; j++)
        worst = fmax(worst, fabs((double)sum[j] - ref[j]) / fmax(1.0, fabs((double)ref[j])));
    int ok = worst < 1e-4, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("allreduced gradients vs one process doing the whole batch: largest relative "
               "difference %.3g on rank 0 -> %s\n",
               worst, all_ok ? "OK on every rank" : "MISMATCH");
    free(part);
    free(sum);
    free(ref);
    clb_context_release(ctx);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
