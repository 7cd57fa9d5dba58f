/* The peaks `clb bench` measures on each device before any pattern, each with
   random data and its kernel stated (clpeak's and BabelStream's set): copy,
   read-only and write-only bandwidth, FMA throughput in float32, float16 and
   float64, empty-kernel launch latency as a round trip and pipelined, and
   host->device, device->host and mapped transfer bandwidth.

   On OpenCL devices they are raw OpenCL kernels (cli/peaks/peaks.cl) on the
   context's own cl_context and queue (clbroadcast_cl.h), outside the library;
   on the host backend they are plain C loops (peaks_host.c), and what has no
   meaning there (launches, transfers, float16) is marked unsupported. */
#ifndef CLB_CLI_PEAKS_H
#define CLB_CLI_PEAKS_H

#include "clbroadcast.h"
#include "measure/measure.h"

typedef enum bench_peak_id {
    PEAK_COPY,
    PEAK_READ,
    PEAK_WRITE,
    PEAK_FMA_F32,
    PEAK_FMA_F16,
    PEAK_FMA_F64,
    PEAK_LAUNCH_ROUND_TRIP,
    PEAK_LAUNCH_PIPELINED,
    PEAK_HOST_TO_DEVICE,
    PEAK_DEVICE_TO_HOST,
    PEAK_MAPPED,
    PEAK_COUNT
} bench_peak_id;

typedef enum bench_peak_unit { UNIT_GBPS, UNIT_GFLOPS, UNIT_US } bench_peak_unit;

typedef struct bench_peak_meta {
    const char *id;    /* JSON key: "copy", "fma_float32", "launch_round_trip", ... */
    const char *title; /* "copy bandwidth" */
    bench_peak_unit unit;
} bench_peak_meta;
extern const bench_peak_meta bench_peak_table[PEAK_COUNT];
const char *bench_unit_name(bench_peak_unit u); /* "GB/s", "GFLOP/s", "us" */

typedef struct bench_peak {
    int measured;       /* 1: stats and value hold; 0: see reason */
    int unsupported;    /* not measured because the device has no such thing (not a failure) */
    char reason[256];   /* why not measured; "" when measured */
    char kernel[320];   /* what ran: kernel, data, sizes, work per run */
    double work;        /* bytes (GB/s) or flops (GFLOP/s) per unit; 0 for latencies */
    bench_stats st;
    double value;       /* at the fastest run: GB/s, GFLOP/s, or microseconds */
} bench_peak;

/* Every peak of the device behind ctx; quick: 4 MiB buffers instead of 256 MiB
   and shorter calibration. Failures are recorded per peak, never returned. */
void bench_peaks_host(const bench_plan *plan, int quick, bench_peak *peaks);
#ifdef CLB_CLI_HAVE_OPENCL
void bench_peaks_cl(clb_context *ctx, const clb_device_info *info, const bench_plan *plan,
                    int quick, bench_peak *peaks);
#endif

/* Value of a peak from its fastest run (work / min / 1e9, or microseconds). */
void bench_peak_finish(bench_peak *p, bench_peak_unit unit);
/* Marks p as not measured: unsupported (1) or failed (0), with a reason. */
void bench_peak_skip(bench_peak *p, int unsupported, const char *fmt, ...);

/* Buffer size of the bandwidth and transfer peaks, in bytes. */
size_t bench_peak_bytes(int quick, unsigned long long max_alloc);

/* Fills v with n floats uniform in [1, 2) (random mantissas: incompressible). */
void bench_random_floats(float *v, size_t n, unsigned long long seed);

#endif /* CLB_CLI_PEAKS_H */
