/* Known defects of OpenCL implementations and how the library works around
 * them, keyed by platform and driver version (as CLBlast and ArrayFire keep
 * theirs). Every entry has a standalone reproducer under tests/quirks/, and
 * tests/quirks/check_quirks.py runs each one on every device of the machine and
 * fails when the table and the reproducer disagree. */
#ifndef CLB_CL_QUIRKS_H
#define CLB_CL_QUIRKS_H

#include <stdbool.h>
#include <stddef.h>

/* The entries, as bits of a device's quirk mask. */
enum {
    CLB__QUIRK_NAN_SAT_SELECT = 1u << 0,
    CLB__QUIRK_LOOP_LIMIT = 1u << 1,
    CLB__QUIRK_LITERAL_FOLDING = 1u << 2,
    CLB__QUIRK_SEXT_COMPARE = 1u << 3,
    CLB__QUIRK_TANH_INF = 1u << 4,
    CLB__QUIRK_CONCURRENT_MAP = 1u << 5,
    CLB__QUIRK_SVM_LOOKUP = 1u << 6,
    CLB__QUIRK_PARTIAL_VECTOR_LOOPS = 1u << 7,
};

/* Under CLB__QUIRK_LOOP_LIMIT the loops of a work item, all of them together,
   end silently after this many iterations: the drivers size every launch so
   that no work item runs more (clb__cl_context.max_trips). */
#define CLB__QUIRK_LOOP_TRIPS 65535

/* Under CLB__QUIRK_PARTIAL_VECTOR_LOOPS a work-group must fill whole SIMD
   vectors: its size a multiple of this (llvmpipe's 8 lanes of 32 bits on AVX, 4
   on SSE; rusticl reports 32 as the preferred work-group size multiple). */
#define CLB__QUIRK_VECTOR_GROUP 32

typedef struct clb__quirk {
    unsigned bit;           /* CLB__QUIRK_* */
    const char *name;       /* short name, shown by `clb devices` */
    const char *platform;   /* case-insensitive substring of CL_PLATFORM_NAME */
    int first[2], last[2];  /* driver versions (major, minor) affected, inclusive */
    const char *define;     /* build option that switches the kernels' workaround on, or NULL
                               when the host side alone works around it */
    const char *reproducer; /* tests/quirks/<file> */
    const char *defect;     /* what goes wrong */
} clb__quirk;

/* The table, and its length. */
const clb__quirk *clb__quirks(size_t *count);

/* Parses the leading "major.minor" of a driver version ("22.3.6" -> 22, 3;
   "3.1+debian" -> 3, 1); false when it starts with no number. */
bool clb__quirk_parse_version(const char *driver, int *major, int *minor);

/* Whether entry q applies to a device of this platform and driver version. */
bool clb__quirk_applies(const clb__quirk *q, const char *platform, const char *driver);

/* The bits of the entries that apply. */
unsigned clb__quirk_mask(const char *platform, const char *driver);

/* Writes the names of the entries that apply, comma-separated ("" for none),
   and the build options they add (" -DCLB_QUIRK_...=1 ..."). Either buffer
   may be NULL. */
void clb__quirks_for(const char *platform, const char *driver, char *names, size_t names_cap,
                     char *options, size_t options_cap);

#endif /* CLB_CL_QUIRKS_H */
