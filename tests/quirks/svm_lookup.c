/* Quirk "svm-lookup" (src/opencl/cl_quirks.c). PoCL 3.1 keeps a context's SVM
 * allocations in a linked list (context->svm_ptrs, appended by clSVMAlloc) and
 * walks it from the oldest on every clCreateBuffer(CL_MEM_USE_HOST_PTR) whose
 * host pointer is SVM (pocl_find_svm_ptr_in_context) and on every clSVMFree:
 * with 20,000 SVM blocks alive, wrapping one more in a buffer takes about 18 ms
 * instead of microseconds, so a program with one SVM block per array slows
 * down quadratically (fixed upstream in PoCL 7.1, "Improve VM/BDA pointer
 * lookup", which keeps them in a set). The library carves small storage out of
 * shared SVM slabs (src/opencl/cl_slab.c), one list entry per slab.
 *
 * The check times the fastest of 64 such buffer creations with a handful of SVM
 * blocks alive and again with 20,000 alive (the fastest, so that a loaded
 * machine's preemptions do not count): 20 times slower or more is the defect.
 * A device without fine-grained SVM buffers cannot show it.
 *
 * usage: svm_lookup PLATFORM   (exit 0 absent, 1 present, 77 no device) */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* repro.h makes its queue the 1.2 way */
#include "repro.h"

#include <time.h>

static const char *source = "__kernel void k(__global int *x) { x[get_global_id(0)] = 0; }\n";

enum { LIVE = 20000, TRIES = 64, BYTES = 64 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The fastest of TRIES wraps of a fresh SVM block in a CL_MEM_USE_HOST_PTR
   buffer, in seconds; -1 when the driver fails one. */
static double fastest_wrap(repro *r)
{
    double best = 1e9;
    for (int i = 0; i < TRIES; i++) {
        void *p = clSVMAlloc(r->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, BYTES, 0);
        if (!p) return -1;
        cl_int err = CL_SUCCESS;
        double t0 = now();
        cl_mem m = clCreateBuffer(r->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BYTES, p,
                                  &err);
        double t = now() - t0;
        if (err != CL_SUCCESS) return -1;
        if (t < best) best = t;
        clReleaseMemObject(m);
        clSVMFree(r->context, p);
    }
    return best;
}

static int check(repro *r)
{
    (void)repro_buffer; /* only SVM blocks here */
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(r->device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) !=
            CL_SUCCESS ||
        !(caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) {
        puts("no fine-grained SVM buffers: nothing to look up");
        return 0;
    }
    double before = fastest_wrap(r);
    void **live = calloc(LIVE, sizeof *live);
    int made = 0;
    while (live && made < LIVE &&
           (live[made] = clSVMAlloc(r->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                    BYTES, 0)))
        made++;
    double after = made == LIVE ? fastest_wrap(r) : -1;
    for (int i = 0; i < made; i++) clSVMFree(r->context, live[i]);
    free(live);
    if (before < 0 || after < 0) {
        puts("SVM allocation or buffer creation failed");
        exit(2);
    }
    printf("one CL_MEM_USE_HOST_PTR buffer over an SVM block: %.1f us, with %d SVM blocks "
           "alive %.1f us (fastest of %d)\n",
           before * 1e6, LIVE, after * 1e6, TRIES);
    return after > 20 * before && after > 20e-6;
}

int main(int argc, char **argv)
{
    puts("quirk: svm-lookup");
    repro_run(argc > 1 ? argv[1] : "", source,
              "wrapping an SVM block in a buffer walks every SVM block of the context", check);
}
