/* Two-level program cache (see cl_program_cache.h for the contract).
 *
 * Memory level: a small chained hash table keyed by (kernel id, options),
 * guarded by one mutex that is also held while building, so two threads that
 * need the same program build it once.
 *
 * Disk level, file layout (native byte order; the key pins the machine anyway):
 *   "CLBBIN01" | u64 key length | key text | u64 binary length |
 *   u64 FNV-1a of the binary | binary
 * The key text holds everything the binary depends on and is compared in full
 * on load, so a hash collision or a stale file is a miss, never a wrong program.
 * Failures of this level are silent by design: it only ever saves time. */
#include "cl_program_cache.h"

#include "cl_quirks.h"
#include "files.h"

#include "cl_errors.h"
#include "fault.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 64
#define DISK_MAGIC "CLBBIN01"
/* A marker: "CLBMRK01" | u64 key length | key. The program of this key was
   compiled on this device and driver, whose own kernel cache (PoCL's) holds it,
   so a source build is a cache hit there: what a process that writes no entries
   (writes_programs) leaves, so the next one builds it on the spot instead of
   taking the cold-start tier and queueing a build for its exit. */
#define MARK_MAGIC "CLBMRK01"
#define DISK_MAX_BYTES ((size_t)256 << 20) /* larger files are not ours */
#define PATH_CAP 4096
/* How long after the cache's creation the background thread begins its first
   job. A build it has begun cannot be stopped, and clb_context_release waits
   for it; one not begun is dropped there (clb__program_cache_destroy). A short
   first program (a cold-start tier map on the host, the result, exit) thus ends
   without starting a build it would wait 1-5 s for at release (issue 25,
   item 2: a single add on PoCL released in 5.0 s); its next run takes the
   tier again. A longer-lived process gets its builds from then on. */
#define FIRST_BUILD_DELAY_S 2.0

static double monotonic_s(void);

typedef struct entry {
    struct entry *next;
    clb__kernel_id id;
    cl_program program; /* NULL while a thread builds it (outside the lock) */
    char options[];     /* the key, with id */
} entry;

/* Work for the background thread: a build asked for ahead of use
   (clb__program_cache_prefetch; text holds its options), or writing a program
   a calling thread built to the disk cache (save; text holds the key, a NUL
   and the file name). */
typedef struct job {
    struct job *next;
    clb__kernel_id id;
    clb__program_warm_fn warm;
    void *warm_user;
    cl_program save;
    double tier_s; /* a queued build: the time calls spent on the first tier meanwhile */
    char text[];
} job;

/* A queued build that clb__program_cache_destroy drops after its calls spent
   this long on the first tier leaves a marker: the next process builds it at
   its first use (a compile, about this long on PoCL) instead of running the
   tier again. A one-off call stays on the tier; a loop of heavy tier work (a
   float16 add of 2^24 takes 38 ms on the host, 5 ms in the kernel) does not
   repeat in every run of a short program. */
#define TIER_MARK_S 0.1

struct clb__program_cache {
    pthread_mutex_t lock;
    pthread_cond_t built;  /* an entry's build ended (program set, or the entry removed) */
    pthread_cond_t queued; /* a job arrived, or the cache is being destroyed */
    job *jobs, **jobs_tail;
    job *idle_saves, **idle_tail; /* SAVE_IDLE writes: when the process idles, else dropped */
    bool worker_started, stopping;
    pthread_t worker;
    /* The calling threads' compiler use (clb__program_cache_busy), which the
       background thread gives way to: the number of their builds in progress,
       and when the last one ended (CLOCK_MONOTONIC seconds). */
    int busy_builds;
    double busy_until;
    cl_context context;
    cl_device_id device;
    char device_name[256];
    char identity[1024]; /* library, platform, device and driver lines of disk keys */
    char quirk_options[256]; /* build options of the device's quirks (cl_quirks.c) */
    char dir[PATH_CAP];  /* disk level directory; "" when disabled */
    int save_mode;       /* when programs built here are written to it (save_mode_of) */
    entry *buckets[BUCKETS];
    clb__program_cache_stats stats;
};


