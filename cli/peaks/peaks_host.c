/* The host backend's peaks: plain C loops over host memory, as this build's
   compiler made them (see peaks.h). The host backend launches no kernels and
   moves nothing between memories, and C99 has no float16 type: those peaks are
   unsupported there. */
#include "peaks.h"

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct host_bufs {
    float *src, *dst;
    size_t n;
    long iters; /* FMA loop trips */
} host_bufs;

static volatile float sink_f;
static volatile double sink_d;

static int run_copy(void *u)
{
    host_bufs *b = u;
    for (size_t i = 0; i < b->n; i++) b->dst[i] = b->src[i];
    sink_f = b->dst[b->n - 1];
    return 0;
}

static int run_read(void *u)
{
    host_bufs *b = u;
    float s[8] = {0};
    for (size_t i = 0; i + 8 <= b->n; i += 8)
        for (int k = 0; k < 8; k++) s[k] += b->src[i + k];
    sink_f = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
    return 0;
}

static int run_write(void *u)
{
    host_bufs *b = u;
    for (size_t i = 0; i < b->n; i++) {
        unsigned int h = ((unsigned int)i * 2654435761u >> 9) | 0x3f800000u;
        memcpy(&b->dst[i], &h, sizeof h);
    }
    sink_f = b->dst[b->n / 2];
    return 0;
}

#define CHAINS 16

static int run_fma32(void *u)
{
    host_bufs *b = u;
    float x[CHAINS], y = 0.999f, c = 0.001f;
    for (int k = 0; k < CHAINS; k++) x[k] = (float)k;
    for (long i = 0; i < b->iters; i++)
        for (int k = 0; k < CHAINS; k++) x[k] = x[k] * y + c;
    float s = 0;
    for (int k = 0; k < CHAINS; k++) s += x[k];
    sink_f = s;
    return 0;
}

static int run_fma64(void *u)
{
    host_bufs *b = u;
    double x[CHAINS], y = 0.999, c = 0.001;
    for (int k = 0; k < CHAINS; k++) x[k] = (double)k;
    for (long i = 0; i < b->iters; i++)
        for (int k = 0; k < CHAINS; k++) x[k] = x[k] * y + c;
    double s = 0;
    for (int k = 0; k < CHAINS; k++) s += x[k];
    sink_d = s;
    return 0;
}

/* Loop trips for one FMA run of at least target_s seconds (the faster of two
   runs at each count, so one slow run does not stop it early). */
static long calibrate(bench_run_fn run, host_bufs *b, double target_s)
{
    for (b->iters = 1 << 14;; b->iters *= 2) {
        double t0 = clbb_now();
        run(b);
        double t1 = clbb_now();
        run(b);
        double t2 = clbb_now();
        if ((t1 - t0 < t2 - t1 ? t1 - t0 : t2 - t1) >= target_s || b->iters >= (1L << 34)) return b->iters;
    }
}

static void sample(bench_peak *p, const bench_plan *plan, bench_run_fn run, host_bufs *b,
                   bench_peak_unit unit)
{
    if (bench_sample(plan, run, b, 1, &p->st) != 0)
        bench_peak_skip(p, 0, "out of memory for the run times");
    else
        bench_peak_finish(p, unit);
}

void bench_peaks_host(const bench_plan *plan, int quick, bench_peak *peaks)
{
    memset(peaks, 0, PEAK_COUNT * sizeof *peaks);
    size_t bytes = bench_peak_bytes(quick, 0);
    host_bufs b = {malloc(bytes), malloc(bytes), bytes / sizeof(float), 0};
    const char *mem = quick ? "4 MiB" : "256 MiB";
    if (!b.src || !b.dst) {
        for (int i = PEAK_COPY; i <= PEAK_WRITE; i++)
            bench_peak_skip(&peaks[i], 0, "out of memory for two %s buffers", mem);
    } else {
        bench_random_floats(b.src, b.n, 1);
        memset(b.dst, 0, bytes); /* first touch outside the timing */
        snprintf(peaks[PEAK_COPY].kernel, sizeof peaks[0].kernel,
                 "plain C loop dst[i] = src[i] over %s of random float32", mem);
        peaks[PEAK_COPY].work = 2.0 * (double)bytes;
        sample(&peaks[PEAK_COPY], plan, run_copy, &b, UNIT_GBPS);
        snprintf(peaks[PEAK_READ].kernel, sizeof peaks[0].kernel,
                 "plain C loop summing %s of random float32 into 8 accumulators", mem);
        peaks[PEAK_READ].work = (double)bytes;
        sample(&peaks[PEAK_READ], plan, run_read, &b, UNIT_GBPS);
        snprintf(peaks[PEAK_WRITE].kernel, sizeof peaks[0].kernel,
                 "plain C loop writing %s of hashed (incompressible) float32", mem);
        peaks[PEAK_WRITE].work = (double)bytes;
        sample(&peaks[PEAK_WRITE], plan, run_write, &b, UNIT_GBPS);
    }
    free(b.src);
    free(b.dst);

    double target = quick ? 0.002 : 0.01;
    bench_run_fn fma[2] = {run_fma32, run_fma64};
    bench_peak_id ids[2] = {PEAK_FMA_F32, PEAK_FMA_F64};
    const char *types[2] = {"float", "double"};
    for (int i = 0; i < 2; i++) {
        bench_peak *p = &peaks[ids[i]];
        long iters = calibrate(fma[i], &b, target);
        snprintf(p->kernel, sizeof p->kernel,
                 "plain C loop, %d independent %s chains x = x * y + c, %ld trips (2 flops each)",
                 CHAINS, types[i], iters);
        p->work = 2.0 * CHAINS * (double)iters;
        sample(p, plan, fma[i], &b, UNIT_GFLOPS);
    }
    bench_peak_skip(&peaks[PEAK_FMA_F16], 1, "C99 has no float16 type (the host backend computes float16 in float32)");
    bench_peak_skip(&peaks[PEAK_LAUNCH_ROUND_TRIP], 1, "the host backend launches no kernels");
    bench_peak_skip(&peaks[PEAK_LAUNCH_PIPELINED], 1, "the host backend launches no kernels");
    for (int i = PEAK_HOST_TO_DEVICE; i <= PEAK_MAPPED; i++)
        bench_peak_skip(&peaks[i], 1, "the host backend's tensors are host memory: nothing to transfer");
}
