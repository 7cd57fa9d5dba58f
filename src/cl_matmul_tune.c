/* Matmul tuning: the cache file (format in cl_matmul_tune.h), the in-process
 * record of what was handed to CLBlast, and clb_matmul_tune's search.
 *
 * CLBlast 1.5 has no parameters for PoCL; its defaults route (B, 256, 256) @
 * (256, 256) float32 to XgemmDirect with 16 x 16 tiles, about a tenth of what
 * the CPU does. The search times a handful of candidates chosen for CPUs (each
 * costs one compilation of CLBlast's GEMM program, 15-30 s on PoCL): Xgemm with
 * 8-wide vectors and 64 accumulators per work item, without local memory (no
 * barriers, which PoCL pays for by splitting work-item loops) and with it, and
 * two XgemmDirect shapes. Each candidate's result is checked against our
 * kernel's before it is timed. CLBlastOverrideParameters takes effect per
 * process and device and cannot be undone through CLBlast's C API (it has no
 * call that reads the defaults back), which is why the defaults are timed first
 * and a tuning that lost to them stores no overrides.
 *
 * Thread-safety: the record is one mutex-guarded list; the search sets a
 * thread-local force flag so its own matmuls skip the record. */
#include "cl_matmul_tune.h"
#include "files.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if CLB_HAVE_OPENCL
#include "cl_launch.h"
#include "program_cache.h"
#endif
#if CLB_HAVE_CLBLAST
#include <clblast_c.h>
#include <dlfcn.h>
#endif

#define FILE_MAGIC "clbroadcast matmul tuning 1\n"
#define FILE_MAX_BYTES 8192
#define PATH_CAP 4096

_Thread_local int clb__mm_force;

/* ---- parameters ---------------------------------------------------------------- */

static const char *const routine_names[] = {"XGEMM_MIN_INDIRECT_SIZE"};
static const char *const xgemm_names[] = {"GEMMK", "KREG", "KWG",  "KWI",  "MDIMA", "MDIMC",
                                          "MWG",   "NDIMB", "NDIMC", "NWG", "SA",    "SB",
                                          "STRM",  "STRN", "VWM",  "VWN"};
static const char *const direct_names[] = {"KWID", "MDIMAD", "MDIMCD", "NDIMBD", "NDIMCD",
                                           "PADA", "PADB",   "VWMD",   "VWND",   "WGD"};
const char *const clb__mm_family_names[CLB__MM_FAMILIES] = {"GemmRoutine", "Xgemm", "XgemmDirect"};
const int clb__mm_family_counts[CLB__MM_FAMILIES] = {1, 16, 10};
const char *const *const clb__mm_param_names[CLB__MM_FAMILIES] = {routine_names, xgemm_names,
                                                                   direct_names};

enum { GEMMK, KREG, KWG, KWI, MDIMA, MDIMC, MWG, NDIMB, NDIMC, NWG, SA, SB, STRM, STRN, VWM, VWN };
enum { KWID, MDIMAD, MDIMCD, NDIMBD, NDIMCD, PADA, PADB, VWMD, VWND, WGD };

static bool pow2(size_t v, size_t max) { return v >= 1 && v <= max && (v & (v - 1)) == 0; }
static bool bit(size_t v) { return v <= 1; }
static bool divides(size_t a, size_t b) { return b != 0 && a % b == 0; } /* a % b == 0 */

/* The constraints of CLBlast's tuners (src/tuning/kernels/xgemm.hpp and
   xgemm_direct.hpp) plus the value sets the kernels are written for; local
   memory only against a loose 64 KiB of float32 (CLBlast checks the device's
   limit itself and refuses what does not fit: that candidate just fails). */
