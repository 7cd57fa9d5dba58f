/* IEEE 754 binary16 <-> float/double, written by hand: C11 has no half type and
 * no library packaged in Debian offers these conversions for C, and the host
 * backend is the reference for device fp16 results, so the rounding must be
 * exact (round to nearest, ties to even) in every corner: subnormals,
 * overflow to infinity, NaN. */
#include "half.h"

#include <string.h>

#define HALF_SIGN 0x8000u
#define HALF_EXP_MASK 0x7c00u
#define HALF_MANT_MASK 0x03ffu
#define HALF_MANT_BITS 10
#define HALF_EXP_BIAS 15
#define HALF_INF 0x7c00u
#define HALF_QUIET_NAN 0x7e00u

#define DOUBLE_MANT_BITS 52
#define DOUBLE_EXP_BIAS 1023

static float float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint64_t double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

float clb__half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & HALF_SIGN) << 16;
    uint32_t exp = (h & HALF_EXP_MASK) >> HALF_MANT_BITS;
    uint32_t mant = h & HALF_MANT_MASK;

    if (exp == 0) {
        /* Zero or subnormal: mant * 2^-24, exact in float (mant < 2^10). */
        float magnitude = (float)mant * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    if (exp == 0x1f) /* infinity or NaN; the payload moves to the top of float's mantissa */
        return float_from_bits(sign | 0x7f800000u | (mant << 13));
    return float_from_bits(sign | ((exp - HALF_EXP_BIAS + 127) << 23) | (mant << 13));
}

/* Shifts a significand right by `shift` bits, rounding to nearest, ties to even. */
static uint64_t shift_round_even(uint64_t sig, unsigned shift)
{
    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q;
}

uint16_t clb__half_from_double(double x)
{
    uint64_t bits = double_bits(x);
    uint16_t sign = (uint16_t)((bits >> 48) & HALF_SIGN);
    int biased = (int)((bits >> DOUBLE_MANT_BITS) & 0x7ff);
    uint64_t mant = bits & ((UINT64_C(1) << DOUBLE_MANT_BITS) - 1);

    if (biased == 0x7ff) {
        if (mant == 0)
            return sign | HALF_INF;
        /* Keep the top payload bits, and force quiet so the result stays a NaN. */
        return (uint16_t)(sign | HALF_QUIET_NAN | (mant >> (DOUBLE_MANT_BITS - HALF_MANT_BITS)));
    }

    int e = biased - DOUBLE_EXP_BIAS; /* x = 1.mant * 2^e for normal doubles */
    if (e > HALF_EXP_BIAS)            /* >= 2^16: beyond the largest half even before rounding */
        return sign | HALF_INF;
    if (e < -25) /* below 2^-25, half the smallest subnormal (2^-24): rounds to zero;
                    double subnormals land here too */
        return sign;

    uint64_t sig = mant | (UINT64_C(1) << DOUBLE_MANT_BITS);
    if (e >= -14) {
        /* Normal half. A carry out of the 10-bit mantissa (q == 2^11) moves into
           the exponent field by the addition, which is the correct result, up to
           and including overflow to infinity. */
        uint64_t q = shift_round_even(sig, DOUBLE_MANT_BITS - HALF_MANT_BITS);
        uint32_t h = ((uint32_t)(e + HALF_EXP_BIAS) << HALF_MANT_BITS) + (uint32_t)q - 0x400u;
        return (uint16_t)(sign | (h >= HALF_INF ? HALF_INF : h));
    }
    /* Subnormal half: the value in units of 2^-24. Rounding up to 2^10 gives the
       smallest normal (0x0400), again exactly right. */
    unsigned shift = (unsigned)(DOUBLE_MANT_BITS - HALF_MANT_BITS + (-14 - e));
    return (uint16_t)(sign | shift_round_even(sig, shift));
}

uint16_t clb__half_from_float(float x)
{
    return clb__half_from_double((double)x);
}
