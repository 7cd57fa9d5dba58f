/* The benchmark's case table and how to run a case (see cases.h).
 *
 * The first two cases are copy-shaped streams (read n, write n): the plain
 * copy through the library's copy kernel (clb_cast float32 -> float32) and
 * x * s with a 0-d s through the element-wise kernel. The device's copy
 * bandwidth, the 100 % of every other case, is the faster of the two, so a
 * slow copy kernel cannot make broadcast patterns look better than they are.
 *
 * Full sizes follow the issue that defined the benchmark (2^26 elements,
 * (16384, 4096) matrices: 256 MiB per float32 operand, far beyond any cache).
 * Quick sizes keep each operand near 4 MiB so that `--quick`, including the
 * slow host-backend baseline, finishes in seconds; they still exceed the L2
 * of most devices but may sit in a large L3, so quick numbers run high. */
#include "cases.h"

#include <stdio.h>

#define S0 {0, {0}}
#define S1(a) {1, {a}}
#define S2(a, b) {2, {a, b}}
#define S3(a, b, c) {3, {a, b, c}}
#define S4(a, b, c, d) {4, {a, b, c, d}}

const clbb_case clbb_cases[] = {
    {"copy", "copy", CLBB_COPY, CLB_ADD,
     {S1(67108864), S1(1048576)}, {S1(1), S1(1)}, 0, {0}, 0, 1},
    {"scalar_broadcast", "scalar broadcast (copy)", CLBB_BINARY, CLB_MUL,
     {S1(67108864), S1(1048576)}, {S0, S0}, 0, {0}, 0, 1},
    {"add_same_shape", "same-shape add", CLBB_BINARY, CLB_ADD,
     {S1(67108864), S1(1048576)}, {S1(67108864), S1(1048576)}, 0, {0}, 0, 0},
    {"row_broadcast", "row broadcast", CLBB_BINARY, CLB_ADD,
     {S2(16384, 4096), S2(1024, 1024)}, {S1(4096), S1(1024)}, 0, {0}, 0, 0},
    {"column_broadcast", "column broadcast", CLBB_BINARY, CLB_ADD,
     {S2(16384, 4096), S2(1024, 1024)}, {S2(16384, 1), S2(1024, 1)}, 0, {0}, 0, 0},
    {"images_minus_channel_mean", "images - channel mean", CLBB_BINARY, CLB_SUB,
     {S4(128, 3, 224, 224), S4(32, 3, 96, 96)}, {S3(3, 1, 1), S3(3, 1, 1)}, 0, {0}, 0, 0},
    {"outer", "outer sum", CLBB_BINARY, CLB_ADD,
     {S2(4096, 1), S2(1024, 1)}, {S2(1, 4096), S2(1, 1024)}, 0, {0}, 0, 0},
    {"bias_add", "bias add (latency)", CLBB_BINARY, CLB_ADD,
     {S2(32, 30), S2(32, 30)}, {S1(30), S1(30)}, 0, {0}, 1, 0},
    {"batchnorm_normalize", "batch-norm normalize", CLBB_NORMALIZE, CLB_ADD,
     {S2(65536, 1024), S2(1024, 1024)}, {S1(1024), S1(1024)}, 0, {0}, 0, 0},
    {"row_sum", "row sum", CLBB_REDUCE, CLB_ADD,
     {S2(16384, 4096), S2(1024, 1024)}, {S1(1), S1(1)}, 1, {1}, 0, 0},
    {"column_sum", "column sum", CLBB_REDUCE, CLB_ADD,
     {S2(16384, 4096), S2(1024, 1024)}, {S1(1), S1(1)}, 1, {0}, 0, 0},
    {"sum_to_shape", "sum_to_shape (bias grad)", CLBB_SUM_TO_SHAPE, CLB_ADD,
     {S4(128, 3, 224, 224), S4(32, 3, 96, 96)}, {S3(3, 1, 1), S3(3, 1, 1)}, 0, {0}, 0, 0},
    {"batched_matmul", "broadcast batched matmul", CLBB_MATMUL, CLB_ADD,
     {S4(8, 1, 128, 256), S4(4, 1, 64, 64)}, {S3(4, 256, 128), S3(2, 64, 64)}, 0, {0}, 0, 0},
};
const int clbb_case_count = (int)(sizeof clbb_cases / sizeof clbb_cases[0]);

