/* clb_einsum: the subscripts are parsed once into label lists; each operand
 * becomes a view over one global label space (output labels first, then the
 * contracted ones): repeated labels within an operand are a diagonal (their
 * strides summed), absent labels stride 0. One operand without contraction is
 * then that view itself; two operands that are a (batched) matrix product go
 * through clb_matmul; everything else (batched dot products like "ij,ij->i"
 * included) is clb_eval_reduce of the product of the views, summed over the
 * contracted labels in one fused pass (no outer product is stored).
 * The result is cast back to the operands' promoted dtype (NumPy: einsum of
 * int32 is int32, not the int64 of a sum). */
#include "backend.h"
#include "dtype.h"
#include "internal.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLABELS 52          /* a-z A-Z */
#define ELL_BASE NLABELS    /* label ids of the "..." dimensions: ELL_BASE + j */
#define MAX_IDS (NLABELS + CLB_MAX_DIMS)

static int label_id(char c)
{
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= 'A' && c <= 'Z') return c - 'A'; /* uppercase sorts first, as NumPy's implicit output */
    return -1;
}

static char label_char(int id)
{
    return id < 26 ? (char)('A' + id) : (char)('a' + id - 26);
}

/* One term: its labels in order, and where "..." stands (-1: none). */
typedef struct term {
    int nlabels;
    int labels[CLB_MAX_DIMS];
    int ellipsis; /* index in labels where the ellipsis dimensions go */
} term;

/* Parses text[*pos...] up to ',' or "->" or the end into t. */
static clb_status parse_term(const char *text, size_t *pos, bool output, term *t)
{
    t->nlabels = 0;
    t->ellipsis = -1;
    for (;;) {
        char c = text[*pos];
        if (c == '\0' || c == ',' || (c == '-' && text[*pos + 1] == '>')) return CLB_OK;
        if (c == ' ') {
            (*pos)++;
            continue;
        }
        if (c == '.') {
            if (strncmp(text + *pos, "...", 3) != 0)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "clb_einsum: \"%s\": a '.' at position %zu that is not part of "
                                 "an ellipsis \"...\"",
                                 text, *pos);
            if (t->ellipsis >= 0)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "clb_einsum: \"%s\": a second ellipsis at position %zu in one "
                                 "term",
                                 text, *pos);
            t->ellipsis = t->nlabels;
            *pos += 3;
            continue;
        }
        int id = label_id(c);
        if (id < 0)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "clb_einsum: \"%s\": invalid character '%c' at position %zu (labels "
                             "are a-z and A-Z)",
                             text, c, *pos);
        if (output)
            for (int i = 0; i < t->nlabels; i++)
                if (t->labels[i] == id)
                    return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                     "clb_einsum: \"%s\": output label '%c' at position %zu "
                                     "appears more than once",
                                     text, c, *pos);
        if (t->nlabels >= CLB_MAX_DIMS)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "clb_einsum: \"%s\": more than %d labels in one term (position %zu)",
                             text, CLB_MAX_DIMS, *pos);
        t->labels[t->nlabels++] = id;
        (*pos)++;
    }
}

/* Two operands whose contraction is a (batched) matrix product: every label is
   batch (output, both operands or "..."), i (output, a only), j (output, b only)
   or k (contracted, both), with at least one k. views are the operands over the
   global space (nout output dimensions, then the contracted ones). Returns
   CLB_OK with *done false when the contraction is not of that form. */
