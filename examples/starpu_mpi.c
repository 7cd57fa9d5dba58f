/* examples/starpu_mpi.c: data parallelism past one machine with StarPU-MPI.
 *
 * The same model as examples/mpi_data_parallel.c, but every step is a StarPU task
 * and StarPU-MPI moves the data. A batch of B rows, C features, is split over the
 * ranks; each rank owns its shard of x and dy. mu and sigma (1, C) belong to rank 0
 * and StarPU-MPI sends them where they are read. As tasks, on the rank owning
 * what they write:
 *
 *   xn_r = (x_r - mu) / sigma                  the broadcast normalisation
 *   p_r  = dy_r * xn_r
 *   gw_r = sum_to_shape(p_r, (1, C))           the gradients of y = xn * w + b
 *   gb_r = sum_to_shape(dy_r, (1, C))
 *   gw = gw_0 + gw_1 + ...                     a tree of additions across the ranks
 *                                              (StarPU-MPI sends each partial sum
 *                                              to the rank adding it), on rank 0,
 *   then a copy task on every other rank, to which StarPU-MPI sends the total.
 *
 * Every rank then checks the total against one process doing the whole batch
 * (directly, on the host backend).
 *
 *   STARPU_OPENCL_ON_CPUS=1 mpirun -np 2 build/examples/starpu_mpi [B C]   (default 4096 256)
 *
 * Each rank's workers are its own: one StarPU worker per CPU core and per OpenCL
 * device it sees (STARPU_NCPU, STARPU_NOPENCL bound them). */
#include "clbroadcast_starpu_mpi.h"

#include <math.h>
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

static int rank = 0, size = 1, next_tag = 0;

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

static void fill_stats(int64_t C, float *mu, float *sigma)
{
    for (int64_t j = 0; j < C; j++) {
        mu[j] = (float)(0.01 * (j % 17));
        sigma[j] = (float)(1.0 + 0.1 * (j % 5));
    }
}

/* A tensor registered on every rank, owned by `owner` (data: its memory there,
   NULL elsewhere), known to StarPU-MPI by a fresh tag. */
static void distribute(clb_starpu_tensor *t, int owner, void *data, int ndim, const int64_t *shape)
{
    CHECK(clb_starpu_register(rank == owner ? data : NULL, CLB_FLOAT32, ndim, shape, t));
    starpu_mpi_data_register(t->handle, next_tag++, owner);
}

/* The gradients of the whole batch in one process, directly (the reference). */
static void whole_batch(int64_t B, int64_t C, float *gw, float *gb)
{
    size_t n = (size_t)(B * C);
    float *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy);
    float *mu = malloc((size_t)C * sizeof *mu), *sigma = malloc((size_t)C * sizeof *sigma);
    if (!x || !dy || !mu || !sigma) MPI_Abort(MPI_COMM_WORLD, 1);
    fill_rows(0, B, C, x, dy);
    fill_stats(C, mu, sigma);
    clb_context *ctx = NULL;
    CHECK(clb_context_create("host", &ctx));
    int64_t xs[2] = {B, C}, rs[2] = {1, C};
    clb_tensor *tx = NULL, *tdy = NULL, *tmu = NULL, *ts = NULL, *xn = NULL, *p = NULL, *w = NULL,
               *b = NULL;
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, xs, x, &tx));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, xs, dy, &tdy));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, rs, mu, &tmu));
    CHECK(clb_tensor_from_host(ctx, CLB_FLOAT32, 2, rs, sigma, &ts));
    const char *names[] = {"x", "mu", "sigma"};
    CHECK(clb_eval(ctx, "(x - mu) / sigma", 3, names, (const clb_tensor *[]){tx, tmu, ts}, &xn));
    CHECK(clb_binary(CLB_MUL, tdy, xn, &p));
    CHECK(clb_sum_to_shape(p, 2, rs, &w));
    CHECK(clb_sum_to_shape(tdy, 2, rs, &b));
    CHECK(clb_tensor_to_host(w, gw, (size_t)C * sizeof *gw));
    CHECK(clb_tensor_to_host(b, gb, (size_t)C * sizeof *gb));
    clb_tensor *all[] = {tx, tdy, tmu, ts, xn, p, w, b};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) clb_tensor_release(all[i]);
    clb_context_release(ctx);
    free(x);
    free(dy);
    free(mu);
    free(sigma);
}