/* ---- disk directory ------------------------------------------------------------ */

/* ---- disk level -------------------------------------------------------------------- */

/* Key text and file name (inside the cache directory) for (id, options) on this device. */
static bool disk_key(const clb__program_cache *c, clb__kernel_id id, const char *options,
                     char *key, size_t key_cap, char *name, size_t name_cap)
{
    const char *src[CLB__KERNEL_MAX_SOURCES];
    size_t len[CLB__KERNEL_MAX_SOURCES];
    int n = clb__kernel_sources(id, src, len);
    if (c->dir[0] == '\0' || n == 0) return false;
    uint64_t source_hash = CLB__FNV_SEED;
    for (int i = 0; i < n; i++) source_hash = clb__fnv1a(source_hash, src[i], len[i]);
    int k = snprintf(key, key_cap, "%skernel %s\noptions %s\nsources %016" PRIx64 "\n",
                     c->identity, clb__kernel_file(id), options, source_hash);
    if (k < 0 || (size_t)k >= key_cap) return false;
    uint64_t hash = clb__fnv1a(CLB__FNV_SEED, key, (size_t)k);
    int p = snprintf(name, name_cap, "%016" PRIx64 ".clbin", hash);
    return p > 0 && (size_t)p < name_cap;
}

/* Finds the binary inside a file's bytes; false for anything malformed. */
static bool parse_file(const unsigned char *data, size_t size, const char *key,
                       const unsigned char **bin, size_t *bin_len)
{
    size_t magic = sizeof DISK_MAGIC - 1, pos = 0;
    uint64_t key_len, len, sum;
    if (size < magic + 8 || memcmp(data, DISK_MAGIC, magic) != 0) return false;
    pos = magic;
    memcpy(&key_len, data + pos, 8);
    pos += 8;
    if (key_len != strlen(key) || size - pos < key_len + 16) return false;
    if (memcmp(data + pos, key, key_len) != 0) return false;
    pos += key_len;
    memcpy(&len, data + pos, 8);
    memcpy(&sum, data + pos + 8, 8);
    pos += 16;
    if (len == 0 || len != size - pos || clb__fnv1a(CLB__FNV_SEED, data + pos, len) != sum) return false;
    *bin = data + pos;
    *bin_len = len;
    return true;
}

/* The parser on its own, for the fuzz target and the robustness test. */
bool clb__program_cache_parse(const unsigned char *data, size_t size, const char *key,
                              const unsigned char **bin, size_t *bin_len)
{
    return parse_file(data, size, key, bin, bin_len);
}

/* The program of file `name` when the cache directory is one we trust, the file
   a regular one of ours, its key this program's in full (device, driver, library,
   kernel, options, sources) and its checksum right; NULL otherwise. */
static bool is_marker(const unsigned char *data, size_t size, const char *key)
{
    size_t magic = sizeof MARK_MAGIC - 1, key_len = strlen(key);
    uint64_t stored = 0;
    if (size != magic + 8 + key_len || memcmp(data, MARK_MAGIC, magic) != 0) return false;
    memcpy(&stored, data + magic, 8);
    return stored == key_len && memcmp(data + magic + 8, key, key_len) == 0;
}

/* ... and *marked when the file is this key's marker instead. */
static cl_program disk_load(clb__program_cache *c, const char *key, const char *name,
                            const char *options, bool *marked)
{
    size_t size = 0, bin_len = 0;
    const unsigned char *bin = NULL;
    *marked = false;
    int dirfd = clb__cache_dir_open(c->dir, false, NULL, 0);
    if (dirfd < 0) return NULL;
    unsigned char *data = clb__cache_read(dirfd, name, DISK_MAX_BYTES, &size);
    close(dirfd);
    cl_program prog = NULL;
    if (data && is_marker(data, size, key)) *marked = true;
    if (data && parse_file(data, size, key, &bin, &bin_len)) {
        cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
        prog = clCreateProgramWithBinary(c->context, 1, &c->device, &bin_len, &bin, &bin_status,
                                         &err);
        if (prog && (err != CL_SUCCESS || bin_status != CL_SUCCESS ||
                     clBuildProgram(prog, 1, &c->device, options, NULL, NULL) != CL_SUCCESS)) {
            clReleaseProgram(prog);
            prog = NULL;
        }
    }
    free(data);
    return prog;
}