bool clb__mm_params_valid(const clb__mm_params *p)
{
    if (p->set[CLB__MM_ROUTINE]) {
        size_t s = p->v[CLB__MM_ROUTINE][0];
        if (s < 1 || s > 65536) return false;
    }
    if (p->set[CLB__MM_XGEMM]) {
        const size_t *v = p->v[CLB__MM_XGEMM];
        if (v[GEMMK] != 0) return false; /* the 2-D register tiling (GEMMK 1) is not searched */
        if (v[KREG] != 1 || !bit(v[SA]) || !bit(v[SB]) || !bit(v[STRM]) || !bit(v[STRN]))
            return false;
        if (!pow2(v[KWG], 256) || !pow2(v[KWI], 256) || !pow2(v[MWG], 512) || !pow2(v[NWG], 512) ||
            !pow2(v[MDIMC], 64) || !pow2(v[NDIMC], 64) || !pow2(v[MDIMA], 64) ||
            !pow2(v[NDIMB], 64) || !pow2(v[VWM], 16) || !pow2(v[VWN], 16))
            return false;
        if (!divides(v[KWG], v[KWI]) || !divides(v[MWG], v[MDIMC] * v[VWM]) ||
            !divides(v[NWG], v[NDIMC] * v[VWN]) || !divides(v[MWG], v[MDIMA] * v[VWM]) ||
            !divides(v[NWG], v[NDIMB] * v[VWN]) ||
            !divides(v[MDIMC] * v[NDIMC], v[MDIMA]) || !divides(v[MDIMC] * v[NDIMC], v[NDIMB]) ||
            !divides(v[KWG], v[MDIMC] * v[NDIMC] / v[MDIMA]) ||
            !divides(v[KWG], v[MDIMC] * v[NDIMC] / v[NDIMB]))
            return false;
        if (v[MDIMC] * v[NDIMC] > 1024) return false;
        if ((v[SA] * v[KWG] * v[MWG] + v[SB] * v[KWG] * v[NWG]) * sizeof(float) > 65536) return false;
    }
    if (p->set[CLB__MM_DIRECT]) {
        const size_t *v = p->v[CLB__MM_DIRECT];
        if (!bit(v[PADA]) || !bit(v[PADB])) return false;
        if (!pow2(v[WGD], 128) || !pow2(v[KWID], 128) || !pow2(v[MDIMCD], 64) ||
            !pow2(v[NDIMCD], 64) || !pow2(v[MDIMAD], 64) || !pow2(v[NDIMBD], 64) ||
            !pow2(v[VWMD], 16) || !pow2(v[VWND], 16))
            return false;
        if (!divides(v[WGD], v[KWID]) || !divides(v[WGD], v[MDIMCD] * v[VWMD]) ||
            !divides(v[WGD], v[NDIMCD] * v[VWND]) || !divides(v[WGD], v[MDIMAD] * v[VWMD]) ||
            !divides(v[WGD], v[NDIMBD] * v[VWND]) ||
            !divides(v[MDIMCD] * v[NDIMCD], v[MDIMAD]) ||
            !divides(v[MDIMCD] * v[NDIMCD], v[NDIMBD]) ||
            !divides(v[WGD], v[MDIMCD] * v[NDIMCD] / v[MDIMAD]) ||
            !divides(v[WGD], v[MDIMCD] * v[NDIMCD] / v[NDIMBD]))
            return false;
        if (v[MDIMCD] * v[NDIMCD] > 1024) return false;
        if ((2 * v[WGD] * v[WGD] + v[WGD] * (v[PADA] + v[PADB])) * sizeof(float) > 65536) return false;
    }
    return true;
}

/* Appends one family line "Name A=1 B=2" (without newline); false if it does not fit. */
static bool family_text(const clb__mm_params *p, int f, char *buf, size_t cap, size_t *len)
{
    int w = snprintf(buf + *len, cap - *len, "%s", clb__mm_family_names[f]);
    if (w < 0 || (size_t)w >= cap - *len) return false;
    *len += (size_t)w;
    for (int i = 0; i < clb__mm_family_counts[f]; i++) {
        w = snprintf(buf + *len, cap - *len, " %s=%zu", clb__mm_param_names[f][i], p->v[f][i]);
        if (w < 0 || (size_t)w >= cap - *len) return false;
        *len += (size_t)w;
    }
    return true;
}

void clb__mm_params_text(const clb__mm_params *p, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0) return;
    buf[0] = '\0';
    for (int f = 0; f < CLB__MM_FAMILIES; f++) {
        if (!p->set[f]) continue;
        if (len > 0) {
            if (cap - len < 4) return;
            memcpy(buf + len, " | ", 4);
            len += 3;
        }
        if (!family_text(p, f, buf, cap, &len)) {
            buf[len < cap ? len : cap - 1] = '\0';
            return;
        }
    }
}

/* ---- the cache file --------------------------------------------------------------- */

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Device strings come from drivers: a newline inside one would let a line of
   the identity masquerade as another, so they are flattened. */