/* part[0 .. size-1] (rank r owns part[r]) summed by a tree of tasks into part[0]'s
   rank, then copied to every rank: *mine is this rank's copy (its handle's data is
   out, C floats). level holds the intermediate sums, (size - 1) of them, in
   sum_here ((size - 1) * C floats) where this rank owns them. */
static void allreduce(clb_starpu *sp, clb_starpu_tensor *part, clb_starpu_tensor *level,
                      clb_starpu_tensor *copies, float *sum_here, float *out, int64_t C)
{
    int64_t rs[2] = {1, C};
    const char *names[] = {"a", "b"};
    clb_starpu_tensor *cur = malloc((size_t)size * sizeof *cur);
    if (!cur) MPI_Abort(MPI_COMM_WORLD, 1);
    memcpy(cur, part, (size_t)size * sizeof *cur);
    int used = 0;
    for (int stride = 1; stride < size; stride *= 2)
        for (int r = 0; r + stride < size; r += 2 * stride) {
            clb_starpu_tensor *sum = &level[used++];
            distribute(sum, r, sum_here + (used - 1) * C, 2, rs); /* on r: r's partial is local */
            const clb_starpu_tensor *in[] = {&cur[r], &cur[r + stride]};
            CHECK(clb_starpu_eval(sp, "a + b", 2, names, in, sum));
            cur[r] = *sum;
        }
    for (int q = 0; q < size; q++) {
        distribute(&copies[q], q, out, 2, rs); /* StarPU-MPI sends the total to q */
        const clb_starpu_tensor *in[] = {&cur[0]};
        CHECK(clb_starpu_eval(sp, "a", 1, names, in, &copies[q]));
    }
    free(cur);
}

/* Every rank's shard as tasks (on the rank owning it): xn = (x - mu) / sigma,
   p = dy * xn, gw = sum_to_shape(p), gb = sum_to_shape(dy). This rank's own
   memory backs its shard's handles. */
static void shard_gradients(clb_starpu *sp, int64_t B, int64_t C, int64_t rows, float *x, float *dy,
                            float *scratch, float *gw, float *gb, const clb_starpu_tensor *MU,
                            const clb_starpu_tensor *S, clb_starpu_tensor *X, clb_starpu_tensor *DY,
                            clb_starpu_tensor *XN, clb_starpu_tensor *P, clb_starpu_tensor *GW,
                            clb_starpu_tensor *GB)
{
    int64_t rs[2] = {1, C};
    const char *names[] = {"x", "mu", "sigma"}, *pn[] = {"dy", "xn"};
    for (int r = 0; r < size; r++) {
        int64_t rr = B * (r + 1) / size - B * r / size, xs[2] = {rr, C};
        distribute(&X[r], r, x, 2, xs);
        distribute(&DY[r], r, dy, 2, xs);
        distribute(&XN[r], r, scratch, 2, xs);
        distribute(&P[r], r, scratch + rows * C, 2, xs);
        distribute(&GW[r], r, gw, 2, rs);
        distribute(&GB[r], r, gb, 2, rs);
        CHECK(clb_starpu_eval(sp, "(x - mu) / sigma", 3, names,
                              (const clb_starpu_tensor *[]){&X[r], MU, S}, &XN[r]));
        CHECK(clb_starpu_eval(sp, "dy * xn", 2, pn, (const clb_starpu_tensor *[]){&DY[r], &XN[r]}, &P[r]));
        CHECK(clb_starpu_sum_to_shape(sp, &P[r], &GW[r]));
        CHECK(clb_starpu_sum_to_shape(sp, &DY[r], &GB[r]));
    }
}

