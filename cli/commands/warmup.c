/* clb warmup [--device SEL|all] [--set common|minimal]:
 * builds the programs of a common set of operations into the disk cache
 * (CLB_CACHE_DIR, and the driver's own cache such as POCL_CACHE_DIR), so the
 * processes that come after start warm: a container image, a CI cache, a
 * machine before its first notebook. A progress bar goes to stderr, a summary
 * per device to stdout.
 *
 * The set is a list of calls of the public API on small tensors (above the
 * size CPU devices answer on the host) and, for the element-wise ops that
 * large outputs reach with other programs (streaming stores), on one large
 * tensor. Programs a call only queues (the cold-start tier runs it on the
 * host meanwhile) are built before the context is released. */
#include "common.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum step_kind { BINARY, BINARY_COLUMN, BINARY_OUTER, BINARY_LARGE, ADD_DTYPE, UNARY,
                         UNARY_LARGE, REDUCE_ROWS, REDUCE_COLS, SUM_TO_SHAPE, WHERE, CAST, COPY,
                         MATMUL } step_kind;

typedef struct step {
    step_kind kind;
    int op;         /* clb_binary_op, clb_unary_op or clb_reduce_op */
    clb_dtype dtype;
} step;

#define MAX_STEPS 160

/* The set: what a NumPy-style program meets first. */
static int make_set(bool minimal, bool fp64, step *s)
{
    int n = 0;
    if (minimal) {
        s[n++] = (step){BINARY, CLB_ADD, CLB_FLOAT32};
        s[n++] = (step){UNARY, CLB_EXP, CLB_FLOAT32};
        s[n++] = (step){REDUCE_ROWS, CLB_SUM, CLB_FLOAT32};
        return n;
    }
    for (int op = CLB_ADD; op <= CLB_BITWISE_XOR; op++)
        s[n++] = (step){BINARY, op, op >= CLB_BITWISE_AND ? CLB_INT32 : CLB_FLOAT32};
    for (int op = CLB_ADD; op <= CLB_DIV; op++) {
        s[n++] = (step){BINARY_COLUMN, op, CLB_FLOAT32};
        s[n++] = (step){BINARY_OUTER, op, CLB_FLOAT32};
        s[n++] = (step){BINARY_LARGE, op, CLB_FLOAT32};
    }
    for (int t = CLB_BOOL; t <= CLB_FLOAT64; t++)
        if (t != CLB_FLOAT32 && (t != CLB_FLOAT64 || fp64)) s[n++] = (step){ADD_DTYPE, CLB_ADD, (clb_dtype)t};
    for (int op = CLB_NEG; op <= CLB_LOGICAL_NOT; op++) s[n++] = (step){UNARY, op, CLB_FLOAT32};
    s[n++] = (step){UNARY_LARGE, CLB_EXP, CLB_FLOAT32};
    for (int op = CLB_SUM; op <= CLB_PROD; op++) {
        s[n++] = (step){REDUCE_ROWS, op, CLB_FLOAT32};
        s[n++] = (step){REDUCE_COLS, op, CLB_FLOAT32};
    }
    s[n++] = (step){SUM_TO_SHAPE, CLB_SUM, CLB_FLOAT32};
    s[n++] = (step){WHERE, 0, CLB_FLOAT32};
    s[n++] = (step){CAST, 0, CLB_FLOAT16};
    s[n++] = (step){CAST, 0, CLB_INT32};
    if (fp64) s[n++] = (step){CAST, 0, CLB_FLOAT64};
    s[n++] = (step){COPY, 0, CLB_FLOAT32};
    s[n++] = (step){MATMUL, 0, CLB_FLOAT32};
    if (fp64) s[n++] = (step){MATMUL, 0, CLB_FLOAT64};
    return n;
}

static const char *step_name(const step *s, char *buf, size_t cap)
{
    static const char *const kinds[] = {"", " (column)", " (outer)", " (large)", "", "",
                                        " (large)", " rows", " columns", "", "", "", "", ""};
    switch (s->kind) {
    case BINARY: case BINARY_COLUMN: case BINARY_OUTER: case BINARY_LARGE: case ADD_DTYPE:
        snprintf(buf, cap, "%s %s%s", clb_binary_op_name((clb_binary_op)s->op),
                 clb_dtype_name(s->dtype), kinds[s->kind]);
        break;
    case UNARY: case UNARY_LARGE:
        snprintf(buf, cap, "%s %s%s", clb_unary_op_name((clb_unary_op)s->op),
                 clb_dtype_name(s->dtype), kinds[s->kind]);
        break;
    case REDUCE_ROWS: case REDUCE_COLS:
        snprintf(buf, cap, "%s %s%s", clb_reduce_op_name((clb_reduce_op)s->op),
                 clb_dtype_name(s->dtype), kinds[s->kind]);
        break;
    case SUM_TO_SHAPE: snprintf(buf, cap, "sum_to_shape float32"); break;
    case WHERE: snprintf(buf, cap, "where float32"); break;
    case CAST: snprintf(buf, cap, "cast float32 -> %s", clb_dtype_name(s->dtype)); break;
    case COPY: snprintf(buf, cap, "contiguous float32 (transposed)"); break;
    case MATMUL: snprintf(buf, cap, "matmul %s", clb_dtype_name(s->dtype)); break;
    }
    return buf;
}