static clb_status einsum_matmul(clb_tensor *const *views, int nids, int nout, const int *ids,
                                clb_dtype dt, bool *done, clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb_tensor *pa = NULL, *pb = NULL, *ra = NULL, *rb = NULL, *m = NULL, *mr = NULL, *mp = NULL;
    const clb_tensor *a = views[0], *b = views[1];
    int cat[CLB_MAX_DIMS]; /* 0 batch, 1 i, 2 j, 3 k */
    int nk = 0;
    *done = false;
    for (int g = 0; g < nids; g++) {
        bool in_a = a->shape[g] != 1 || a->strides[g] != 0, in_b = b->shape[g] != 1 || b->strides[g] != 0;
        if (g >= nout) {
            if (!in_a || !in_b) return CLB_OK; /* summed in one operand only */
            cat[g] = 3;
            nk++;
        } else if (ids[g] >= ELL_BASE || (in_a && in_b)) {
            cat[g] = 0;
        } else {
            cat[g] = in_a ? 1 : 2;
        }
    }
    if (nk == 0) return CLB_OK;
    /* Without i and j labels it is a batched dot product ("ij,ij->i", "i,i->"): a
       reduction bound by memory, one fused clb_eval_reduce pass (Kahan sums). */
    bool has_ij = false;
    for (int g = 0; g < nids; g++) has_ij = has_ij || cat[g] == 1 || cat[g] == 2;
    if (!has_ij) return CLB_OK;
    /* a as (batch..., i..., k...) -> (batch..., M, K); b as (batch..., k..., j...) -> (batch..., K, N). */
    int perm_a[CLB_MAX_DIMS], perm_b[CLB_MAX_DIMS], np = 0, nb = 0;
    int64_t M = 1, N = 1, K = 1, bshape_a[CLB_MAX_DIMS], bshape_b[CLB_MAX_DIMS];
    for (int c = 0; c < 4; c++)
        for (int g = 0; g < nids; g++)
            if (cat[g] == c) perm_a[np++] = g;
    np = 0;
    const int order_b[4] = {0, 3, 2, 1};
    for (int c = 0; c < 4; c++)
        for (int g = 0; g < nids; g++)
            if (cat[g] == order_b[c]) perm_b[np++] = g;
    for (int g = 0; g < nids; g++) {
        if (cat[g] == 0) {
            bshape_a[nb] = a->shape[g];
            bshape_b[nb++] = b->shape[g];
        }
        if (cat[g] == 1) M *= a->shape[g];
        if (cat[g] == 2) N *= b->shape[g];
        if (cat[g] == 3) K *= a->shape[g];
    }
    CLB_TRY(clb_permute(a, perm_a, &pa));
    CLB_TRY(clb_permute(b, perm_b, &pb));
    bshape_a[nb] = M, bshape_a[nb + 1] = K;
    bshape_b[nb] = K, bshape_b[nb + 1] = N;
    CLB_TRY(clb_reshape(pa, nb + 2, bshape_a, &ra));
    CLB_TRY(clb_reshape(pb, nb + 2, bshape_b, &rb));
    CLB_TRY(clb_matmul(ra, rb, &m));
    /* (batch..., M, N) -> (batch..., i..., j...) -> the output order. */
    int64_t oshape[CLB_MAX_DIMS];
    int no = 0, pos[CLB_MAX_DIMS], perm_o[CLB_MAX_DIMS];
    for (int c = 0; c < 3; c++)
        for (int g = 0; g < nout; g++)
            if (cat[g] == c) {
                int64_t sa = a->shape[g], sb = b->shape[g];
                oshape[no] = c == 1 ? sa : c == 2 ? sb : sa > sb ? sa : sb;
                pos[g] = no++;
            }
    CLB_TRY(clb_reshape(m, no, oshape, &mr));
    for (int g = 0; g < nout; g++) perm_o[g] = pos[g];
    CLB_TRY(clb_permute(mr, perm_o, &mp));
    if (mp->dtype != dt)
        CLB_TRY(clb_cast(mp, dt, out));
    else /* the product itself where it is in the output order ("bij,bjk->bik") */
        CLB_TRY(clb_contiguous(mp, out));
    *done = true;
cleanup:
    clb_tensor_release(pa);
    clb_tensor_release(pb);
    clb_tensor_release(ra);
    clb_tensor_release(rb);
    clb_tensor_release(m);
    clb_tensor_release(mr);
    clb_tensor_release(mp);
    return st;
}

