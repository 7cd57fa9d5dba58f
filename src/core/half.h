/* IEEE 754 binary16 ("half", float16) conversions in plain C. */
#ifndef CLB_HALF_H
#define CLB_HALF_H

#include <stdint.h>
#include <string.h>

/* Exact: every half value (subnormals, infinities, NaN payloads) is a float. */
float clb__half_to_float(uint16_t h);

/* Round to nearest, ties to even, straight from double (one rounding, so no
   double-rounding error). Overflow gives +/-inf, tiny values a signed zero or a
   subnormal, NaN a quiet NaN of the same sign. */
uint16_t clb__half_from_double(double x);

/* Same rounding as clb__half_from_double: float -> double is exact. */
uint16_t clb__half_from_float(float x);

/* The same two conversions written branch-free for loops a compiler vectorises
   (the host's float16 element-wise loops, draws and sums): the exact float of
   half bits, and round to nearest even (below 2^-14 through a float addition
   of 0.5, from 2^16 infinity, NaN quiet with its sign and top payload bits),
   bit for bit clb__half_to_float / clb__half_from_float (cl/common.cl's
   clb_half_value / clb_half_bits are the kernels' form). */
static inline float clb__h2f(uint16_t h)
{
    const uint32_t e = h & 0x7c00u, mag = (uint32_t)(h & 0x7fffu) << 13;
    const float sub = (float)(h & 0x3ffu) * 0x1p-24f;
    uint32_t sub_bits, r;
    memcpy(&sub_bits, &sub, sizeof sub_bits);
    r = e == 0x7c00u ? mag | 0x7f800000u : e == 0 ? sub_bits : mag + 0x38000000u;
    r |= (uint32_t)(h & 0x8000u) << 16;
    float f;
    memcpy(&f, &r, sizeof f);
    return f;
}

static inline uint16_t clb__f2h(float x)
{
    uint32_t f, a, t;
    memcpy(&f, &x, sizeof f);
    a = f & 0x7fffffffu;
    float fa;
    memcpy(&fa, &a, sizeof fa);
    const float shifted = fa + 0.5f;
    memcpy(&t, &shifted, sizeof t);
    const uint32_t nrm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13, sub = t - 0x3f000000u;
    const uint32_t big = a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u;
    return (uint16_t)(((f >> 16) & 0x8000u) |
                      (a >= 0x47800000u ? big : a < 0x38800000u ? sub : nrm));
}

#endif /* CLB_HALF_H */
