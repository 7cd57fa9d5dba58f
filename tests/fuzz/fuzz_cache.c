/* Fuzz target: the program-cache file parser fed arbitrary bytes, against the
 * key the library would look for and against a key taken from the input.
 * Whatever it accepts must be a non-empty binary lying exactly at the end of
 * the file, behind a header that names the same key. */
#include "cl_program_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Same shape as the keys cl_program_cache.c writes; the seed corpus holds files made for it. */
static const char fixed_key[] = "clbroadcast 0.1.0\nplatform P\ndevice D\nvendor V\ndriver 1\n"
                                "kernel copy.cl\noptions -DCLB_NDIM=2\nsources 0123456789abcdef\n";

static void parse(const uint8_t *data, size_t size, const char *key)
{
    const unsigned char *bin = NULL;
    size_t len = 0;
    if (!clb__program_cache_parse(data, size, key, &bin, &len)) return;
    size_t klen = strlen(key);
    if (!(len > 0 && bin >= data && bin + len == data + size && size >= 8 + 8 + klen + 16 + len &&
          memcmp(data + 16, key, klen) == 0)) {
        fprintf(stderr, "fuzz_cache: parser accepted a malformed file\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse(data, size, fixed_key);
    /* The key as the file states it, so the later checks are reached too. */
    if (size >= 16) {
        uint64_t klen;
        memcpy(&klen, data + 8, 8);
        if (klen < 4096 && klen <= size - 16) {
            char *key = malloc(klen + 1);
            if (!key) return 0;
            memcpy(key, data + 16, klen);
            key[klen] = '\0';
            parse(data, size, key);
            free(key);
        }
    }
    return 0;
}
