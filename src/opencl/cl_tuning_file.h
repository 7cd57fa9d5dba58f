/* Matmul tuning files (issue 4): a small search over CLBlast's GEMM parameters for a
 * device CLBlast has none for, the result cached on disk per device, driver,
 * CLBlast and library version, and the dispatcher's choice between tuned
 * CLBlast and our own kernel (cl_matmul.c).
 *
 * The cache file is text, next to the program cache (files.h resolves
 * the directory): matmul-tuning-<hash of the identity>.txt with
 *     clbroadcast matmul tuning 1        the identity lines: compared in full on load,
 *     library 0.1.0                      so a file of another device, driver, CLBlast
 *     clblast libclblast.so.1.5.3        or dtype is ignored
 *     platform ... / device ... / vendor ... / driver ... / dtype float32
 *     shape B M N K                      the GEMM that was timed: (B,M,K) @ (K,N)
 *     gflops D T K                       CLBlast default (-1: not measured), tuned, our kernel
 *     choice kernel|clblast              which the dispatcher uses where our kernel fits
 *     GemmRoutine NAME=V ...             zero or more override lines, every parameter of
 *     Xgemm NAME=V ...                   the family in CLBlast's order
 *     XgemmDirect NAME=V ...
 *     end
 * Anything malformed, truncated, out of range or violating CLBlast's constraints
 * makes the whole file a miss: the defaults serve, as without a file.
 *
 * Pure C: the format is tested without compiling a kernel. The OpenCL side is
 * cl_matmul_tune.h, the search op_matmul_tune.c. */
#ifndef CLB_MATMUL_TUNING_H
#define CLB_MATMUL_TUNING_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>

/* CLBlast kernel families we override, and their parameters in CLBlast's order. */
enum { CLB__MM_ROUTINE = 0, CLB__MM_XGEMM, CLB__MM_DIRECT, CLB__MM_FAMILIES };
#define CLB__MM_MAX_PARAMS 16
extern const char *const clb__mm_family_names[CLB__MM_FAMILIES];
extern const int clb__mm_family_counts[CLB__MM_FAMILIES];
extern const char *const *const clb__mm_param_names[CLB__MM_FAMILIES];

/* Which implementation serves float GEMMs our own kernel covers. */
typedef enum clb__mm_choice {
    CLB__MM_CHOICE_NONE = 0, /* no tuning: the built-in rule (own kernel on CPU devices) */
    CLB__MM_CHOICE_KERNEL,
    CLB__MM_CHOICE_CLBLAST
} clb__mm_choice;

/* One set of CLBlast overrides: families with set[f] get values v[f][...]. */
typedef struct clb__mm_params {
    bool set[CLB__MM_FAMILIES];
    size_t v[CLB__MM_FAMILIES][CLB__MM_MAX_PARAMS];
} clb__mm_params;

typedef struct clb__mm_tuning {
    int64_t batch, m, n, k;
    double default_gflops, tuned_gflops, kernel_gflops;
    clb__mm_choice choice;
    clb__mm_params params; /* nothing set: CLBlast's defaults won */
} clb__mm_tuning;

/* Whether the values of the set families satisfy CLBlast's constraints. */
bool clb__mm_params_valid(const clb__mm_params *p);
/* "Xgemm MWG=64 ... | XgemmDirect ..." for messages and the CLI. */
void clb__mm_params_text(const clb__mm_params *p, char *buf, size_t cap);

/* Identity lines of the cache file for this device, dtype and CLBlast library. */
void clb__mm_tuning_identity(const clb_device_info *info, clb_dtype dtype, const char *clblast,
                             char *buf, size_t cap);
/* The file's text; false if it does not fit. */
bool clb__mm_tuning_format(const char *identity, const clb__mm_tuning *t, char *buf, size_t cap);
/* Parses a file's bytes; false for anything malformed or of another identity. */
bool clb__mm_tuning_parse(const char *text, size_t len, const char *identity, clb__mm_tuning *out);
/* Cache file path for an identity in the cache directory in effect; false when
   caching is off or the path does not fit. */
bool clb__mm_tuning_path(const char *identity, char *buf, size_t cap);
/* Writes the file in the cache directory under files.h's rules (a checked
   directory, a new temporary file, then rename); false on any failure, with why
   (why_cap bytes) saying what failed: a refused directory, or errno's text. */
bool clb__mm_tuning_save(const char *path, const char *identity, const clb__mm_tuning *t,
                         char *why, size_t why_cap);
/* Reads and parses the file (a regular file of ours in a directory we trust);
   false when absent or not valid for identity. */
bool clb__mm_tuning_load(const char *path, const char *identity, clb__mm_tuning *out);

#endif /* CLB_MATMUL_TUNING_H */
