/* The PyTorch / NumPy server bench/torch_ref.py, driven one command at a time
 * over a pipe (see peer.h). */
#include "peer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int peer_open(peer *p, int threads)
{
    memset(p, 0, sizeof *p);
    const char *py = getenv("CLB_BENCH_PYTHON");
    if (!py || !py[0]) py = "/usr/bin/python3";
    int down[2], up[2];
    if (pipe(down) != 0) return -1;
    if (pipe(up) != 0) return close(down[0]), close(down[1]), -1;
    char tbuf[16];
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    fflush(stdout);
    p->pid = fork();
    if (p->pid < 0) return close(down[0]), close(down[1]), close(up[0]), close(up[1]), -1;
    if (p->pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[0]), close(down[1]), close(up[0]), close(up[1]);
        execl(py, py, CLB_BENCH_DIR "/torch_ref.py", "--serve", "--threads", tbuf, (char *)NULL);
        _exit(127);
    }
    close(down[0]), close(up[1]);
    p->to = fdopen(down[1], "w");
    p->from = fdopen(up[0], "r");
    if (!p->to || !p->from || !fgets(p->hello, sizeof p->hello, p->from)) return -1;
    p->hello[strcspn(p->hello, "\n")] = 0;
    return strncmp(p->hello, "ready", 5) == 0 ? 0 : -1;
}

/* Sends one command line, reads the one-line answer into ans. */
int peer_ask(peer *p, char *ans, size_t cap, const char *fmt, ...)
{
    if (!p->to) return -1;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->to, fmt, ap);
    va_end(ap);
    fputc('\n', p->to);
    fflush(p->to);
    if (!fgets(ans, (int)cap, p->from)) return -1;
    ans[strcspn(ans, "\n")] = 0;
    return 0;
}

void peer_close(peer *p)
{
    if (p->to) fputs("quit\n", p->to), fclose(p->to);
    if (p->from) fclose(p->from);
    if (p->pid > 0) waitpid(p->pid, NULL, 0);
    memset(p, 0, sizeof *p);
}