/* The subscripts, parsed and sized: every label's size, and the global label
   space (output labels first, then the contracted ones). */
typedef struct einsum {
    const char *subscripts;
    int n;
    const clb_tensor *const *operands;
    term *terms; /* n */
    term outt;
    bool explicit_out;
    int64_t size[MAX_IDS];
    int count[MAX_IDS]; /* operands' occurrences of each label */
    int ell;            /* number of "..." dimensions */
    int ids[MAX_IDS], nids, nout;
} einsum;

static const char fn[] = "clb_einsum";

static clb_status check_operands(int n, const clb_tensor *const *operands)
{
    if (n < 1 || !operands)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: needs n >= 1 operands", fn);
    if (n > CLB_EVAL_MAX_INPUTS)
        return clb__fail(CLB_ERR_UNSUPPORTED, "%s: %d operands; at most %d are supported", fn, n,
                         CLB_EVAL_MAX_INPUTS);
    for (int k = 0; k < n; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s: operands[%d]", fn, k);
        clb_status st = clb__check_tensor(operands[k], what);
        if (st == CLB_OK && k > 0) st = clb__check_same_context(fn, operands[0], operands[k]);
        if (st != CLB_OK) return st;
    }
    return CLB_OK;
}

/* The input terms, one per operand, and the output term after "->". */
static clb_status parse_terms(einsum *es)
{
    clb_status st = CLB_OK;
    const char *sub = es->subscripts;
    size_t pos = 0;
    for (int k = 0;; k++) {
        if (k >= es->n)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: \"%s\": more terms than the %d operands (position %zu)", fn, sub,
                             es->n, pos);
        CLB_TRY(parse_term(sub, &pos, false, &es->terms[k]));
        if (sub[pos] == ',') {
            pos++;
            continue;
        }
        if (k + 1 != es->n)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: \"%s\": %d terms before position %zu for %d operands", fn, sub,
                             k + 1, pos, es->n);
        break;
    }
    es->explicit_out = sub[pos] == '-';
    if (es->explicit_out) {
        pos += 2;
        CLB_TRY(parse_term(sub, &pos, true, &es->outt));
        if (sub[pos] != '\0')
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: \"%s\": unexpected '%c' at position %zu",
                             fn, sub, sub[pos], pos);
    }
cleanup:
    return st;
}

/* The label id of dimension d of operand k (e of its dimensions are "..."). */
static int label_of(const einsum *es, int k, int e, int d)
{
    const term *t = &es->terms[k];
    if (t->ellipsis >= 0 && d >= t->ellipsis && d < t->ellipsis + e)
        return ELL_BASE + es->ell - e + (d - t->ellipsis);
    return t->labels[d < (t->ellipsis >= 0 ? t->ellipsis : es->operands[k]->ndim) ? d : d - e];
}

/* Operand k's sizes into es->size: labels must agree (a size-1 dimension
   broadcasts between operands, as in NumPy; a label repeated within one operand,
   a diagonal, needs equal sizes); "..." dimensions broadcast right-aligned. */
