/* Small file-system helpers shared by the on-disk caches (program_cache.c,
   cl_matmul_tune.c). */
#ifndef CLB_FILES_H
#define CLB_FILES_H

#include <stdbool.h>

/* Creates directory `dir` and its missing parents (mode 0700); false on failure. */
bool clb__make_dirs(const char *dir);

#endif /* CLB_FILES_H */
