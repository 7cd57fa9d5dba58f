/* Device discovery: every OpenCL device of every platform in one fixed global
 * order (platforms as clGetPlatformIDs lists them, then each platform's
 * devices), their descriptions, and the selector grammar of clbroadcast.h.
 *
 * Nothing is cached: enumeration is cheap next to creating a context, and
 * querying afresh keeps this file free of global state and locks. */
#include "device.h"

#include "cl_device.h"
#include "internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_errors.h"
#include "cl_quirks.h"
#include "cl_program_cache.h"

static bool ci_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return true;
    }
    return false;
}

/* Parses a short run of decimal digits (no sign, no spaces); -1 if it is not one. */
static int parse_index(const char *s, size_t n)
{
    if (n == 0 || n > 6) return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Copies src into a fixed field, truncating, always terminated. */
static void copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Appends to a fixed message buffer; overlong messages are cut, never overrun. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* ---- enumeration ------------------------------------------------------------ */

typedef struct devlist {
    int count;
    cl_platform_id *platforms; /* per platform */
    cl_device_id *devices;     /* per global device index */
    int *platform_index;       /* per device: P of "P:D" */
    int *local_index;          /* per device: D of "P:D" */
} devlist;

static void devlist_free(devlist *l)
{
    free(l->platforms);
    free(l->devices);
    free(l->platform_index);
    free(l->local_index);
    memset(l, 0, sizeof *l);
}

static clb_status devlist_oom(devlist *l)
{
    devlist_free(l);
    return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory while enumerating OpenCL devices");
}

/* No ICD or no platform is not an error: the library then offers the host backend only.
   A platform whose device query fails contributes no devices, so one broken driver
   does not hide the others (indices stay stable because the failure does). */
static clb_status devlist_build(devlist *l)
{
    memset(l, 0, sizeof *l);
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return CLB_OK;
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clGetPlatformIDs");

    l->platforms = calloc(np, sizeof *l->platforms);
    cl_uint *ndev = calloc(np, sizeof *ndev);
    if (!l->platforms || !ndev) {
        free(ndev);
        return devlist_oom(l);
    }
    err = clGetPlatformIDs(np, l->platforms, NULL);
    if (err != CL_SUCCESS) {
        free(ndev);
        devlist_free(l);
        return clb__cl_fail(err, "clGetPlatformIDs");
    }

    size_t total = 0;
    for (cl_uint p = 0; p < np; p++) {
        if (clGetDeviceIDs(l->platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev[p]) != CL_SUCCESS)
            ndev[p] = 0;
        total += ndev[p];
    }
    if (total == 0) {
        free(ndev);
        return CLB_OK;
    }
    l->devices = calloc(total, sizeof *l->devices);
    l->platform_index = calloc(total, sizeof *l->platform_index);
    l->local_index = calloc(total, sizeof *l->local_index);
    if (!l->devices || !l->platform_index || !l->local_index) {
        free(ndev);
        return devlist_oom(l);
    }
    int n = 0;
    for (cl_uint p = 0; p < np; p++) {
        if (ndev[p] == 0) continue;
        cl_uint got = 0;
        if (clGetDeviceIDs(l->platforms[p], CL_DEVICE_TYPE_ALL, ndev[p], l->devices + n, &got) !=
            CL_SUCCESS)
            continue;
        if (got > ndev[p]) got = ndev[p];
        for (cl_uint d = 0; d < got; d++) {
            l->platform_index[n] = (int)p;
            l->local_index[n] = (int)d;
            n++;
        }
    }
    l->count = n;
    free(ndev);
    return CLB_OK;
}

/* ---- description -------------------------------------------------------------- */

/* A string property as a malloc'd, NUL-terminated copy (trailing blanks removed:
   some drivers pad device names). */
static clb_status query_string(cl_device_id dev, cl_platform_id plat, cl_uint what,
                               const char *call, char **out)
{
    *out = NULL;
    size_t size = 0;
    cl_int err = dev ? clGetDeviceInfo(dev, what, 0, NULL, &size)
                     : clGetPlatformInfo(plat, what, 0, NULL, &size);
    if (err != CL_SUCCESS) return clb__cl_fail(err, call);
    char *s = malloc(size + 1);
    if (!s) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory in %s", call);
    err = dev ? clGetDeviceInfo(dev, what, size, s, NULL)
              : clGetPlatformInfo(plat, what, size, s, NULL);
    if (err != CL_SUCCESS) {
        free(s);
        return clb__cl_fail(err, call);
    }
    s[size] = '\0';
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    *out = s;
    return CLB_OK;
}

static clb_status query_field(cl_device_id dev, cl_platform_id plat, cl_uint what,
                              const char *call, char *dst, size_t cap)
{
    char *s = NULL;
    clb_status st = query_string(dev, plat, what, call, &s);
    if (st != CLB_OK) return st;
    copy_field(dst, cap, s);
    free(s);
    return CLB_OK;
}

static clb_status query_value(cl_device_id dev, cl_uint what, const char *call, void *dst,
                              size_t size)
{
    cl_int err = clGetDeviceInfo(dev, what, size, dst, NULL);
    return err == CL_SUCCESS ? CLB_OK : clb__cl_fail(err, call);
}

/* Whole-word match in a space-separated extension list. */
static bool has_extension(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)) != NULL; p += n) {
        bool starts = p == list || p[-1] == ' ';
        bool ends = p[n] == '\0' || p[n] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

static clb_status describe(const devlist *l, int index, clb_device_info *out)
{
    clb_status st = CLB_OK;
    char *ext = NULL;
    cl_device_id dev = l->devices[index];
    cl_platform_id plat = l->platforms[l->platform_index[index]];
    memset(out, 0, sizeof *out);
    out->index = index;
    snprintf(out->selector, sizeof out->selector, "%d:%d", l->platform_index[index],
             l->local_index[index]);

    cl_device_type type = 0;
    CLB_TRY(query_value(dev, CL_DEVICE_TYPE, "clGetDeviceInfo(CL_DEVICE_TYPE)", &type, sizeof type));
    out->type = (type & CL_DEVICE_TYPE_GPU)           ? CLB_DEVICE_GPU
                : (type & CL_DEVICE_TYPE_CPU)         ? CLB_DEVICE_CPU
                : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLB_DEVICE_ACCELERATOR
                                                      : CLB_DEVICE_OTHER;
    CLB_TRY(query_field(dev, NULL, CL_DEVICE_NAME, "clGetDeviceInfo(CL_DEVICE_NAME)", out->name,
                        sizeof out->name));
    CLB_TRY(query_field(dev, NULL, CL_DEVICE_VENDOR, "clGetDeviceInfo(CL_DEVICE_VENDOR)",
                        out->vendor, sizeof out->vendor));
    CLB_TRY(query_field(NULL, plat, CL_PLATFORM_NAME, "clGetPlatformInfo(CL_PLATFORM_NAME)",
                        out->platform, sizeof out->platform));
    CLB_TRY(query_field(dev, NULL, CL_DRIVER_VERSION, "clGetDeviceInfo(CL_DRIVER_VERSION)",
                        out->driver_version, sizeof out->driver_version));
    CLB_TRY(query_field(dev, NULL, CL_DEVICE_OPENCL_C_VERSION,
                        "clGetDeviceInfo(CL_DEVICE_OPENCL_C_VERSION)", out->opencl_c_version,
                        sizeof out->opencl_c_version));

    cl_uint units = 0;
    cl_ulong global_mem = 0, max_alloc = 0;
    cl_bool unified = CL_FALSE;
    CLB_TRY(query_value(dev, CL_DEVICE_MAX_COMPUTE_UNITS,
                        "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS)", &units, sizeof units));
    CLB_TRY(query_value(dev, CL_DEVICE_GLOBAL_MEM_SIZE, "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE)",
                        &global_mem, sizeof global_mem));
    CLB_TRY(query_value(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                        "clGetDeviceInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE)", &max_alloc,
                        sizeof max_alloc));
    /* Deprecated since OpenCL 2.0: a driver that no longer answers it is taken as "no". */
    if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
        CL_SUCCESS)
        unified = CL_FALSE;
    out->compute_units = units;
    out->global_mem_bytes = global_mem;
    out->max_alloc_bytes = max_alloc;
    /* A CPU device works on host RAM whatever the flag says (PoCL reports it). */
    out->host_unified_memory = unified == CL_TRUE || (type & CL_DEVICE_TYPE_CPU) != 0;

    CLB_TRY(query_string(dev, NULL, CL_DEVICE_EXTENSIONS, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)",
                         &ext));
    out->has_fp16 = has_extension(ext, "cl_khr_fp16");
    /* Before OpenCL 1.2 double support is announced only as an extension; some
       drivers reject the DOUBLE_FP_CONFIG query, which then simply means "no". */
    cl_device_fp_config fp64 = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS)
        fp64 = 0;
    out->has_fp64 = has_extension(ext, "cl_khr_fp64") || fp64 != 0;
    clb__quirks_for(out->platform, out->driver_version, out->quirks, sizeof out->quirks, NULL, 0);

