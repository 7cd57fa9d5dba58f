/* Per-context cache of released storage blocks (PyTorch's caching-allocator
 * idea): a loop that creates a new output per call reuses the blocks of the
 * outputs it released instead of paying a device allocation and first-touch
 * page faults every time. */
#ifndef CLB_POOL_H
#define CLB_POOL_H

#include "internal.h"

/* A block of at least nbytes: a cached block of the same size class, or a new one
   from the backend. *capacity receives the block's real size. When the backend is
   out of memory the cache is emptied and the allocation tried once more. */
clb_status clb__pool_alloc(clb_context *ctx, size_t nbytes, void **handle, size_t *capacity);
/* Returns a block to the cache. */
void clb__pool_free(clb_context *ctx, void *handle, size_t capacity);
/* Hands every cached block back to the backend. */
void clb__pool_empty(clb_context *ctx);

#endif /* CLB_POOL_H */