static void flat(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++) dst[i] = (src[i] == '\n' || src[i] == '\r') ? ' ' : src[i];
    dst[i] = '\0';
}

void clb__mm_tuning_identity(const clb_device_info *info, clb_dtype dtype, const char *clblast,
                             char *buf, size_t cap)
{
    char platform[256], name[256], vendor[256], driver[128], lib[256];
    flat(platform, sizeof platform, info->platform);
    flat(name, sizeof name, info->name);
    flat(vendor, sizeof vendor, info->vendor);
    flat(driver, sizeof driver, info->driver_version);
    flat(lib, sizeof lib, clblast);
    snprintf(buf, cap,
             FILE_MAGIC "library %s\nclblast %s\nplatform %s\ndevice %s\nvendor %s\ndriver %s\n"
                        "dtype %s\n",
             clb_version_string(), lib, platform, name, vendor, driver, clb_dtype_name(dtype));
}

bool clb__mm_tuning_format(const char *identity, const clb__mm_tuning *t, char *buf, size_t cap)
{
    int w = snprintf(buf, cap,
                     "%sshape %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                     "\ngflops %.3f %.3f %.3f\nchoice %s\n",
                     identity, t->batch, t->m, t->n, t->k, t->default_gflops, t->tuned_gflops,
                     t->kernel_gflops, t->choice == CLB__MM_CHOICE_CLBLAST ? "clblast" : "kernel");
    if (w < 0 || (size_t)w >= cap) return false;
    size_t len = (size_t)w;
    for (int f = 0; f < CLB__MM_FAMILIES; f++) {
        if (!t->params.set[f]) continue;
        if (!family_text(&t->params, f, buf, cap, &len) || cap - len < 2) return false;
        buf[len++] = '\n';
        buf[len] = '\0';
    }
    if (cap - len < sizeof "end\n") return false;
    memcpy(buf + len, "end\n", sizeof "end\n");
    return true;
}

/* Next line of text[*pos..len) into line (without '\n'); false at the end, for
   a line without its newline, or for one too long to be ours. */
static bool next_line(const char *text, size_t len, size_t *pos, char *line, size_t cap)
{
    size_t start = *pos, i = start;
    while (i < len && text[i] != '\n') i++;
    if (i >= len || i - start >= cap) return false;
    memcpy(line, text + start, i - start);
    line[i - start] = '\0';
    *pos = i + 1;
    return true;
}

/* Strict unsigned decimal: digits only, no sign, no overflow past 1e9. */
static bool parse_size(const char *s, const char **end, size_t *out)
{
    size_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9') return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (size_t)(*p - '0');
        if (v > 1000000000u) return false;
    }
    *end = p;
    *out = v;
    return true;
}

static bool parse_family(const char *line, clb__mm_params *p)
{
    for (int f = 0; f < CLB__MM_FAMILIES; f++) {
        size_t nl = strlen(clb__mm_family_names[f]);
        if (strncmp(line, clb__mm_family_names[f], nl) != 0 || line[nl] != ' ') continue;
        if (p->set[f]) return false; /* a family twice */
        const char *s = line + nl;
        for (int i = 0; i < clb__mm_family_counts[f]; i++) {
            const char *name = clb__mm_param_names[f][i];
            size_t len = strlen(name);
            if (s[0] != ' ' || strncmp(s + 1, name, len) != 0 || s[1 + len] != '=') return false;
            if (!parse_size(s + 2 + len, &s, &p->v[f][i])) return false;
        }
        if (*s != '\0') return false;
        p->set[f] = true;
        return true;
    }
    return false;
}

static bool parse_gflops(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v) || v < -1 || v > 1e9) return false;
    *out = v;
    return *end == ' ' || *end == '\0';
}