static void disk_mark(clb__program_cache *c, const char *key, const char *name)
{
    int dirfd = clb__cache_dir_open(c->dir, true, NULL, 0);
    if (dirfd < 0) return;
    uint64_t key_len = strlen(key);
    const void *parts[3] = {MARK_MAGIC, &key_len, key};
    const size_t lens[3] = {sizeof MARK_MAGIC - 1, 8, key_len};
    clb__cache_write(dirfd, name, 3, parts, lens); /* a failed write only costs time */
    close(dirfd);
}

static void disk_save(clb__program_cache *c, const char *key, const char *name, cl_program prog)
{
    size_t len = 0;
    unsigned char *bin = NULL;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS ||
        len == 0)
        return;
    bin = malloc(len);
    unsigned char *bins[1] = {bin};
    if (!bin ||
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
        free(bin);
        return;
    }
    int dirfd = clb__cache_dir_open(c->dir, true, NULL, 0);
    if (dirfd >= 0) {
        uint64_t key_len = strlen(key), bin_len = len, sum = clb__fnv1a(CLB__FNV_SEED, bin, len);
        const void *parts[6] = {DISK_MAGIC, &key_len, key, &bin_len, &sum, bin};
        const size_t lens[6] = {sizeof DISK_MAGIC - 1, 8, key_len, 8, 8, len};
        clb__cache_write(dirfd, name, 6, parts, lens); /* a failed write only costs time */
        close(dirfd);
    }
    free(bin);
}

/* ---- source builds -------------------------------------------------------------------- */

static clb_status build_failed(clb__program_cache *c, cl_program prog, cl_int err,
                               clb__kernel_id id, const char *options)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
        (log = malloc(size + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, c->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
            CL_SUCCESS)
            size = 0;
        log[size] = '\0';
    }
    const char *name = clb__cl_error_name(err);
    clb_status st = clb__fail(CLB_ERR_BUILD, "building %s with \"%s\" for %s failed (%s):\n%s",
                              clb__kernel_file(id), options, c->device_name,
                              name ? name : "unknown OpenCL error", log ? log : "(no build log)");
    free(log);
    return st;
}

static clb_status build_source(clb__program_cache *c, clb__kernel_id id, const char *options,
                               cl_program *out)
{
    const char *src[CLB__KERNEL_MAX_SOURCES];
    size_t len[CLB__KERNEL_MAX_SOURCES];
    int n = clb__kernel_sources(id, src, len);
    if (n == 0) return clb__fail(CLB_ERR_INVALID_ARGUMENT, "no kernel with id %d", (int)id);
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(c->context, (cl_uint)n, src, len, &err);
    if (err != CL_SUCCESS || !prog) {
        if (prog) clReleaseProgram(prog);
        return clb__cl_fail(err != CL_SUCCESS ? err : CL_OUT_OF_HOST_MEMORY,
                            "clCreateProgramWithSource");
    }
    err = clBuildProgram(prog, 1, &c->device, options, NULL, NULL);
    if (CLB__FAULT(CLB__FAULT_BUILD)) err = CL_BUILD_PROGRAM_FAILURE;
    if (err != CL_SUCCESS) {
        clb_status st = err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ||
                                err == CL_COMPILER_NOT_AVAILABLE
                            ? build_failed(c, prog, err, id, options)
                            : clb__cl_fail(err, "clBuildProgram");
        clReleaseProgram(prog);
        return st;
    }
    *out = prog;
    return CLB_OK;
}

/* ---- disk level: what it holds for a device ------------------------------------------- */

/* The first lines of every disk key for this device; a file whose key starts
   with them was built for this device, driver and library version. */
static void identity_of(const clb_device_info *info, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "clbroadcast %s\nplatform %.255s\ndevice %.255s\nvendor %.255s\ndriver %.127s\n",
             clb_version_string(), info->platform, info->name, info->vendor,
             info->driver_version);
}

