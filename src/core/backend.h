/* The backend interface: what a device must provide for the ops in op_*.c.
 * Two implementations: host/host_backend.c (pure C, the reference) and
 * opencl/cl_backend.c (OpenCL). The op layer validates arguments, decides dtypes
 * and shapes, allocates outputs and builds plans; backends only compute. */
#ifndef CLB_BACKEND_H
#define CLB_BACKEND_H

#include "expr_tree.h"
#include "internal.h"
#include "plan.h"

/* Element-wise n-ary map over a plan: operand 0 = output, then the inputs. */
typedef enum clb__map_kind {
    CLB__MAP_UNARY = 0, /* out = op(in0) */
    CLB__MAP_BINARY,    /* out = op(in0, in1) */
    CLB__MAP_WHERE      /* out = in0 != 0 ? in1 : in2 */
} clb__map_kind;

typedef struct clb__map_op {
    clb__map_kind kind;
    int op;             /* clb_unary_op or clb_binary_op; unused for WHERE */
    clb_dtype in[3];    /* dtypes of the inputs, plan operands 1..n */
    clb_dtype compute;  /* inputs are converted (clb_cast semantics) to this before the op */
    clb_dtype out;      /* dtype of plan operand 0; the result is converted to it */
} clb__map_op;

/* Reduction over a plan whose operand 0 (output, freshly allocated, contiguous,
   out_numel elements starting at offsets[0]) has stride 0 on the reduced axes and
   operand 1 is the input. */
typedef struct clb__reduce_op {
    clb_reduce_op op;
    clb_dtype in;      /* input dtype */
    clb_dtype out;     /* output dtype (see clb__reduce_dtype) */
    int64_t count;     /* input elements folded into each output element (MEAN divides by it) */
    int64_t out_numel;
} clb__reduce_op;

/* var / std of an expression's values over the reduced axes of a plan laid out
   as for eval_reduce: one pass (Welford within work items, Chan across them);
   the result is M2 / max(count - correction, 0), its square root with root. */
typedef struct clb__moments_op {
    clb_dtype in;      /* the expression's dtype (a float dtype) */
    clb_dtype out;     /* the result's dtype */
    int64_t count;     /* elements folded into each output */
    int64_t out_numel;
    int64_t correction;
    bool root;
} clb__moments_op;

/* softmax (or with log, log_softmax) of each row of a C-contiguous (rows, len)
   input, in one launch: out (same dtype, C-contiguous) = exp(x - m) / s, or
   (x - m) - log(s), with m the row's maximum and s the sum of exp(x - m). */
typedef struct clb__softmax_rows_op {
    clb_dtype in;
    bool log;
    int64_t rows, len, in_offset, out_offset;
} clb__softmax_rows_op;

/* argmax / argmin along the rows of a C-contiguous (rows, len) input, len >= 1:
   out[out_offset + row] (int64) = the first index of the largest (smallest)
   element of in[in_offset + row * len ...], a NaN counting as the extreme. */
typedef struct clb__argreduce_op {
    bool is_min;
    clb_dtype in;
    int64_t rows, len, in_offset, out_offset;
} clb__argreduce_op;

/* Batched matrix product, all operands of one dtype (the op layer casts first):
   out[b][i][j] = sum_p a[b][i][p] * b[b][p][j] over the broadcast batch index b. */
typedef struct clb__matmul_op {
    clb_dtype dtype;
    int64_t m, n, k;
    int batch_ndim;
    int64_t batch_shape[CLB_MAX_DIMS];
    int64_t batch_strides[3][CLB_MAX_DIMS]; /* 0 = out, 1 = a, 2 = b; 0 on broadcast batch axes */
    int64_t offsets[3];                     /* element offset of each operand's first matrix */
    int64_t row_strides[3];                 /* element stride between rows (i for a/out, p for b) */
    int64_t col_strides[3];                 /* element stride between columns */
    int impl; /* CLB__MATMUL_*: AUTO lets the backend choose; the tuning search asks for one */
} clb__matmul_op;

/* clb_full / arange / linspace / random_*: the first numel elements of a fresh
   C-contiguous storage of dtype `dtype` written from a[] alone (cl/generate.cl
   and src/host/host_gen.c read them the same way; src/ops/op_generate.c fills
   them). f64: linspace computes in double (else in float, on devices without
   fp64). */
typedef enum clb__gen_kind {
    CLB__GEN_FULL = 0, CLB__GEN_ARANGE, CLB__GEN_LINSPACE, CLB__GEN_UNIFORM, CLB__GEN_NORMAL
} clb__gen_kind;
typedef struct clb__gen_op {
    clb__gen_kind kind;
    clb_dtype dtype;
    int64_t numel;
    bool f64;
    uint64_t a[6];
} clb__gen_op;
/* take / take_along_axis: a C-contiguous source (outer, n, inner) and a
   C-contiguous output (outer, m, inner), out[o, j, i] = src[o, k, i] with
   k = idx[idx_offset + o * idx_strides[0] + j * idx_strides[1] + i * idx_strides[2]]
   (int64; uint64 indices as unsigned: idx_unsigned), k < 0 counting from n. An index
   outside [-n, n) sets *bad (nothing read from outside src; that output element is
   unspecified); every other element is written. */
