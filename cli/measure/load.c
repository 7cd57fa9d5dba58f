/* Other processes' load from /proc/stat (see load.h). */
#include "load.h"

#include "harness.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Recent snapshots, to widen short windows (the cli is single-threaded). */
#define RING 64
static bench_load ring[RING];
static int ring_n, ring_next;

static int read_stat(unsigned long long *busy, unsigned long long *total)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return 0;
    /* cpu user nice system idle iowait irq softirq steal (guest time is in user) */
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4) return 0;
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *total = *busy + v[3] + v[4];
    return 1;
}

static double own_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static void snapshot(bench_load *l)
{
    l->ok = read_stat(&l->busy, &l->total);
    l->t = clbb_now();
    l->own_s = own_seconds();
    if (l->ok) {
        ring[ring_next] = *l;
        ring_next = (ring_next + 1) % RING;
        if (ring_n < RING) ring_n++;
    }
}

void bench_load_begin(bench_load *l)
{
    snapshot(l);
}

double bench_load_end(const bench_load *l)
{
    bench_load now;
    snapshot(&now);
    if (!l->ok || !now.ok) return -1;
    const bench_load *from = l;
    if (now.t - l->t < BENCH_LOAD_MIN_WINDOW_S) {
        /* the newest snapshot at least the minimum window back, else the oldest */
        const bench_load *best = NULL;
        for (int i = 0; i < ring_n; i++) {
            const bench_load *s = &ring[i];
            if (s->t <= now.t - BENCH_LOAD_MIN_WINDOW_S) {
                if (!best || s->t > best->t) best = s;
            }
        }
        if (!best)
            for (int i = 0; i < ring_n; i++)
                if (!best || ring[i].t < best->t) best = &ring[i];
        if (best && best->t < from->t) from = best;
    }
    double hz = (double)sysconf(_SC_CLK_TCK);
    if (!(hz > 0) || now.total <= from->total) return -1;
    double busy_s = (double)(now.busy - from->busy) / hz, total_s = (double)(now.total - from->total) / hz;
    double other = (busy_s - (now.own_s - from->own_s)) / total_s;
    return other < 0 ? 0 : other > 1 ? 1 : other;
}
