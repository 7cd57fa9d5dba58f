/* Storage and tensors: refcounts, accessors, host transfers. */
#include "backend.h"
#include "dtype.h"
#include "fault.h"
#include "internal.h"
#include "pool.h"
#include "registry.h"
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* ---- argument checks ----------------------------------------------------- */

/* Asked of the live set before the record is read (registry.h): a released
   tensor, a stray pointer and a double release are errors, never a read of
   freed memory. */
static bool live(const clb_tensor *t)
{
    return clb__live_has(CLB__LIVE_TENSOR, t);
}

clb_status clb__check_tensor(const clb_tensor *t, const char *what)
{
    if (!t) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if (!live(t))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s is not a live tensor: it was released (its last reference went "
                         "with clb_tensor_release) or is not a clb_tensor; keep a reference "
                         "(clb_tensor_retain) while you use it",
                         what);
    return CLB_OK;
}

/* ---- storage -------------------------------------------------------------- */

clb_status clb__storage_alloc(clb_context *ctx, size_t nbytes, clb__storage **out)
{
    *out = NULL;
    clb__storage *s = calloc(1, sizeof *s);
    CLB__FAULT_FREE(s, CLB__FAULT_HOST_ALLOC);
    if (!s) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a storage record");
    clb_status st = clb__pool_alloc(ctx, nbytes, &s->handle, &s->capacity);
    if (st != CLB_OK) {
        free(s);
        return st;
    }
    atomic_init(&s->refs, 1);
    s->ctx = ctx;
    s->nbytes = nbytes;
    s->base = s->handle;
    if (ctx->backend->memory_of) ctx->backend->memory_of(ctx, s->handle, &s->base, &s->base_offset);
    clb__context_retain(ctx);
    atomic_fetch_add(&ctx->allocated, nbytes);
    *out = s;
    return CLB_OK;
}

void clb__storage_retain(clb__storage *s)
{
    atomic_fetch_add(&s->refs, 1);
}

/* Gives back the application's handle: never to the pool, nor to a slab (a
   wrap of a tensor's own sub-buffer is still that tensor's block). */
static void free_wrapped(clb_context *ctx, void *handle)
{
    (ctx->backend->free_wrapped ? ctx->backend->free_wrapped : ctx->backend->free)(ctx, handle);
}

void clb__storage_release(clb__storage *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    clb_context *ctx = s->ctx;
    if (s->wrapped) {
        /* the application's buffer: exactly one release; its host memory: never ours */
        if (!s->borrowed) free_wrapped(ctx, s->handle);
    } else {
        clb__pool_free(ctx, s->handle, s->capacity);
    }
    atomic_fetch_sub(&ctx->allocated, s->nbytes);
    free(s);
    clb__context_unref(ctx);
}

/* ---- tensors -------------------------------------------------------------- */

static clb_tensor *tensor_record(clb__storage *storage, clb_dtype dtype, int ndim,
                                 const int64_t *shape, const int64_t *strides, int64_t offset)
{
    clb_tensor *t = calloc(1, sizeof *t);
    CLB__FAULT_FREE(t, CLB__FAULT_HOST_ALLOC);
    if (!t) return NULL;
    t->magic = CLB__TENSOR_MAGIC;
    if (!clb__live_add(CLB__LIVE_TENSOR, t)) {
        free(t);
        return NULL;
    }
    atomic_init(&t->refs, 1);
    t->storage = storage;
    t->dtype = dtype;
    t->ndim = ndim;
    t->offset = offset;
    t->numel = 1;
    for (int d = 0; d < ndim; d++) {
        t->shape[d] = shape[d];
        t->strides[d] = strides[d];
        t->numel *= shape[d];
    }
    return t;
}

clb_status clb__tensor_new(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                           clb_tensor **out)
{
    clb_status st = CLB_OK;
    clb__storage *storage = NULL;
    int64_t numel = 0;
    size_t bytes = 0;
    *out = NULL;
    CLB_TRY(clb__shape_check(ndim, shape, "shape", &numel));
    CLB_TRY(clb__byte_size(numel, clb_dtype_size(dtype), &bytes));
    CLB_TRY(clb__storage_alloc(ctx, bytes, &storage));
    int64_t strides[CLB_MAX_DIMS];
    clb__contiguous_strides(ndim, shape, strides);
    *out = tensor_record(storage, dtype, ndim, shape, strides, 0);
    if (!*out) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a tensor record");
    return CLB_OK;
cleanup:
    clb__storage_release(storage);
    return st;
}

