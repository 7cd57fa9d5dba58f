/* Dtype facts and NumPy-2 type rules for every operation. Pure. */
#ifndef CLB_DTYPE_H
#define CLB_DTYPE_H

#include "clbroadcast.h"

#include <stdbool.h>

#define CLB__NUM_DTYPES 12

bool clb__dtype_valid(clb_dtype t);
/* Whether a Python int v is in range for the integer dtype t (NumPy 2 raises
   OverflowError otherwise); int64, bool and the floats (which round): true. */
bool clb__int_fits(int64_t v, clb_dtype t);
bool clb__dtype_is_float(clb_dtype t);    /* float16/32/64 */
bool clb__dtype_is_integer(clb_dtype t);  /* signed or unsigned, not bool */
bool clb__dtype_is_unsigned(clb_dtype t); /* uint8..uint64 */
bool clb__dtype_is_signed(clb_dtype t);   /* int8..int64 */
/* NumPy's "same_kind" order for output casting: bool 0 < unsigned 1 < signed 2 < float 3;
   a result may be stored into an out of the same or a higher kind. */
int clb__dtype_kind(clb_dtype t);
bool clb__binary_op_is_comparison(clb_binary_op op); /* EQ..GE: result bool */
bool clb__binary_op_is_logical(clb_binary_op op);    /* LOGICAL_AND..XOR: truthiness, result bool */
bool clb__unary_op_gives_bool(clb_unary_op op);     /* LOGICAL_NOT, ISNAN, ISINF, ISFINITE */

/* Type rules: each returns CLB_OK and fills *compute (the type the inputs are
   converted to before the operation) and *result (the output dtype), or
   CLB_ERR_DTYPE with a message naming the op and dtypes (e.g. NumPy's
   "bitwise_and is not supported for float32 and float32"). */
clb_status clb__binary_types(clb_binary_op op, clb_dtype a, clb_dtype b, clb_dtype *compute,
                             clb_dtype *result);
clb_status clb__unary_types(clb_unary_op op, clb_dtype a, clb_dtype *compute, clb_dtype *result);
/* where(cond, a, b): cond of any dtype (truthiness), result promote(a, b). */
clb_status clb__where_types(clb_dtype cond, clb_dtype a, clb_dtype b, clb_dtype *result);
/* Output dtype of a reduction of dtype `in` (NumPy: sum/prod of bool and signed -> int64,
   unsigned -> uint64, mean of bool/integers -> float64, max/min keep the dtype). */
clb_status clb__reduce_types(clb_reduce_op op, clb_dtype in, clb_dtype *result);
/* matmul: promote(a, b); bool matmul stays bool (or of ands), as NumPy. */
clb_status clb__matmul_types(clb_dtype a, clb_dtype b, clb_dtype *result);

/* The same rules under a context's promotion setting (clb_context_set_promotion):
   CLB_PROMOTE_NUMPY gives the functions above; CLB_PROMOTE_TORCH gives
   torch.result_type (across bool < integer < float the higher category's dtype) and
   float32 where NumPy's integer inputs give float64 (true division, mean, sqrt...). */
clb_dtype clb__promote(clb_promotion rules, clb_dtype a, clb_dtype b);
clb_dtype clb__default_float(clb_promotion rules); /* float64 (NumPy) or float32 (PyTorch) */
const char *clb__promotion_name(clb_promotion rules);
clb_status clb__binary_types_r(clb_promotion rules, clb_binary_op op, clb_dtype a, clb_dtype b,
                               clb_dtype *compute, clb_dtype *result);
clb_status clb__unary_types_r(clb_promotion rules, clb_unary_op op, clb_dtype a,
                              clb_dtype *compute, clb_dtype *result);
clb_status clb__where_types_r(clb_promotion rules, clb_dtype cond, clb_dtype a, clb_dtype b,
                              clb_dtype *result);
clb_status clb__reduce_types_r(clb_promotion rules, clb_reduce_op op, clb_dtype in,
                               clb_dtype *result);
clb_status clb__matmul_types_r(clb_promotion rules, clb_dtype a, clb_dtype b, clb_dtype *result);

#endif /* CLB_DTYPE_H */
