/* The on-disk caches' file system rules (cl_program_cache.c, cl_tuning_file.c), in one
   place: docs/cache.md says what the cache trusts and why.

   The cache directory is a security boundary: a process loads what it finds there
   into its OpenCL driver, so whoever can write the directory can run code in the
   process. It is therefore used only when it is a directory owned by the effective
   user and writable by nobody else; every file is opened inside it (openat on the
   checked directory's descriptor, never by path), only regular files owned by the
   user are read (O_NOFOLLOW | O_NONBLOCK, then fstat: a symlink, FIFO or device is
   a miss, never a wait), and every write goes to a fresh temporary file made with
   O_CREAT | O_EXCL | O_NOFOLLOW in the directory, then renamed over the entry. */
#ifndef CLB_FILES_H
#define CLB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Creates directory `dir` and its missing parents (mode 0700); false on failure. */
bool clb__make_dirs(const char *dir);

/* The directory of the on-disk caches (built programs, matmul tunings):
   $CLB_CACHE_DIR ("off" disables them: ""), else $XDG_CACHE_HOME/clbroadcast,
   else ~/.cache/clbroadcast; "" when none applies or the path does not fit. */
void clb__cache_dir(char *buf, size_t cap);

/* Opens cache directory `dir` (from clb__cache_dir) after checking it; with create,
   makes it (0700) and its missing parents first. Returns a descriptor of the
   directory (O_CLOEXEC; the caller closes it), or -1: dir is "" (caching off), does
   not exist (create false) or cannot be made, or is refused. Refused — why gets a
   message naming the directory and what to do, else why[0] is '\0' — when it is
   not a directory, is not owned by the effective user, is writable by group or
   others, or is reached through a symbolic link owned by another user. */
int clb__cache_dir_open(const char *dir, bool create, char *why, size_t why_cap);

/* Reads file `name` of directory descriptor dirfd: a regular file owned by the
   effective user, 1 to max bytes. Returns its bytes (malloc'd) and *size, or NULL
   (absent, not a regular file, someone else's, empty, too large, unreadable). */
unsigned char *clb__cache_read(int dirfd, const char *name, size_t max, size_t *size);

/* Reads at most cap bytes from the start of file `name` of dirfd, with the same
   checks as clb__cache_read but any size; the number read, or 0. */
size_t clb__cache_read_head(int dirfd, const char *name, void *buf, size_t cap);

/* Replaces file `name` of dirfd with the concatenation of n parts: written to a
   new temporary file of the directory (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600),
   then renamed over `name`, so readers see the old file or the whole new one and a
   planted symlink is replaced, never followed. false (errno set, nothing left
   behind) on failure. */
bool clb__cache_write(int dirfd, const char *name, int n, const void *const *parts,
                      const size_t *lens);

/* FNV-1a over n bytes, continuing from h (CLB__FNV_SEED to start): the caches'
   file names and checksums. */
#define CLB__FNV_SEED 0xcbf29ce484222325ull
uint64_t clb__fnv1a(uint64_t h, const void *data, size_t n);

#endif /* CLB_FILES_H */