cleanup:
    free(ext);
    return st;
}

/* A CPU device that shares fine-grained SVM buffers with the host: its storage
   can be host memory both sides use (cl_buffer.c). */
static bool has_fine_grain_svm(const clb_device_info *info, cl_device_id device)
{
    cl_device_svm_capabilities caps = 0;
    if (info->type != CLB_DEVICE_CPU ||
        clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

/* The facts beyond the public description (info, already filled) of device dev
   of platform plat, into *out. */
static clb_status capabilities(cl_platform_id plat, cl_device_id dev, const clb_device_info *info,
                               clb__cl_caps *out)
{
    out->platform = plat;
    out->device = dev;
    out->info = *info;
    /* One entry per work-item dimension (at least 3); only the first is used. */
    size_t sizes[16] = {0}, sizes_len = 0;
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL, &sizes_len);
    if (err == CL_SUCCESS && (sizes_len == 0 || sizes_len > sizeof sizes)) err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes_len, sizes, NULL);
    if (err != CL_SUCCESS) return clb__cl_fail(err, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
    out->max_item_size = sizes[0] ? sizes[0] : 1;
    cl_ulong lmem = 0;
    clb_status st = query_value(dev, CL_DEVICE_LOCAL_MEM_SIZE,
                                "clGetDeviceInfo(CL_DEVICE_LOCAL_MEM_SIZE)", &lmem, sizeof lmem);
    if (st != CLB_OK) return st;
    out->local_mem_bytes = (uint64_t)lmem;
    out->fine_grain_svm = has_fine_grain_svm(info, dev);
    out->quirks = clb__quirk_mask(info->platform, info->driver_version);
    return CLB_OK;
}

clb_status clb__cl_device_lookup(int index, clb_device_info *info)
{
    devlist l;
    clb_status st = devlist_build(&l);
    if (st != CLB_OK) return st;
    if (index < 0 || index >= l.count)
        st = clb__fail(CLB_ERR_INVALID_ARGUMENT, "no OpenCL device with index %d (%d present)",
                       index, l.count);
    else
        st = describe(&l, index, info);
    devlist_free(&l);
    return st;
}

clb_status clb__cl_device_adopt(cl_device_id device, clb__cl_caps *out)
{
    devlist l;
    clb_device_info info;
    clb_status st = devlist_build(&l);
    if (st != CLB_OK) return st;
    for (int i = 0; i < l.count; i++)
        if (l.devices[i] == device) {
            st = describe(&l, i, &info);
            if (st == CLB_OK) st = capabilities(l.platforms[l.platform_index[i]], device, &info, out);
            devlist_free(&l);
            return st;
        }
    devlist_free(&l);
    /* Not enumerated: a one-entry list of its own platform. */
    cl_platform_id plat = NULL;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (err != CL_SUCCESS)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "device is not a valid cl_device_id (%s)",
                         clb__cl_error_name(err));
    int zero = 0;
    devlist one = {.count = 1, .platforms = &plat, .devices = &device, .platform_index = &zero,
                   .local_index = &zero};
    st = describe(&one, 0, &info);
    if (st != CLB_OK) return st;
    info.index = -1;
    info.selector[0] = '\0';
    return capabilities(plat, device, &info, out);
}

