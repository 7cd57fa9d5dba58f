/* Precomputing small broadcast subtrees. In "(x - mu) / sqrt(var + 1e-5)" with
 * x (65536, 256) and var (256,), a fused kernel would take 16M square roots of
 * 256 distinct values. A subtree whose inputs broadcast to a shape much smaller
 * than the output is evaluated first, into a temporary of that small shape, and
 * the main expression reads the temporary as one more input. Each node's value
 * is rounded to its dtype anyway, so the temporary (of the subtree root's dtype)
 * changes no result bit. */
#include "expr.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A subtree is precomputed when the output has at least this many times its elements. */
#define HOIST_RATIO 8

/* Elements of the broadcast of the inputs in `mask` (they broadcast together). */
static int64_t support_numel(uint32_t mask, int n, const int *ndims, const int64_t *const *shapes)
{
    int nd = 0;
    for (int k = 0; k < n; k++)
        if ((mask >> k & 1) && ndims[k] > nd) nd = ndims[k];
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        int64_t size = 1;
        for (int k = 0; k < n; k++) {
            int i = d - (nd - ndims[k]);
            if (!(mask >> k & 1) || i < 0) continue;
            if (shapes[k][i] != 1) size = shapes[k][i];
        }
        numel *= size;
    }
    return numel;
}

/* Copies the nodes reachable from `root` (stopping at nodes marked in `cut`, which
   become `cut_input[i]` inputs) into dst, in order; returns the new root index. */
static int copy_reachable(const clb__expr *src, int root, const int *cut_input, clb__expr *dst)
{
    bool *live = calloc((size_t)src->count, sizeof *live);
    int *map = malloc(sizeof *map * (size_t)src->count);
    if (!live || !map) {
        free(live);
        free(map);
        return -1;
    }
    live[root] = true;
    for (int i = root; i >= 0; i--) {
        if (!live[i] || (cut_input && cut_input[i] >= 0 && i != root)) continue;
        const clb__expr_node *nd = &src->nodes[i];
        for (int a = 0; a < nd->nargs; a++) live[nd->args[a]] = true;
    }
    /* A cut node that is the root of this copy is copied whole (it is the subtree). */
    dst->count = 0;
    for (int i = 0; i <= root; i++) {
        if (!live[i]) continue;
        clb__expr_node nd = src->nodes[i];
        if (cut_input && cut_input[i] >= 0 && i != root) {
            clb__expr_node in = {.kind = CLB__EXPR_INPUT, .op = cut_input[i], .column = nd.column,
                                 .dtype = nd.dtype, .compute = nd.dtype};
            nd = in;
        }
        for (int a = 0; a < nd.nargs; a++) nd.args[a] = map[nd.args[a]];
        map[i] = dst->count;
        dst->nodes[dst->count++] = nd;
    }
    free(live);
    free(map);
    return dst->count - 1;
}

clb_status clb__expr_hoist(clb__expr *e, int n, const int *ndims, const int64_t *const *shapes,
                           int64_t out_numel, clb__expr **subs, uint32_t *masks, int *count)
{
    clb_status st = CLB_OK;
    *count = 0;
    uint32_t *mask = calloc((size_t)e->count, sizeof *mask);
    int *cut = malloc(sizeof *cut * (size_t)e->count);
    int *stack = malloc(sizeof *stack * (3 * (size_t)e->count + 1)); /* a DAG: one push per edge */
    clb__expr *rewritten = NULL;
    if (!mask || !cut || !stack) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory planning an expression");
    for (int i = 0; i < e->count; i++) {
        const clb__expr_node *nd = &e->nodes[i];
        cut[i] = -1;
        if (nd->kind == CLB__EXPR_INPUT) mask[i] = 1u << nd->op;
        for (int a = 0; a < nd->nargs; a++) mask[i] |= mask[nd->args[a]];
    }
    /* Top-down from the root: the first qualifying node on each path is cut, so
       the cut subtrees are maximal. */
    int top = 0, max_new = CLB__EVAL_MAX_INPUTS - n;
    stack[top++] = e->count - 1;
    while (top > 0 && *count < max_new) {
        int i = stack[--top];
        const clb__expr_node *nd = &e->nodes[i];
        /* A node read twice (x * x from x ** 2) is reached twice: cut once. */
        if (cut[i] >= 0 || nd->kind == CLB__EXPR_INPUT || nd->kind == CLB__EXPR_CONST) continue;
        if (i != e->count - 1 &&
            support_numel(mask[i], n, ndims, shapes) * HOIST_RATIO <= out_numel) {
            cut[i] = n + *count;
            masks[*count] = mask[i];
            (*count)++;
            continue;
        }
        for (int a = 0; a < nd->nargs; a++) stack[top++] = nd->args[a];
    }
    if (*count == 0) goto cleanup;

    /* Sub-expressions first (from the original tree), then the rewrite. */
    for (int j = 0; j < *count; j++) subs[j] = NULL;
    for (int i = 0, j = 0; i < e->count; i++) {
        if (cut[i] < 0) continue;
        j = cut[i] - n;
        subs[j] = calloc(1, sizeof *subs[j]);
        if (!subs[j]) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory planning an expression");
        subs[j]->text = NULL; /* messages come from the main expression */
        if (copy_reachable(e, i, NULL, subs[j]) < 0)
            CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory planning an expression");
    }
    rewritten = calloc(1, sizeof *rewritten);
    if (!rewritten || copy_reachable(e, e->count - 1, cut, rewritten) < 0)
        CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory planning an expression");
    e->count = rewritten->count;
    memcpy(e->nodes, rewritten->nodes, sizeof e->nodes[0] * (size_t)rewritten->count);

cleanup:
    if (st != CLB_OK) {
        for (int j = 0; j < *count; j++) clb__expr_free(subs[j]);
        *count = 0;
    }
    free(rewritten);
    free(mask);
    free(cut);
    free(stack);
    return st;
}
