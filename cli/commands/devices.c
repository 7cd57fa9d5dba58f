/* clb devices [--json]: the host backend and every OpenCL device. */
#include "common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The comma-separated quirk names as JSON strings. */
static void print_quirks_json(const char *quirks)
{
    char name[sizeof ((clb_device_info *)0)->quirks];
    const char *p = quirks;
    int first = 1;
    while (*p) {
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        printf("%s", first ? "" : ", ");
        json_string(stdout, name);
        first = 0;
        p += n + (p[n] == ',');
    }
}

/* cached[i]: programs of device i in the on-disk cache, -1 for the host backend
   (which builds nothing) or when the query failed. */
static void print_devices_json(const clb_device_info *devs, const int *cached, int n,
                               int opencl_count, const char *default_selector)
{
    printf("{\n  \"library_version\": ");
    json_string(stdout, clb_version_string());
    printf(",\n  \"opencl_device_count\": %d,\n  \"default_selector\": ", opencl_count);
    if (default_selector)
        json_string(stdout, default_selector);
    else
        printf("null");
    printf(",\n  \"devices\": [");
    for (int i = 0; i < n; i++) {
        const clb_device_info *d = &devs[i];
        printf("%s\n    {\"selector\": ", i ? "," : "");
        json_string(stdout, d->selector);
        printf(", \"index\": %d, \"type\": \"%s\", \"name\": ", d->index, type_name(d->type));
        json_string(stdout, d->name);
        printf(", \"vendor\": ");
        json_string(stdout, d->vendor);
        printf(", \"platform\": ");
        json_string(stdout, d->platform);
        printf(", \"driver_version\": ");
        json_string(stdout, d->driver_version);
        printf(", \"opencl_c_version\": ");
        json_string(stdout, d->opencl_c_version);
        printf(", \"compute_units\": %" PRIu32 ", \"global_mem_bytes\": %" PRIu64
               ", \"max_alloc_bytes\": %" PRIu64 ", \"fp16\": %s, \"fp64\": %s"
               ", \"host_unified_memory\": %s, \"default\": %s, \"quirks\": [",
               d->compute_units, d->global_mem_bytes, d->max_alloc_bytes,
               d->has_fp16 ? "true" : "false", d->has_fp64 ? "true" : "false",
               d->host_unified_memory ? "true" : "false",
               default_selector && !strcmp(default_selector, d->selector) ? "true" : "false");
        print_quirks_json(d->quirks);
        printf("], \"cached_programs\": ");
        if (cached[i] >= 0)
            printf("%d}", cached[i]);
        else
            printf("null}");
    }
    printf("\n  ]\n}\n");
}

enum { COL_SEL, COL_IDX, COL_TYPE, COL_NAME, COL_VENDOR, COL_PLATFORM, COL_DRIVER, COL_CLC,
       COL_CU, COL_GMEM, COL_MAXALLOC, COL_FP16, COL_FP64, COL_UNIFIED, COL_QUIRKS, COL_CACHED,
       NCOLS };

static void print_devices_table(const clb_device_info *devs, const int *cached, int n,
                                const char *default_selector)
{
    static const char *const head[NCOLS] = {"SELECTOR", "#", "TYPE", "NAME", "VENDOR", "PLATFORM",
                                            "DRIVER", "OPENCL C", "CU", "GLOBAL MEM", "MAX ALLOC",
                                            "FLOAT16", "FLOAT64", "UNIFIED MEM", "QUIRKS",
                                            "KERNELS CACHED"};
    text *cell = calloc((size_t)(n + 1) * NCOLS, sizeof *cell);
    if (!cell) {
        fprintf(stderr, "clb: out of memory\n");
        return;
    }
    for (int c = 0; c < NCOLS; c++) snprintf(cell[c].s, sizeof cell[c].s, "%s", head[c]);
    for (int i = 0; i < n; i++) {
        const clb_device_info *d = &devs[i];
        text *row = &cell[(size_t)(i + 1) * NCOLS];
        int is_default = default_selector && !strcmp(default_selector, d->selector);
        snprintf(row[COL_SEL].s, sizeof row[0].s, "%s%s", d->selector, is_default ? " *" : "");
        if (d->index >= 0)
            snprintf(row[COL_IDX].s, sizeof row[0].s, "%d", d->index);
        else
            snprintf(row[COL_IDX].s, sizeof row[0].s, "-");
        snprintf(row[COL_TYPE].s, sizeof row[0].s, "%s", type_name(d->type));
        snprintf(row[COL_NAME].s, sizeof row[0].s, "%s", d->name);
        snprintf(row[COL_VENDOR].s, sizeof row[0].s, "%s", d->vendor);
        snprintf(row[COL_PLATFORM].s, sizeof row[0].s, "%s", d->platform[0] ? d->platform : "-");
        snprintf(row[COL_DRIVER].s, sizeof row[0].s, "%s", d->driver_version[0] ? d->driver_version : "-");
        snprintf(row[COL_CLC].s, sizeof row[0].s, "%s", d->opencl_c_version[0] ? d->opencl_c_version : "-");
        snprintf(row[COL_CU].s, sizeof row[0].s, "%" PRIu32, d->compute_units);
        row[COL_GMEM] = mem_text(d->global_mem_bytes);
        row[COL_MAXALLOC] = mem_text(d->max_alloc_bytes);
        /* The dtype policy (docs/platforms.md, "float16 and float64"): float16 always works,
           float64 is computed or refused. */
        snprintf(row[COL_FP16].s, sizeof row[0].s, "yes");
        snprintf(row[COL_FP64].s, sizeof row[0].s, "%s", d->has_fp64 ? "yes" : "refused");
        snprintf(row[COL_QUIRKS].s, sizeof row[0].s, "%s", d->quirks[0] ? d->quirks : "-");
        snprintf(row[COL_UNIFIED].s, sizeof row[0].s, "%s", d->host_unified_memory ? "yes" : "no");
        if (d->type == CLB_DEVICE_HOST)
            snprintf(row[COL_CACHED].s, sizeof row[0].s, "-");
        else if (cached[i] > 0)
            snprintf(row[COL_CACHED].s, sizeof row[0].s, "yes (%d programs)", cached[i]);
        else
            snprintf(row[COL_CACHED].s, sizeof row[0].s, cached[i] == 0 ? "no" : "?");
    }
    int width[NCOLS] = {0};
    for (int r = 0; r <= n; r++)
        for (int c = 0; c < NCOLS; c++) {
            int w = (int)strlen(cell[(size_t)r * NCOLS + c].s);
            if (w > width[c]) width[c] = w;
        }
    for (int r = 0; r <= n; r++) {
        for (int c = 0; c < NCOLS; c++) {
            const char *s = cell[(size_t)r * NCOLS + c].s;
            /* Numbers read best right-aligned; the last column needs no padding. */
            int right = c == COL_CU || c == COL_GMEM || c == COL_MAXALLOC;
            if (c == NCOLS - 1)
                printf("%s", s);
            else
                printf(right ? "%*s  " : "%-*s  ", width[c], s);
        }
        putchar('\n');
    }
    free(cell);
}

