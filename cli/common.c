/* Helpers shared by the clb commands (see common.h). */
#include "common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

const char usage_text[] =
    "usage: clb <command> [options]\n"
    "\n"
    "commands:\n"
    "  devices [--json]       list the host backend and every OpenCL device\n"
    "  demo [--device SEL]    walk through the broadcasting examples on one device,\n"
    "                         checking every computed result against the host backend\n"
    "  bench [--device SEL|all] [--quick] [--repeat N|auto [--budget S]] [--csv F] [--json F]\n"
    "        [--plot F.svg] [--baseline A.json]\n"
    "                         measure each device's peaks (copy, read, write, FMA, launch,\n"
    "                         transfers), then time the broadcast patterns: min/median/max of\n"
    "                         N runs (default 10, --quick: small sizes and 5; auto: until the\n"
    "                         median is stable within 2 % or S seconds per row), % of the peak\n"
    "                         that limits each, speed-up over the host backend; all devices by\n"
    "                         default; --baseline: compare with an earlier --json, exit 1 when\n"
    "                         a pattern got slower beyond noise\n"
    "  bench --compare A.json B.json ... [--baseline A.json] [--plot F.svg]\n"
    "                         runs side by side: ratio of medians, beyond noise or not\n"
    "  tune [--device SEL] [--dtype float32|float64] [--candidates N]\n"
    "                         search CLBlast GEMM parameters for one OpenCL device, compare\n"
    "                         with the own kernel, cache the faster (matmul-tuning-*.txt)\n"
    "  warmup [--device SEL|all] [--set common|minimal]\n"
    "                         build the programs of a common set of operations into the disk\n"
    "                         cache (CLB_CACHE_DIR), so later processes start warm; all\n"
    "                         OpenCL devices by default\n"
    "\n"
    "SEL: host | cpu | gpu | accelerator | N (global index) | P:D (platform:device)\n"
    "     | a case-insensitive part of the platform, vendor or device name (pocl, nvidia, ...)\n"
    "demo without --device: $CLB_DEVICE, else the first GPU, else the first CPU device,\n"
    "else host. bench without --device: all (the host backend and every OpenCL device).\n";

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clb: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n\n", stderr);
    va_end(ap);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}

text shape_text(int ndim, const int64_t *shape)
{
    text t;
    size_t len = 0;
    t.s[len++] = '(';
    for (int i = 0; i < ndim && len < sizeof t.s - 32; i++)
        len += (size_t)snprintf(t.s + len, sizeof t.s - len, i ? ", %" PRId64 : "%" PRId64, shape[i]);
    snprintf(t.s + len, sizeof t.s - len, ndim == 1 ? ",)" : ")");
    return t;
}

text tensor_shape_text(const clb_tensor *t)
{
    return shape_text(clb_tensor_ndim(t), clb_tensor_shape(t));
}

text tensor_strides_text(const clb_tensor *t)
{
    return shape_text(clb_tensor_ndim(t), clb_tensor_strides(t));
}

/* 1644167168 -> "1,644,167,168": byte counts are the point of the memory section. */
text count_text(uint64_t v)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    text t;
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0) t.s[len++] = ',';
        t.s[len++] = digits[i];
    }
    t.s[len] = '\0';
    return t;
}

/* Binary units, because drivers report memory sizes in powers of two. */
text time_text(double s)
{
    text t;
    if (s < 1e-3)
        snprintf(t.s, sizeof t.s, "%.1f us", s * 1e6);
    else if (s < 1.0)
        snprintf(t.s, sizeof t.s, "%.2f ms", s * 1e3);
    else
        snprintf(t.s, sizeof t.s, "%.2f s", s);
    return t;
}

text mem_text(uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    text t;
    snprintf(t.s, sizeof t.s, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return t;
}

const char *type_name(clb_device_type t)
{
    switch (t) {
    case CLB_DEVICE_HOST: return "host";
    case CLB_DEVICE_CPU: return "cpu";
    case CLB_DEVICE_GPU: return "gpu";
    case CLB_DEVICE_ACCELERATOR: return "accelerator";
    case CLB_DEVICE_OTHER: break;
    }
    return "other";
}

void terminate_strings(clb_device_info *d)
{
    d->selector[sizeof d->selector - 1] = '\0';
    d->name[sizeof d->name - 1] = '\0';
    d->vendor[sizeof d->vendor - 1] = '\0';
    d->platform[sizeof d->platform - 1] = '\0';
    d->driver_version[sizeof d->driver_version - 1] = '\0';
    d->opencl_c_version[sizeof d->opencl_c_version - 1] = '\0';
    d->quirks[sizeof d->quirks - 1] = '\0';
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void print_selectors(FILE *f)
{
    int count = 0;
    if (clb_device_count(&count) != CLB_OK) count = 0;
    fprintf(f, "available selectors:\n  %-8s the built-in C backend\n", "host");
    for (int i = 0; i < count; i++) {
        clb_device_info d;
        if (clb_device_get_info(i, &d) != CLB_OK) continue;
        terminate_strings(&d);
        char both[48];
        snprintf(both, sizeof both, "%d | %s", i, d.selector);
        fprintf(f, "  %-8s %s: %s (%s)\n", both, type_name(d.type), d.name, d.platform);
    }
    fprintf(f, "  cpu | gpu | accelerator, or a part of a platform, vendor or device name\n");
}

int open_context(const char *who, const char *selector, clb_context **ctx)
{
    clb_status st = clb_context_create(selector, ctx);
    if (st == CLB_OK) return 0;
    fprintf(stderr, "clb: %s%s%s: %s\n", who ? who : "", who ? ": " : "", clb_status_name(st), clb_last_error());
    if (st == CLB_ERR_NO_DEVICE) print_selectors(stderr);
    return st == CLB_ERR_NO_DEVICE ? EXIT_USAGE : 1;
}
