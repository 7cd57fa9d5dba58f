/* The host backend's picking, ordering and running-total slots (host_index.c):
 * take / take_along_axis, cumsum / cumprod, sort and the compaction behind
 * nonzero / masked_select, each over the layouts backend.h describes. */
#ifndef CLB_HOST_INDEX_H
#define CLB_HOST_INDEX_H

#include "backend.h"

clb_status clb__host_gather(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                            bool *bad);
clb_status clb__host_scan(clb_context *ctx, const clb__scan_op *op, void *const *handles);
clb_status clb__host_sort(clb_context *ctx, const clb__sort_op *op, void *const *handles);
clb_status clb__host_topk(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                          bool *done);
clb_status clb__host_compact(clb_context *ctx, const clb__compact_op *op, void *const *handles);

#endif /* CLB_HOST_INDEX_H */
