/* Reading structured values out of a fuzzer's byte string: each read takes
 * what it needs from the front and yields zeros once the bytes run out, so
 * every input, however short, is a valid program for the targets. */
#ifndef CLB_FUZZ_INPUT_H
#define CLB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *p;
    size_t left;
} fuzz_input;

static inline uint64_t fuzz_bytes(fuzz_input *in, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = (v << 8) | (in->left ? *in->p : 0);
        if (in->left) in->p++, in->left--;
    }
    return v;
}

static inline unsigned fuzz_u8(fuzz_input *in)
{
    return (unsigned)fuzz_bytes(in, 1);
}

/* A size for shapes: mostly small, sometimes an edge (0, -1, huge, INT64_MAX). */
static inline int64_t fuzz_size(fuzz_input *in)
{
    unsigned tag = fuzz_u8(in);
    switch (tag >> 5) {
    case 0: return (int64_t)(tag & 3);         /* 0..3 */
    case 1: return 1;
    case 2: return (int64_t)(tag & 31);        /* up to 31 */
    case 3: return -(int64_t)(tag & 3);        /* negative, -1 means "keep" in expand */
    case 4: return (int64_t)fuzz_bytes(in, 8); /* anything */
    case 5: return INT64_MAX - (int64_t)(tag & 7);
    default: return (int64_t)((uint64_t)1 << (tag & 63)); /* 2^63 wraps to INT64_MIN */
    }
}

#endif /* CLB_FUZZ_INPUT_H */