bool clb__mm_tuning_parse(const char *text, size_t len, const char *identity, clb__mm_tuning *out)
{
    clb__mm_tuning t;
    memset(&t, 0, sizeof t);
    size_t id_len = strlen(identity), pos = id_len;
    char line[512];
    if (len < id_len || memcmp(text, identity, id_len) != 0) return false;
    if (memchr(text, '\0', len)) return false;

    if (!next_line(text, len, &pos, line, sizeof line)) return false;
    long long b, m, n, k;
    char tail;
    if (sscanf(line, "shape %lld %lld %lld %lld%c", &b, &m, &n, &k, &tail) != 4 || b < 1 || m < 1 ||
        n < 1 || k < 1 || b > 1 << 20 || m > 1 << 20 || n > 1 << 20 || k > 1 << 20)
        return false;
    t.batch = b, t.m = m, t.n = n, t.k = k;

    if (!next_line(text, len, &pos, line, sizeof line) || strncmp(line, "gflops ", 7) != 0)
        return false;
    const char *s = line + 7;
    double *g[3] = {&t.default_gflops, &t.tuned_gflops, &t.kernel_gflops};
    for (int i = 0; i < 3; i++) {
        if (!parse_gflops(s, g[i])) return false;
        s = strchr(s, ' ');
        if ((i < 2) != (s != NULL)) return false;
        if (s) s++;
    }

    if (!next_line(text, len, &pos, line, sizeof line)) return false;
    if (!strcmp(line, "choice kernel"))
        t.choice = CLB__MM_CHOICE_KERNEL;
    else if (!strcmp(line, "choice clblast"))
        t.choice = CLB__MM_CHOICE_CLBLAST;
    else
        return false;

    for (;;) {
        if (!next_line(text, len, &pos, line, sizeof line)) return false;
        if (!strcmp(line, "end")) break;
        if (!parse_family(line, &t.params)) return false;
    }
    if (pos != len || !clb__mm_params_valid(&t.params)) return false;
    *out = t;
    return true;
}

bool clb__mm_tuning_path(const char *identity, char *buf, size_t cap)
{
    char dir[PATH_CAP] = "";
#if CLB_HAVE_OPENCL
    clb__program_cache_dir(dir, sizeof dir);
#endif
    if (!dir[0]) return false;
    int w = snprintf(buf, cap, "%s/matmul-tuning-%016" PRIx64 ".txt", dir, fnv1a(identity));
    return w > 0 && (size_t)w < cap;
}

/* Creates the directory that will hold file `path_of_file`. */
static bool make_dirs(const char *path_of_file)
{
    char path[PATH_CAP];
    size_t n = strlen(path_of_file);
    if (n == 0 || n >= sizeof path) return false;
    memcpy(path, path_of_file, n + 1);
    char *slash = strrchr(path, '/');
    if (!slash || slash == path) return true;
    *slash = '\0';
    return clb__make_dirs(path);
}

bool clb__mm_tuning_save(const char *path, const char *identity, const clb__mm_tuning *t)
{
    static atomic_uint counter;
    char text[FILE_MAX_BYTES], tmp[PATH_CAP + 64];
    if (!clb__mm_tuning_format(identity, t, text, sizeof text) || !make_dirs(path)) return false;
    int w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
                     atomic_fetch_add(&counter, 1));
    if (w < 0 || (size_t)w >= sizeof tmp) return false;
    FILE *f = fopen(tmp, "w");
    if (!f) return false;
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return false;
    }
    return true;
}

bool clb__mm_tuning_load(const char *path, const char *identity, clb__mm_tuning *out)
{
    char text[FILE_MAX_BYTES];
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t len = fread(text, 1, sizeof text, f);
    bool ok = !ferror(f) && len < sizeof text; /* a larger file is not ours */
    fclose(f);
    return ok && clb__mm_tuning_parse(text, len, identity, out);
}

#if CLB_HAVE_CLBLAST
static char clblast_name[256];
static pthread_once_t clblast_once = PTHREAD_ONCE_INIT;

/* The file name of the CLBlast library actually loaded (libclblast.so.1.5.3):
   packages name their files by full version, so an upgrade changes it. */
static void find_clblast_name(void)
{
    Dl_info di;
    char real[PATH_CAP];
    if (!dladdr((void *)CLBlastOverrideParameters, &di) || !di.dli_fname) return;
    const char *p = realpath(di.dli_fname, real) ? real : di.dli_fname;
    const char *base = strrchr(p, '/');
    snprintf(clblast_name, sizeof clblast_name, "%.255s", base ? base + 1 : p);
}
#endif

const char *clb__mm_clblast_version(void)
{
#if CLB_HAVE_CLBLAST
    pthread_once(&clblast_once, find_clblast_name);
    return clblast_name[0] ? clblast_name : "unknown";
#else
    return "none";
#endif
}