static clb_status tensor_over(clb_context *ctx, void *handle, bool borrowed,
                              const clb__wrap_memory *mem, size_t capacity, clb_dtype dtype,
                              int ndim, const int64_t *shape, const int64_t *strides,
                              int64_t offset, clb_tensor **out)
{
    *out = NULL;
    clb__storage *s = calloc(1, sizeof *s);
    CLB__FAULT_FREE(s, CLB__FAULT_HOST_ALLOC);
    if (!s) {
        if (!borrowed) free_wrapped(ctx, handle);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a storage record");
    }
    atomic_init(&s->refs, 1);
    s->ctx = ctx;
    s->handle = handle;
    s->capacity = capacity;
    s->wrapped = true;
    s->borrowed = borrowed;
    s->read_only = mem->read_only;
    s->base = mem->base ? mem->base : handle;
    s->base_offset = mem->base ? mem->base_offset : 0;
    clb__context_retain(ctx);
    *out = tensor_record(s, dtype, ndim, shape, strides, offset);
    if (!*out) {
        clb__storage_release(s); /* gives the handle back */
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a tensor record");
    }
    return CLB_OK;
}

clb_status clb__tensor_wrap(clb_context *ctx, void *handle, const clb__wrap_memory *mem,
                            size_t capacity, clb_dtype dtype, int ndim, const int64_t *shape,
                            const int64_t *strides, int64_t offset, clb_tensor **out)
{
    return tensor_over(ctx, handle, false, mem, capacity, dtype, ndim, shape, strides, offset,
                       out);
}

clb_status clb__tensor_borrow(clb_context *ctx, void *ptr, size_t capacity, clb_dtype dtype,
                              int ndim, const int64_t *shape, const int64_t *strides,
                              int64_t offset, clb_tensor **out)
{
    /* Two borrows of one pointer are one memory (a partial overlap of two borrowed
       regions is not seen: the application keeps those apart). */
    const clb__wrap_memory mem = {0};
    return tensor_over(ctx, ptr, true, &mem, capacity, dtype, ndim, shape, strides, offset, out);
}

clb_status clb__tensor_view(const clb_tensor *t, int ndim, const int64_t *shape,
                            const int64_t *strides, int64_t offset, clb_tensor **out)
{
    *out = tensor_record(t->storage, t->dtype, ndim, shape, strides, offset);
    if (!*out) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a tensor record");
    clb__storage_retain(t->storage);
    return CLB_OK;
}

void clb__tensor_extent(const clb_tensor *t, int64_t *lo, int64_t *hi)
{
    *lo = *hi = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d];
        if (span < 0)
            *lo += span;
        else
            *hi += span;
    }
}

void clb_tensor_retain(clb_tensor *t)
{
    if (!t) return;
    if (clb__check_tensor(t, "clb_tensor_retain: t") != CLB_OK) return; /* the message stays */
    atomic_fetch_add(&t->refs, 1);
}

/* Drops one reference (under the live set's lock); true for the last. */
static bool drop_ref(const void *p)
{
    return atomic_fetch_sub(&((clb_tensor *)p)->refs, 1) == 1;
}

void clb_tensor_release(clb_tensor *t)
{
    if (!t) return;
    /* the record is read only once the set says it is alive */
    clb__drop drop = clb__live_drop(CLB__LIVE_TENSOR, t, drop_ref);
    if (drop == CLB__DROP_NOT_LIVE) {
        /* void: clb_last_error() is all the caller can be told */
        clb__fail(CLB_ERR_INVALID_ARGUMENT,
                  "clb_tensor_release: t is not a live tensor: released already (a double "
                  "release) or not a clb_tensor; nothing was done");
        return;
    }
    if (drop == CLB__DROP_KEPT) return; /* other references remain */
    t->magic = 0;
    clb__storage_release(t->storage);
    free(t);
}

/* ---- accessors ------------------------------------------------------------ */
/* NULL-tolerant so a caller's error path cannot crash on them; a released
   tensor reads as NULL does, and clb_last_error() says which call got it. */

static bool accessible(const clb_tensor *t, const char *fn)
{
    if (!t) return false;
    if (live(t)) return true;
    clb__fail(CLB_ERR_INVALID_ARGUMENT,
              "%s: t is not a live tensor (released already, or not a clb_tensor)", fn);
    return false;
}

int clb_tensor_ndim(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_ndim") ? t->ndim : 0;
}

const int64_t *clb_tensor_shape(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_shape") ? t->shape : NULL;
}

const int64_t *clb_tensor_strides(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_strides") ? t->strides : NULL;
}

clb_dtype clb_tensor_dtype(const clb_tensor *t)
{
    /* invalid: clb_dtype_size() of it is 0 */
    return accessible(t, "clb_tensor_dtype") ? t->dtype : (clb_dtype)-1;
}

int64_t clb_tensor_numel(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_numel") ? t->numel : 0;
}

int64_t clb_tensor_offset(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_offset") ? t->offset : 0;
}

clb_context *clb_tensor_context(const clb_tensor *t)
{
    return accessible(t, "clb_tensor_context") ? t->storage->ctx : NULL;
}

int clb_tensor_is_contiguous(const clb_tensor *t)
{
    if (!accessible(t, "clb_tensor_is_contiguous")) return 0;
    if (t->numel == 0) return 1;
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] == 1) continue; /* a size-1 axis is never stepped */
        if (t->strides[d] != expected) return 0;
        expected *= t->shape[d];
    }
    return 1;
}

