/* The public header on its own: meson compiles this file with -std=c99
 * -pedantic-errors, so the header must be plain C99 with no GNU extensions,
 * no C11-only constructs and no dependency on other project headers. A few
 * symbols are referenced so that the program links against the library. */
#include "clbroadcast.h"

#include <stdio.h>
#include <string.h>

/* Compile-time checks of the contract's constants (C99: no _Static_assert). */
typedef char clb_check_max_dims[(CLB_MAX_DIMS == 64) ? 1 : -1];
typedef char clb_check_ok[(CLB_OK == 0) ? 1 : -1];
typedef char clb_check_aliasing[(CLB_ERR_ALIASING == 9) ? 1 : -1];
typedef char clb_check_float64[(CLB_FLOAT64 == 11) ? 1 : -1];
typedef char clb_check_xor[(CLB_BITWISE_XOR == 20) ? 1 : -1];
typedef char clb_check_not[(CLB_LOGICAL_NOT == 13) ? 1 : -1];
typedef char clb_check_prod[(CLB_PROD == 4) ? 1 : -1];
/* the everyday API's values (the contract's "element-wise function set") */
typedef char clb_check_tan[(CLB_TAN == 14 && CLB_BITWISE_INVERT == 35) ? 1 : -1];
typedef char clb_check_atan2[(CLB_ATAN2 == 21 && CLB_RIGHT_SHIFT == 26) ? 1 : -1];
typedef char clb_check_any[(CLB_ALL == 5 && CLB_ANY == 6) ? 1 : -1];
static clb_status (*const p_full)(clb_context *, clb_dtype, int, const int64_t *, clb_scalar,
                                  clb_tensor **) = clb_full;
static clb_status (*const p_random_uniform)(clb_context *, clb_dtype, int, const int64_t *,
                                            uint64_t, uint64_t, double, double,
                                            clb_tensor **) = clb_random_uniform;
static clb_status (*const p_format)(const clb_tensor *, char *, size_t, size_t *) = clb_tensor_format;

/* Function pointers of the exact contract signatures: a changed signature fails to compile. */
static clb_status (*const p_from_host)(clb_context *, clb_dtype, int, const int64_t *, const void *,
                                       clb_tensor **) = clb_tensor_from_host;
static clb_status (*const p_broadcast_shapes)(int, const int *, const int64_t *const *, int *,
                                              int64_t *) = clb_broadcast_shapes;
static clb_status (*const p_binary_into)(clb_binary_op, const clb_tensor *, const clb_tensor *,
                                         clb_tensor *) = clb_binary_into;
static clb_status (*const p_reduce)(clb_reduce_op, const clb_tensor *, int, const int *, int,
                                    clb_tensor **) = clb_reduce;
static size_t (*const p_memory)(const clb_context *) = clb_memory_allocated;

int main(void)
{
    clb_context *ctx = NULL;
    clb_tensor *t = NULL;
    int64_t shape[2];
    float data[6];
    float back[6];
    int i;
    int failures = 0;
    shape[0] = 2;
    shape[1] = 3;
    for (i = 0; i < 6; i++) data[i] = (float)i;

    if (strcmp(clb_status_name(CLB_ERR_SHAPE_MISMATCH), "CLB_ERR_SHAPE_MISMATCH") != 0) failures++;
    if (clb_dtype_size(CLB_FLOAT32) != 4) failures++;
    if (clb_last_error() == NULL) failures++;
    if (clb_context_create("host", &ctx) != CLB_OK) return 1;
    if (p_from_host(ctx, CLB_FLOAT32, 2, shape, data, &t) != CLB_OK) failures++;
    if (p_memory(ctx) != sizeof data) failures++;
    if (clb_tensor_to_host(t, back, sizeof back) != CLB_OK || memcmp(back, data, sizeof data) != 0)
        failures++;
    clb_tensor_release(t);
    clb_context_release(ctx);
    (void)p_broadcast_shapes;
    (void)p_binary_into;
    (void)p_reduce;
    (void)p_full;
    (void)p_random_uniform;
    (void)p_format;
    if (failures) fprintf(stderr, "%d header check(s) failed\n", failures);
    return failures != 0;
}
