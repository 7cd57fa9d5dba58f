/* What every peak is, and the helpers both measurements share (see peaks.h). */
#include "peaks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const bench_peak_meta bench_peak_table[PEAK_COUNT] = {
    [PEAK_COPY] = {"copy", "copy bandwidth", UNIT_GBPS},
    [PEAK_READ] = {"read", "read-only bandwidth", UNIT_GBPS},
    [PEAK_WRITE] = {"write", "write-only bandwidth", UNIT_GBPS},
    [PEAK_FMA_F32] = {"fma_float32", "FMA float32", UNIT_GFLOPS},
    [PEAK_FMA_F16] = {"fma_float16", "FMA float16", UNIT_GFLOPS},
    [PEAK_FMA_F64] = {"fma_float64", "FMA float64", UNIT_GFLOPS},
    [PEAK_LAUNCH_ROUND_TRIP] = {"launch_round_trip", "empty launch, round trip", UNIT_US},
    [PEAK_LAUNCH_PIPELINED] = {"launch_pipelined", "empty launch, pipelined", UNIT_US},
    [PEAK_HOST_TO_DEVICE] = {"host_to_device", "host -> device", UNIT_GBPS},
    [PEAK_DEVICE_TO_HOST] = {"device_to_host", "device -> host", UNIT_GBPS},
    [PEAK_MAPPED] = {"mapped", "mapped (zero-copy) write", UNIT_GBPS},
};

const char *bench_unit_name(bench_peak_unit u)
{
    switch (u) {
    case UNIT_GBPS: return "GB/s";
    case UNIT_GFLOPS: return "GFLOP/s";
    case UNIT_US: return "us";
    }
    return "";
}

void bench_peak_finish(bench_peak *p, bench_peak_unit unit)
{
    p->measured = 1;
    p->unsupported = 0;
    p->reason[0] = '\0';
    /* A peak is the best the device did: the fastest run (BabelStream's and
       clpeak's headline too), so another process's load during some runs
       lowers no pattern's reference; patterns report their median. */
    p->value = unit == UNIT_US ? p->st.min_s * 1e6 : p->work / p->st.min_s / 1e9;
}

void bench_peak_skip(bench_peak *p, int unsupported, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p->measured = 0;
    p->unsupported = unsupported;
    vsnprintf(p->reason, sizeof p->reason, fmt, ap);
    va_end(ap);
    memset(&p->st, 0, sizeof p->st);
    p->st.other_load = -1;
    p->value = 0;
}

size_t bench_peak_bytes(int quick, unsigned long long max_alloc)
{
    size_t bytes = (size_t)(quick ? 4 : 256) << 20;
    const size_t mib = (size_t)1 << 20;
    if (max_alloc && bytes > max_alloc) bytes = (size_t)(max_alloc / mib) * mib;
    return bytes ? bytes : mib;
}

void bench_random_floats(float *v, size_t n, unsigned long long seed)
{
    unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned int bits = 0x3f800000u | (unsigned int)(s >> 41); /* 23 random mantissa bits */
        memcpy(&v[i], &bits, sizeof bits);
    }
}