bool clb__same_memory(const clb_tensor *a, const clb_tensor *b)
{
    const clb__storage *s = a->storage, *r = b->storage;
    if (s == r) return true;
    if (s->base != r->base) return false;
    /* One memory object: the records' bytes must meet (the library's blocks that
       are neighbouring sub-buffers of one slab do not). */
    size_t slen = s->capacity ? s->capacity : 1, rlen = r->capacity ? r->capacity : 1;
    return s->base_offset < r->base_offset + rlen && r->base_offset < s->base_offset + slen;
}

int clb_tensor_shares_storage(const clb_tensor *a, const clb_tensor *b)
{
    return accessible(a, "clb_tensor_shares_storage") &&
           accessible(b, "clb_tensor_shares_storage") && clb__same_memory(a, b);
}

/* The bytes [lo, hi) of its memory object (clb__storage.base) that t touches. */
static void byte_range(const clb_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t elo = 0, ehi = 0, size = (int64_t)clb_dtype_size(t->dtype);
    clb__tensor_extent(t, &elo, &ehi);
    *lo = (int64_t)t->storage->base_offset + elo * size;
    *hi = (int64_t)t->storage->base_offset + (ehi + 1) * size;
}

/* Whether a and b are exactly the same elements: same first byte, item size,
   shape and byte strides (size-1 axes are never stepped). */
static bool same_elements(const clb_tensor *a, const clb_tensor *b)
{
    int64_t size = (int64_t)clb_dtype_size(a->dtype);
    if (size != (int64_t)clb_dtype_size(b->dtype) || a->ndim != b->ndim ||
        (int64_t)a->storage->base_offset + a->offset * size !=
            (int64_t)b->storage->base_offset + b->offset * size)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] || (a->shape[d] != 1 && a->strides[d] != b->strides[d]))
            return false;
    return true;
}

bool clb__tensor_overlaps_itself(const clb_tensor *t)
{
    int64_t mag[CLB_MAX_DIMS], len[CLB_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1) continue;
        int64_t m = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
        int i = n++;
        for (; i > 0 && mag[i - 1] > m; i--) mag[i] = mag[i - 1], len[i] = len[i - 1];
        mag[i] = m;
        len[i] = t->shape[d];
    }
    int64_t span = 0; /* the farthest element the smaller strides reach */
    for (int i = 0; i < n; i++) {
        if (mag[i] <= span) return true;
        span += (len[i] - 1) * mag[i];
    }
    return false;
}

clb_status clb__check_same_context(const char *fn, const clb_tensor *a, const clb_tensor *b)
{
    if (a->storage->ctx == b->storage->ctx) return CLB_OK;
    return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                     "%s: the tensors live on different contexts (\"%s\" and \"%s\"); move one "
                     "to the other's context with clb_tensor_to_context",
                     fn, a->storage->ctx->info.name, b->storage->ctx->info.name);
}

/* out must be writable without racing the inputs: no stride-0 axes, and either
   exactly one of the inputs (in place) or disjoint from every input's memory. */
clb_status clb__check_out_writable(const char *fn, const clb_tensor *out, int n, const char *const *names,
                            const clb_tensor *const *in)
{
    if (out->storage->read_only)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: out wraps a CL_MEM_READ_ONLY buffer, which the device may not "
                         "write; wrap a CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY buffer as out",
                         fn);
    if (out->numel == 0) return CLB_OK;
    for (int d = 0; d < out->ndim; d++)
        if (out->strides[d] == 0 && out->shape[d] > 1)
            return clb__fail(CLB_ERR_ALIASING,
                             "%s: out has stride 0 on dimension %d (a broadcast view): several "
                             "results would be written to one element; write to a contiguous "
                             "tensor instead",
                             fn, d);
    if (clb__tensor_overlaps_itself(out))
        return clb__fail(CLB_ERR_ALIASING,
                         "%s: out's elements overlap one another (its strides revisit "
                         "addresses), so several results would be written to one place; write "
                         "to a contiguous tensor instead",
                         fn);
    int64_t olo, ohi;
    byte_range(out, &olo, &ohi);
    for (int k = 0; k < n; k++) {
        const clb_tensor *t = in[k];
        if (!clb__same_memory(t, out) || t->numel == 0) continue;
        /* in place: each element is read, then written, by one work item */
        if (same_elements(t, out)) continue;
        int64_t lo, hi;
        byte_range(t, &lo, &hi);
        if (lo < ohi && olo < hi)
            return clb__fail(CLB_ERR_ALIASING,
                             "%s: out overlaps input %s without being exactly that tensor; "
                             "results would depend on the order of evaluation. Write to a "
                             "separate tensor, or pass the input itself as out",
                             fn, names[k]);
    }
    return CLB_OK;
}
