/* The storage block cache: see pool.h. */
#include "pool.h"

#include "backend.h"

#include <stdlib.h>

struct clb__pool_block {
    struct clb__pool_block *next;
    void *handle;
    size_t capacity;
};

/* Size classes: multiples of 512 bytes below 1 MiB; above, 8 steps per power of
   two, so a block is at most 12.5% larger than asked and similar sizes share one
   class (a reused block then serves any request of its class). */
static size_t size_class(size_t nbytes)
{
    const size_t small = 512, mib = (size_t)1 << 20;
    if (nbytes < mib) return (nbytes + small - 1) / small * small;
    size_t power = mib;
    while (power <= nbytes / 2) power *= 2; /* largest power of two <= nbytes */
    size_t step = power / 8;
    size_t rounded = (nbytes + step - 1) / step * step;
    return rounded >= nbytes ? rounded : nbytes; /* no wrap near SIZE_MAX */
}

/* Takes a cached block of exactly `capacity` bytes, or NULL. */
static struct clb__pool_block *take(clb_context *ctx, size_t capacity)
{
    pthread_mutex_lock(&ctx->pool_lock);
    struct clb__pool_block **link = &ctx->pool;
    while (*link && (*link)->capacity != capacity) link = &(*link)->next;
    struct clb__pool_block *b = *link;
    if (b) *link = b->next;
    pthread_mutex_unlock(&ctx->pool_lock);
    return b;
}

clb_status clb__pool_alloc(clb_context *ctx, size_t nbytes, void **handle, size_t *capacity)
{
    size_t want = size_class(nbytes);
    /* A rounded-up block must still respect the device's largest allocation. */
    if (ctx->info.max_alloc_bytes && want > ctx->info.max_alloc_bytes && nbytes <= ctx->info.max_alloc_bytes)
        want = nbytes;
    struct clb__pool_block *b = take(ctx, want);
    if (b) {
        *handle = b->handle;
        *capacity = b->capacity;
        free(b);
        return CLB_OK;
    }
    clb_status st = ctx->backend->alloc(ctx, want, handle);
    if (st == CLB_ERR_OUT_OF_MEMORY) {
        clb__pool_empty(ctx);
        st = ctx->backend->alloc(ctx, want, handle);
    }
    if (st != CLB_OK) return st;
    *capacity = want;
    atomic_fetch_add(&ctx->reserved, want);
    return CLB_OK;
}

void clb__pool_free(clb_context *ctx, void *handle, size_t capacity)
{
    struct clb__pool_block *b = malloc(sizeof *b);
    if (!b) { /* no room to remember it: give it back instead */
        ctx->backend->free(ctx, handle);
        atomic_fetch_sub(&ctx->reserved, capacity);
        return;
    }
    b->handle = handle;
    b->capacity = capacity;
    pthread_mutex_lock(&ctx->pool_lock);
    b->next = ctx->pool;
    ctx->pool = b;
    pthread_mutex_unlock(&ctx->pool_lock);
}

void clb__pool_empty(clb_context *ctx)
{
    pthread_mutex_lock(&ctx->pool_lock);
    struct clb__pool_block *list = ctx->pool;
    ctx->pool = NULL;
    pthread_mutex_unlock(&ctx->pool_lock);
    while (list) {
        struct clb__pool_block *next = list->next;
        ctx->backend->free(ctx, list->handle);
        atomic_fetch_sub(&ctx->reserved, list->capacity);
        free(list);
        list = next;
    }
}
