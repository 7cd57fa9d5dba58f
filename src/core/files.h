/* Small file-system helpers shared by the on-disk caches (program_cache.c,
   cl_matmul_tune.c). */
#ifndef CLB_FILES_H
#define CLB_FILES_H

#include <stdbool.h>

#include <stddef.h>

/* Creates directory `dir` and its missing parents (mode 0700); false on failure. */
bool clb__make_dirs(const char *dir);

/* The directory of the on-disk caches (built programs, matmul tunings):
   $CLB_CACHE_DIR ("off" disables them: ""), else $XDG_CACHE_HOME/clbroadcast,
   else ~/.cache/clbroadcast; "" when none applies or the path does not fit. */
void clb__cache_dir(char *buf, size_t cap);

#endif /* CLB_FILES_H */