static clb_status size_operand(einsum *es, int k)
{
    const clb_tensor *x = es->operands[k];
    int e = x->ndim - es->terms[k].nlabels;
    int64_t mine[MAX_IDS]; /* this operand's size of each label */
    for (int id = 0; id < MAX_IDS; id++) mine[id] = -1;
    for (int d = 0; d < x->ndim; d++) {
        int64_t s = x->shape[d], *size = es->size;
        int id = label_of(es, k, e, d);
        if (id >= ELL_BASE) {
            if (size[id] < 0 || size[id] == 1) size[id] = s;
            else if (s != 1 && s != size[id])
                return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                                 "%s: \"%s\": the \"...\" dimensions of operand %d (size %lld) do "
                                 "not broadcast with %lld",
                                 fn, es->subscripts, k, (long long)s, (long long)size[id]);
            continue;
        }
        if (mine[id] >= 0 && mine[id] != s)
            return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                             "%s: \"%s\": label '%c' is repeated in operand %d with sizes %lld and "
                             "%lld; a diagonal needs equal sizes",
                             fn, es->subscripts, label_char(id), k, (long long)mine[id],
                             (long long)s);
        if (size[id] >= 0 && size[id] != s && size[id] != 1 && s != 1)
            return clb__fail(CLB_ERR_SHAPE_MISMATCH,
                             "%s: \"%s\": label '%c' has size %lld in operand %d but %lld before, "
                             "and neither is 1 (which would broadcast)",
                             fn, es->subscripts, label_char(id), (long long)s, k,
                             (long long)size[id]);
        if (size[id] < 0 || size[id] == 1) size[id] = s;
        mine[id] = s;
        es->count[id]++;
    }
    return CLB_OK;
}

static clb_status size_labels(einsum *es)
{
    clb_status st = CLB_OK;
    for (int id = 0; id < MAX_IDS; id++) es->size[id] = -1, es->count[id] = 0;
    es->ell = 0;
    for (int k = 0; k < es->n; k++) {
        const term *t = &es->terms[k];
        const clb_tensor *x = es->operands[k];
        int e = x->ndim - t->nlabels;
        if (e < 0 || (e > 0 && t->ellipsis < 0))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: \"%s\": operand %d has %d dimensions but its term has %d "
                             "labels%s",
                             fn, es->subscripts, k, x->ndim, t->nlabels,
                             t->ellipsis < 0 ? " and no \"...\"" : "");
        if (e > es->ell) es->ell = e;
    }
    for (int k = 0; k < es->n; k++) CLB_TRY(size_operand(es, k));
cleanup:
    return st;
}

/* es->ids: the output labels (the explicit output term's, else "..." and the
   labels that occur once, in order), then the contracted ones. */
static clb_status label_space(einsum *es)
{
    int *ids = es->ids, nout = 0;
    const term *o = &es->outt;
    if (es->explicit_out) {
        for (int i = 0; i <= o->nlabels; i++) {
            if (i == o->ellipsis)
                for (int j = 0; j < es->ell; j++) ids[nout++] = ELL_BASE + j;
            if (i == o->nlabels) break;
            if (es->count[o->labels[i]] == 0)
                return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                                 "%s: \"%s\": output label '%c' appears in no input term", fn,
                                 es->subscripts, label_char(o->labels[i]));
            ids[nout++] = o->labels[i];
        }
        if (o->ellipsis < 0 && es->ell > 0)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: \"%s\": the inputs have \"...\" dimensions but the output has "
                             "no \"...\"",
                             fn, es->subscripts);
    } else {
        for (int j = 0; j < es->ell; j++) ids[nout++] = ELL_BASE + j;
        for (int id = 0; id < NLABELS; id++)
            if (es->count[id] == 1) ids[nout++] = id;
    }
    bool in_out[MAX_IDS] = {false};
    int nids = nout;
    for (int i = 0; i < nout; i++) in_out[ids[i]] = true;
    for (int id = 0; id < NLABELS; id++)
        if (es->count[id] > 0 && !in_out[id]) ids[nids++] = id;
    if (nids > CLB_MAX_DIMS)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "%s: \"%s\": %d distinct labels; at most %d are supported", fn,
                         es->subscripts, nids, CLB_MAX_DIMS);
    es->nout = nout, es->nids = nids;
    return CLB_OK;
}

/* Each operand as a view over the global label space (absent labels stride 0, a
   repeated label the diagonal: its strides summed); *dt the promoted dtype. One
   operand with nothing contracted keeps only the output's axes. */