/* Reads only a file's header and key prefix: binaries may be megabytes. */
static bool file_is_for(int dirfd, const char *name, const char *identity)
{
    size_t n = strlen(identity), magic = sizeof DISK_MAGIC - 1;
    unsigned char head[sizeof DISK_MAGIC - 1 + 8 + 1024];
    if (n > 1024 || clb__cache_read_head(dirfd, name, head, magic + 8 + n) != magic + 8 + n)
        return false;
    uint64_t key_len = 0;
    if (memcmp(head, DISK_MAGIC, magic) != 0 && memcmp(head, MARK_MAGIC, magic) != 0)
        return false;
    memcpy(&key_len, head + magic, 8);
    return key_len >= n && memcmp(head + magic + 8, identity, n) == 0;
}

clb_status clb__program_cache_count(const clb_device_info *info, int *count)
{
    char dir[PATH_CAP], identity[1024], why[PATH_CAP + 512];
    *count = 0;
    clb__cache_dir(dir, sizeof dir);
    identity_of(info, identity, sizeof identity);
    int dirfd = clb__cache_dir_open(dir, false, why, sizeof why);
    if (dirfd < 0 && why[0])
        return clb__fail(CLB_ERR_UNSUPPORTED, "clb_device_cached_programs: %s", why);
    int listfd = dirfd >= 0 ? dup(dirfd) : -1;
    DIR *d = listfd >= 0 ? fdopendir(listfd) : NULL;
    if (!d) { /* no directory yet (or disabled): nothing cached */
        if (listfd >= 0) close(listfd);
        if (dirfd >= 0) close(dirfd);
        return CLB_OK;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name), ext = sizeof ".clbin" - 1;
        if (len <= ext || strcmp(e->d_name + len - ext, ".clbin") != 0) continue;
        if (file_is_for(dirfd, e->d_name, identity)) (*count)++;
    }
    closedir(d);
    close(dirfd);
    return CLB_OK;
}

/* ---- memory level ----------------------------------------------------------------------- */

static unsigned bucket_of(clb__kernel_id id, const char *options)
{
    uint64_t h = clb__fnv1a(CLB__FNV_SEED ^ (uint64_t)id, options, strlen(options));
    return (unsigned)(h % BUCKETS);
}

/* When a process writes the programs it builds to the disk level (every process
   reads it):
   SAVE_NOW   on the background thread after the calling threads' builds, and
              clb_context_release lets it finish: drivers whose binaries are
              what they compiled already (rusticl: milliseconds);
   SAVE_IDLE  PoCL with its own kernel cache on (POCL_CACHE_DIR; unless
              POCL_KERNEL_CACHE=0). PoCL hands out a program's binary only after
              compiling every kernel of it for any work-group size (4.8 s for one
              reduce.cl program, most of whose kernels a process never launches):
              writing them made a first run's clb_context_release wait 7-10 s. So
              a built program leaves a marker at once (PoCL's cache holds it: the
              next process rebuilds it on the spot, a PoCL cache hit), and its
              binary is written only once the process has left the compiler alone
              for IDLE_SAVE_S more (a notebook, a service between requests); the
              writes not begun by clb_context_release are dropped, one under way
              is finished (the one wait left: a program's compile). Idle means no
              build and no new kernel here: PoCL's compiles at a kernel's first
              launch do not show, so the threshold is long;
   SAVE_NEVER CLB_CACHE_WRITE=never.
   CLB_CACHE_WRITE=always is SAVE_NOW on every driver (clb warmup, the tests of
   the disk level). */
enum { SAVE_NOW, SAVE_IDLE, SAVE_NEVER };
#define IDLE_SAVE_S 30.0

static int save_mode_of(const clb_device_info *info)
{
    const char *w = getenv("CLB_CACHE_WRITE");
    if (w && strcasecmp(w, "always") == 0) return SAVE_NOW;
    if (w && strcasecmp(w, "never") == 0) return SAVE_NEVER;
    if (!strstr(info->platform, "Portable Computing Language")) return SAVE_NOW;
    const char *kcache = getenv("POCL_KERNEL_CACHE");
    return kcache && strcmp(kcache, "0") == 0 ? SAVE_NOW : SAVE_IDLE;
}

