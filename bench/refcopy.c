/* Raw OpenCL reference kernels of the benchmarks: see refcopy.h. */
#include "refcopy.h"

#include "bench_ref_kernels.h"
#include "harness.h"

#include <string.h>

int clbb_ref_open(const char *device_name, clbb_ref *r)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return -1;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        cl_device_id dev = NULL;
        for (cl_uint d = 0; d < nd && !dev; d++) {
            char name[256] = "";
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            if (device_name && strcmp(name, device_name) == 0) dev = devs[d];
        }
        if (!dev) continue;
        cl_int err;
        r->context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        r->queue = clCreateCommandQueue(r->context, dev, 0, &err);
        const char *src = (const char *)clb__cl_sources[0].bytes;
        size_t len = clb__cl_sources[0].length;
        r->program = clCreateProgramWithSource(r->context, 1, &src, &len, &err);
        if (clBuildProgram(r->program, 1, &dev, "", NULL, NULL) != CL_SUCCESS) return -1;
        r->copy = clCreateKernel(r->program, "ref_copy", &err);
        r->copy_stream = clCreateKernel(r->program, "ref_copy_stream", &err);
        if (err != CL_SUCCESS) return -1;
        r->empty = clCreateKernel(r->program, "ref_empty", &err);
        if (err != CL_SUCCESS) return -1;
        r->empty_args = clCreateKernel(r->program, "ref_empty_map_args", &err);
        if (err != CL_SUCCESS) return -1;
        r->arg_buffer = clCreateBuffer(r->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
        if (err != CL_SUCCESS) return -1;
        cl_long words[64] = {0};
        for (cl_uint i = 0; i < 4 && err == CL_SUCCESS; i++)
            err = clSetKernelArg(r->empty_args, i, sizeof(cl_mem), &r->arg_buffer);
        for (cl_uint i = 0; i < 4 && err == CL_SUCCESS; i++)
            err = clSetKernelArg(r->empty_args, 4 + i, sizeof(cl_long16), words + 16 * i);
        return err == CL_SUCCESS ? 0 : -1;
    }
    return -1;
}

int clbb_ref_copy_setup(clbb_ref *r, cl_kernel kernel, size_t bytes, clbb_ref_copy *c)
{
    cl_int err;
    c->r = r;
    c->kernel = kernel;
    c->global = bytes / 16;
    c->src = clCreateBuffer(r->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    c->dst = clCreateBuffer(r->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    float pattern_value = 1.5f; /* also the first touch of every page */
    clEnqueueFillBuffer(r->queue, c->src, &pattern_value, sizeof pattern_value, 0, bytes, 0, NULL,
                        NULL);
    clEnqueueFillBuffer(r->queue, c->dst, &pattern_value, sizeof pattern_value, 0, bytes, 0, NULL,
                        NULL);
    return clFinish(r->queue) == CL_SUCCESS ? 0 : -1;
}

clb_status clbb_ref_copy_run(void *u)
{
    clbb_ref_copy *c = u;
    clSetKernelArg(c->kernel, 0, sizeof c->src, &c->src);
    clSetKernelArg(c->kernel, 1, sizeof c->dst, &c->dst);
    if (clEnqueueNDRangeKernel(c->r->queue, c->kernel, 1, NULL, &c->global, NULL, 0, NULL, NULL) !=
            CL_SUCCESS ||
        clFinish(c->r->queue) != CL_SUCCESS)
        return CLB_ERR_OPENCL;
    return CLB_OK;
}

void clbb_ref_copy_close(clbb_ref_copy *c)
{
    if (c->src) clReleaseMemObject(c->src);
    if (c->dst) clReleaseMemObject(c->dst);
}

double clbb_ref_empty_per_call(clbb_ref *r, int calls, int with_args)
{
    size_t global[2] = {1, 1}, local[2] = {1, 1};
    double t0 = clbb_now();
    for (int i = 0; i < calls; i++) {
        if (with_args)
            clEnqueueNDRangeKernel(r->queue, r->empty_args, 2, NULL, global, local, 0, NULL, NULL);
        else
            clEnqueueNDRangeKernel(r->queue, r->empty, 1, NULL, global, NULL, 0, NULL, NULL);
    }
    clFinish(r->queue);
    return (clbb_now() - t0) / calls;
}

void clbb_ref_close(clbb_ref *r)
{
    if (r->copy) clReleaseKernel(r->copy);
    if (r->copy_stream) clReleaseKernel(r->copy_stream);
    if (r->empty) clReleaseKernel(r->empty);
    if (r->empty_args) clReleaseKernel(r->empty_args);
    if (r->arg_buffer) clReleaseMemObject(r->arg_buffer);
    if (r->program) clReleaseProgram(r->program);
    if (r->queue) clReleaseCommandQueue(r->queue);
    if (r->context) clReleaseContext(r->context);
}
