/* Selector text helpers shared by both builds' device selection (see device.h). */
#include "device.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool clb__ci_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
    return *a == *b;
}

char *clb__trimmed_copy(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}