/* ---- public enumeration --------------------------------------------------------- */

clb_status clb_device_count(int *out)
{
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_count: out is NULL");
    *out = 0;
    devlist l;
    clb_status st = devlist_build(&l);
    if (st == CLB_OK) *out = l.count;
    devlist_free(&l);
    return st;
}

clb_status clb_device_get_info(int index, clb_device_info *out)
{
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_get_info: out is NULL");
    memset(out, 0, sizeof *out);
    clb_status st = clb__cl_device_lookup(index, out);
    if (st != CLB_OK) st = clb__fail_in("clb_device_get_info", st, NULL);
    if (st != CLB_OK) memset(out, 0, sizeof *out);
    return st;
}

clb_status clb_device_cached_programs(int index, int *count)
{
    if (!count) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_device_cached_programs: count is NULL");
    *count = 0;
    clb_device_info info;
    clb_status st = clb__cl_device_lookup(index, &info);
    return st == CLB_OK ? clb__program_cache_count(&info, count)
                        : clb__fail_in("clb_device_cached_programs", st, NULL);
}

/* ---- selectors ------------------------------------------------------------------ */

/* Describes every device, for matching by type or name. */
static clb_status describe_all(const devlist *l, clb_device_info **out)
{
    *out = NULL;
    if (l->count == 0) return CLB_OK;
    clb_device_info *infos = calloc((size_t)l->count, sizeof *infos);
    if (!infos) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory describing devices");
    for (int i = 0; i < l->count; i++) {
        clb_status st = describe(l, i, &infos[i]);
        if (st != CLB_OK) {
            free(infos);
            return st;
        }
    }
    *out = infos;
    return CLB_OK;
}

