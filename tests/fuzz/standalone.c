/* Runs a fuzz target over files and directories of inputs without libFuzzer,
 * so the committed corpus (seeds and the reproducers of every crash found) is
 * a regression test of the normal and the sanitizer builds. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return perror(path), 1;
    uint8_t *buf = NULL;
    size_t size = 0, cap = 0, got;
    do {
        if (size == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) return free(buf), fclose(f), 1;
            buf = grown;
        }
        got = fread(buf + size, 1, cap - size, f);
        size += got;
    } while (got > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, size);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) return perror(argv[i]), 1;
        if (!S_ISDIR(st.st_mode)) {
            failed |= run_file(argv[i]), files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return perror(argv[i]), 1;
        char path[4096];
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed |= run_file(path), files++;
        }
        closedir(d);
    }
    printf("%d inputs\n", files);
    return failed;
}