clb_status clb__program_cache_create(cl_context context, cl_device_id device,
                                     const clb_device_info *info, clb__program_cache **out)
{
    *out = NULL;
    clb__program_cache *c = calloc(1, sizeof *c);
    if (!c) return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory creating a program cache");
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "cannot create the program cache's mutex");
    }
    if (pthread_cond_init(&c->built, NULL) != 0) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "cannot create the program cache's condition");
    }
    pthread_condattr_t attr;
    bool attr_ok = pthread_condattr_init(&attr) == 0;
    bool clock_ok = attr_ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
    int qerr = pthread_cond_init(&c->queued, clock_ok ? &attr : NULL);
    if (attr_ok) pthread_condattr_destroy(&attr);
    if (qerr != 0 || !clock_ok) {
        if (qerr == 0) pthread_cond_destroy(&c->queued);
        pthread_cond_destroy(&c->built);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "cannot create the program cache's condition");
    }
    c->jobs_tail = &c->jobs;
    /* No background build in a process's first seconds (see FIRST_BUILD_DELAY_S). */
    c->busy_until = monotonic_s() + FIRST_BUILD_DELAY_S;
    c->idle_tail = &c->idle_saves;
    c->context = context;
    c->device = device;
    snprintf(c->device_name, sizeof c->device_name, "%s", info->name);
    identity_of(info, c->identity, sizeof c->identity);
    clb__cache_dir(c->dir, sizeof c->dir);
    c->save_mode = save_mode_of(info);
    clb__quirks_for(info->platform, info->driver_version, NULL, 0, c->quirk_options,
                    sizeof c->quirk_options);
    *out = c;
    return CLB_OK;
}

/* Removes the queued builds (clb__program_cache_prefetch) the background thread
   has not begun; the queued disk writes stay. Called with the lock held. */
static void drop_prefetches_locked(clb__program_cache *c, job **wanted)
{
    job **link = &c->jobs;
    c->jobs_tail = &c->jobs;
    while (*link) {
        job *j = *link;
        if (!j->save) {
            *link = j->next;
            if (wanted && j->tier_s >= TIER_MARK_S) {
                j->next = *wanted;
                *wanted = j;
            } else {
                free(j);
            }
        } else {
            link = &j->next;
            c->jobs_tail = link;
        }
    }
}

static void mark_wanted(clb__program_cache *c, job *list);