/* A tensor of ones (any dtype: cast from float32 on the host backend's rules). */
static clb_status ones(clb_context *ctx, clb_dtype t, int ndim, const int64_t *shape, clb_tensor **out)
{
    *out = NULL;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    size_t sz = clb_dtype_size(t);
    unsigned char *v = calloc((size_t)n, sz);
    if (!v) return CLB_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < n; i++) {
        unsigned char *p = v + (size_t)i * sz;
        if (t == CLB_FLOAT16) p[1] = 0x3C;                     /* 1.0 in binary16 */
        else if (t == CLB_FLOAT32) memcpy(p, &(float){1.0f}, 4);
        else if (t == CLB_FLOAT64) memcpy(p, &(double){1.0}, 8);
        else p[0] = 1;                                         /* little-endian integers, bool */
    }
    clb_status st = clb_tensor_from_host(ctx, t, ndim, shape, v, out);
    free(v);
    return st;
}

/* Runs one step; *result gets its output (released by the caller). */
static clb_status run_step(clb_context *ctx, const step *s, clb_tensor **result)
{
    /* 12288 elements: above CLB_HOST_TINY's default, so CPU devices launch. */
    static const int64_t mat[2] = {96, 128}, row[1] = {128}, col[2] = {96, 1}, orow[2] = {1, 128};
    /* 4 Mi float32 elements (16 MiB out): the streaming-store programs. */
    static const int64_t big[2] = {2048, 2048}, bigrow[1] = {2048};
    static const int64_t ma[2] = {64, 96}, mb[2] = {96, 64};
    clb_tensor *a = NULL, *b = NULL, *c = NULL;
    clb_status st = CLB_OK;
    *result = NULL;
    switch (s->kind) {
    case BINARY: case ADD_DTYPE: case BINARY_COLUMN: case BINARY_OUTER: case BINARY_LARGE: {
        bool large = s->kind == BINARY_LARGE;
        const int64_t *ashape = s->kind == BINARY_OUTER ? col : large ? big : mat;
        const int64_t *bshape = s->kind == BINARY_COLUMN ? col : s->kind == BINARY_OUTER ? orow
                                : large ? bigrow : row;
        int bdims = s->kind == BINARY_COLUMN || s->kind == BINARY_OUTER ? 2 : 1;
        if ((st = ones(ctx, s->dtype, 2, ashape, &a)) == CLB_OK &&
            (st = ones(ctx, s->dtype, bdims, bshape, &b)) == CLB_OK)
            st = clb_binary((clb_binary_op)s->op, a, b, result);
        break;
    }
    case UNARY: case UNARY_LARGE:
        if ((st = ones(ctx, s->dtype, 2, s->kind == UNARY_LARGE ? big : mat, &a)) == CLB_OK)
            st = clb_unary((clb_unary_op)s->op, a, result);
        break;
    case REDUCE_ROWS: case REDUCE_COLS: {
        int axis = s->kind == REDUCE_ROWS ? 1 : 0;
        if ((st = ones(ctx, s->dtype, 2, mat, &a)) == CLB_OK)
            st = clb_reduce((clb_reduce_op)s->op, a, 1, &axis, 0, result);
        break;
    }
    case SUM_TO_SHAPE:
        if ((st = ones(ctx, s->dtype, 2, mat, &a)) == CLB_OK) st = clb_sum_to_shape(a, 1, row, result);
        break;
    case WHERE:
        if ((st = ones(ctx, CLB_BOOL, 2, mat, &a)) == CLB_OK &&
            (st = ones(ctx, s->dtype, 2, mat, &b)) == CLB_OK &&
            (st = ones(ctx, s->dtype, 1, row, &c)) == CLB_OK)
            st = clb_where(a, b, c, result);
        break;
    case CAST:
        if ((st = ones(ctx, CLB_FLOAT32, 2, mat, &a)) == CLB_OK) st = clb_cast(a, s->dtype, result);
        break;
    case COPY: {
        const int perm[2] = {1, 0};
        if ((st = ones(ctx, s->dtype, 2, mat, &a)) == CLB_OK &&
            (st = clb_permute(a, perm, &b)) == CLB_OK)
            st = clb_contiguous(b, result);
        break;
    }
    case MATMUL:
        if ((st = ones(ctx, s->dtype, 2, ma, &a)) == CLB_OK &&
            (st = ones(ctx, s->dtype, 2, mb, &b)) == CLB_OK)
            st = clb_matmul(a, b, result);
        break;
    }
    if (st == CLB_OK) st = clb_finish(ctx);
    clb_tensor_release(a);
    clb_tensor_release(b);
    clb_tensor_release(c);
    return st;
}