/* The host backend's and each OpenCL device's description into devs (and
   the cached program counts, -1 where unknown); returns how many. A device
   that cannot be described is left out with its error printed and *rc 1. */
static int describe_all(clb_device_info *devs, int *cached, int count, int *rc)
{
    int n = 0;
    int cache_warned = 0;
    clb_context *ctx = NULL;
    clb_status st = clb_context_create("host", &ctx);
    if (st == CLB_OK) st = clb_context_get_info(ctx, &devs[n]);
    clb_context_release(ctx);
    cached[n] = -1;
    if (st == CLB_OK)
        terminate_strings(&devs[n++]);
    else {
        fprintf(stderr, "clb: the host backend: %s: %s\n", clb_status_name(st), clb_last_error());
        *rc = 1;
    }
    for (int i = 0; i < count; i++) {
        st = clb_device_get_info(i, &devs[n]);
        /* Only a hint for the reader: a failed look-up shows "?", not an error. */
        if (st == CLB_OK && clb_device_cached_programs(i, &cached[n]) != CLB_OK) {
            /* A cache directory the library refuses (others can write it) is said once. */
            if (!cache_warned) fprintf(stderr, "clb: %s\n", clb_last_error());
            cache_warned = 1;
            cached[n] = -1;
        }
        if (st == CLB_OK)
            terminate_strings(&devs[n++]);
        else {
            fprintf(stderr, "clb: device %d: %s: %s\n", i, clb_status_name(st), clb_last_error());
            *rc = 1;
        }
    }
    return n;
}

/* The default rule (and $CLB_DEVICE) resolved the way clb demo resolves it:
   its selector, or why there is none. */
static void find_default(char *selector, size_t selector_cap, char *problem, size_t problem_cap)
{
    clb_context *ctx = NULL;
    clb_status st = clb_context_create(NULL, &ctx);
    if (st == CLB_OK) {
        clb_device_info d;
        if (clb_context_get_info(ctx, &d) == CLB_OK) {
            terminate_strings(&d);
            snprintf(selector, selector_cap, "%s", d.selector);
        }
    } else {
        snprintf(problem, problem_cap, "%s: %s", clb_status_name(st), clb_last_error());
    }
    clb_context_release(ctx);
}

int cmd_devices(int argc, char **argv)
{
    int json = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else
            return usage_error("devices: unexpected argument '%s'", argv[i]);
    }

    int rc = 0;
    int count = 0;
    clb_status st = clb_device_count(&count);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: listing OpenCL devices failed: %s: %s\n", clb_status_name(st),
                clb_last_error());
        count = 0;
        rc = 1;
    }
    clb_device_info *devs = calloc((size_t)count + 1, sizeof *devs);
    int *cached = calloc((size_t)count + 1, sizeof *cached);
    if (!devs || !cached) {
        fprintf(stderr, "clb: out of memory\n");
        free(devs);
        free(cached);
        return 1;
    }
    int n = describe_all(devs, cached, count, &rc);
    char default_selector[sizeof devs[0].selector] = "";
    char default_problem[600] = "";
    find_default(default_selector, sizeof default_selector, default_problem, sizeof default_problem);

    if (json) {
        print_devices_json(devs, cached, n, count, default_selector[0] ? default_selector : NULL);
    } else {
        print_devices_table(devs, cached, n, default_selector[0] ? default_selector : NULL);
        putchar('\n');
        if (count == 0)
            printf("No OpenCL platform or device found: only the host backend is available.\n");
        if (default_selector[0])
            printf("* default device (used when no selector is given; set CLB_DEVICE or --device to change)\n");
        else
            printf("No default device: %s\n", default_problem);
        printf("FLOAT16: on every device: stored as half (vload_half/vstore_half, core OpenCL), "
               "computed in float32;\n         cl_khr_fp16 is not needed.\n"
               "FLOAT64: \"refused\" means no cl_khr_fp64: every op that would compute or store "
               "float64 there\n"
               "         (integer true division and integer mean included) fails with "
               "CLB_ERR_DTYPE; use float32 or \"host\".\n");
    }
    free(devs);
    free(cached);
    return rc;
}
