/* clb_einsum: not implemented yet (issue 16, step 5). */
#include "internal.h"

clb_status clb_einsum(const char *subscripts, int n, const clb_tensor *const *operands,
                      clb_tensor **out)
{
    (void)subscripts;
    (void)n;
    (void)operands;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_einsum: out is NULL");
    *out = NULL;
    return clb__fail(CLB_ERR_UNSUPPORTED, "clb_einsum: not implemented yet in this build");
}
