/* Contexts: backend choice, lifetime, memory accounting. */
#include "backend.h"
#include "device.h"
#include "internal.h"
#include "pool.h"
#include "registry.h"

#include <stdlib.h>
#include <string.h>

/* A context record is in the live set (registry.h) from its allocation until
   it is freed, so the checks below never read a freed one. A context the
   application released stays usable while its tensors hold it: the library's
   own ops reach it through them. */
static bool live(const clb_context *ctx)
{
    return clb__live_has(CLB__LIVE_CONTEXT, ctx) && ctx->magic == CLB__CONTEXT_MAGIC;
}

clb_status clb__check_context(const clb_context *ctx, const char *what)
{
    if (!ctx) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if (!live(ctx))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s is not a live clb_context: it was released (clb_context_release, "
                         "with no tensor left on it) or is not a clb_context",
                         what);
    return CLB_OK;
}

clb_status clb__context_new(clb_context **out)
{
    clb_context *ctx = calloc(1, sizeof *ctx);
    if (ctx && !clb__live_add(CLB__LIVE_CONTEXT, ctx)) {
        free(ctx);
        ctx = NULL;
    }
    *out = ctx;
    if (!ctx) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a context");
    atomic_init(&ctx->refs, 1);
    atomic_init(&ctx->user_released, false);
    atomic_init(&ctx->allocated, 0);
    atomic_init(&ctx->reserved, 0);
    pthread_mutex_init(&ctx->pool_lock, NULL);
    clb__options_read(&ctx->options);
    return CLB_OK;
}

void clb__context_discard(clb_context *ctx)
{
    if (!ctx) return;
    clb__live_remove(CLB__LIVE_CONTEXT, ctx);
    pthread_mutex_destroy(&ctx->pool_lock);
    free(ctx); /* a failed backend init leaves nothing in ctx->impl */
}

void clb__context_retain(clb_context *ctx)
{
    atomic_fetch_add(&ctx->refs, 1);
}

void clb__context_unref(clb_context *ctx)
{
    if (atomic_fetch_sub(&ctx->refs, 1) != 1) return;
    clb__live_remove(CLB__LIVE_CONTEXT, ctx);
    ctx->magic = 0;
    clb__pool_empty(ctx);
    ctx->backend->destroy(ctx);
    pthread_mutex_destroy(&ctx->pool_lock);
    free(ctx);
}

void clb_context_release(clb_context *ctx)
{
    if (!ctx) return;
    /* void: clb_last_error() is all the caller can be told */
    if (!live(ctx)) {
        clb__fail(CLB_ERR_INVALID_ARGUMENT,
                  "clb_context_release: ctx is not a live clb_context: released already (a "
                  "double release) or not a clb_context; nothing was done");
        return;
    }
    /* Only the first release drops the user's reference: live tensors keep the rest. */
    if (atomic_exchange(&ctx->user_released, true)) {
        clb__fail(CLB_ERR_INVALID_ARGUMENT,
                  "clb_context_release: ctx was released already (its tensors keep it alive "
                  "until they go); nothing was done");
        return;
    }
    clb__context_unref(ctx);
}

const char *clb_context_device_name(const clb_context *ctx)
{
    if (!ctx || !live(ctx)) return "";
    return ctx->info.name;
}

clb_status clb_finish(clb_context *ctx)
{
    clb_status st = clb__check_context(ctx, "clb_finish: ctx");
    if (st != CLB_OK) return st;
    return ctx->backend->finish(ctx);
}

size_t clb_memory_allocated(const clb_context *ctx)
{
    if (!ctx || !live(ctx)) return 0;
    return atomic_load(&((clb_context *)ctx)->allocated);
}

clb_status clb_context_get_info(const clb_context *ctx, clb_device_info *out)
{
    clb_status st = clb__check_context(ctx, "clb_context_get_info: ctx");
    if (st != CLB_OK) return st;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_context_get_info: out is NULL");
    *out = ctx->info;
    return CLB_OK;
}

size_t clb_memory_reserved(const clb_context *ctx)
{
    if (!ctx || !live(ctx)) return 0;
    return atomic_load(&((clb_context *)ctx)->reserved);
}

clb_status clb_empty_cache(clb_context *ctx)
{
    clb_status st = clb__check_context(ctx, "clb_empty_cache: ctx");
    if (st != CLB_OK) return st;
    clb__pool_empty(ctx);
    return CLB_OK;
}
