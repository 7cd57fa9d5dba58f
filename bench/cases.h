/* The broadcast patterns `clb bench` measures: one row per pattern in a table
   (operation, operand shapes at full and --quick size, byte and flop weights),
   and the code that builds a pattern's inputs on a context and runs it.

   Every pattern works on float32 data. Its byte weight is the number of
   distinct bytes it must read plus the bytes it writes (each input element
   once, however often broadcasting reuses it, and the output once): the
   traffic of a perfect kernel, so effective GB/s compares with a plain copy. */
#ifndef CLB_BENCH_CASES_H
#define CLB_BENCH_CASES_H

#include "clbroadcast.h"

#include <stddef.h>

typedef enum clbb_kind {
    CLBB_COPY,         /* clb_cast float32 -> float32 of a contiguous tensor: the peak */
    CLBB_BINARY,       /* clb_binary(op, a, b) */
    CLBB_NORMALIZE,    /* (a - b) * b2, with b2 of b's shape: batch-norm's normalize step */
    CLBB_REDUCE,       /* clb_reduce(CLB_SUM, a, axes) */
    CLBB_SUM_TO_SHAPE, /* clb_sum_to_shape(a, b's shape) */
    CLBB_MATMUL        /* clb_matmul(a, b) with broadcast batch dimensions */
} clbb_kind;

typedef struct clbb_shape {
    int ndim;
    int64_t dims[4];
} clbb_shape;

typedef struct clbb_case {
    const char *id;     /* stable key for CSV/JSON: "row_broadcast" */
    const char *title;  /* what a reader sees: "row broadcast" */
    clbb_kind kind;
    clb_binary_op op;   /* CLBB_BINARY only */
    clbb_shape a[2];    /* [0] full size, [1] --quick */
    clbb_shape b[2];    /* second operand, or the target shape of sum_to_shape */
    int naxes;          /* CLBB_REDUCE: the summed axes */
    int axes[4];
    int latency;        /* tiny on purpose: its time is launch overhead, not bandwidth */
    int peak;           /* a copy-shaped stream (read n, write n): a candidate for the peak */
} clbb_case;

/* The measured peak that limits a pattern, the 100 % of its row in `clb bench`:
   the copy bandwidth for streams that read and write, the read-only bandwidth
   for reductions (they read n and write little), the FMA throughput for
   arithmetic-bound work (matmul) and the empty-kernel launch latency for the
   latency case. */
typedef enum clbb_peak {
    CLBB_PEAK_COPY,
    CLBB_PEAK_READ,
    CLBB_PEAK_FMA,
    CLBB_PEAK_LAUNCH
} clbb_peak;
#define CLBB_PEAK_KINDS 4

/* The peak of a case; a new kind must say which (the switch has no default). */
clbb_peak clbb_case_peak(const clbb_case *c);
const char *clbb_peak_name(clbb_peak p); /* "copy", "read", "fma", "launch" */

extern const clbb_case clbb_cases[];
/* clbb_cases[0] is the plain copy; the cases marked `peak` come first. */
extern const int clbb_case_count;

/* Distinct bytes read + written by one run, and floating-point operations
   (additions for sums, 2 M N K for matmul). */
double clbb_case_bytes(const clbb_case *c, int quick);
double clbb_case_flops(const clbb_case *c, int quick);
/* "(16384, 4096) + (4096,)" */
void clbb_case_shapes(const clbb_case *c, int quick, char *buf, size_t cap);
/* Largest input element count over all cases: the size of the shared random data. */
int64_t clbb_max_input_numel(int quick);

/* A case's tensors on one context. */
typedef struct clbb_instance {
    const clbb_case *c;
    int quick;
    clb_tensor *a, *b, *b2; /* inputs (b2: CLBB_NORMALIZE's second statistic) */
    clb_tensor *out;        /* the result of the latest run */
} clbb_instance;

/* Uploads the inputs; data holds clbb_max_input_numel(quick) floats and each
   operand takes its prefix. */
clb_status clbb_instance_setup(clbb_instance *inst, const clbb_case *c, int quick,
                               clb_context *ctx, const float *data);
/* One run: computes the case's result into inst->out (replacing the previous one). */
clb_status clbb_instance_run(void *inst);
void clbb_instance_release(clbb_instance *inst);

#endif /* CLB_BENCH_CASES_H */
