/* Status names and the thread-local last-error message. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One list generates the names; the enum itself is fixed by the public contract. */
#define CLB__STATUS_MAP(X)                                                                         \
    X(CLB_OK)                                                                                      \
    X(CLB_ERR_INVALID_ARGUMENT)                                                                    \
    X(CLB_ERR_SHAPE_MISMATCH)                                                                      \
    X(CLB_ERR_DTYPE)                                                                               \
    X(CLB_ERR_OUT_OF_MEMORY)                                                                       \
    X(CLB_ERR_NO_DEVICE)                                                                           \
    X(CLB_ERR_BUILD)                                                                               \
    X(CLB_ERR_OPENCL)                                                                              \
    X(CLB_ERR_UNSUPPORTED)                                                                         \
    X(CLB_ERR_ALIASING)

const char *clb_status_name(clb_status s)
{
    switch (s) {
#define CLB__STATUS_CASE(name)                                                                     \
    case name:                                                                                     \
        return #name;
        CLB__STATUS_MAP(CLB__STATUS_CASE)
#undef CLB__STATUS_CASE
    }
    return "CLB_ERR_UNKNOWN_STATUS";
}

/* Big enough for an OpenCL build log excerpt. */
#define CLB__ERROR_CAPACITY 8192
static _Thread_local char last_error[CLB__ERROR_CAPACITY];

const char *clb_last_error(void)
{
    return last_error;
}

clb_status clb__fail(clb_status s, const char *fmt, ...)
{
    /* Formatted aside first: callers may pass clb_last_error() itself as an argument
       when they add context to a lower-level message. */
    char message[CLB__ERROR_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    memcpy(last_error, message, sizeof message);
    return s;
}

clb_status clb__fail_in(const char *fn, clb_status st, const char *out_label)
{
    char msg[CLB__ERROR_CAPACITY], label[32];
    snprintf(msg, sizeof msg, "%s", last_error);
    if (out_label) {
        snprintf(label, sizeof label, "tensor %s ", out_label);
        char *at = strstr(msg, label);
        if (at) { /* "tensor c (2)" -> "out (2)" */
            size_t skip = strlen(label);
            memmove(at + 4, at + skip, strlen(at + skip) + 1);
            memcpy(at, "out ", 4);
        }
    }
    size_t n = strlen(fn);
    if (strncmp(msg, fn, n) == 0 && msg[n] == ':') return clb__fail(st, "%s", msg);
    return clb__fail(st, "%s: %s", fn, msg);
}
