/* Quirk "concurrent-map" (src/opencl/cl_quirks.c). PoCL 3.1: several threads
 * mapping parts of one CL_MEM_USE_HOST_PTR buffer at once (blocking
 * clEnqueueMapBuffer for reading, memcpy, clEnqueueUnmapMemObject, on one
 * in-order queue) now and then get a pointer that is not inside the buffer's
 * host memory, and the memcpy crashes (3 of 20 runs of 8 threads). The library
 * never maps such a buffer: it knows the host pointer of its SVM storage and
 * copies through it once the queue has drained (src/opencl/cl_buffer.c).
 *
 * usage: concurrent_map PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#include "repro.h"

#include <pthread.h>
#include <stdint.h>

static const char *source = "__kernel void k(__global int *x) { x[get_global_id(0)] += 1; }\n";

enum { THREADS = 8, ROUNDS = 400, CHUNK = 4096 };

typedef struct worker {
    repro *r;
    cl_mem mem;
    unsigned char *host;
    int index, bad;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    unsigned char copy[CHUNK];
    for (int round = 0; round < ROUNDS && !w->bad; round++) {
        size_t offset = (size_t)((w->index + round) % THREADS) * CHUNK;
        cl_int err = CL_SUCCESS;
        unsigned char *p = clEnqueueMapBuffer(w->r->queue, w->mem, CL_TRUE, CL_MAP_READ, offset,
                                              CHUNK, 0, NULL, NULL, &err);
        /* The mapped region of a USE_HOST_PTR buffer is the host memory itself
           (a driver may also hand out a copy, which must hold the same bytes). */
        if (err != CL_SUCCESS || !p) {
            w->bad = 1;
            break;
        }
        if ((uintptr_t)p != (uintptr_t)(w->host + offset)) w->bad = 2;
        memcpy(copy, p, CHUNK);
        if (memcmp(copy, w->host + offset, CHUNK) != 0) w->bad = 3;
        clEnqueueUnmapMemObject(w->r->queue, w->mem, p, 0, NULL, NULL);
    }
    return NULL;
}

static int check(repro *r)
{
    size_t bytes = (size_t)THREADS * CHUNK;
    unsigned char *host = aligned_alloc(4096, bytes);
    for (size_t i = 0; i < bytes; i++) host[i] = (unsigned char)(i * 7);
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(r->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host,
                                &err);
    if (err != CL_SUCCESS) return 2;
    /* an ordinary buffer beside it, as an application has */
    cl_mem other = repro_buffer(r, 64, NULL);
    worker w[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){r, mem, host, i, 0};
        pthread_create(&tid[i], NULL, work, &w[i]);
    }
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        if (w[i].bad) bad = w[i].bad;
    }
    clFinish(r->queue);
    clReleaseMemObject(other);
    if (bad) printf("a thread's map went wrong (%s)\n",
                    bad == 1 ? "map failed" : bad == 2 ? "pointer outside the host memory"
                                                       : "wrong bytes");
    return bad != 0;
}

int main(int argc, char **argv)
{
    puts("quirk: concurrent-map");
    repro_run(argc > 1 ? argv[1] : "", source,
              "concurrent partial maps of one CL_MEM_USE_HOST_PTR buffer", check);
}
