/* Scalar semantics of every operation, written once: what one element of a
 * cast, a binary/unary op or a where gives. The host backend loops over these;
 * the OpenCL kernels mirror them, and device tests compare against them.
 *
 * Values travel in a union whose member depends on the dtype (its "kind"):
 *   bool, int8..int64     -> i  (int64_t; bool is 0 or 1)
 *   uint8..uint64         -> u  (uint64_t)
 *   float16, float32      -> f  (float; a float16 value is exactly representable)
 *   float64               -> d  (double)
 * A value "of dtype t" is always in range for t: integers already wrapped to
 * t's width, float16 values already rounded to half precision. */
#ifndef CLB_HOST_SCALAR_H
#define CLB_HOST_SCALAR_H

#include "clbroadcast.h"
#include "value.h"

#include <stdint.h>


/* Reads one element of dtype t from memory (bool: any non-zero byte is true). */
typedef clb__value (*clb__load_fn)(const void *src);
/* Writes a value of dtype t to memory. */
typedef void (*clb__store_fn)(void *dst, clb__value v);
clb__load_fn clb__loader(clb_dtype t);
clb__store_fn clb__storer(clb_dtype t);

/* clb_cast semantics, from a value of dtype `from` to dtype `to`:
 *   integer -> integer  wraps modulo 2^width (NumPy's C casts)
 *   float -> integer    truncates toward zero and SATURATES at the target's
 *                       range, NaN -> 0 (OpenCL convert_<type>_sat). A deliberate
 *                       choice: NumPy leaves out-of-range float->int undefined
 *                       (platform-dependent), saturation is what devices do.
 *   anything -> bool    x != 0 (NaN -> true)
 *   bool -> anything    0 or 1
 *   -> float16/32/64    round to nearest, ties to even, in one rounding
 *                       (float64 and int64 go straight to float16). */
clb__value clb__convert(clb__value v, clb_dtype from, clb_dtype to);

/* The dtype clb__binary_eval / clb__unary_eval return: bool for comparisons
   (whatever the compute dtype), the compute dtype otherwise. */
clb_dtype clb__binary_eval_dtype(clb_binary_op op, clb_dtype compute);
clb_dtype clb__unary_eval_dtype(clb_unary_op op, clb_dtype compute);

/* One element of a binary op with both operands already of dtype `compute`
 * (as chosen by clb__binary_types):
 *   integers     add/sub/mul/pow wrap modulo 2^width. floor_divide and remainder
 *                follow Python's sign rule (floor division; the remainder takes
 *                the divisor's sign); x // 0 = x % 0 = 0; INT_MIN // -1 = INT_MIN
 *                and INT_MIN % -1 = 0. pow with a negative exponent (NumPy raises
 *                instead) gives 1 for base 1, +/-1 for base -1 by the exponent's
 *                parity, 0 otherwise; x ** 0 = 1.
 *   bool         add = or, multiply = and, maximum = or, minimum = and.
 *   floats       IEEE in the compute type (float for float16/float32, double for
 *                float64; float16 results are rounded to half). floor_divide and
 *                remainder follow NumPy's npy_divmod: x % 0 = nan, x // 0 = x / 0,
 *                remainder takes the divisor's sign (a zero remainder too),
 *                the quotient is snapped to the nearest integer.
 *                maximum/minimum propagate NaN and return b when a == b (so
 *                maximum(-0.0, 0.0) = 0.0, as NumPy). Bitwise ops on a float compute
 *                dtype (never chosen by clb__binary_types) give NaN.
 *   comparisons  in the compute type; return bool.
 *   logical ops  compute is bool (truthiness); bitwise ops on the integer bits. */
clb__value clb__binary_eval(clb_binary_op op, clb_dtype compute, clb__value a, clb__value b);

/* One element of a unary op with the operand already of dtype `compute` (as
 * chosen by clb__unary_types):
 *   negative, absolute  wrap for integers (abs(INT_MIN) = INT_MIN); bool abs = identity
 *   sqrt, rsqrt (1/sqrt), exp, log, sin, cos, tanh, sigmoid (1/(1+exp(-x)),
 *                       evaluated as exp(x)/(1+exp(x)) for x < 0 so it never
 *                       overflows): in float for float16/float32, in double for
 *                       float64. Given an integer compute dtype (never chosen by
 *                       clb__unary_types) they evaluate in double and cast back.
 *   relu                x > 0 ? x : 0 (relu(-0.0) = +0.0), NaN propagates
 *   floor, ceil         identity for integers and bool
 *   logical_not         compute is bool */
clb__value clb__unary_eval(clb_unary_op op, clb_dtype compute, clb__value a);

#endif /* CLB_HOST_SCALAR_H */