/* The default rule over the described devices: the first GPU, else the first
   CPU device, else -1 (the host backend). */
static int default_device(const devlist *l, const clb_device_info *infos)
{
    for (int i = 0; i < l->count; i++)
        if (infos[i].type == CLB_DEVICE_GPU) return i;
    for (int i = 0; i < l->count; i++)
        if (infos[i].type == CLB_DEVICE_CPU) return i;
    return -1;
}

/* The platform's vendor counts as a name too: PoCL's platform is called
   "Portable Computing Language" and only its vendor says "pocl". */
static bool platform_vendor_contains(const devlist *l, int index, const char *sel)
{
    char *vendor = NULL;
    cl_platform_id plat = l->platforms[l->platform_index[index]];
    if (query_string(NULL, plat, CL_PLATFORM_VENDOR, "clGetPlatformInfo(CL_PLATFORM_VENDOR)",
                     &vendor) != CLB_OK)
        return false;
    bool found = ci_contains(vendor, sel);
    free(vendor);
    return found;
}

static int match(const devlist *l, const clb_device_info *infos, const char *sel)
{
    size_t len = strlen(sel);
    if (len == 0) return -1;

    clb_device_type want = CLB_DEVICE_HOST;
    if (clb__ci_equal(sel, "cpu")) want = CLB_DEVICE_CPU;
    if (clb__ci_equal(sel, "gpu")) want = CLB_DEVICE_GPU;
    if (clb__ci_equal(sel, "accelerator")) want = CLB_DEVICE_ACCELERATOR;
    if (want != CLB_DEVICE_HOST) {
        for (int i = 0; i < l->count; i++)
            if (infos[i].type == want) return i;
        return -1;
    }

    int n = parse_index(sel, len);
    if (n >= 0) return n < l->count ? n : -1;

    const char *colon = strchr(sel, ':');
    if (colon) {
        int p = parse_index(sel, (size_t)(colon - sel));
        int d = parse_index(colon + 1, strlen(colon + 1));
        if (p >= 0 && d >= 0) {
            for (int i = 0; i < l->count; i++)
                if (l->platform_index[i] == p && l->local_index[i] == d) return i;
            return -1;
        }
    }

    for (int i = 0; i < l->count; i++)
        if (ci_contains(infos[i].platform, sel) || ci_contains(infos[i].vendor, sel) ||
            ci_contains(infos[i].name, sel) || platform_vendor_contains(l, i, sel))
            return i;
    return -1;
}