clbb_peak clbb_case_peak(const clbb_case *c)
{
    if (c->latency) return CLBB_PEAK_LAUNCH;
    switch (c->kind) {
    case CLBB_COPY:
    case CLBB_BINARY:
    case CLBB_NORMALIZE: return CLBB_PEAK_COPY;
    case CLBB_REDUCE:
    case CLBB_SUM_TO_SHAPE: return CLBB_PEAK_READ;
    case CLBB_MATMUL: return CLBB_PEAK_FMA;
    }
    return CLBB_PEAK_COPY;
}

const char *clbb_peak_name(clbb_peak p)
{
    switch (p) {
    case CLBB_PEAK_COPY: return "copy";
    case CLBB_PEAK_READ: return "read";
    case CLBB_PEAK_FMA: return "fma";
    case CLBB_PEAK_LAUNCH: return "launch";
    }
    return "copy";
}

static double numel(const clbb_shape *s)
{
    double n = 1;
    for (int i = 0; i < s->ndim; i++) n *= (double)s->dims[i];
    return n;
}

/* Element count of the broadcast of a and b without their last drop_last
   dimensions (2 for matmul: the batch shape). */
static double broadcast_numel(const clbb_shape *a, const clbb_shape *b, int drop_last)
{
    int nd[2] = {a->ndim - drop_last, b->ndim - drop_last}, out_nd = 0;
    const int64_t *shapes[2] = {a->dims, b->dims};
    int64_t out[CLB_MAX_DIMS];
    if (clb_broadcast_shapes(2, nd, shapes, &out_nd, out) != CLB_OK) return 0;
    double n = 1;
    for (int i = 0; i < out_nd; i++) n *= (double)out[i];
    return n;
}

static double reduced_numel(const clbb_case *c, int quick)
{
    const clbb_shape *a = &c->a[quick];
    double n = numel(a);
    for (int i = 0; i < c->naxes; i++) n /= (double)a->dims[c->axes[i]];
    return n;
}

double clbb_case_bytes(const clbb_case *c, int quick)
{
    const clbb_shape *a = &c->a[quick], *b = &c->b[quick];
    double elems = 0;
    switch (c->kind) {
    case CLBB_COPY: elems = 2 * numel(a); break;
    case CLBB_BINARY: elems = numel(a) + numel(b) + broadcast_numel(a, b, 0); break;
    case CLBB_NORMALIZE: elems = numel(a) + 2 * numel(b) + broadcast_numel(a, b, 0); break;
    case CLBB_REDUCE: elems = numel(a) + reduced_numel(c, quick); break;
    case CLBB_SUM_TO_SHAPE: elems = numel(a) + numel(b); break;
    case CLBB_MATMUL: {
        double m = (double)a->dims[a->ndim - 2], n = (double)b->dims[b->ndim - 1];
        elems = numel(a) + numel(b) + broadcast_numel(a, b, 2) * m * n;
        break;
    }
    }
    return 4 * elems;
}

double clbb_case_flops(const clbb_case *c, int quick)
{
    const clbb_shape *a = &c->a[quick], *b = &c->b[quick];
    switch (c->kind) {
    case CLBB_COPY: return 0;
    case CLBB_BINARY: return broadcast_numel(a, b, 0);
    case CLBB_NORMALIZE: return 2 * broadcast_numel(a, b, 0);
    case CLBB_REDUCE:
    case CLBB_SUM_TO_SHAPE: return numel(a);
    case CLBB_MATMUL: {
        double m = (double)a->dims[a->ndim - 2], k = (double)a->dims[a->ndim - 1];
        return 2 * broadcast_numel(a, b, 2) * m * (double)b->dims[b->ndim - 1] * k;
    }
    }
    return 0;
}

/* "(16384, 4096)", "(4096,)"; shapes here have at most four short dims. */
static void shape_str(const clbb_shape *s, char *buf, size_t cap)
{
    int len = snprintf(buf, cap, "(");
    for (int i = 0; i < s->ndim; i++)
        len += snprintf(buf + len, cap - (size_t)len, i ? ", %lld" : "%lld", (long long)s->dims[i]);
    snprintf(buf + len, cap - (size_t)len, s->ndim == 1 ? ",)" : ")");
}