typedef struct clb__gather_op {
    clb_dtype dtype;
    bool idx_unsigned;
    int64_t outer, n, m, inner;
    int64_t idx_strides[3];
    int64_t src_offset, idx_offset, out_offset;
} clb__gather_op;

/* Inclusive running sum (prod) along the middle axis of a C-contiguous
   (outer, len, inner) input into a C-contiguous output of the same shape:
   values converted to the accumulator dtype `out` (int64 / uint64 for bool and
   integers, wrapping; the float dtype itself), floats by a blocked scan. */
typedef struct clb__scan_op {
    bool prod;
    clb_dtype in, out;
    int64_t outer, len, inner;
    int64_t in_offset, out_offset;
} clb__scan_op;

/* Stable sort of each row of a C-contiguous (rows, len) input, len >= 1, by the
   order of clb_sort (NaN above every number, -0.0 == 0.0, descending keeps equal
   values in index order): values (dtype in, C-contiguous, may be absent: handle
   NULL) and indices (int64, may be absent). handles: 0 = values, 1 = indices, 2 = in. */
typedef struct clb__sort_op {
    clb_dtype in;
    bool descending;
    int64_t rows, len;
    int64_t in_offset, values_offset, indices_offset;
} clb__sort_op;

/* torch.topk's first k (1 <= k <= len) of each row's sort (clb__sort_op's order, largest
   as descending) into C-contiguous (rows, k) outputs; handles as clb__sort_op's. */
typedef struct clb__topk_op {
    clb_dtype in;
    bool largest;
    int64_t rows, len, k;
    int64_t in_offset, values_offset, indices_offset;
} clb__topk_op;

/* Stream compaction after a scan: for each of the n positions p whose
   `scan` (int64, inclusive running count of a bool mask) rises there
   (scan[p] != scan[p - 1], scan[-1] = 0), output slot s = scan[p] - 1 gets:
   nonzero: the ndim C-order coordinates of p in `shape` (out int64, row s);
   else the element src[src_offset + p] (C-contiguous, dtype). handles: 0 = out,
   1 = scan, 2 = src (masked_select only). */
typedef struct clb__compact_op {
    bool coords;
    clb_dtype dtype;
    int64_t n;
    int ndim;
    int64_t shape[CLB_MAX_DIMS];
    int64_t scan_offset, src_offset, out_offset;
} clb__compact_op;

/* clb_matmul_tune's measurement, which the op layer owns (public calls only):
   time(self, impl, fill_ref, &gflops) runs the search's GEMM (out->batch, m, n, k
   of the slot's result) through impl (CLB__MATMUL_KERNEL or CLB__MATMUL_CLBLAST),
   checks its product against the library kernel's (takes it as that reference
   when fill_ref) and gives the fastest run's GFLOP/s. */
typedef struct clb__gemm_timer {
    clb_status (*time)(void *self, int impl, bool fill_ref, double *gflops);
    void *self;
} clb__gemm_timer;

