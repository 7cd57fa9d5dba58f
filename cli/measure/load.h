/* The load other processes put on the machine while a row ran (Linux
   /proc/stat): the busy fraction of all CPUs minus this process's own CPU time
   (getrusage, all its threads, an OpenCL CPU driver's workers included).
   /proc/stat counts in clock ticks (1/100 s per CPU), so a row shorter than
   BENCH_LOAD_MIN_WINDOW_S is measured over a window widened back to that
   length (through the rows before it), never over a few ticks. */
#ifndef CLB_CLI_LOAD_H
#define CLB_CLI_LOAD_H

#define BENCH_LOAD_MIN_WINDOW_S 0.25

typedef struct bench_load {
    int ok;                         /* 0: /proc/stat could not be read */
    double t;                       /* monotonic seconds */
    unsigned long long busy, total; /* clock ticks, all CPUs */
    double own_s;                   /* this process's user + system seconds */
} bench_load;

void bench_load_begin(bench_load *l);
/* Other processes' busy share of all CPUs since begin (or over the widened
   window), 0..1; < 0 when unknown (no /proc/stat). */
double bench_load_end(const bench_load *l);

#endif /* CLB_CLI_LOAD_H */
