/* The quirks table (see cl_quirks.h). Pure C: no OpenCL call, so the table's
 * lookups are tested without a device (tests/test_quirks.c). */
#include "cl_quirks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured on Debian 12's Mesa 22.3.6 (rusticl on llvmpipe, LLVM 15). Later
   Mesa series are not assumed affected: the reproducer decides when a machine
   with one comes along. */
static const clb__quirk table[] = {
    {CLB__QUIRK_NAN_SAT_SELECT, "nan-sat-select", "rusticl", {22, 0}, {22, 99},
     "CLB_QUIRK_NAN_SAT_SELECT", "nan_sat_select.c",
     "llvmpipe's compiler crashes (SIGSEGV in LLVM instruction selection) on "
     "`isnan(x) ? (char)0 : convert_char_sat(x)` for float x; the kernels select before "
     "converting instead: convert_char_sat(isnan(x) ? 0.0f : x)"},
    {CLB__QUIRK_LOOP_LIMIT, "loop-limit", "rusticl", {22, 0}, {22, 99}, NULL, "loop_limit.c",
     "llvmpipe ends the loops of a work item after 65535 iterations in all, silently (a sum "
     "over 2^20 elements in one work item gives 65535; nested and consecutive loops share "
     "the count, libclc's fmod loop included); launches there use many short work items (no "
     "CPU blocks) whose blocks fit half that budget with their ops' own loops "
     "(clb__cl_op_trips), reductions split their range so that no lane folds more, and the "
     "library's own matmul kernel runs a longer inner dimension in pieces that add up"},
    {CLB__QUIRK_LITERAL_FOLDING, "literal-folding", "rusticl", {22, 0}, {22, 99},
     "CLB_QUIRK_LITERAL_FOLDING", "literal_folding.c",
     "llvmpipe's compiler folds float operations on literal constants as if there were no "
     "infinities and no signed zeros: x / 0.0f gives 0 (not +-inf) and 0.0f * x gives +0 "
     "for negative x; clb_eval's constants reach its kernels through an opaque zero "
     "argument (as_float(bits ^ zero)), so nothing is folded"},
    {CLB__QUIRK_SEXT_COMPARE, "sext-compare", "rusticl", {22, 0}, {22, 99}, NULL,
     "sext_compare.c",
     "llvmpipe's compiler gets signed comparisons with a constant wrong for a 64-bit value "
     "sign-extended from 32 bits (x = (long)int: x < 0 is false for -7), so Python's floor "
     "division and remainder with int64 results from mixed types (int32 with int64) "
     "truncated; the kernels (cl/scalar_ops.cl) test signs as (a ^ b) < 0 and "
     "(~b >> 63) & 1, right on every device"},
    {CLB__QUIRK_PARTIAL_VECTOR_LOOPS, "partial-vector-loops", "rusticl", {22, 0}, {22, 99}, NULL,
     "partial_vector_loops.c",
     "llvmpipe runs a work-group's items as lanes of 8-wide vectors; in a vector the group "
     "fills only in part (groups of 1 to 7 items, the last vector of a group of 12), once a "
     "loop's exit has depended on a value read from memory, every later loop of the item "
     "stops after one iteration, silently; clb_eval_reduce's CPU walks (var, std and "
     "logsumexp's too: their extents come from a __constant table), forced there, run in "
     "groups of whole vectors (CLB__QUIRK_VECTOR_GROUP items)"},
    /* Measured on Debian 12's PoCL 3.1. */
    {CLB__QUIRK_TANH_INF, "tanh-inf", "Portable Computing Language", {3, 0}, {3, 99}, NULL,
     "tanh_inf.c",
     "PoCL's float tanh gives +-0.99999994 for +-inf and for |x| past about 9 (IEEE and the "
     "array API standard want +-1); the kernels return copysign(1, x) for |x| > 20, where "
     "tanh rounds to +-1 in float and double"},
    {CLB__QUIRK_CONCURRENT_MAP, "concurrent-map", "Portable Computing Language", {3, 0}, {3, 99},
     NULL, "concurrent_map.c",
     "threads mapping parts of one CL_MEM_USE_HOST_PTR buffer at once now and then get a "
     "pointer outside the buffer and crash in memcpy; the library maps no such buffer: "
     "transfers copy through its known host pointer once the queue has drained (cl_buffer.c)"},
    {CLB__QUIRK_SVM_LOOKUP, "svm-lookup", "Portable Computing Language", {3, 0}, {3, 99}, NULL,
     "svm_lookup.c",
     "a context's SVM blocks are a linked list that every clCreateBuffer(CL_MEM_USE_HOST_PTR) "
     "of an SVM pointer and every clSVMFree walks (with 20,000 alive one buffer takes "
     "milliseconds; fixed in PoCL 7.1); storage up to 64 KiB is a sub-buffer of a shared "
     "SVM slab, one list entry per slab (cl_slab.c)"},
};

const clb__quirk *clb__quirks(size_t *count)
{
    *count = sizeof table / sizeof table[0];
    return table;
}

bool clb__quirk_parse_version(const char *driver, int *major, int *minor)
{
    const char *p = driver;
    while (*p && !isdigit((unsigned char)*p)) p++; /* "Mesa 22.3.6", "OpenCL 3.0 ..." */
    if (!*p) return false;
    char *end = NULL;
    long ma = strtol(p, &end, 10), mi = 0;
    if (*end == '.' && isdigit((unsigned char)end[1])) mi = strtol(end + 1, NULL, 10);
    *major = (int)ma;
    *minor = (int)mi;
    return true;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return true;
    }
    return n == 0;
}

bool clb__quirk_applies(const clb__quirk *q, const char *platform, const char *driver)
{
    int major = 0, minor = 0;
    if (!contains_nocase(platform, q->platform)) return false;
    if (!clb__quirk_parse_version(driver, &major, &minor)) return false;
    long v = major * 1000L + minor;
    return v >= q->first[0] * 1000L + q->first[1] && v <= q->last[0] * 1000L + q->last[1];
}

unsigned clb__quirk_mask(const char *platform, const char *driver)
{
    unsigned mask = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (clb__quirk_applies(&table[i], platform, driver)) mask |= table[i].bit;
    return mask;
}

void clb__quirks_for(const char *platform, const char *driver, char *names, size_t names_cap,
                     char *options, size_t options_cap)
{
    size_t nl = 0, ol = 0;
    if (names && names_cap) names[0] = '\0';
    if (options && options_cap) options[0] = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!clb__quirk_applies(&table[i], platform, driver)) continue;
        if (names && nl < names_cap) {
            int k = snprintf(names + nl, names_cap - nl, "%s%s", nl ? "," : "", table[i].name);
            if (k > 0) nl += (size_t)k;
        }
        if (options && ol < options_cap && table[i].define) {
            int k = snprintf(options + ol, options_cap - ol, " -D%s=1", table[i].define);
            if (k > 0) ol += (size_t)k;
        }
    }
}