/* ---- the in-process record ------------------------------------------------------------ */

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST

typedef struct record {
    struct record *next;
    cl_device_id device;
    clb_dtype dtype;
    bool loaded;     /* the cache file was consulted */
    clb__mm_choice choice;
    bool overridden; /* CLBlast holds parameters of ours for this device and dtype:
                        kept by clb__mm_tuning_forget, as CLBlast keeps them */
} record;

static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static record *records;

/* The record of (device, dtype); created empty if absent. Caller holds the lock.
   NULL only when out of memory. Records live as long as the process (one per
   device and dtype), like the parameters CLBlast holds. */
static record *find_record(cl_device_id device, clb_dtype dtype)
{
    for (record *r = records; r; r = r->next)
        if (r->device == device && r->dtype == dtype) return r;
    record *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->device = device;
    r->dtype = dtype;
    r->next = records;
    records = r;
    return r;
}

static CLBlastStatusCode apply_params(cl_device_id device, clb_dtype dtype, const clb__mm_params *p)
{
    CLBlastPrecision prec = dtype == CLB_FLOAT64 ? CLBlastPrecisionDouble : CLBlastPrecisionSingle;
    for (int f = 0; f < CLB__MM_FAMILIES; f++) {
        if (!p->set[f]) continue;
        const char *names[CLB__MM_MAX_PARAMS];
        for (int i = 0; i < clb__mm_family_counts[f]; i++) names[i] = clb__mm_param_names[f][i];
        CLBlastStatusCode s = CLBlastOverrideParameters(device, clb__mm_family_names[f], prec,
                                                        (size_t)clb__mm_family_counts[f], names,
                                                        p->v[f]);
        if (s != CLBlastSuccess) return s;
    }
    return CLBlastSuccess;
}

static bool params_any(const clb__mm_params *p)
{
    for (int f = 0; f < CLB__MM_FAMILIES; f++)
        if (p->set[f]) return true;
    return false;
}

clb__mm_choice clb__mm_tuning_choice(clb_context *ctx, clb_dtype dtype)
{
    if (!ctx->options.matmul_tuning) return CLB__MM_CHOICE_NONE;
    cl_device_id device = clb__cl_impl(ctx)->device;
    clb__mm_choice choice = CLB__MM_CHOICE_NONE;
    pthread_mutex_lock(&records_lock);
    record *r = find_record(device, dtype);
    if (r && !r->loaded) {
        r->loaded = true;
        /* First matmul of this device and dtype in the process: load and apply. */
        char identity[2048], path[PATH_CAP];
        clb__mm_tuning t;
        clb__mm_tuning_identity(&ctx->info, dtype, clb__mm_clblast_version(), identity,
                                sizeof identity);
        if (clb__mm_tuning_path(identity, path, sizeof path) &&
            clb__mm_tuning_load(path, identity, &t)) {
            /* Overrides CLBlast refuses leave its defaults in place: still correct. */
            if (params_any(&t.params) && apply_params(device, dtype, &t.params) == CLBlastSuccess)
                r->overridden = true;
            r->choice = t.choice;
        }
    }
    if (r) choice = r->choice;
    pthread_mutex_unlock(&records_lock);
    return choice;
}

void clb__mm_tuning_forget(void)
{
    pthread_mutex_lock(&records_lock);
    for (record *r = records; r; r = r->next) {
        r->loaded = false;
        r->choice = CLB__MM_CHOICE_NONE;
    }
    pthread_mutex_unlock(&records_lock);
}

#else /* no CLBlast: nothing to tune, our kernel serves */

clb__mm_choice clb__mm_tuning_choice(clb_context *ctx, clb_dtype dtype)
{
    (void)ctx;
    (void)dtype;
    return CLB__MM_CHOICE_NONE;
}

void clb__mm_tuning_forget(void) {}

#endif

/* ---- the search ------------------------------------------------------------------------ */

#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST

/* A candidate: the GemmRoutine threshold (m*n*k below its cube runs XgemmDirect)
   and the values of one kernel family, in CLBlast's order (see the name tables). */
typedef struct candidate {
    size_t min_indirect;
    int family; /* CLB__MM_XGEMM or CLB__MM_DIRECT */
    size_t v[CLB__MM_MAX_PARAMS];
} candidate;

