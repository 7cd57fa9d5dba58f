/* Small file-system helpers shared by the on-disk caches: see files.h. */
#include "files.h"

#include <errno.h>
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