void clb__program_cache_destroy(clb__program_cache *c)
{
    if (!c) return;
    /* The builds queued for the background thread and not begun are dropped
       (the next process takes the cold-start tier again, but for those whose
       calls spent TIER_MARK_S on the tier: marked, built at the next process's
       first use; a build under way is finished: the context must outlive it);
       then the worker drains its SAVE_NOW writes, so the next process starts
       warm; the SAVE_IDLE writes not begun are dropped (their markers stay). */
    job *wanted = NULL;
    pthread_mutex_lock(&c->lock);
    drop_prefetches_locked(c, &wanted);
    c->stopping = true;
    pthread_cond_broadcast(&c->queued);
    bool started = c->worker_started;
    pthread_mutex_unlock(&c->lock);
    if (started) pthread_join(c->worker, NULL);
    mark_wanted(c, wanted);
    for (int b = 0; b < BUCKETS; b++) {
        entry *e = c->buckets[b];
        while (e) {
            entry *next = e->next;
            clReleaseProgram(e->program);
            free(e);
            e = next;
        }
    }
    pthread_cond_destroy(&c->queued);
    pthread_cond_destroy(&c->built);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* The entry of (id, options) in bucket b, or NULL. Called with the lock held. */
static entry *find(clb__program_cache *c, unsigned b, clb__kernel_id id, const char *options)
{
    for (entry *e = c->buckets[b]; e; e = e->next)
        if (e->id == id && strcmp(e->options, options) == 0) return e;
    return NULL;
}

static void unlink_entry(clb__program_cache *c, unsigned b, entry *gone)
{
    for (entry **p = &c->buckets[b]; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            return;
        }
}

/* The device's quirk workarounds (cl_quirks.c) join every build: the full
   option string, malloc'd (NULL when out of memory). */
static char *full_options(const clb__program_cache *c, const char *options)
{
    size_t full_len = strlen(options) + strlen(c->quirk_options) + 1;
    char *full = malloc(full_len);
    if (full) snprintf(full, full_len, "%s%s", options, c->quirk_options);
    return full;
}

/* Leaves a marker for each dropped build of `list` (freed) whose file is not on
   disk: the next process builds it at its first use (load_or_build). */
static void mark_wanted(clb__program_cache *c, job *list)
{
    char *key = malloc(PATH_CAP), *name = malloc(PATH_CAP);
    while (list) {
        job *j = list;
        list = j->next;
        char *full = key && name ? full_options(c, j->text) : NULL;
        int dirfd = full ? clb__cache_dir_open(c->dir, false, NULL, 0) : -1;
        struct stat st;
        if (dirfd >= 0 && disk_key(c, j->id, full, key, PATH_CAP, name, PATH_CAP) &&
            fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            disk_mark(c, key, name);
        if (dirfd >= 0) close(dirfd);
        free(full);
        free(j);
    }
    free(key);
    free(name);
}

void clb__program_cache_tier_time(clb__program_cache *c, clb__kernel_id id, const char *options,
                                  double seconds)
{
    pthread_mutex_lock(&c->lock);
    for (job *j = c->jobs; j; j = j->next)
        if (!j->save && j->id == id && strcmp(j->text, options) == 0) j->tier_s += seconds;
    pthread_mutex_unlock(&c->lock);
}

static bool queue_save(clb__program_cache *c, const char *key, const char *name, cl_program prog,
                       bool idle);

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* How long after the calling threads last used the compiler the background
   thread waits before its next build. A driver may compile most of a kernel at
   its first launch, after the program build (PoCL: 0.2-2 s per kernel here):
   the grace spans that too. */
#define BUSY_GRACE_S 1.0

static void busy_locked(clb__program_cache *c)
{
    double until = monotonic_s() + BUSY_GRACE_S;
    if (until > c->busy_until) c->busy_until = until;
}

void clb__program_cache_busy(clb__program_cache *c)
{
    pthread_mutex_lock(&c->lock);
    busy_locked(c);
    pthread_mutex_unlock(&c->lock);
}

/* The program of (id, options) from the disk cache, else (build, or a program
   the disk cache marked as wanted) compiled from source and saved as the save
   mode says; *loaded: it came from disk. Called without the lock. */
static clb_status load_or_build(clb__program_cache *c, clb__kernel_id id, const char *options,
                                bool build, bool background, cl_program *out, bool *loaded)
{
    clb_status st = CLB_OK;
    char *key = malloc(PATH_CAP), *name = malloc(PATH_CAP), *full = full_options(c, options);
    cl_program prog = NULL;
    if (!key || !name || !full)
        CLB_FAIL(CLB_ERR_OUT_OF_MEMORY, "out of host memory caching an OpenCL program");
    bool on_disk = disk_key(c, id, full, key, PATH_CAP, name, PATH_CAP);
    bool marked = false;
    if (on_disk) prog = disk_load(c, key, name, full, &marked);
    if (prog) {
        *loaded = true;
    } else if (build || marked) {
        CLB_TRY(build_source(c, id, full, &prog));
        if (on_disk && c->save_mode == SAVE_NOW &&
            (background || !queue_save(c, key, name, prog, false)))
            disk_save(c, key, name, prog);
        if (on_disk && c->save_mode == SAVE_IDLE) {
            if (!marked) disk_mark(c, key, name);
            queue_save(c, key, name, prog, true); /* not queued: the marker stays */
        }
    }
cleanup:
    *out = prog;
    free(key);
    free(name);
    free(full);
    return st;
}

/* clb__program_cache_get and, with build false, clb__program_cache_find_built:
   the program from memory, else from the disk cache, else (build) compiled. */
static clb_status lookup(clb__program_cache *c, clb__kernel_id id, const char *options, bool build,
                         bool background, cl_program *out)
{
    *out = NULL;
    unsigned b = bucket_of(id, options);
    pthread_mutex_lock(&c->lock);
    entry *e = find(c, b, id, options);
    if (!build && e && !e->program) { /* being built: not ready, and no wait */
        pthread_mutex_unlock(&c->lock);
        return CLB_OK;
    }
    /* Another thread builds it (a prefetch, or a concurrent first use): wait
       for it rather than compile the same program twice. */
    while (e && !e->program) {
        pthread_cond_wait(&c->built, &c->lock);
        e = find(c, b, id, options);
    }
    if (e) {
        c->stats.hits++;
        *out = e->program;
        pthread_mutex_unlock(&c->lock);
        return CLB_OK;
    }
    /* Ours to build: a placeholder holds the key while the lock is free, so other
       programs' lookups never wait for this compiler run. */
    size_t opt_len = strlen(options);
    e = malloc(sizeof *e + opt_len + 1);
    if (!e) {
        pthread_mutex_unlock(&c->lock);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "out of host memory caching an OpenCL program");
    }
    e->id = id;
    e->program = NULL;
    memcpy(e->options, options, opt_len + 1);
    e->next = c->buckets[b];
    c->buckets[b] = e;
    if (!background) c->busy_builds++;
    pthread_mutex_unlock(&c->lock);

    cl_program prog = NULL;
    bool loaded = false;
    clb_status st = load_or_build(c, id, options, build, background, &prog, &loaded);

    pthread_mutex_lock(&c->lock);
    if (prog) {
        e->program = prog;
        if (loaded) c->stats.binary_loads++;
        else c->stats.source_builds++;
        c->stats.entries++;
        *out = prog;
    } else {
        unlink_entry(c, b, e); /* the next use tries again and reports its own error */
        free(e);
    }
    /* A compiler run of a calling thread holds the background builds off for
       a grace period; a probe of the disk cache alone (build false: a
       first-tier map asking whether its program has arrived) does not, or a
       loop of such calls less than the grace apart would hold off forever
       the very build it waits for (a float16 add in a loop stayed on the host:
       49-75 ms a call for 2^24 elements against the kernel's 5). */
    if (!background) {
        c->busy_builds--;
        if (build) busy_locked(c);
    }
    pthread_cond_broadcast(&c->built);
    pthread_mutex_unlock(&c->lock);
    return st;
}

clb_status clb__program_cache_get(clb__program_cache *c, clb__kernel_id id, const char *options,
                                  cl_program *out)
{
    return lookup(c, id, options, true, false, out);
}

clb_status clb__program_cache_find_built(clb__program_cache *c, clb__kernel_id id,
                                         const char *options, cl_program *out)
{
    return lookup(c, id, options, false, false, out);
}

/* The next job the background thread may run now: a queued build or SAVE_NOW
   write once the calling threads have left the compiler alone for a while (at
   once when stopping), else a SAVE_IDLE write after IDLE_SAVE_S more; NULL with
   *until set (when to look again) when none. Called with the lock held. */
static job *next_job_locked(clb__program_cache *c, double *until)
{
    double now = monotonic_s();
    bool quiet = c->busy_builds == 0 && now >= c->busy_until;
    job **list = NULL;
    if (c->jobs && (c->stopping || quiet)) list = &c->jobs;
    else if (!c->jobs && !c->stopping && c->idle_saves && quiet &&
             now >= c->busy_until + IDLE_SAVE_S)
        list = &c->idle_saves;
    if (!list) {
        *until = c->busy_builds > 0 ? now + BUSY_GRACE_S
                 : c->jobs          ? c->busy_until
                                    : c->busy_until + IDLE_SAVE_S;
        return NULL;
    }
    job *j = *list;
    *list = j->next;
    if (!c->jobs) c->jobs_tail = &c->jobs;
    if (!c->idle_saves) c->idle_tail = &c->idle_saves;
    return j;
}

/* The background builder: takes queued jobs in order until the cache goes. Its
   errors are dropped: the first use builds again and reports them. */
static void *worker_main(void *arg)
{
    clb__program_cache *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->jobs && !c->idle_saves && !c->stopping) pthread_cond_wait(&c->queued, &c->lock);
        if (!c->jobs && c->stopping) break; /* nothing left to build; idle writes dropped */
        /* Compilers serialise (PoCL holds one lock for all its builds): a build
           here would make the calls that wait for theirs wait for this one too,
           while the calls that queued these jobs already have their results.
           So the calling threads go first; when the cache is being destroyed
           nobody waits for a result any more. */
        double until = 0;
        job *j = next_job_locked(c, &until);
        if (!j) {
            struct timespec ts;
            ts.tv_sec = (time_t)until;
            ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
            pthread_cond_timedwait(&c->queued, &c->lock, &ts);
            continue;
        }
        pthread_mutex_unlock(&c->lock);
        cl_program built = NULL;
        if (j->save) {
            disk_save(c, j->text, j->text + strlen(j->text) + 1, j->save);
            clReleaseProgram(j->save);
        } else if (lookup(c, j->id, j->text, true, true, &built) == CLB_OK && j->warm) {
            j->warm(built, j->warm_user);
        }
        free(j);
        pthread_mutex_lock(&c->lock);
    }
    while (c->idle_saves) {
        job *j = c->idle_saves;
        c->idle_saves = j->next;
        clReleaseProgram(j->save);
        free(j);
    }
    c->idle_tail = &c->idle_saves;
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Appends j to the background thread's queue (idle: the SAVE_IDLE writes),
   starting the thread on first use; false (j not queued) when the cache is
   being destroyed or no thread can be started. Called with the lock held. */
