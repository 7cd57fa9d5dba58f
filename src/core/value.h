/* One element's value in a union whose member depends on its dtype's kind (the
 * CPU engine's rules, cpu/host_scalar.h, say which): bool and int8..int64 in i,
 * uint8..uint64 in u, float16 and float32 in f, float64 in d. */
#ifndef CLB_VALUE_H
#define CLB_VALUE_H

#include <stdint.h>

typedef union clb__value {
    int64_t i;
    uint64_t u;
    float f;
    double d;
} clb__value;

#endif /* CLB_VALUE_H */
