/* Selector text helpers shared by both builds' device selection (see device.h). */
#include "device.h"

#include "internal.h"

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

clb_status clb__selector_text(const char *selector, char **sel, const char **origin)
{
    *sel = NULL;
    *origin = "";
    if (!selector) {
        const char *env = getenv("CLB_DEVICE");
        if (!env || !env[0]) return CLB_OK;
        selector = env;
        *origin = " (from $CLB_DEVICE)";
    }
    if (!(*sel = clb__trimmed_copy(selector)))
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory parsing a device selector");
    return CLB_OK;
}