static bool enqueue_locked(clb__program_cache *c, job *j, bool idle)
{
    if (c->stopping) return false;
    if (!c->worker_started) c->worker_started = pthread_create(&c->worker, NULL, worker_main, c) == 0;
    if (!c->worker_started) return false;
    j->next = NULL;
    job ***tail = idle ? &c->idle_tail : &c->jobs_tail;
    **tail = j;
    *tail = &j->next;
    pthread_cond_signal(&c->queued);
    return true;
}

/* Hands the disk write of a program a calling thread built to the background
   thread: asking a driver for a program's binary may compile all its kernels
   (PoCL builds every kernel of the program then, which a process otherwise
   pays only at each kernel's first launch), and the caller has its program
   already. false when it cannot be queued (the caller writes it itself). */
static bool queue_save(clb__program_cache *c, const char *key, const char *name, cl_program prog,
                       bool idle)
{
    size_t klen = strlen(key), nlen = strlen(name);
    job *j = malloc(sizeof *j + klen + nlen + 2);
    if (!j) return false;
    *j = (job){.save = prog};
    memcpy(j->text, key, klen + 1);
    memcpy(j->text + klen + 1, name, nlen + 1);
    if (clRetainProgram(prog) != CL_SUCCESS) {
        free(j);
        return false;
    }
    pthread_mutex_lock(&c->lock);
    bool queued = enqueue_locked(c, j, idle);
    pthread_mutex_unlock(&c->lock);
    if (!queued) {
        clReleaseProgram(prog);
        free(j);
    }
    return queued;
}

void clb__program_cache_prefetch(clb__program_cache *c, clb__kernel_id id, const char *options,
                                 clb__program_warm_fn warm, void *warm_user)
{
    unsigned b = bucket_of(id, options);
    size_t len = strlen(options);
    pthread_mutex_lock(&c->lock);
    bool known = find(c, b, id, options) != NULL;
    for (job *j = c->jobs; j && !known; j = j->next)
        known = !j->save && j->id == id && strcmp(j->text, options) == 0;
    if (!known) {
        job *j = malloc(sizeof *j + len + 1);
        if (j) {
            *j = (job){.id = id, .warm = warm, .warm_user = warm_user, .tier_s = 0};
            memcpy(j->text, options, len + 1);
            /* No thread: the first use builds it as before. */
            if (!enqueue_locked(c, j, false)) free(j);
        }
    }
    pthread_mutex_unlock(&c->lock);
}

void clb__program_cache_get_stats(clb__program_cache *c, clb__program_cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
}