int main(int argc, char **argv)
{
    setenv("STARPU_OPENCL_ON_CPUS", "1", 0);
    if (starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL) != 0) {
        fprintf(stderr, "starpu_mpi: starpu_mpi_init_conf failed\n");
        return 1;
    }
    starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
    starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
    int64_t B = argc > 1 ? atoll(argv[1]) : 4096, C = argc > 2 ? atoll(argv[2]) : 256;
    if (B < size || C < 1) {
        if (rank == 0) fprintf(stderr, "usage: starpu_mpi [B >= ranks] [C >= 1]\n");
        starpu_mpi_shutdown();
        return 2;
    }
    clb_starpu *sp = NULL;
    CHECK(clb_starpu_create(&sp));
    CHECK(clb_starpu_mpi_attach(sp, MPI_COMM_WORLD));

    /* This rank's shard; the handles of every rank's shard, owned by that rank. */
    int64_t first = B * rank / size, rows = B * (rank + 1) / size - first;
    float *x = malloc((size_t)(rows * C) * sizeof *x), *dy = malloc((size_t)(rows * C) * sizeof *dy);
    float *mu = malloc((size_t)C * sizeof *mu), *sigma = malloc((size_t)C * sizeof *sigma);
    float *scratch = malloc((size_t)(rows * C) * sizeof *scratch * 2);
    float *gw = calloc((size_t)C, sizeof *gw), *gb = calloc((size_t)C, sizeof *gb);
    float *sums = calloc((size_t)(2 * C * size), sizeof *sums), *total = calloc((size_t)(2 * C), sizeof *total);
    if (!x || !dy || !mu || !sigma || !scratch || !gw || !gb || !sums || !total) MPI_Abort(MPI_COMM_WORLD, 1);
    fill_rows(first, rows, C, x, dy);
    fill_stats(C, mu, sigma);
    int64_t rs[2] = {1, C};
    clb_starpu_tensor MU, S;
    distribute(&MU, 0, mu, 2, rs);
    distribute(&S, 0, sigma, 2, rs);
    clb_starpu_tensor *X = calloc((size_t)size, sizeof *X), *DY = calloc((size_t)size, sizeof *DY);
    clb_starpu_tensor *XN = calloc((size_t)size, sizeof *XN), *P = calloc((size_t)size, sizeof *P);
    clb_starpu_tensor *GW = calloc((size_t)size, sizeof *GW), *GB = calloc((size_t)size, sizeof *GB);
    clb_starpu_tensor *level = calloc((size_t)(2 * size), sizeof *level);
    clb_starpu_tensor *copies = calloc((size_t)(2 * size), sizeof *copies);
    if (!X || !DY || !XN || !P || !GW || !GB || !level || !copies) MPI_Abort(MPI_COMM_WORLD, 1);

    double t0 = starpu_timing_now();
    shard_gradients(sp, B, C, rows, x, dy, scratch, gw, gb, &MU, &S, X, DY, XN, P, GW, GB);
    allreduce(sp, GW, level, copies, sums, total, C);
    allreduce(sp, GB, level + size, copies + size, sums + C * size, total + C, C);
    CHECK(clb_starpu_wait(sp));
    double seconds = (starpu_timing_now() - t0) * 1e-6;

    /* Unregistering brings each handle home: this rank's copy of the totals. */
    clb_starpu_tensor *sets[] = {X, DY, XN, P, GW, GB, level, copies};
    int counts[] = {size, size, size, size, size, size, 2 * size, 2 * size};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        for (int i = 0; i < counts[s]; i++) clb_starpu_unregister(&sets[s][i]);
    clb_starpu_unregister(&MU);
    clb_starpu_unregister(&S);

    unsigned long tasks = 0;
    for (unsigned w = 0; w < starpu_worker_get_count(); w++) tasks += clb_starpu_worker_tasks(sp, (int)w);
    printf("rank %d/%d: rows %lld..%lld, %lu tasks on this rank's %u workers, %.1f ms\n", rank, size,
           (long long)first, (long long)(first + rows - 1), tasks, starpu_worker_get_count(),
           seconds * 1e3);

    float *ref = calloc((size_t)(2 * C), sizeof *ref);
    if (!ref) MPI_Abort(MPI_COMM_WORLD, 1);
    whole_batch(B, C, ref, ref + C);
    double worst = 0;
    for (int64_t j = 0; j < 2 * C; j++)
        worst = fmax(worst, fabs((double)total[j] - ref[j]) / fmax(1.0, fabs((double)ref[j])));
    int ok = worst < 1e-4, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    printf("rank %d: gradients reduced through StarPU-MPI vs one process doing the whole batch: "
           "largest relative difference %.3g -> %s\n", rank, worst, ok ? "OK" : "MISMATCH");

    clb_starpu_release(sp);
    starpu_mpi_shutdown();
    free(X), free(DY), free(XN), free(P), free(GW), free(GB), free(level), free(copies);
    free(x), free(dy), free(mu), free(sigma), free(scratch), free(gw), free(gb), free(sums);
    free(total), free(ref);
    return all_ok ? 0 : 1;
}