typedef struct clb__backend {
    const char *name;
    void (*destroy)(clb_context *ctx); /* frees ctx->impl */
    clb_status (*finish)(clb_context *ctx);

    clb_status (*alloc)(clb_context *ctx, size_t nbytes, void **handle);
    void (*free)(clb_context *ctx, void *handle);
    /* Optional: gives back the application's handle of a wrapped storage when its
       last view goes (NULL: free). The OpenCL backend first drops the references
       its cached kernel objects' arguments hold on it (rusticl retains them). */
    void (*free_wrapped)(clb_context *ctx, void *handle);
    /* Optional: where a block of alloc lies, when it is part of a larger memory
       object (OpenCL: a slab's sub-buffer lies in the slab from its origin on);
       left alone, the block is its own memory (base = handle, offset 0). */
    void (*memory_of)(clb_context *ctx, void *handle, const void **base, size_t *offset);
    /* Blocking transfers of plain bytes between host memory and storage. */
    clb_status (*write)(clb_context *ctx, void *handle, size_t offset, const void *src, size_t nbytes);
    clb_status (*read)(clb_context *ctx, void *handle, size_t offset, void *dst, size_t nbytes);

    /* Strided copy with conversion: plan operand 0 (dtype dtypes[0]) =
       cast(plan operand 1 (dtype dtypes[1])). handles[k] = storage handle of operand k. */
    clb_status (*copy)(clb_context *ctx, const clb__plan *plan, void *const *handles,
                       const clb_dtype *dtypes);
    clb_status (*map)(clb_context *ctx, const clb__map_op *op, const clb__plan *plan,
                      void *const *handles);
    clb_status (*reduce)(clb_context *ctx, const clb__reduce_op *op, const clb__plan *plan,
                         void *const *handles);
    /* handles: 0 = out (int64), 1 = in */
    clb_status (*argreduce)(clb_context *ctx, const clb__argreduce_op *op, void *const *handles);
    /* handles: 0 = out, 1 = a, 2 = b */
    clb_status (*matmul)(clb_context *ctx, const clb__matmul_op *op, void *const *handles);
    /* clb_eval's parsed expression (expr.h) over a plan: operand 0 is the output
       (dtype out), operand k+1 input k (dtype in[k]). */
    clb_status (*eval)(clb_context *ctx, const clb__expr *e, const clb__plan *plan,
                       void *const *handles, clb_dtype out, const clb_dtype *in);
    /* Whether clb_eval first precomputes small broadcast subtrees into
       temporaries (expr_hoist.c): where arithmetic is what costs (the host, CPU
       devices); a GPU is bound by memory on these kernels, and the extra launch
       would cost more than the recomputation it saves. */
    bool (*eval_hoists)(const clb_context *ctx);
    /* clb_eval_reduce in one pass: the expression evaluated at every position of
       the plan and folded like `reduce` into operand 0 (the output: freshly
       allocated, contiguous, stride 0 on the reduced axes; op->in is the
       expression's dtype); operand k+1 is input k (dtype in[k]). Never stores
       the broadcast values. */
    clb_status (*eval_reduce)(clb_context *ctx, const clb__expr *e,
                              const clb__reduce_op *op, const clb__plan *plan,
                              void *const *handles, const clb_dtype *in);
    /* Softmax's statistics in one pass (online softmax): for each output o of the
       plan (laid out as for eval_reduce), m = the largest value and s = the sum
       of exp(value - m), stored as the pair out[2 o], out[2 o + 1] of dtype
       op->out (float32, or float64 for a float64 expression) from plan operand
       0's offset; op->op is unused. */
    clb_status (*eval_online)(clb_context *ctx, const clb__expr *e,
                              const clb__reduce_op *op, const clb__plan *plan,
                              void *const *handles, const clb_dtype *in);
    /* handles: 0 = out, 1 = in. Optional (NULL), and *done false
       where the backend has no faster form than clb_eval (nothing done, no error). */
    clb_status (*softmax_rows)(clb_context *ctx, const clb__softmax_rows_op *op,
                               void *const *handles, bool *done);
    /* clb_var / clb_std in one pass over the expression's values (see clb__moments_op). */
    clb_status (*eval_moments)(clb_context *ctx, const clb__expr *e,
                               const clb__moments_op *op, const clb__plan *plan,
                               void *const *handles, const clb_dtype *in);
    /* nbytes of plain bytes from storage of another context `src` of the same backend
       into dst's storage, without staging them in a host buffer where the backend can
       (OpenCL: one cl_context -> a copy kernel; a source the host reads in
       place -> one write), ordered after src's queued work. *done false: not possible
       here, nothing done, no error recorded; the caller stages through host memory.
       NULL: never possible. */
    clb_status (*copy_from)(clb_context *dst, void *dst_handle, size_t dst_offset,
                            clb_context *src, void *src_handle, size_t src_offset,
                            size_t nbytes, bool *done);
    /* Writes a clb__gen_op's values into handle's storage (element 0 on). */
    clb_status (*generate)(clb_context *ctx, const clb__gen_op *op, void *handle);
    /* take / take_along_axis (clb__gather_op). handles: 0 = out, 1 = src, 2 = indices
       (int64). *bad: some index out of range. */
    clb_status (*gather)(clb_context *ctx, const clb__gather_op *op, void *const *handles,
                         bool *bad);
    /* cumsum / cumprod (clb__scan_op). handles: 0 = out, 1 = in. */
    clb_status (*scan)(clb_context *ctx, const clb__scan_op *op, void *const *handles);
    /* sort rows (clb__sort_op). */
    clb_status (*sort)(clb_context *ctx, const clb__sort_op *op, void *const *handles);
    /* topk without sorting whole rows (clb__topk_op). Optional (NULL), and *done
       false where the backend has no such form for op (nothing done, no error):
       the op layer then sorts the rows and keeps their heads. */
    clb_status (*topk)(clb_context *ctx, const clb__topk_op *op, void *const *handles,
                       bool *done);
    /* nonzero / masked_select's scatter (clb__compact_op). */
    clb_status (*compact)(clb_context *ctx, const clb__compact_op *op, void *const *handles);
    /* clb_matmul_tune's search, after the op timed the library's kernel
       (out->kernel_gflops, and the GEMM in out->batch, m, n, k): times the BLAS's
       defaults and up to max_candidates parameter sets (0: all) through timer,
       applies the winner in this process, saves it to the device's tuning file and
       fills the rest of *out. Optional (NULL: nothing to tune here). */
    clb_status (*matmul_tune)(clb_context *ctx, clb_dtype dtype, int max_candidates,
                              const clb__gemm_timer *timer, clb_matmul_tune_result *out);
} clb__backend;

/* Fills ctx->backend, ctx->impl and ctx->info for the host backend. */
clb_status clb__host_context_init(clb_context *ctx);

/* Fills ctx->backend, ctx->impl and ctx->info for a device clb__device_resolve
   returned (device.h), from the facts it holds. */
struct clb__device;
clb_status clb__cl_context_init(clb_context *ctx, const struct clb__device *device);

#endif /* CLB_BACKEND_H */