void clbb_case_shapes(const clbb_case *c, int quick, char *buf, size_t cap)
{
    char a[128], b[128];
    shape_str(&c->a[quick], a, sizeof a);
    shape_str(&c->b[quick], b, sizeof b);
    switch (c->kind) {
    case CLBB_COPY: snprintf(buf, cap, "%s", a); break;
    case CLBB_BINARY:
        snprintf(buf, cap, "%s %s %s", a, c->op == CLB_SUB ? "-" : c->op == CLB_MUL ? "*" : "+", b);
        break;
    case CLBB_NORMALIZE: snprintf(buf, cap, "(%s - %s) * %s", a, b, b); break;
    case CLBB_REDUCE: snprintf(buf, cap, "%s over axis %d", a, c->axes[0]); break;
    case CLBB_SUM_TO_SHAPE: snprintf(buf, cap, "%s -> %s", a, b); break;
    case CLBB_MATMUL: snprintf(buf, cap, "%s @ %s", a, b); break;
    }
}

int64_t clbb_max_input_numel(int quick)
{
    double most = 0;
    for (int i = 0; i < clbb_case_count; i++) {
        double a = numel(&clbb_cases[i].a[quick]), b = numel(&clbb_cases[i].b[quick]);
        if (a > most) most = a;
        if (b > most) most = b;
    }
    return (int64_t)most;
}

clb_status clbb_instance_setup(clbb_instance *inst, const clbb_case *c, int quick,
                               clb_context *ctx, const float *data)
{
    const clbb_shape *a = &c->a[quick], *b = &c->b[quick];
    *inst = (clbb_instance){c, quick, NULL, NULL, NULL, NULL};
    clb_status st = clb_tensor_from_host(ctx, CLB_FLOAT32, a->ndim, a->dims, data, &inst->a);
    /* sum_to_shape's b is only a target shape; copy's is unused. */
    int needs_b = c->kind == CLBB_BINARY || c->kind == CLBB_NORMALIZE || c->kind == CLBB_MATMUL;
    if (st == CLB_OK && needs_b)
        st = clb_tensor_from_host(ctx, CLB_FLOAT32, b->ndim, b->dims, data, &inst->b);
    /* The second statistic starts further into the data so it differs from the first. */
    if (st == CLB_OK && c->kind == CLBB_NORMALIZE)
        st = clb_tensor_from_host(ctx, CLB_FLOAT32, b->ndim, b->dims, data + (int64_t)numel(b),
                                  &inst->b2);
    if (st != CLB_OK) clbb_instance_release(inst);
    return st;
}

clb_status clbb_instance_run(void *user)
{
    clbb_instance *inst = user;
    const clbb_case *c = inst->c;
    const clbb_shape *b = &c->b[inst->quick];
    clb_tensor *out = NULL, *tmp = NULL;
    clb_status st = CLB_OK;
    /* The previous result goes first, so two outputs never coexist in memory. */
    clb_tensor_release(inst->out);
    inst->out = NULL;
    switch (c->kind) {
    case CLBB_COPY: st = clb_cast(inst->a, CLB_FLOAT32, &out); break;
    case CLBB_BINARY: st = clb_binary(c->op, inst->a, inst->b, &out); break;
    case CLBB_NORMALIZE:
        st = clb_binary(CLB_SUB, inst->a, inst->b, &tmp);
        if (st == CLB_OK) st = clb_binary(CLB_MUL, tmp, inst->b2, &out);
        clb_tensor_release(tmp);
        break;
    case CLBB_REDUCE: st = clb_reduce(CLB_SUM, inst->a, c->naxes, c->axes, 0, &out); break;
    case CLBB_SUM_TO_SHAPE: st = clb_sum_to_shape(inst->a, b->ndim, b->dims, &out); break;
    case CLBB_MATMUL: st = clb_matmul(inst->a, inst->b, &out); break;
    }
    inst->out = out;
    return st;
}

void clbb_instance_release(clbb_instance *inst)
{
    clb_tensor_release(inst->a);
    clb_tensor_release(inst->b);
    clb_tensor_release(inst->b2);
    clb_tensor_release(inst->out);
    inst->a = inst->b = inst->b2 = inst->out = NULL;
}