/* Most promising first: max_candidates = 1 takes the first.
   Xgemm:       GEMMK KREG KWG KWI MDIMA MDIMC MWG NDIMB NDIMC NWG SA SB STRM STRN VWM VWN
   XgemmDirect: KWID MDIMAD MDIMCD NDIMBD NDIMCD PADA PADB VWMD VWND WGD
   Xgemm computes an MWG/MDIMC x NWG/NDIMC tile per work item in VWM-wide
   vectors; 64 float accumulators fill eight AVX registers, like our kernel. */
static const candidate float_candidates[] = {
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 4, 4, 64, 16, 16, 64, 1, 1, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 128, 8, 8, 32, 1, 1, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 64, 8, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 16, 2, 16, 16, 128, 16, 16, 128, 0, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 0, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 0, 0, 0, 8, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 64, 8, 4, 4, 32, 8, 8, 64, 1, 1, 0, 0, 8, 8}},
    {1024, CLB__MM_DIRECT, {2, 8, 8, 8, 8, 0, 0, 8, 8, 64}},
};
static const candidate double_candidates[] = {
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 32, 8, 8, 64, 0, 0, 0, 0, 4, 8}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 64, 8, 8, 32, 0, 0, 0, 0, 8, 4}},
    {128, CLB__MM_XGEMM, {0, 1, 32, 2, 8, 8, 32, 8, 8, 64, 1, 1, 0, 0, 4, 8}},
    {1024, CLB__MM_DIRECT, {2, 8, 8, 8, 8, 0, 0, 4, 4, 32}},
};

static void candidate_params(const candidate *c, clb__mm_params *p)
{
    memset(p, 0, sizeof *p);
    p->set[CLB__MM_ROUTINE] = true;
    p->v[CLB__MM_ROUTINE][0] = c->min_indirect;
    p->set[c->family] = true;
    memcpy(p->v[c->family], c->v, sizeof c->v);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The operands and our kernel's product, which every candidate must reproduce. */
typedef struct bench_case {
    clb_context *ctx;
    clb_dtype dtype;
    clb_tensor *a, *b;
    size_t out_count;
    double *ref, *got; /* out_count values */
    double flop;
} bench_case;

static clb_status read_out(const bench_case *bc, const clb_tensor *y, double *dst)
{
    size_t n = bc->out_count;
    if (bc->dtype == CLB_FLOAT64) return clb_tensor_to_host(y, dst, n * sizeof(double));
    /* float32 widened in place from the back, so dst serves as the staging buffer */
    float *f = (float *)dst;
    clb_status st = clb_tensor_to_host(y, f, n * sizeof(float));
    for (size_t i = n; st == CLB_OK && i-- > 0;) dst[i] = (double)f[i];
    return st;
}

/* One warm-up (builds), a check against the reference (or a copy into bc->ref
   when fill_ref), then timed runs for at least 0.5 s (5 to 10 runs); *gflops
   from the fastest, the figure least disturbed by other work on a shared
   machine. force: 1 our kernel, 2 CLBlast. A wrong result is
   CLB_ERR_UNSUPPORTED naming the first wrong element. */
static clb_status time_gemm(bench_case *bc, int force, bool fill_ref, double *gflops)
{
    clb_status st = CLB_OK;
    clb_tensor *y = NULL;
    double times[10];
    int runs = 0;
    *gflops = 0;
    clb__mm_force = force;
    CLB_TRY(clb_matmul(bc->a, bc->b, &y));
    CLB_TRY(clb_finish(bc->ctx));
    CLB_TRY(read_out(bc, y, fill_ref ? bc->ref : bc->got));
    if (!fill_ref) {
        double tol = bc->dtype == CLB_FLOAT64 ? 1e-9 : 1e-3;
        for (size_t i = 0; i < bc->out_count; i++)
            if (!(fabs(bc->got[i] - bc->ref[i]) <= tol * (1 + fabs(bc->ref[i]))))
                CLB_FAIL(CLB_ERR_UNSUPPORTED, "wrong result at element %zu: %g instead of %g", i,
                         bc->got[i], bc->ref[i]);
    }
    clb_tensor_release(y);
    y = NULL;
    double total = 0;
    while (runs < 10 && (runs < 5 || total < 0.5)) {
        double t0 = now_s();
        CLB_TRY(clb_matmul(bc->a, bc->b, &y));
        CLB_TRY(clb_finish(bc->ctx));
        times[runs] = now_s() - t0;
        total += times[runs++];
        clb_tensor_release(y);
        y = NULL;
    }
    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    *gflops = bc->flop / times[0] / 1e9;
cleanup:
    clb__mm_force = 0;
    clb_tensor_release(y);
    return st;
}

static clb_status random_operand(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                                 uint64_t seed, clb_tensor **out)
{
    size_t n = 1;
    for (int d = 0; d < ndim; d++) n *= (size_t)shape[d];
    void *data = malloc(n * clb_dtype_size(dtype));
    if (!data) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory for a tuning operand");
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(seed >> 40) / (double)(1 << 24) - 0.5;
        if (dtype == CLB_FLOAT64) ((double *)data)[i] = v;
        else ((float *)data)[i] = (float)v;
    }
    clb_status st = clb_tensor_from_host(ctx, dtype, ndim, shape, data, out);
    free(data);
    return st;
}

