/* bench_interop: clb_tensor_to_context between two contexts on one PoCL device,
 * against that device's copy bandwidth (the raw float4 copy kernel of
 * bench/ref_kernels.cl), and the cost of wrapping a cl_mem.
 *
 *   build/bench/bench_interop [MiB] [selector]      (default 64 pocl)
 *
 * Cases, interleaved so they see the same machine load (GB/s count the bytes read
 * and written, 2 x size, as the copy kernel's do):
 *   copy kernel        the device's copy bandwidth, outside the library
 *   to_context twin    to a second clb_context with its own cl_context on the device
 *   to_context shared  to a second clb_context on the same cl_context (another queue):
 *                      clEnqueueCopyBuffer
 * Then: clb_tensor_from_cl_buffer of a 64 MiB buffer, clb_memory_allocated before
 * and after (the bar: it grows by 0 bytes). */
#include "clbroadcast_cl.h"

#include "harness.h"
#include "refcopy.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct move_case {
    clb_tensor *src;
    clb_context *dst;
} move_case;

static clb_status move_run(void *u)
{
    move_case *m = u;
    clb_tensor *out = NULL;
    clb_status st = clb_tensor_to_context(m->src, m->dst, &out);
    if (st == CLB_OK) st = clb_finish(m->dst);
    clb_tensor_release(out);
    return st;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
    const char *sel = argc > 2 ? argv[2] : "pocl";
    size_t bytes = mib << 20;
    clb_context *a = NULL, *twin = NULL, *shared = NULL;
    if (clb_context_create(sel, &a) != CLB_OK || clb_context_create(sel, &twin) != CLB_OK) {
        fprintf(stderr, "bench_interop: %s\n", clb_last_error());
        return 1;
    }
    cl_context cc = NULL;
    cl_device_id dev = NULL;
    if (clb_context_get_cl(a, &cc, &dev, NULL) != CLB_OK ||
        clb_context_create_from_cl(cc, dev, NULL, &shared) != CLB_OK) {
        fprintf(stderr, "bench_interop: %s needs an OpenCL device: %s\n", sel, clb_last_error());
        return 1;
    }
    clb_tensor *x = NULL;
    int64_t shape[1] = {(int64_t)(bytes / sizeof(float))};
    if (clbb_random_tensor(a, 1, shape, 7, 0, &x) != CLB_OK) {
        fprintf(stderr, "bench_interop: %s\n", clb_last_error());
        return 1;
    }
    clbb_ref ref;
    clbb_ref_copy rc;
    if (clbb_ref_open(clb_context_device_name(a), &ref) != 0 ||
        clbb_ref_copy_setup(&ref, ref.copy, bytes, &rc) != 0) {
        fprintf(stderr, "bench_interop: cannot set up the reference copy\n");
        return 1;
    }
    move_case to_twin = {x, twin}, to_shared = {x, shared};
    clbb_timed cases[3] = {{clbb_ref_copy_run, &rc, 2.0 * bytes},
                           {move_run, &to_twin, 2.0 * bytes},
                           {move_run, &to_shared, 2.0 * bytes}};
    clbb_result res[3];
    clbb_measure_interleaved(a, 3, cases, 15, res);
    const char *names[3] = {"copy kernel (device copy bandwidth)",
                            "to_context, twin context (own cl_context)",
                            "to_context, same cl_context, other queue"};
    printf("%s, %zu MiB float32\n", clb_context_device_name(a), mib);
    for (int i = 0; i < 3; i++) {
        if (res[i].status != CLB_OK) {
            printf("  %-44s failed: %s\n", names[i], clb_status_name(res[i].status));
            continue;
        }
        printf("  %-44s median %8.3f ms  %7.2f GB/s  %5.1f %% of copy\n", names[i],
               res[i].median_s * 1e3, res[i].gbps, 100.0 * res[i].gbps / res[0].gbps);
    }

    /* Wrapping costs no copy. */
    cl_int err = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(cc, CL_MEM_READ_WRITE, bytes, NULL, &err);
    size_t before = clb_memory_allocated(a);
    clb_tensor *w = NULL;
    clb_status st = err == CL_SUCCESS
                        ? clb_tensor_from_cl_buffer(a, buf, 0, CLB_FLOAT32, 1, shape, NULL, &w)
                        : CLB_ERR_OPENCL;
    size_t after = clb_memory_allocated(a);
    double t0 = clbb_now();
    for (int i = 0; i < 1000 && st == CLB_OK; i++) {
        clb_tensor *v = NULL;
        st = clb_tensor_from_cl_buffer(a, buf, 0, CLB_FLOAT32, 1, shape, NULL, &v);
        clb_tensor_release(v);
    }
    double per = (clbb_now() - t0) / 1000;
    printf("  clb_tensor_from_cl_buffer of %zu MiB: %s, clb_memory_allocated %zu -> %zu (+%zu "
           "bytes), %.2f us per wrap + release\n",
           mib, clb_status_name(st), before, after, after - before, per * 1e6);
    clb_tensor_release(w);
    if (buf) clReleaseMemObject(buf);
    clbb_ref_copy_close(&rc);
    clbb_ref_close(&ref);
    clb_tensor_release(x);
    clb_context_release(shared);
    clb_context_release(twin);
    clb_context_release(a);
    return st == CLB_OK && after == before ? 0 : 1;
}
