/* bench_ab's pieces: one build of the library loaded with dlopen (its entry
 * points, the optional ones NULL where that build predates them) and the
 * pattern table both builds run. */
#ifndef CLB_BENCH_AB_CASES_H
#define CLB_BENCH_AB_CASES_H

#include <clbroadcast.h>

typedef struct ab_lib {
    void *h;
    const char *path;
    const char *sel; /* the device selector both contexts were made with */
    clb_status (*context_create)(const char *, clb_context **);
    void (*context_release)(clb_context *);
    clb_status (*finish)(clb_context *);
    clb_status (*from_host)(clb_context *, clb_dtype, int, const int64_t *, const void *, clb_tensor **);
    clb_status (*empty)(clb_context *, clb_dtype, int, const int64_t *, clb_tensor **);
    void (*release)(clb_tensor *);
    clb_status (*binary_into)(clb_binary_op, const clb_tensor *, const clb_tensor *, clb_tensor *);
    clb_status (*cast)(const clb_tensor *, clb_dtype, clb_tensor **);
    clb_status (*unary)(clb_unary_op, const clb_tensor *, clb_tensor **);
    clb_status (*reduce)(clb_reduce_op, const clb_tensor *, int, const int *, int, clb_tensor **);
    clb_status (*sum_to_shape)(const clb_tensor *, int, const int64_t *, clb_tensor **);
    clb_status (*eval_into)(clb_context *, const char *, int, const char *const *,
                            const clb_tensor *const *, clb_tensor *);
    clb_status (*matmul)(const clb_tensor *, const clb_tensor *, clb_tensor **);
    const char *(*last_error)(void);
    /* optional: NULL in builds older than the function */
    clb_status (*eval_reduce)(clb_context *, const char *, int, const char *const *,
                              const clb_tensor *const *, clb_reduce_op, int, const int *, int,
                              clb_tensor **);
    clb_status (*var)(const clb_tensor *, int, const int *, int, int, clb_tensor **);
    clb_status (*softmax)(const clb_tensor *, int, clb_tensor **);
    clb_status (*to_context)(const clb_tensor *, clb_context *, clb_tensor **);
    clb_status (*full)(clb_context *, clb_dtype, int, const int64_t *, clb_scalar, clb_tensor **);
    clb_status (*random_uniform)(clb_context *, clb_dtype, int, const int64_t *, uint64_t, uint64_t,
                                 double, double, clb_tensor **);
    clb_status (*random_normal)(clb_context *, clb_dtype, int, const int64_t *, uint64_t, uint64_t,
                                double, double, clb_tensor **);
    clb_context *ctx;
    clb_context *twin; /* a second context on the same device, for to_context */
} ab_lib;

typedef enum ab_kind {
    K_CAST, K_BINARY, K_EVAL, K_REDUCE, K_SUM_TO, K_DIST, K_MATMUL, K_VAR, K_SOFTMAX, K_TO_CONTEXT,
    K_FN, /* a function of one tensor (bench_ab_cases.c's ab_fns, by key) */
    K_FULL, K_UNIFORM, K_NORMAL /* made on the device: a new float32 tensor of shape out */
} ab_kind;

typedef struct ab_pattern {
    const char *key, *name;
    ab_kind k;
    clb_reduce_op op; /* K_REDUCE */
    int nd;
    int64_t a[4];
    int ndb;
    int64_t b[4]; /* second input (binary, eval, matmul, dist) */
    int ndo;
    int64_t out[4]; /* output shape (binary, eval) or target (sum_to_shape) */
    int naxes;
    int axes[3]; /* K_REDUCE, K_VAR, K_SOFTMAX (axes[0]) */
    int keepdim;
} ab_pattern;

typedef struct ab_inst {
    clb_tensor *a, *b, *c, *o;
    const struct ab_fn *fn; /* K_FN: the function, found once by ab_setup */
} ab_inst;

extern const ab_pattern ab_patterns[];
extern const int ab_npatterns;

/* Loads one build; 0 or -1 with the reason on stderr. */
int ab_load(const char *path, ab_lib *l);
/* The entry point a pattern needs and this build lacks, or NULL when it has all. */
const char *ab_missing(const ab_lib *l, const ab_pattern *p);
/* Inputs (and output) of p on l's context from data; 0 or -1. */
int ab_setup(ab_lib *l, const ab_pattern *p, const float *data, ab_inst *t);
/* One call of p, ending with clb_finish; 0 or -1 with the reason on stderr. */
int ab_run(ab_lib *l, const ab_pattern *p, ab_inst *t);
void ab_teardown(ab_lib *l, ab_inst *t);
/* The largest input element count of the table. */
int64_t ab_max_numel(void);

#endif /* CLB_BENCH_AB_CASES_H */
