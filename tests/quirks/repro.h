/* What every reproducer of tests/quirks/ shares: find the first device of a
 * platform, build one kernel, and run a check in a child process, so that a
 * driver that crashes counts as showing the defect. Standalone on purpose:
 * plain OpenCL 1.2, no clbroadcast code, so a driver's maintainers can run it.
 *
 * A reproducer prints one line and exits 0 when the defect is absent, 1 when
 * it is present, 77 when no device of the platform exists. */
#ifndef CLB_REPRO_H
#define CLB_REPRO_H

#ifndef CL_TARGET_OPENCL_VERSION /* a reproducer of an OpenCL 2.0 feature sets 200 */
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct repro {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_kernel kernel;
} repro;

static int repro_contains(const char *hay, const char *needle)
{
    for (; *hay; hay++) {
        size_t i = 0;
        while (needle[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (!needle[i]) return 1;
    }
    return 0;
}

/* Builds `source` on the first device of the platform whose name contains
   `platform`, and creates kernel "k". Exits 77 when there is none, 2 on any
   other failure. */
static void repro_open(const char *platform, const char *source, repro *r)
{
    cl_platform_id ids[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, ids, &n) != CL_SUCCESS) n = 0;
    for (cl_uint i = 0; i < n; i++) {
        char name[256] = "";
        cl_uint nd = 0;
        clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        if (!repro_contains(name, platform)) continue;
        if (clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_ALL, 1, &r->device, &nd) != CL_SUCCESS || !nd)
            continue;
        cl_int err = CL_SUCCESS;
        r->context = clCreateContext(NULL, 1, &r->device, NULL, NULL, &err);
        if (err == CL_SUCCESS) r->queue = clCreateCommandQueue(r->context, r->device, 0, &err);
        cl_program p = err == CL_SUCCESS
                           ? clCreateProgramWithSource(r->context, 1, &source, NULL, &err)
                           : NULL;
        if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &r->device, "", NULL, NULL);
        if (err == CL_SUCCESS) r->kernel = clCreateKernel(p, "k", &err);
        if (err != CL_SUCCESS) {
            printf("setup failed: OpenCL error %d\n", err);
            exit(2);
        }
        return;
    }
    printf("no device of a platform matching '%s'\n", platform);
    exit(77);
}

/* A buffer of `bytes` initialised from `data` (NULL: uninitialised). */
static cl_mem repro_buffer(repro *r, size_t bytes, const void *data)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(r->context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, (void *)data, &err);
    if (err != CL_SUCCESS) {
        printf("clCreateBuffer failed: %d\n", err);
        exit(2);
    }
    return m;
}

/* Opens the device and runs check() in a child process (forked before any
   OpenCL call: a driver's threads do not survive a fork): its exit status is
   the verdict (0 the device behaved, 1 it did not), and a signal counts as the
   defect. Prints the verdict line and exits with it. */
static void repro_run(const char *platform, const char *source, const char *what,
                      int (*check)(repro *))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        repro r = {0};
        repro_open(platform, source, &r);
        fflush(stdout);
        int verdict = check(&r);
        fflush(stdout);
        _exit(verdict);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        printf("defect present: %s (the driver died with signal %d)\n", what, WTERMSIG(status));
        exit(1);
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    if (code == 77 || code == 2) exit(code); /* no device, or setup failed: said by the child */
    printf("%s: %s\n", code == 0 ? "defect absent" : code == 1 ? "defect present" : "failed", what);
    exit(code);
}

#endif /* CLB_REPRO_H */