static clb_status no_match(const char *sel, const char *origin, const clb_device_info *infos,
                           int count)
{
    char msg[2048] = "";
    append(msg, sizeof msg, "clb_context_create: no OpenCL device matches \"%s\"%s; available: host",
           sel, origin);
    for (int i = 0; i < count; i++)
        append(msg, sizeof msg, ", %d (%s, %s)", i, infos[i].name, infos[i].platform);
    /* Implementations that are installed but off until a variable names a driver. */
    bool rusticl = false;
    for (int i = 0; i < count; i++) rusticl = rusticl || ci_contains(infos[i].platform, "rusticl");
    if (!rusticl)
        append(msg, sizeof msg,
               ". Mesa's rusticl lists no device unless RUSTICL_ENABLE names a driver "
               "(RUSTICL_ENABLE=llvmpipe for the CPU, RUSTICL_ENABLE=radeonsi or iris for GPUs)");
    return clb__fail(CLB_ERR_NO_DEVICE, "%s", msg);
}

void clb__device_free(clb__device *device)
{
    free((void *)device); /* a clb__cl_caps (make_device) */
}

/* Device `pick` of the list, described as infos[pick], with its facts: a new
   clb__device in *out. */
static clb_status make_device(const devlist *l, const clb_device_info *infos, int pick,
                              clb__device **out)
{
    clb__cl_caps *d = calloc(1, sizeof *d);
    if (!d) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory resolving a device selector");
    clb_status st = capabilities(l->platforms[l->platform_index[pick]], l->devices[pick],
                                 &infos[pick], d);
    if (st != CLB_OK) {
        free(d);
        return st;
    }
    *out = (clb__device *)(void *)d; /* opaque above the backend (clb__cl_caps_of) */
    return CLB_OK;
}

/* The default rule (no selector, no $CLB_DEVICE). A broken OpenCL installation
   leaves the host backend too: the default must always work. */
static clb_status resolve_default(clb__device **device)
{
    devlist l;
    clb_device_info *infos = NULL;
    clb_status st = CLB_OK;
    int pick = -1;
    if (devlist_build(&l) == CLB_OK && describe_all(&l, &infos) == CLB_OK)
        pick = default_device(&l, infos);
    if (pick >= 0) st = make_device(&l, infos, pick, device);
    free(infos);
    devlist_free(&l);
    return st;
}

clb_status clb__device_resolve(const char *selector, clb__device **device)
{
    if (!device) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb__device_resolve: device is NULL");
    *device = NULL;
    char *sel = NULL;
    const char *origin = "";
    clb_status st = clb__selector_text(selector, &sel, &origin);
    if (st != CLB_OK) return st;
    if (!sel) return resolve_default(device);

    devlist l = {0};
    clb_device_info *infos = NULL;
    if (clb__ci_equal(sel, "host")) goto cleanup;

    CLB_TRY(devlist_build(&l));
    CLB_TRY(describe_all(&l, &infos));
    int pick = match(&l, infos, sel);
    if (pick < 0) {
        st = no_match(sel, origin, infos, l.count);
        goto cleanup;
    }
    st = make_device(&l, infos, pick, device);

cleanup:
    free(infos);
    devlist_free(&l);
    free(sel);
    return st;
}
