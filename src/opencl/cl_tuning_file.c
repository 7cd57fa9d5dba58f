/* Matmul tuning files (format in cl_tuning_file.h): CLBlast's parameters,
 * their text form, and the cache file that holds a device's tuning. Pure C:
 * the OpenCL backend reads the file (cl_matmul_tune.c), the search writes it
 * (op_matmul_tune.c). */
#include "cl_tuning_file.h"

#include "files.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAGIC "clbroadcast matmul tuning 1\n"
#define FILE_MAX_BYTES 8192
#define PATH_CAP 4096

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
    clb__cache_dir(dir, sizeof dir);
    if (!dir[0]) return false;
    uint64_t name = clb__fnv1a(CLB__FNV_SEED, identity, strlen(identity));
    int w = snprintf(buf, cap, "%s/matmul-tuning-%016" PRIx64 ".txt", dir, name);
    return w > 0 && (size_t)w < cap;
}

/* Splits cache file path `path` (from clb__mm_tuning_path) into its directory and
   its name inside it; false when it has no directory part. */
static bool split(const char *path, char *dir, size_t cap, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path || (size_t)(slash - path) >= cap) return false;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    *name = slash + 1;
    return **name != '\0';
}

bool clb__mm_tuning_save(const char *path, const char *identity, const clb__mm_tuning *t,
                         char *why, size_t why_cap)
{
    char text[FILE_MAX_BYTES], dir[PATH_CAP];
    const char *name = NULL;
    if (why_cap > 0) why[0] = '\0';
    if (!clb__mm_tuning_format(identity, t, text, sizeof text) ||
        !split(path, dir, sizeof dir, &name)) {
        errno = EINVAL;
        return false;
    }
    int dirfd = clb__cache_dir_open(dir, true, why, why_cap);
    if (dirfd < 0) {
        if (why_cap > 0 && !why[0]) snprintf(why, why_cap, "%s", strerror(errno ? errno : ENOENT));
        return false;
    }
    const void *parts[1] = {text};
    const size_t lens[1] = {strlen(text)};
    bool ok = clb__cache_write(dirfd, name, 1, parts, lens);
    if (!ok && why_cap > 0) snprintf(why, why_cap, "%s", strerror(errno));
    close(dirfd);
    return ok;
}

bool clb__mm_tuning_load(const char *path, const char *identity, clb__mm_tuning *out)
{
    char dir[PATH_CAP];
    const char *name = NULL;
    if (!split(path, dir, sizeof dir, &name)) return false;
    int dirfd = clb__cache_dir_open(dir, false, NULL, 0);
    if (dirfd < 0) return false;
    size_t len = 0;
    /* A file as large as the buffer is not ours. */
    char *text = (char *)clb__cache_read(dirfd, name, FILE_MAX_BYTES - 1, &len);
    close(dirfd);
    bool ok = text && clb__mm_tuning_parse(text, len, identity, out);
    free(text);
    return ok;
}
