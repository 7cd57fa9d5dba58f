/* IEEE 754 binary16 ("half", float16) conversions in plain C. */
#ifndef CLB_HALF_H
#define CLB_HALF_H

#include <stdint.h>

/* Exact: every half value (subnormals, infinities, NaN payloads) is a float. */
float clb__half_to_float(uint16_t h);

/* Round to nearest, ties to even, straight from double (one rounding, so no
   double-rounding error). Overflow gives +/-inf, tiny values a signed zero or a
   subnormal, NaN a quiet NaN of the same sign. */
uint16_t clb__half_from_double(double x);

/* Same rounding as clb__half_from_double: float -> double is exact. */
uint16_t clb__half_from_float(float x);

#endif /* CLB_HALF_H */