static clb_status operand_views(const einsum *es, clb_tensor **views, clb_dtype *dt)
{
    clb_status st = CLB_OK;
    int where[MAX_IDS];
    for (int id = 0; id < MAX_IDS; id++) where[id] = -1;
    for (int i = 0; i < es->nids; i++) where[es->ids[i]] = i;
    *dt = es->operands[0]->dtype;
    for (int k = 0; k < es->n; k++) {
        const clb_tensor *x = es->operands[k];
        int e = x->ndim - es->terms[k].nlabels;
        int64_t vshape[CLB_MAX_DIMS], vstrides[CLB_MAX_DIMS];
        for (int i = 0; i < es->nids; i++) vshape[i] = 1, vstrides[i] = 0;
        for (int d = 0; d < x->ndim; d++) {
            int g = where[label_of(es, k, e, d)];
            vshape[g] = x->shape[d];
            vstrides[g] += x->strides[d]; /* a repeated label: the diagonal */
        }
        for (int i = 0; i < es->nids; i++)
            if (vshape[i] == 1) vstrides[i] = 0;
        int ndim = es->n == 1 && es->nids == es->nout ? es->nout : es->nids;
        CLB_TRY(clb__tensor_view(x, ndim, vshape, vstrides, x->offset, &views[k]));
        if (k > 0) *dt = clb__promote(clb__rules(x->storage->ctx), *dt, x->dtype);
    }
cleanup:
    return st;
}

/* The product of the views summed over the contracted labels (one fused pass),
   cast to dt. */
static clb_status sum_of_products(const einsum *es, clb_tensor *const *views, clb_dtype dt,
                                  clb_tensor **out)
{
    static const char *const names[CLB_EVAL_MAX_INPUTS] = {"t0", "t1", "t2", "t3",
                                                           "t4", "t5", "t6", "t7"};
    char expr[CLB_EVAL_MAX_INPUTS * 6 + 1] = "";
    for (int k = 0; k < es->n; k++) {
        strcat(expr, k ? " * " : "");
        strcat(expr, names[k]);
    }
    int axes[CLB_MAX_DIMS], naxes = 0;
    for (int i = es->nout; i < es->nids; i++) axes[naxes++] = i;
    clb_tensor *r = NULL;
    clb_status st = clb_eval_reduce(es->operands[0]->storage->ctx, expr, es->n, names,
                                    (const clb_tensor *const *)views, CLB_SUM, naxes, axes, 0, &r);
    if (st != CLB_OK) return st;
    if (r->dtype == dt) {
        *out = r;
        return CLB_OK;
    }
    st = clb_cast(r, dt, out);
    clb_tensor_release(r);
    return st;
}

clb_status clb_einsum(const char *subscripts, int n, const clb_tensor *const *operands,
                      clb_tensor **out)
{
    clb_status st = CLB_OK;
    einsum es = {.subscripts = subscripts, .n = n, .operands = operands};
    clb_tensor *views[CLB_EVAL_MAX_INPUTS] = {NULL};
    clb_dtype dt;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!subscripts) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: subscripts is NULL", fn);
    CLB_TRY(check_operands(n, operands));
    es.terms = calloc((size_t)n, sizeof *es.terms);
    if (!es.terms) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    CLB_TRY(parse_terms(&es));
    CLB_TRY(size_labels(&es));
    CLB_TRY(label_space(&es));
    CLB_TRY(operand_views(&es, views, &dt));
    if (n == 1 && es.nids == es.nout) { /* one operand, nothing contracted: this view */
        *out = views[0];
        views[0] = NULL;
        goto cleanup;
    }
    if (n == 2) { /* a (batched) matrix product */
        bool done = false;
        CLB_TRY(einsum_matmul(views, es.nids, es.nout, es.ids, dt, &done, out));
        if (done) goto cleanup;
    }
    CLB_TRY(sum_of_products(&es, views, dt, out));
cleanup:
    if (st != CLB_OK) {
        clb_tensor_release(*out);
        *out = NULL;
    }
    for (int k = 0; k < n && k < CLB_EVAL_MAX_INPUTS; k++) clb_tensor_release(views[k]);
    free(es.terms);
    return st;
}
