/* clb tune [--device SEL] [--dtype float32|float64] [--candidates N]:
 * clb_matmul_tune on one OpenCL device, then the GFLOP/s of CLBlast's defaults,
 * of each candidate parameter set and of the library's own kernel, and what the
 * matmul dispatcher will use from now on (cached in CLB_CACHE_DIR). */
#include "common.h"

#include <stdlib.h>
#include <string.h>

/* The tuning's table: every candidate's GFLOP/s and what the dispatcher chose. */
static void print_result(const clb_matmul_tune_result *r)
{
    printf("GEMM (%lld, %lld, %lld) @ (%lld, %lld), GFLOP/s (fastest of 5-10 runs):\n", (long long)r->batch,
           (long long)r->m, (long long)r->k, (long long)r->k, (long long)r->n);
    if (r->default_gflops < 0)
        printf("  %-22s %9s  (not measurable: this process already changed them)\n",
               "clblast default", "-");
    else
        printf("  %-22s %9.2f\n", "clblast default", r->default_gflops);
    for (int i = 0; i < r->count; i++) {
        char label[32];
        snprintf(label, sizeof label, "clblast candidate %d", i + 1);
        if (r->candidates[i].gflops > 0)
            printf("  %-22s %9.2f%s  %s\n", label, r->candidates[i].gflops,
                   i == r->best ? " *" : "  ", r->candidates[i].params);
        else
            printf("  %-22s %9s    %s\n  %22s -> %s\n", label, "-", r->candidates[i].params, "",
                   r->candidates[i].error);
    }
    printf("  %-22s %9.2f\n", "own kernel", r->kernel_gflops);
    if (r->overrides)
        printf("CLBlast: candidate %d (%.2fx its defaults%s)\n", r->best + 1,
               r->default_gflops > 0 ? r->candidates[r->best].gflops / r->default_gflops : 0.0,
               r->default_gflops > 0 ? "" : ", defaults not measured");
    else
        printf("CLBlast: its defaults (no candidate beat them)\n");
    printf("choice: %s serves the float GEMMs both implementations cover\n",
           !strcmp(r->choice, "kernel") ? "the own kernel" : "CLBlast");
    if (r->cache_file[0])
        printf("cached in %s\n", r->cache_file);
    else
        printf("not cached (CLB_CACHE_DIR=off)\n");
}

int cmd_tune(int argc, char **argv)
{
    const char *selector = NULL;
    clb_dtype dtype = CLB_FLOAT32;
    int candidates = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--device") || !strcmp(arg, "--dtype") || !strcmp(arg, "--candidates")) {
            if (i + 1 >= argc) return usage_error("tune: %s needs a value", arg);
            const char *v = argv[++i];
            if (!strcmp(arg, "--device")) {
                selector = v;
            } else if (!strcmp(arg, "--dtype")) {
                if (!strcmp(v, "float32"))
                    dtype = CLB_FLOAT32;
                else if (!strcmp(v, "float64"))
                    dtype = CLB_FLOAT64;
                else
                    return usage_error("tune: --dtype is float32 or float64, not '%s'", v);
            } else {
                char *end = NULL;
                long n = strtol(v, &end, 10);
                if (!*v || *end || n < 0 || n > CLB_MATMUL_TUNE_MAX_CANDIDATES)
                    return usage_error("tune: --candidates is 0 (all) to %d, not '%s'",
                                       CLB_MATMUL_TUNE_MAX_CANDIDATES, v);
                candidates = (int)n;
            }
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            return usage_error("tune: unexpected argument '%s'", arg);
        }
    }
    if (selector && !selector[0]) return usage_error("tune: --device needs a selector");

    clb_context *ctx = NULL;
    int rc = open_context(NULL, selector, &ctx);
    if (rc) return rc;
    printf("tuning %s matmul on %s\n(every candidate compiles CLBlast's GEMM program once: "
           "15-30 s each on PoCL)\n",
           clb_dtype_name(dtype), clb_context_device_name(ctx));
    fflush(stdout);
    clb_matmul_tune_result *r = malloc(sizeof *r);
    if (!r) {
        fprintf(stderr, "clb: out of memory\n");
        clb_context_release(ctx);
        return 1;
    }
    clb_status st = clb_matmul_tune(ctx, dtype, candidates, r);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: %s: %s\n", clb_status_name(st), clb_last_error());
        free(r);
        clb_context_release(ctx);
        return st == CLB_ERR_UNSUPPORTED || st == CLB_ERR_DTYPE ? EXIT_USAGE : 1;
    }
    print_result(r);
    free(r);
    clb_context_release(ctx);
    return 0;
}