static clb_status search(clb_context *ctx, clb_dtype dtype, int max_candidates,
                         clb_matmul_tune_result *out)
{
    clb_status st = CLB_OK;
    cl_device_id device = clb__cl_impl(ctx)->device;
    bench_case bc = {ctx, dtype, NULL, NULL, 0, NULL, NULL, 0};
    const candidate *list = dtype == CLB_FLOAT64 ? double_candidates : float_candidates;
    int count = dtype == CLB_FLOAT64 ? (int)(sizeof double_candidates / sizeof double_candidates[0])
                                     : (int)(sizeof float_candidates / sizeof float_candidates[0]);
    if (max_candidates > 0 && max_candidates < count) count = max_candidates;
    clb__mm_params params[CLB_MATMUL_TUNE_MAX_CANDIDATES];
    const int64_t side = 256, batch = dtype == CLB_FLOAT64 ? 16 : 64; /* the shape */
    const int64_t ashape[3] = {batch, side, side}, bshape[2] = {side, side};

    out->batch = batch, out->m = side, out->n = side, out->k = side;
    bc.flop = 2.0 * (double)batch * (double)side * (double)side * (double)side;
    bc.out_count = (size_t)(batch * side * side);
    bc.ref = malloc(bc.out_count * sizeof(double));
    bc.got = malloc(bc.out_count * sizeof(double));
    if (!bc.ref || !bc.got) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for matmul tuning");
    CLB_TRY(random_operand(ctx, dtype, 3, ashape, 7, &bc.a));
    CLB_TRY(random_operand(ctx, dtype, 2, bshape, 11, &bc.b));

    /* Our kernel: the reference result and the speed to beat. */
    st = time_gemm(&bc, 1, true, &out->kernel_gflops);
    if (st != CLB_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", clb_last_error());
        CLB_FAIL(st, "clb_matmul_tune: the library's own matmul kernel failed on %s: %s",
                 ctx->info.name, why);
    }

    /* CLBlast's defaults, unless this process already replaced them. */
    pthread_mutex_lock(&records_lock);
    record *r = find_record(device, dtype);
    bool overridden = r && r->overridden;
    pthread_mutex_unlock(&records_lock);
    if (!r) CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory for matmul tuning");
    out->default_gflops = -1;
    if (!overridden && time_gemm(&bc, 2, false, &out->default_gflops) != CLB_OK)
        out->default_gflops = 0;

    for (int i = 0; i < count; i++) {
        candidate_params(&list[i], &params[i]);
        clb__mm_params_text(&params[i], out->candidates[i].params, sizeof out->candidates[i].params);
        out->count = i + 1;
        if (!clb__mm_params_valid(&params[i])) {
            snprintf(out->candidates[i].error, sizeof out->candidates[i].error,
                     "violates CLBlast's parameter constraints");
            continue;
        }
        pthread_mutex_lock(&records_lock);
        CLBlastStatusCode s = apply_params(device, dtype, &params[i]);
        r->overridden = true; /* even a refused family may have left others applied */
        pthread_mutex_unlock(&records_lock);
        clb_matmul_tune_candidate *c = &out->candidates[i];
        if (s != CLBlastSuccess)
            snprintf(c->error, sizeof c->error, "CLBlastOverrideParameters refused it (%d)", (int)s);
        else if (time_gemm(&bc, 2, false, &c->gflops) != CLB_OK)
            snprintf(c->error, sizeof c->error, "%.255s", clb_last_error());
        if (c->error[0]) c->gflops = 0;
        if (out->candidates[i].gflops > 0 &&
            (out->best < 0 || out->candidates[i].gflops > out->candidates[out->best].gflops))
            out->best = i;
    }

    clb__mm_tuning t;
    memset(&t, 0, sizeof t);
    t.batch = batch, t.m = side, t.n = side, t.k = side;
    t.default_gflops = out->default_gflops;
    t.kernel_gflops = out->kernel_gflops;
    t.tuned_gflops = out->best >= 0 ? out->candidates[out->best].gflops : 0;
    out->overrides = out->best >= 0 && t.tuned_gflops > out->default_gflops;
    if (out->overrides) t.params = params[out->best];
    double clblast_gflops = out->overrides ? t.tuned_gflops : out->default_gflops;
    t.choice = out->kernel_gflops >= clblast_gflops ? CLB__MM_CHOICE_KERNEL : CLB__MM_CHOICE_CLBLAST;
    snprintf(out->choice, sizeof out->choice, "%s",
             t.choice == CLB__MM_CHOICE_KERNEL ? "kernel" : "clblast");

    /* In this process: the winner's parameters (when the defaults won, the
       fastest candidate: CLBlast's C API cannot restore its defaults). */
    pthread_mutex_lock(&records_lock);
    if (out->best >= 0) apply_params(device, dtype, &params[out->best]);
    r->choice = t.choice;
    r->loaded = true;
    pthread_mutex_unlock(&records_lock);

    char identity[2048], path[PATH_CAP];
    clb__mm_tuning_identity(&ctx->info, dtype, clb__mm_clblast_version(), identity, sizeof identity);
    if (clb__mm_tuning_path(identity, path, sizeof path)) {
        if (!clb__mm_tuning_save(path, identity, &t))
            CLB_FAIL(CLB_ERR_UNSUPPORTED,
                     "clb_matmul_tune: cannot write the tuning cache file %s (%s); set "
                     "CLB_CACHE_DIR to a writable directory, or to off to tune without caching",
                     path, strerror(errno));
        snprintf(out->cache_file, sizeof out->cache_file, "%.1023s", path);
    }
cleanup:
    clb__mm_force = 0;
    clb_tensor_release(bc.a);
    clb_tensor_release(bc.b);
    free(bc.ref);
    free(bc.got);
    return st;
}
#endif