/* "[#######.............]  12/61  add float32" on one line of a terminal, else
   a line per step (a CI log). */
static void progress(bool tty, const char *device, int done, int total, const char *what)
{
    const int width = 24;
    int fill = total ? done * width / total : width;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    if (tty) fprintf(stderr, "\r%-10.10s [%s] %3d/%-3d %-40.40s", device, bar, done, total, what);
    else fprintf(stderr, "%s [%s] %d/%d %s\n", device, bar, done, total, what);
    fflush(stderr);
}

/* Warms one device; 0, or 1 when a step failed. */
static int warm_device(const char *sel, bool minimal, bool tty)
{
    clb_context *ctx = NULL;
    int rc = open_context("warmup", sel, &ctx);
    if (rc) return rc;
    clb_device_info info;
    clb_status st = clb_context_get_info(ctx, &info);
    if (st != CLB_OK) {
        fprintf(stderr, "clb: warmup: %s\n", clb_last_error());
        clb_context_release(ctx);
        return 1;
    }
    terminate_strings(&info);
    if (info.index < 0) {
        printf("%s: nothing to build (the host backend compiles nothing)\n", info.name);
        clb_context_release(ctx);
        return 0;
    }
    int before = 0, after = 0;
    if (clb_device_cached_programs(info.index, &before) != CLB_OK) before = 0;
    step steps[MAX_STEPS];
    int n = make_set(minimal, info.has_fp64 != 0, steps), failed = 0;
    char label[16], what[96];
    snprintf(label, sizeof label, "%d", info.index);
    for (int i = 0; i < n; i++) {
        progress(tty, label, i, n, step_name(&steps[i], what, sizeof what));
        clb_tensor *r = NULL;
        st = run_step(ctx, &steps[i], &r);
        clb_tensor_release(r);
        if (st != CLB_OK && st != CLB_ERR_UNSUPPORTED) {
            if (tty) fputc('\n', stderr);
            fprintf(stderr, "clb: warmup: %s: %s: %s\n", what, clb_status_name(st), clb_last_error());
            failed = 1;
        }
    }
    progress(tty, label, n, n, "writing the disk cache");
    clb_context_release(ctx); /* waits for the disk writes */
    if (tty) fputc('\n', stderr);
    if (clb_device_cached_programs(info.index, &after) != CLB_OK) after = before;
    printf("%s %s (%s): %d operations, %d programs in the cache (%d new)%s\n", label, info.name,
           info.platform, n, after, after - before,
           after == 0 ? "; the disk cache is off (CLB_CACHE_DIR=off)" : "");
    return failed;
}

int cmd_warmup(int argc, char **argv)
{
    const char *selector = NULL;
    bool minimal = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--device") || !strcmp(arg, "--set")) {
            if (i + 1 >= argc) return usage_error("warmup: %s needs a value", arg);
            const char *v = argv[++i];
            if (!strcmp(arg, "--device")) {
                if (!v[0]) return usage_error("warmup: --device needs a selector");
                selector = v;
            } else if (!strcmp(v, "minimal") || !strcmp(v, "common")) {
                minimal = !strcmp(v, "minimal");
            } else {
                return usage_error("warmup: --set is common or minimal, not '%s'", v);
            }
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else {
            return usage_error("warmup: unexpected argument '%s'", arg);
        }
    }
    /* Filling the disk cache is the point here: entries on every driver, PoCL
       too (whose processes otherwise leave it to PoCL's own kernel cache),
       unless the user said never. Every step launches its kernel (no cold-start
       tier on the calling thread), so each program is built before the step
       returns: clb_context_release drops the background builds not begun. */
    setenv("CLB_CACHE_WRITE", "always", 0);
    setenv("CLB_HOST_TINY", "0", 1);
    bool tty = isatty(STDERR_FILENO) != 0;
    if (selector && strcmp(selector, "all") != 0) return warm_device(selector, minimal, tty);
    int count = 0, rc = 0;
    if (clb_device_count(&count) != CLB_OK) count = 0;
    if (count == 0) printf("no OpenCL device: nothing to build\n");
    for (int i = 0; i < count; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%d", i);
        int r = warm_device(sel, minimal, tty);
        if (r > rc) rc = r;
    }
    return rc;
}
