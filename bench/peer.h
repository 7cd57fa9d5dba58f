/* The PyTorch / NumPy server (bench/torch_ref.py --serve) that bench_peers and
 * bench_stats time their peers with: one command line out, one answer line back,
 * so each peer call runs interleaved with the library's in the same rounds. */
#ifndef CLB_BENCH_PEER_H
#define CLB_BENCH_PEER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct peer {
    pid_t pid;
    FILE *to, *from;
    char hello[256]; /* the server's first line ("ready ...") */
} peer;

/* Starts $CLB_BENCH_PYTHON (default /usr/bin/python3) on torch_ref.py with
   `threads` threads; 0 once it said "ready", else -1 (p may hold a half-open
   server: peer_close it). */
int peer_open(peer *p, int threads);
/* Sends one command line (printf-style), reads the one-line answer into ans. */
int peer_ask(peer *p, char *ans, size_t cap, const char *fmt, ...);
/* Says "quit", closes the pipes and waits for the server. */
void peer_close(peer *p);

#endif /* CLB_BENCH_PEER_H */