clb_status clb_matmul_tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                           clb_matmul_tune_result *out)
{
    clb_status st = clb__check_context(ctx, "clb_matmul_tune: ctx");
    if (st != CLB_OK) return st;
    if (!out) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "clb_matmul_tune: out is NULL");
    memset(out, 0, sizeof *out);
    out->best = -1;
    if (dtype != CLB_FLOAT32 && dtype != CLB_FLOAT64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_matmul_tune: dtype %s: only float32 and float64 matmuls run on "
                         "CLBlast, so only they are tuned",
                         clb_dtype_name(dtype));
    if (max_candidates < 0 || max_candidates > CLB_MATMUL_TUNE_MAX_CANDIDATES)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "clb_matmul_tune: max_candidates is %d; use 0 (all) to %d",
                         max_candidates, CLB_MATMUL_TUNE_MAX_CANDIDATES);
#if CLB_HAVE_OPENCL && CLB_HAVE_CLBLAST
    if (ctx->info.type == CLB_DEVICE_HOST)
        return clb__fail(CLB_ERR_UNSUPPORTED,
                         "clb_matmul_tune: the context runs on the host backend, which has no "
                         "CLBlast to tune; create it on an OpenCL device");
    if (dtype == CLB_FLOAT64 && !ctx->info.has_fp64)
        return clb__fail(CLB_ERR_DTYPE,
                         "clb_matmul_tune: OpenCL device %s has no float64 arithmetic "
                         "(cl_khr_fp64); tune float32",
                         ctx->info.name);
    return search(ctx, dtype, max_candidates, out);
#else
    return clb__fail(CLB_ERR_UNSUPPORTED,
                     "clb_matmul_tune: this build of clbroadcast has no CLBlast (configure with "
                     "-Dclblast=enabled and libclblast-dev installed)");
#endif
}
