/* Small file-system helpers shared by the on-disk caches: see files.h. */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/stat.h>

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
