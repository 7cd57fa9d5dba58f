/* Built OpenCL programs, cached on two levels (CLBlast's scheme):
 *  - in memory, per context, by (kernel id, option string): a launch looks up
 *    a short string, it never hashes kernel sources;
 *  - on disk, by a hash of (sources, options, platform, device, driver,
 *    library version), so later processes skip the compiler. The directory is
 *    $CLB_CACHE_DIR ("off" disables it), else $XDG_CACHE_HOME/clbroadcast,
 *    else ~/.cache/clbroadcast, under files.h's rules (a private directory,
 *    regular files, O_EXCL temporaries renamed over entries; docs/cache.md);
 *    an unreadable, truncated, swapped or foreign file is ignored and rebuilt.
 *    Every process reads it; on PoCL with its own kernel cache on, only clb
 *    warmup and CLB_CACHE_WRITE=always write it (writes_programs). */
#ifndef CLB_PROGRAM_CACHE_H
#define CLB_PROGRAM_CACHE_H

#include "clbroadcast.h"
#include "cl_kernels.h"

#include <CL/cl.h>
#include <stdbool.h>

typedef struct clb__program_cache clb__program_cache;

/* info names the device in messages and in disk-cache keys. */
clb_status clb__program_cache_create(cl_context context, cl_device_id device,
                                     const clb_device_info *info, clb__program_cache **out);
void clb__program_cache_destroy(clb__program_cache *cache); /* NULL-safe; releases the programs */

/* The program for (id, options), built on first use. The program stays owned by
   the cache (valid until it is destroyed). Thread-safe: the compiler runs
   outside the cache's lock, and a caller asking for a program another thread is
   building waits for that build. A compiler error is CLB_ERR_BUILD with the
   build log in the message. */
clb_status clb__program_cache_get(clb__program_cache *cache, clb__kernel_id id,
                                  const char *options, cl_program *out);
/* The program if clb__program_cache_get can answer without the compiler (in
   memory, or loaded now from the disk cache); CLB_OK with *out NULL when it
   would have to compile it, or another thread is compiling it. */
clb_status clb__program_cache_find_built(clb__program_cache *cache, clb__kernel_id id,
                                         const char *options, cl_program *out);
/* Run by the background thread on a program it built: a driver that compiles
   the rest of a kernel at its first launch (PoCL: per work-group size) does it
   there, not in the next process's first call. */
typedef void (*clb__program_warm_fn)(cl_program program, void *user);
/* Queues a build of (id, options) on the cache's background thread (started on
   first use; clb__program_cache_destroy finishes a build under way, drops those
   not begun -- see clb__program_cache_tier_time -- and joins it), so a later
   clb__program_cache_get finds it ready; then warm(program, warm_user) unless
   warm is NULL. Nothing when it is known or queued already; errors are left for
   the first real use to report. */
void clb__program_cache_prefetch(clb__program_cache *cache, clb__kernel_id id,
                                 const char *options, clb__program_warm_fn warm, void *warm_user);

/* Adds `seconds` of first-tier work (a call run on the host while its program
   waits in the queue) to the queued build of (id, options); a build dropped
   unbegun at clb__program_cache_destroy after enough of it is marked on disk
   as wanted, so the next process builds it at its first use. */
void clb__program_cache_tier_time(clb__program_cache *cache, clb__kernel_id id,
                                  const char *options, double seconds);

/* Tells the cache that a calling thread is using the compiler outside it (a
   kernel's first launch, which some drivers compile then): the background
   thread waits until a while after the last such use or build before starting
   its next build. */
void clb__program_cache_busy(clb__program_cache *cache);

typedef struct clb__program_cache_stats {
    unsigned long hits;          /* found in memory */
    unsigned long source_builds; /* compiled from source */
    unsigned long binary_loads;  /* loaded from the disk cache */
    unsigned long entries;       /* programs held in memory */
} clb__program_cache_stats;
void clb__program_cache_get_stats(clb__program_cache *cache, clb__program_cache_stats *out);

/* Number of files in the disk cache built for this device with this driver and
   library version (0 when the cache is disabled or absent); CLB_ERR_UNSUPPORTED
   with the reason when the directory is refused (files.h). */
clb_status clb__program_cache_count(const clb_device_info *info, int *count);

/* Finds the program binary inside the bytes of a disk-cache file whose key must
   be `key`; false for anything malformed, truncated or foreign. */
bool clb__program_cache_parse(const unsigned char *data, size_t size, const char *key,
                              const unsigned char **bin, size_t *bin_len);


#endif /* CLB_PROGRAM_CACHE_H */
