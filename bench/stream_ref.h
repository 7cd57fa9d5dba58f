/* The C streaming limit of bench_peers (issue 19): each pattern computed by a
   plain C kernel, OpenMP over every core, a cache line per step in the
   widest vectors the build targets (-march=native where the compiler has it)
   and non-temporal stores (the widest x86 _mm*_stream_ps; plain stores
   elsewhere, and clbb_stream_nt() says so). The same bytes are read and written as the
   library's call: the pattern's inputs once, its output once. Outside the
   library, as bench/refcopy.h is for the OpenCL copy. float32 throughout;
   rows are whole cache lines (cols a multiple of 16). */
#ifndef CLB_BENCH_STREAM_REF_H
#define CLB_BENCH_STREAM_REF_H

#include <stdint.h>

typedef enum clbb_stream_kind {
    CLBB_S_SAME,     /* out[i] = a[i] + b[i]                      (n)          */
    CLBB_S_ROW,      /* out[r,c] = a[r,c] + b[c]                  (rows, cols) */
    CLBB_S_COL,      /* out[r,c] = a[r,c] + b[r]                  (rows, cols) */
    CLBB_S_CHANNEL,  /* out[r,k] = a[r,k] - b[r % ch]             (rows, cols = H*W, ch) */
    CLBB_S_OUTER,    /* out[r,c] = a[r] + b[c]                    (rows, cols) */
    CLBB_S_EXPAND,   /* out[r,k] = a[r % ch]                      (rows, cols, ch) */
    CLBB_S_ROWSUM,   /* out[r] = sum_c a[r,c]                     (rows, cols) */
    CLBB_S_COLSUM,   /* out[c] = sum_r a[r,c]                     (rows, cols) */
    CLBB_S_CHMEAN,   /* out[k] = mean of rows r % ch == k         (rows, cols, ch) */
    CLBB_S_BATCHNORM /* out[r,c] = (a[r,c] - b[c]) / sqrt(v[c] + 1e-5), the sqrt row once per call */
} clbb_stream_kind;

typedef struct clbb_stream {
    clbb_stream_kind kind;
    int64_t rows, cols, ch;
    float *a, *b, *v, *out;     /* 64-byte aligned, first touched by the threads that use them */
    const float *src;           /* NULL, or the bytes the kernel reads in place of a (see below) */
    float *partial;             /* per-thread partial sums / the sqrt row */
    int threads;
} clbb_stream;

/* Allocates and fills the operands (a from `seed`); 0 on success. */
int clbb_stream_setup(clbb_stream_kind kind, int64_t rows, int64_t cols, int64_t ch, uint64_t seed,
                      clbb_stream *s);
/* Points the pattern's first operand at `a` (NULL: back to its own, s->a):
   a's a_count floats, 64-byte aligned, are read in place of s->a's. For the
   read-only patterns (ROWSUM, COLSUM, CHMEAN) the limit can so read the very
   bytes the library's call reads (its buffer, mapped): where two 256 MiB
   allocations are read at rates a few per cent apart (memory placement under
   a hypervisor), that difference then stays out of the ratio. */
void clbb_stream_read_from(clbb_stream *s, const float *a);
/* One call of the pattern (a clbb_run_fn: takes the clbb_stream, returns CLB_OK). */
int clbb_stream_run(void *s);
void clbb_stream_close(clbb_stream *s);

/* Bytes the pattern reads and writes once each (the GB/s the limit reports). */
double clbb_stream_bytes(const clbb_stream *s);
int clbb_stream_threads(void); /* OpenMP threads the kernels use */
int clbb_stream_nt(void);      /* 1 when the stores are non-temporal */

#endif /* CLB_BENCH_STREAM_REF_H */
