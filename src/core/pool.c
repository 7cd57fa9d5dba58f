/* The storage block cache: see pool.h. */
#include "pool.h"

#include "backend.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct clb__pool_block {
    struct clb__pool_block *next;
    void *handle;
    size_t capacity;
};

/* The blocks of one size class, a stack. */
typedef struct pool_class {
    struct pool_class *next; /* the next class of the same bucket */
    size_t capacity;
    struct clb__pool_block *blocks;
} pool_class;

/* Classes hashed by capacity: a take or a free walks one bucket's classes, never
   the blocks (issue 26, finding 14: with 100,000 pooled blocks of one size, each
   allocation of another size walked them all, 3-8 s for 10,000). */
#define POOL_BUCKETS 256
struct clb__pool {
    pool_class *buckets[POOL_BUCKETS];
};

static pool_class **bucket_of(struct clb__pool *p, size_t capacity)
{
    uint64_t h = (uint64_t)(capacity >> 9) * 0x9E3779B97F4A7C15ull;
    return &p->buckets[h >> 56];
}

static pool_class *class_of(struct clb__pool *p, size_t capacity)
{
    pool_class *c = *bucket_of(p, capacity);
    while (c && c->capacity != capacity) c = c->next;
    return c;
}

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
    pool_class *c = ctx->pool ? class_of(ctx->pool, capacity) : NULL;
    struct clb__pool_block *b = c ? c->blocks : NULL;
    if (b) c->blocks = b->next;
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

/* Pushes b on its class's stack, making the table and the class as needed;
   false when there is no host memory for them. Called with the lock held. */
static bool put_locked(clb_context *ctx, struct clb__pool_block *b)
{
    if (!ctx->pool && !(ctx->pool = calloc(1, sizeof *ctx->pool))) return false;
    pool_class *c = class_of(ctx->pool, b->capacity);
    if (!c) {
        if (!(c = malloc(sizeof *c))) return false;
        pool_class **bucket = bucket_of(ctx->pool, b->capacity);
        *c = (pool_class){*bucket, b->capacity, NULL};
        *bucket = c;
    }
    b->next = c->blocks;
    c->blocks = b;
    return true;
}

void clb__pool_free(clb_context *ctx, void *handle, size_t capacity)
{
    struct clb__pool_block *b = malloc(sizeof *b);
    bool kept = false;
    if (b) {
        b->handle = handle;
        b->capacity = capacity;
        pthread_mutex_lock(&ctx->pool_lock);
        kept = put_locked(ctx, b);
        pthread_mutex_unlock(&ctx->pool_lock);
    }
    if (!kept) { /* no room to remember it: give it back instead */
        free(b);
        ctx->backend->free(ctx, handle);
        atomic_fetch_sub(&ctx->reserved, capacity);
    }
}

void clb__pool_empty(clb_context *ctx)
{
    pthread_mutex_lock(&ctx->pool_lock);
    struct clb__pool *p = ctx->pool;
    ctx->pool = NULL;
    pthread_mutex_unlock(&ctx->pool_lock);
    if (!p) return;
    for (int i = 0; i < POOL_BUCKETS; i++) {
        for (pool_class *c = p->buckets[i], *cn; c; c = cn) {
            cn = c->next;
            for (struct clb__pool_block *b = c->blocks, *bn; b; b = bn) {
                bn = b->next;
                ctx->backend->free(ctx, b->handle);
                atomic_fetch_sub(&ctx->reserved, b->capacity);
                free(b);
            }
            free(c);
        }
    }
    free(p);
}
