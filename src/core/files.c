/* The on-disk caches' file system rules: see files.h and docs/cache.md. */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_CAP 4096

bool clb__make_dirs(const char *dir)
{
    char path[PATH_CAP];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) return false;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0') continue;
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) return false;
        path[i] = saved;
    }
    return true;
}

static void join(char *buf, size_t cap, const char *a, const char *b)
{
    int n = snprintf(buf, cap, "%s%s", a, b);
    if (n < 0 || (size_t)n >= cap) buf[0] = '\0'; /* a path we cannot hold disables the cache */
}

void clb__cache_dir(char *buf, size_t cap)
{
    if (cap == 0) return;
    buf[0] = '\0';
    const char *env = getenv("CLB_CACHE_DIR");
    if (env && env[0]) {
        if (strcasecmp(env, "off") != 0) join(buf, cap, env, "");
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') { /* the XDG spec says relative values are to be ignored */
        join(buf, cap, xdg, "/clbroadcast");
        return;
    }
    const char *home = getenv("HOME");
    if (home && home[0]) join(buf, cap, home, "/.cache/clbroadcast");
}

#define ADVICE                                                                                     \
    "; the library runs without a disk cache (every process compiles its kernels): "           \
    "use a directory only you can write (chmod 700), or set CLB_CACHE_DIR to one (or to off)"

/* Why directory `dir` (lstat'ed as *link, opened and fstat'ed as *st) is not
   trusted; false when it is. */
static bool refuse(const char *dir, const struct stat *link, const struct stat *st, char *why,
                   size_t cap)
{
    uid_t me = geteuid();
    if (S_ISLNK(link->st_mode) && link->st_uid != me && link->st_uid != 0)
        snprintf(why, cap, "the cache directory %s is a symbolic link owned by uid %ld, not you%s",
                 dir, (long)link->st_uid, ADVICE);
    else if (!S_ISDIR(st->st_mode))
        snprintf(why, cap, "the cache directory %s is not a directory%s", dir, ADVICE);
    else if (st->st_uid != me)
        snprintf(why, cap, "the cache directory %s is owned by uid %ld, not by you (uid %ld)%s",
                 dir, (long)st->st_uid, (long)me, ADVICE);
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, cap,
                 "the cache directory %s is writable by %s (mode %04o): anyone who can write it "
                 "could run code in your processes%s",
                 dir, (st->st_mode & S_IWOTH) ? "other users" : "its group",
                 (unsigned)(st->st_mode & 07777), ADVICE);
    else
        return false;
    return true;
}

int clb__cache_dir_open(const char *dir, bool create, char *why, size_t why_cap)
{
    char scratch[8];
    if (!why || why_cap == 0) why = scratch, why_cap = sizeof scratch;
    why[0] = '\0';
    if (!dir || !dir[0]) return -1;
    if (create && !clb__make_dirs(dir)) {
        struct stat st;
        if (errno == ENOTDIR || (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)))
            snprintf(why, why_cap,
                     "the cache directory %s is not a directory (or a file is on its path)%s", dir,
                     ADVICE);
        return -1;
    }
    struct stat link, st;
    if (lstat(dir, &link) != 0) return -1;
    /* Not a link when checked: not followed if one appears there now (a race in a
       parent others can write); a link: the checks below are of its target. */
    int nofollow = S_ISLNK(link.st_mode) ? 0 : O_NOFOLLOW;
    int fd = open(dir, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow);
    if (fd < 0) {
        if (errno == ENOTDIR || !S_ISDIR(link.st_mode))
            snprintf(why, why_cap, "the cache directory %s is not a directory%s", dir, ADVICE);
        return -1;
    }
    if (fstat(fd, &st) != 0 || refuse(dir, &link, &st, why, why_cap) ||
        (nofollow && (st.st_dev != link.st_dev || st.st_ino != link.st_ino))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A regular file of dirfd owned by us, opened for reading without following a
   link or waiting on a FIFO; -1 otherwise. */
static int open_regular(int dirfd, const char *name, struct stat *st)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid()) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads exactly n bytes at the current offset; false on error or short file. */
static bool read_full(int fd, unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, buf, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        buf += r;
        n -= (size_t)r;
    }
    return true;
}

unsigned char *clb__cache_read(int dirfd, const char *name, size_t max, size_t *size)
{
    struct stat st;
    *size = 0;
    int fd = open_regular(dirfd, name, &st);
    if (fd < 0) return NULL;
    unsigned char *data = NULL;
    if (st.st_size > 0 && (uintmax_t)st.st_size <= max) {
        data = malloc((size_t)st.st_size);
        if (data && !read_full(fd, data, (size_t)st.st_size)) {
            free(data);
            data = NULL;
        }
    }
    close(fd);
    if (data) *size = (size_t)st.st_size;
    return data;
}

size_t clb__cache_read_head(int dirfd, const char *name, void *buf, size_t cap)
{
    struct stat st;
    int fd = open_regular(dirfd, name, &st);
    if (fd < 0) return 0;
    size_t n = (uintmax_t)st.st_size < cap ? (size_t)st.st_size : cap;
    bool ok = read_full(fd, buf, n);
    close(fd);
    return ok ? n : 0;
}

static bool write_full(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* A new temporary file of dirfd for `name`; its name in tmp. O_EXCL: an existing
   name (a planted file or link included) is never opened, the next one is tried. */
static int create_temp(int dirfd, const char *name, char *tmp, size_t cap)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 64; attempt++) {
        int w = snprintf(tmp, cap, "%s.tmp.%ld.%u", name, (long)getpid(),
                         atomic_fetch_add(&counter, 1));
        if (w < 0 || (size_t)w >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                        0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

bool clb__cache_write(int dirfd, const char *name, int n, const void *const *parts,
                      const size_t *lens)
{
    char tmp[PATH_CAP];
    if (strchr(name, '/')) { /* names are the caches' own: never a path */
        errno = EINVAL;
        return false;
    }
    int fd = create_temp(dirfd, name, tmp, sizeof tmp);
    if (fd < 0) return false;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) ok = write_full(fd, parts[i], lens[i]);
    int saved = errno;
    if (close(fd) != 0 && ok) ok = false, saved = errno;
    if (ok && renameat(dirfd, tmp, dirfd, name) != 0) ok = false, saved = errno;
    if (!ok) {
        unlinkat(dirfd, tmp, 0);
        errno = saved;
    }
    return ok;
}

uint64_t clb__fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
