/* clbroadcast: NumPy/PyTorch-style broadcasting tensors over OpenCL, with a
 * pure-C host backend that serves as reference and fallback.
 *
 * The core of this header is a fixed public API contract (names, signatures
 * and meanings do not change); the extras (version, device enumeration,
 * names) are marked as such. The contract's
 * OpenCL interop functions (clb_context_create_from_cl, clb_context_get_cl,
 * clb_tensor_from_cl_buffer, clb_tensor_get_cl_buffer) take OpenCL types, so
 * they are declared in clbroadcast_cl.h, which includes <CL/cl.h> and this
 * header: this one stays usable without OpenCL headers.
 *
 * Conventions: every function that can fail returns a clb_status and, on
 * failure, sets clb_last_error() and *out = NULL. Every clb_tensor **out
 * receives a new reference that the caller releases.
 *
 * Thread safety: clb_last_error() is per thread. A context may be used from
 * several threads at once (its OpenCL queue is in-order; its program and
 * kernel caches and its storage pool are mutex-guarded), and so may distinct
 * contexts. Tensors are immutable metadata over refcounted storage and may be
 * retained/released from any thread. The caller orders concurrent writes into
 * one tensor (clb_binary_into with the same out) and must not race
 * clb_context_release with other calls on that context. The library is not
 * fork-safe: a child process must create its own contexts (OpenCL drivers do
 * not survive fork). */
#ifndef CLBROADCAST_H
#define CLBROADCAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(CLB_BUILDING_LIBRARY)
#define CLB_API __declspec(dllexport)
#elif defined(__GNUC__) && defined(CLB_BUILDING_LIBRARY)
#define CLB_API __attribute__((visibility("default")))
#else
#define CLB_API
#endif

#define CLB_MAX_DIMS 64 /* NumPy 2 parity; every op accepts up to this */

typedef enum clb_status {
    CLB_OK = 0,
    CLB_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, negative size, bad axis/enum, ndim > CLB_MAX_DIMS, element count overflow */
    CLB_ERR_SHAPE_MISMATCH = 2,   /* shapes cannot be broadcast (or matmul inner dims differ) */
    CLB_ERR_DTYPE = 3,            /* dtype or dtype combination not supported (on this device) */
    CLB_ERR_OUT_OF_MEMORY = 4,    /* host or device allocation failed */
    CLB_ERR_NO_DEVICE = 5,        /* selector matched no device */
    CLB_ERR_BUILD = 6,            /* OpenCL program build failed; clb_last_error() holds the build log */
    CLB_ERR_OPENCL = 7,           /* any other OpenCL failure; message names the call and the CL error name */
    CLB_ERR_UNSUPPORTED = 8,      /* valid request this library/device cannot do (say which in the message) */
    CLB_ERR_ALIASING = 9          /* write target overlaps an input or has stride-0 (broadcast) dimensions */
} clb_status;

CLB_API const char *clb_status_name(clb_status s); /* "CLB_ERR_SHAPE_MISMATCH", ... never NULL */
/* Thread-local message of the last failed call on this thread; "" if none.
 * Shape errors read like PyTorch's: "The size of tensor a (3) must match the
 * size of tensor b (2) at non-singleton dimension 0". */
CLB_API const char *clb_last_error(void);

typedef enum clb_dtype {
    CLB_BOOL = 0, CLB_INT8, CLB_UINT8, CLB_INT16, CLB_UINT16, CLB_INT32, CLB_UINT32,
    CLB_INT64, CLB_UINT64, CLB_FLOAT16, CLB_FLOAT32, CLB_FLOAT64
} clb_dtype;
CLB_API size_t clb_dtype_size(clb_dtype t);                 /* 0 for an invalid value */
CLB_API clb_dtype clb_promote_types(clb_dtype a, clb_dtype b); /* numpy.promote_types */

/* ---- promotion rules and Python numbers (the everyday API's shared types) ---- */
/* NUMPY, the default: NumPy 2 / NEP 50. TORCH: torch.result_type between tensors
   (see clb_context_set_promotion). */
typedef enum clb_promotion { CLB_PROMOTE_NUMPY = 0, CLB_PROMOTE_TORCH = 1 } clb_promotion;
/* A Python bool, int or float next to tensors (NEP 50 "weak" scalar). */
typedef enum clb_scalar_kind { CLB_SCALAR_BOOL = 0, CLB_SCALAR_INT, CLB_SCALAR_FLOAT } clb_scalar_kind;
typedef struct clb_scalar {
    clb_scalar_kind kind;
    int64_t i;   /* the value of a BOOL (0 or 1) or an INT */
    double  f;   /* the value of a FLOAT */
} clb_scalar;

typedef struct clb_context clb_context; /* one device, its queue, its kernel caches */
typedef struct clb_tensor clb_tensor;   /* a view (dtype, shape, strides, offset) over refcounted storage */

/* ---- devices ---------------------------------------------------------- */
/* selector: NULL -> $CLB_DEVICE, else the default rule (first GPU, else first CPU
   OpenCL device, else "host"). Grammar: "host" (built-in C backend, no OpenCL),
   "cpu" | "gpu" | "accelerator", a global device index "N", "P:D" (platform P,
   device D), or a case-insensitive substring of platform/vendor/device name
   ("nvidia", "intel", "amd", "pocl"). */
CLB_API clb_status clb_context_create(const char *selector, clb_context **out);
CLB_API void clb_context_release(clb_context *ctx); /* NULL-safe; storage of live tensors stays valid */
CLB_API const char *clb_context_device_name(const clb_context *ctx);
CLB_API clb_status clb_finish(clb_context *ctx); /* wait for all queued work */
/* bytes of storage (device buffers or host backend blocks) currently alive for this context */
CLB_API size_t clb_memory_allocated(const clb_context *ctx);
/* NUMPY, the default: NumPy 2 / NEP 50, as everywhere in this header.
   TORCH: torch.result_type between tensors. Within one category (bool < integer < floating)
   numpy.promote_types; across categories the operand of the higher category gives the
   dtype (int32 + float32 -> float32, int64 + float16 -> float16, bool + int8 -> int8).
   True division of integers or bool, and mean, var, std, softmax, log_softmax and
   logsumexp of integers or bool, give float32 (PyTorch's default dtype); so does a
   Python float next to integers in clb_eval and clb_binary_scalar. Every op of the
   context follows the rules set last, clb_eval and clb_eval_reduce included; tensors
   keep working across contexts of different rules (the op's context decides). On a
   device without float64 (rusticl, most integrated GPUs) TORCH runs mixed int/float
   programs that NUMPY refuses. */
CLB_API clb_status clb_context_set_promotion(clb_context *ctx, clb_promotion rules);

/* ---- tensors ---------------------------------------------------------- */
/* shape: ndim entries, each >= 0; ndim 0 is a scalar. data: C-contiguous row-major. */
CLB_API clb_status clb_tensor_from_host(clb_context *ctx, clb_dtype dtype, int ndim,
                                        const int64_t *shape, const void *data, clb_tensor **out);
CLB_API clb_status clb_tensor_empty(clb_context *ctx, clb_dtype dtype, int ndim,
                                    const int64_t *shape, clb_tensor **out);
/* Writes the tensor's logical values, C-contiguous row-major, materializing any broadcast;
   blocks until done. dst_bytes smaller than numel*itemsize -> CLB_ERR_INVALID_ARGUMENT. */
CLB_API clb_status clb_tensor_to_host(const clb_tensor *t, void *dst, size_t dst_bytes);
/* NULL-safe. A tensor already released (a double release, a retain after the last
   release) is left alone, and clb_last_error() says so; every function given a
   released tensor or context returns CLB_ERR_INVALID_ARGUMENT naming itself. */
CLB_API void clb_tensor_retain(clb_tensor *t);
CLB_API void clb_tensor_release(clb_tensor *t); /* NULL-safe */
CLB_API int clb_tensor_ndim(const clb_tensor *t);
CLB_API const int64_t *clb_tensor_shape(const clb_tensor *t);   /* ndim entries */
CLB_API const int64_t *clb_tensor_strides(const clb_tensor *t); /* in elements; 0 on broadcast dims */
CLB_API clb_dtype clb_tensor_dtype(const clb_tensor *t);
CLB_API int64_t clb_tensor_numel(const clb_tensor *t);
CLB_API int clb_tensor_is_contiguous(const clb_tensor *t);
CLB_API int clb_tensor_shares_storage(const clb_tensor *a, const clb_tensor *b);

/* ---- shape algebra (pure, no device) --------------------------------- */
CLB_API clb_status clb_broadcast_shapes(int n, const int *ndims, const int64_t *const *shapes,
                                        int *out_ndim, int64_t *out_shape /* CLB_MAX_DIMS entries */);

/* ---- views: never allocate storage ------------------------------------ */
CLB_API clb_status clb_broadcast_to(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out);
CLB_API clb_status clb_broadcast_tensors(int n, const clb_tensor *const *in, clb_tensor **out /* n */);
CLB_API clb_status clb_expand(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out); /* -1 keeps a size */
CLB_API clb_status clb_unsqueeze(const clb_tensor *t, int axis, clb_tensor **out);
CLB_API clb_status clb_squeeze(const clb_tensor *t, int axis, clb_tensor **out); /* size-1 axis only */
CLB_API clb_status clb_permute(const clb_tensor *t, const int *perm, clb_tensor **out);
/* reshape: a view when strides allow, otherwise a contiguous copy; one -1 is inferred */
CLB_API clb_status clb_reshape(const clb_tensor *t, int ndim, const int64_t *shape, clb_tensor **out);

/* ---- slicing and assembling -------------------------------------------- */
#define CLB_NONE INT64_MIN /* Python's None for clb_slice's start or stop */
/* The view t[..., start:stop:step, ...] on one axis with Python's slice rules
   (negative start/stop count from the end, out-of-range values clamp, CLB_NONE as
   None, a negative step walks backwards with a negative stride). Never copies;
   step 0: CLB_ERR_INVALID_ARGUMENT. Every op accepts such views, negative strides
   included. */
CLB_API clb_status clb_slice(const clb_tensor *t, int axis, int64_t start, int64_t stop, int64_t step,
                             clb_tensor **out);
/* numpy.concatenate along an existing axis / numpy.stack along a new one; dtypes
   promote; shapes must agree off the axis (CLB_ERR_SHAPE_MISMATCH naming the tensor
   and dimension). */
CLB_API clb_status clb_concat(int n, const clb_tensor *const *in, int axis, clb_tensor **out);
CLB_API clb_status clb_stack(int n, const clb_tensor *const *in, int axis, clb_tensor **out);

/* ---- copies ------------------------------------------------------------ */
CLB_API clb_status clb_contiguous(const clb_tensor *t, clb_tensor **out); /* new ref to t if already contiguous */
CLB_API clb_status clb_repeat(const clb_tensor *t, int ndim, const int64_t *reps, clb_tensor **out); /* torch.Tensor.repeat */
CLB_API clb_status clb_cast(const clb_tensor *t, clb_dtype dtype, clb_tensor **out);

/* ---- tensors across devices -------------------------------------------- */
/* A C-contiguous copy of t's logical values on dst's device (any two contexts: host
   backend and OpenCL devices of any platforms). Same-platform OpenCL devices copy
   device to device where the driver allows; otherwise through host memory. When
   dst is t's own context the result equals clb_contiguous(t) (a new reference to
   t if it is already contiguous). An op given tensors of different contexts
   returns CLB_ERR_INVALID_ARGUMENT and its message names both devices.
   This implementation: two contexts on one cl_context copy with a device kernel
   (the source's queue and dst's ordered by events, no host wait); a source whose
   memory the host reads in place (CPU devices, integrated GPUs) is written into dst
   in one copy; other pairs stage through a host buffer. The call returns once the
   copy is queued (on one cl_context) or done. */
CLB_API clb_status clb_tensor_to_context(const clb_tensor *t, clb_context *dst, clb_tensor **out);

/* ---- element-wise with broadcasting ------------------------------------ */
typedef enum clb_binary_op {
    CLB_ADD = 0, CLB_SUB, CLB_MUL, CLB_DIV /* true division: ints -> float64 */,
    CLB_FLOOR_DIV, CLB_MOD /* Python/NumPy sign rule */, CLB_POW, CLB_MAXIMUM, CLB_MINIMUM,
    CLB_EQ, CLB_NE, CLB_LT, CLB_LE, CLB_GT, CLB_GE /* -> CLB_BOOL */,
    CLB_LOGICAL_AND, CLB_LOGICAL_OR, CLB_LOGICAL_XOR /* -> CLB_BOOL */,
    CLB_BITWISE_AND, CLB_BITWISE_OR, CLB_BITWISE_XOR /* integer and bool only */,
    /* the array API standard's element-wise set (values fixed by the contract) */
    CLB_ATAN2 = 21, CLB_HYPOT, CLB_LOGADDEXP, CLB_COPYSIGN,
    CLB_LEFT_SHIFT, CLB_RIGHT_SHIFT /* integers: NumPy's results for negative or too-large counts */
} clb_binary_op;
typedef enum clb_unary_op {
    CLB_NEG = 0, CLB_ABS, CLB_SQRT, CLB_RSQRT, CLB_EXP, CLB_LOG, CLB_SIN, CLB_COS, CLB_TANH,
    CLB_SIGMOID, CLB_RELU, CLB_FLOOR, CLB_CEIL, CLB_LOGICAL_NOT,
    /* the array API standard's element-wise set (values fixed by the contract): float math
       gives float64 for int32/int64 inputs as sqrt does; sign, square, round, trunc and
       bitwise_invert keep an integer dtype; isnan/isinf/isfinite give CLB_BOOL */
    CLB_TAN = 14, CLB_ASIN, CLB_ACOS, CLB_ATAN, CLB_SINH, CLB_COSH, CLB_ASINH, CLB_ACOSH,
    CLB_ATANH, CLB_EXPM1, CLB_LOG1P, CLB_LOG2, CLB_LOG10,
    CLB_ROUND /* half to even */, CLB_TRUNC, CLB_SIGN, CLB_SQUARE,
    CLB_ISNAN, CLB_ISINF, CLB_ISFINITE /* -> CLB_BOOL */, CLB_ERF, CLB_BITWISE_INVERT
} clb_unary_op;
/* Integer division or modulo by zero gives 0 and INT_MIN / -1 gives INT_MIN (NumPy's results): never a trap. */
CLB_API clb_status clb_binary(clb_binary_op op, const clb_tensor *a, const clb_tensor *b, clb_tensor **out);
CLB_API clb_status clb_binary_into(clb_binary_op op, const clb_tensor *a, const clb_tensor *b, clb_tensor *out);
CLB_API clb_status clb_unary(clb_unary_op op, const clb_tensor *a, clb_tensor **out);
CLB_API clb_status clb_where(const clb_tensor *cond, const clb_tensor *a, const clb_tensor *b, clb_tensor **out);
/* a OP s (s_first == 0) or s OP a (s_first != 0), s a Python bool/int/float (NEP 50 "weak"
   scalar): s takes a's dtype when its kind's category is not above a's (float32 * 2.5 ->
   float32, int8 + 1 -> int8, uint8 * True -> uint8); otherwise the default dtype of its kind
   under the context's rules (int32 * 2.5 -> float64 under NUMPY, float32 under TORCH). An
   INT that does not fit the dtype it takes: CLB_ERR_INVALID_ARGUMENT (NumPy 2's
   OverflowError). No 0-d tensor needed. CLB_POW with s 0, 1, 2, 3, 4, -1, -2, 0.5 or -0.5
   runs as products, sqrt or a reciprocal (x ** 2 equals x * x bit for bit), never pow. */
CLB_API clb_status clb_binary_scalar(clb_binary_op op, const clb_tensor *a, clb_scalar s, int s_first,
                                     clb_tensor **out);

/* ---- reductions --------------------------------------------------------- */
typedef enum clb_reduce_op {
    CLB_SUM = 0, CLB_MEAN, CLB_MAX, CLB_MIN, CLB_PROD,
    CLB_ALL = 5, CLB_ANY /* -> CLB_BOOL; an empty reduction gives True / False */
} clb_reduce_op;
/* axes == NULL: all axes. Negative axes count from the end. Sum/prod of bool and integers
   accumulate in int64 (uint64 for unsigned), mean of integers gives float64, as NumPy. */
CLB_API clb_status clb_reduce(clb_reduce_op op, const clb_tensor *t, int naxes, const int *axes,
                              int keepdim, clb_tensor **out);
/* Gradient of broadcasting: sums grad over the axes that broadcasting t to grad's shape
   expanded, giving a tensor of `shape` (torch.Tensor.sum_to_size). */
CLB_API clb_status clb_sum_to_shape(const clb_tensor *grad, int ndim, const int64_t *shape, clb_tensor **out);

/* ---- linear algebra ----------------------------------------------------- */
/* numpy.matmul semantics, batch dimensions broadcast; float32/float64 through CLBlast. */
CLB_API clb_status clb_matmul(const clb_tensor *a, const clb_tensor *b, clb_tensor **out);

/* ---- broadcast reductions without the intermediate ---------------------- */
/* clb_reduce(op, clb_eval(expr, ...), naxes, axes, keepdim) computed without ever
   storing the broadcast result of expr: the inputs broadcast together (as in
   clb_eval), the expression's value at each broadcast position is folded straight
   into the reduction. Memory used: the output plus scratch of the order of the
   number of work-groups, never numel(broadcast shape). axes == NULL: all axes.
   Result dtype and accumulation as clb_reduce applied to expr's dtype.
   Example: pairwise squared distances of x (N, 1, D) and y (1, M, D):
   "(x - y) ** 2" with op CLB_SUM over axis -1 -> (N, M), no (N, M, D) tensor. */
CLB_API clb_status clb_eval_reduce(clb_context *ctx, const char *expr, int n, const char *const *names,
                                   const clb_tensor *const *inputs, clb_reduce_op op,
                                   int naxes, const int *axes, int keepdim, clb_tensor **out);

/* numpy.einsum / torch.einsum on n >= 1 operands: explicit ("ij,jk->ik") and implicit
   ("ij,jk") output, "..." broadcasting, repeated labels within an operand (diagonal
   "ii->i", trace "ii->"), labels a-z and A-Z. Result dtype: the promoted dtype of the
   operands (NumPy). Pure relabelings and diagonals are views; two-operand
   contractions that are (batched) matrix products run as clb_matmul; the rest as
   broadcast reductions. Malformed subscripts: CLB_ERR_INVALID_ARGUMENT naming the
   position; a label whose sizes disagree: CLB_ERR_SHAPE_MISMATCH naming the label. */
CLB_API clb_status clb_einsum(const char *subscripts, int n, const clb_tensor *const *operands,
                              clb_tensor **out);

/* ---- statistics ---------------------------------------------------------- */
/* Variance and standard deviation over axes (NULL: all) with `correction` degrees of
   freedom subtracted from the count (NumPy ddof, PyTorch correction; 0 = population,
   1 = sample). Float inputs keep their dtype; integer and bool inputs give float64
   (NumPy). Count - correction <= 0 gives inf or nan as NumPy does. */
CLB_API clb_status clb_var(const clb_tensor *t, int naxes, const int *axes, int correction,
                           int keepdim, clb_tensor **out);
CLB_API clb_status clb_std(const clb_tensor *t, int naxes, const int *axes, int correction,
                           int keepdim, clb_tensor **out);

/* Index (int64) of the largest / smallest element along one axis; the first one on
   ties; a NaN counts as the extreme (its first index wins), as NumPy. A zero-size
   axis: CLB_ERR_INVALID_ARGUMENT. */
CLB_API clb_status clb_argmax(const clb_tensor *t, int axis, int keepdim, clb_tensor **out);
CLB_API clb_status clb_argmin(const clb_tensor *t, int axis, int keepdim, clb_tensor **out);

/* Numerically stable softmax / log_softmax along one axis, and log(sum(exp(t))) over
   axes (NULL: all); float16/32/64 only (integers: CLB_ERR_DTYPE). A row of -inf gives
   nan for softmax (PyTorch) and -inf for logsumexp. */
CLB_API clb_status clb_softmax(const clb_tensor *t, int axis, clb_tensor **out);
CLB_API clb_status clb_log_softmax(const clb_tensor *t, int axis, clb_tensor **out);
CLB_API clb_status clb_logsumexp(const clb_tensor *t, int naxes, const int *axes, int keepdim,
                                 clb_tensor **out);

/* ---- creation on the device ---------------------------------------------- */
/* numpy.full(shape, value, dtype): value converted as NumPy's astype would
   (an INT outside dtype's range: CLB_ERR_INVALID_ARGUMENT). Written by a kernel:
   no host buffer of the result's size. */
CLB_API clb_status clb_full(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                            clb_scalar value, clb_tensor **out);
/* numpy.arange(start, stop, step, dtype=dtype): length max(0, ceil((stop - start) / step)),
   values as NumPy's to within one unit in the last place of dtype (exact for integer
   dtypes and integral arguments); step 0 or a non-finite argument: CLB_ERR_INVALID_ARGUMENT. */
CLB_API clb_status clb_arange(clb_context *ctx, clb_dtype dtype, double start, double stop,
                              double step, clb_tensor **out);
/* numpy.linspace(start, stop, num, endpoint, dtype=dtype); num < 0: CLB_ERR_INVALID_ARGUMENT. */
CLB_API clb_status clb_linspace(clb_context *ctx, clb_dtype dtype, double start, double stop,
                                int64_t num, int endpoint, clb_tensor **out);

/* ---- random numbers: one stream on every device -------------------------- */
/* Counter-based (Philox4x32-10): element i (C order) of the result is a pure function of
   (seed, offset + i) and the arguments, so a draw of n elements at offset 0 followed by one
   at offset n equals one draw of 2n. uniform: values in [low, high), bit-identical on every
   device and the host backend. normal: mean + std * a standard normal, equal on every device
   to within a few units in the last place (the devices' log/cos differ). float16/32/64 only. */
CLB_API clb_status clb_random_uniform(clb_context *ctx, clb_dtype dtype, int ndim,
                                      const int64_t *shape, uint64_t seed, uint64_t offset,
                                      double low, double high, clb_tensor **out);
CLB_API clb_status clb_random_normal(clb_context *ctx, clb_dtype dtype, int ndim,
                                     const int64_t *shape, uint64_t seed, uint64_t offset,
                                     double mean, double std, clb_tensor **out);

/* ---- text ---------------------------------------------------------------- */
/* The values as numpy.array2string(t, separator=", ") prints them with NumPy's default
   print options (precision 8, "..." summary past 1000 elements, edge items 3), e.g.
   "[[1., 2.],\n [3., 4.]]". Writes at most size bytes including the terminating NUL
   (buf may be NULL when size is 0) and always sets *needed to the full length + 1.
   Reads back only the elements it prints. */
CLB_API clb_status clb_tensor_format(const clb_tensor *t, char *buf, size_t size, size_t *needed);

/* ---- views ---------------------------------------------------------------- */
CLB_API clb_status clb_swapaxes(const clb_tensor *t, int axis1, int axis2, clb_tensor **out); /* a view */

/* ======================================================================== */
/* Extras beyond the contract.                                               */
/* ======================================================================== */

/* ---- version ------------------------------------------------------------ */
/* CLB_VERSION_MAJOR * 10000 + MINOR * 100 + PATCH of the library actually loaded. */
CLB_API unsigned clb_version(void);
CLB_API const char *clb_version_string(void); /* "0.1.0" */

/* Records `message` (NULL: "") as clb_last_error() of the calling thread and returns
   s: for adapters and bindings built on this API (the StarPU adapter) that report
   their failures the library's way. */
CLB_API clb_status clb_set_last_error(clb_status s, const char *message);

/* ---- names -------------------------------------------------------------- */
CLB_API const char *clb_dtype_name(clb_dtype t);            /* "float32"; "invalid" for a bad value */
CLB_API const char *clb_binary_op_name(clb_binary_op op);   /* "add"; "invalid" for a bad value */
CLB_API const char *clb_unary_op_name(clb_unary_op op);     /* "sqrt"; "invalid" for a bad value */
CLB_API const char *clb_reduce_op_name(clb_reduce_op op);   /* "sum"; "invalid" for a bad value */

/* ---- device enumeration ------------------------------------------------- */
typedef enum clb_device_type {
    CLB_DEVICE_HOST = 0, /* the built-in C backend */
    CLB_DEVICE_CPU,
    CLB_DEVICE_GPU,
    CLB_DEVICE_ACCELERATOR,
    CLB_DEVICE_OTHER
} clb_device_type;

typedef struct clb_device_info {
    char selector[32];          /* a selector that picks exactly this device: "host" or "P:D" */
    int index;                  /* global OpenCL device index (the "N" selector); -1 for host */
    clb_device_type type;
    char name[256];
    char vendor[256];
    char platform[256];
    char driver_version[128];
    char opencl_c_version[128]; /* "" for host */
    uint32_t compute_units;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;
    int has_fp16;               /* cl_khr_fp16 (host: 1, emulated exactly in software) */
    int has_fp64;               /* cl_khr_fp64 (host: 1) */
    int host_unified_memory;    /* device reads host memory directly (CPU devices, iGPUs; host: 1) */
    char quirks[256];           /* workarounds of known driver defects in effect, comma-separated
                                   ("" for none); the project's README lists
                                   each with its driver defect */
} clb_device_info;

/* Number of OpenCL devices over all platforms; 0 (and CLB_OK) without any OpenCL
   platform. The host backend is not counted. */
CLB_API clb_status clb_device_count(int *out);
/* Description of the OpenCL device with global index `index` (0 .. count-1). */
CLB_API clb_status clb_device_get_info(int index, clb_device_info *out);
/* Description of the device a context runs on (host backend included). */
CLB_API clb_status clb_context_get_info(const clb_context *ctx, clb_device_info *out);
/* Number of programs in the on-disk program cache (CLB_CACHE_DIR) built for the
   OpenCL device with global index `index` by its current driver and this library
   version: 0 means its kernels will be compiled on first use. 0 when the cache
   is disabled. A cache directory the library refuses to trust (writable by
   others, not owned by the user, or not a directory) gives 0 and
   CLB_ERR_UNSUPPORTED with the reason; the library then runs without it. */
CLB_API clb_status clb_device_cached_programs(int index, int *count);

/* ---- memory pool -------------------------------------------------------- */
/* Released storage is kept per context and reused by later allocations of a
   similar size, so loops that create a new output per call do not pay a device
   allocation each time. clb_memory_allocated() counts live tensor storage only. */
CLB_API size_t clb_memory_reserved(const clb_context *ctx); /* live blocks + cached blocks, in bytes */
CLB_API clb_status clb_empty_cache(clb_context *ctx);       /* returns cached blocks to the device */

/* ---- tensor extras ------------------------------------------------------ */
CLB_API int64_t clb_tensor_offset(const clb_tensor *t);        /* view's first element, in elements */
CLB_API clb_context *clb_tensor_context(const clb_tensor *t);  /* borrowed; valid while t lives */
/* A tensor over the application's host memory, without copying, on a context of the
   host backend ("host"): element (i0, i1, ...) lives at data + sum(ik * strides[k]) *
   itemsize. strides NULL: C-contiguous; strides in elements, 0 and negative allowed.
   Every element must lie within the nbytes bytes from data, and data must be aligned
   to the dtype's size; otherwise CLB_ERR_INVALID_ARGUMENT. The library never frees the
   memory, nor counts it in clb_memory_allocated: the application keeps it valid, and
   does not write it behind the library's back, while any view of the tensor lives.
   Such tensors work as inputs of every op and as out of the _into ops. An OpenCL
   context: CLB_ERR_UNSUPPORTED (use clb_tensor_from_cl_buffer over a buffer made with
   CL_MEM_USE_HOST_PTR). Runtimes that own host memory (StarPU's CPU workers) run the
   host backend on it this way. */
CLB_API clb_status clb_tensor_from_host_memory(clb_context *ctx, void *data, size_t nbytes,
                                               clb_dtype dtype, int ndim, const int64_t *shape,
                                               const int64_t *strides, clb_tensor **out);

/* ---- creation conveniences ------------------------------------------------ */
/* numpy.zeros / numpy.ones (clb_full of 0 / 1), and the same shaped, typed and placed
   like t (numpy.zeros_like / ones_like: C-contiguous, whatever t's strides). */
CLB_API clb_status clb_zeros(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                             clb_tensor **out);
CLB_API clb_status clb_ones(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                            clb_tensor **out);
CLB_API clb_status clb_zeros_like(const clb_tensor *t, clb_tensor **out);
CLB_API clb_status clb_ones_like(const clb_tensor *t, clb_tensor **out);

/* ---- fused expressions -------------------------------------------------- */
/* Evaluates an element-wise expression over named tensors, broadcasting all n
   inputs together, in one kernel launch: "(x - mu) / sqrt(var + 1e-5)".
   Grammar (Python's, with its precedence): numbers (1, 2.5, 1e-5, True, False),
   the names in `names`, + - * / // % **, unary - and ~, == != < <= > >=, & | ^,
   and/or/not (element-wise logical), parentheses, and calls: every unary op by
   its name (sqrt, exp, log, abs, tanh, sigmoid, relu, ...), the binary ops by
   name (maximum, minimum, power, ...), where(c, a, b) and casts (float32(x), ...).
   Each operator follows the dtype rules and semantics of the op it names, so the
   result equals the op-by-op chain; Python literals are weak (NumPy 2, NEP 50:
   x * 2 keeps float16). n may be 0 to at most CLB_EVAL_MAX_INPUTS. A malformed
   expression is CLB_ERR_INVALID_ARGUMENT with the column and a caret line. */
#define CLB_EVAL_MAX_INPUTS 8
CLB_API clb_status clb_eval(clb_context *ctx, const char *expr, int n, const char *const *names,
                            const clb_tensor *const *inputs, clb_tensor **out);
/* The same into an existing tensor, as clb_binary_into: the inputs broadcast with
   out to out's shape, the result is cast to out's dtype by NumPy's same_kind rule,
   and out may be exactly one of the inputs (in place) but not partly overlap one. */
CLB_API clb_status clb_eval_into(clb_context *ctx, const char *expr, int n,
                                 const char *const *names, const clb_tensor *const *inputs,
                                 clb_tensor *out);

/* ---- matmul tuning ------------------------------------------------------- */
/* Times CLBlast's GEMM with its built-in parameters, with up to max_candidates
   (0: all, at most CLB_MATMUL_TUNE_MAX_CANDIDATES) parameter sets chosen for
   CPUs and with the library's own kernel, on a (B, 256, 256) @ (256, 256) GEMM
   of dtype (float32 or float64) on ctx's OpenCL device. The fastest CLBlast
   parameters (when they beat the defaults) go to CLBlastOverrideParameters,
   and the result is cached in CLB_CACHE_DIR (matmul-tuning-*.txt) for this
   device, driver, CLBlast and library version: from then on the first matmul
   of each process applies it, and float matmuls that the own kernel covers run
   on whichever of it and CLBlast was faster. CLB_MATMUL_TUNING=off ignores the
   cache. Each candidate compiles CLBlast's GEMM program once (15-30 s on PoCL).
   GFLOP/s are of the fastest of 5-10 runs. CLBlast cannot restore its defaults
   within a process, so if they win, this process keeps the fastest candidate
   (later processes use the defaults); matmuls other threads run on the device
   during the search may use candidate parameters.
   The host backend or a build without CLBlast: CLB_ERR_UNSUPPORTED. */
#define CLB_MATMUL_TUNE_MAX_CANDIDATES 16
typedef struct clb_matmul_tune_candidate {
    char params[384]; /* "GemmRoutine XGEMM_MIN_INDIRECT_SIZE=128 | Xgemm GEMMK=0 ..." */
    double gflops;    /* 0: CLBlast refused it, failed, or computed a wrong result */
    char error[256];  /* why, when gflops is 0 */
} clb_matmul_tune_candidate;
typedef struct clb_matmul_tune_result {
    int64_t batch, m, n, k;  /* the GEMM timed: (batch, m, k) @ (k, n) */
    double default_gflops;   /* CLBlast's own parameters; -1: not measurable in this
                                process (it already handed CLBlast other parameters) */
    double kernel_gflops;    /* the library's own kernel */
    int count;               /* candidates timed */
    int best;                /* index of the fastest candidate; -1 if none ran */
    clb_matmul_tune_candidate candidates[CLB_MATMUL_TUNE_MAX_CANDIDATES];
    int overrides;           /* 1: candidates[best] beat the defaults and is applied */
    char choice[16];         /* "kernel" or "clblast": what serves the GEMMs both can do */
    char cache_file[1024];   /* where the result was written; "" when caching is off */
} clb_matmul_tune_result;
CLB_API clb_status clb_matmul_tune(clb_context *ctx, clb_dtype dtype, int max_candidates,
                                   clb_matmul_tune_result *out);

/* ---- picking by index, order, running totals (the everyday API) ---------- */
/* numpy.take(t, indices, axis): shape t.shape[:axis] + indices.shape + t.shape[axis+1:].
   indices of any integer dtype; negative values count from the end; any value outside
   [-n, n) gives CLB_ERR_INVALID_ARGUMENT, never an out-of-bounds read or a silent clamp
   (OpenCL devices check on the device and report one flag with the result). */
CLB_API clb_status clb_take(const clb_tensor *t, const clb_tensor *indices, int axis,
                            clb_tensor **out);
/* numpy.take_along_axis(t, indices, axis): t and indices have the same ndim and broadcast
   against each other on every axis but `axis`; the result has the broadcast shape with
   indices' size on `axis`. Index range as clb_take. */
CLB_API clb_status clb_take_along_axis(const clb_tensor *t, const clb_tensor *indices, int axis,
                                       clb_tensor **out);
/* Stable sort along one axis; NaN sorts above every number (last ascending, first
   descending; equal values keep their order either way), -0.0 equals 0.0. values and
   indices (int64): either may be NULL, not both. */
CLB_API clb_status clb_sort(const clb_tensor *t, int axis, int descending, clb_tensor **values,
                            clb_tensor **indices);
/* torch.topk: the k largest (largest != 0) or smallest along axis, in sorted order, equal
   values by lower index first, NaN above every number; 0 <= k <= size of axis. */
CLB_API clb_status clb_topk(const clb_tensor *t, int64_t k, int axis, int largest,
                            clb_tensor **values, clb_tensor **indices);
/* numpy.cumsum / numpy.cumprod along one axis. bool and integers accumulate in int64
   (uint64 for unsigned), wrapping as NumPy; floats keep their dtype, each running total
   within float tolerance of the exact one (a blocked scan: error near eps * log2 n). */
CLB_API clb_status clb_cumsum(const clb_tensor *t, int axis, clb_tensor **out);
CLB_API clb_status clb_cumprod(const clb_tensor *t, int axis, clb_tensor **out);
/* numpy.nonzero as one (count, ndim) int64 tensor of indices in C order (numpy.argwhere),
   and t[mask] (mask bool, broadcast to t's shape): the 1-D selection in C order. Their
   size depends on the data: one count is read back, nothing else. */
CLB_API clb_status clb_nonzero(const clb_tensor *t, clb_tensor **out);
CLB_API clb_status clb_masked_select(const clb_tensor *t, const clb_tensor *mask,
                                     clb_tensor **out);

#ifdef __cplusplus
}
#endif

/* Arrays of inputs. The functions take `const clb_tensor *const *`; in C11 and later
   these wrapper macros of the same names let a plain `clb_tensor *in[]` and a
   `const clb_tensor *in[]` pass without a cast or a warning (C converts neither
   implicitly), while a pointer of any other type is still a compile error. A call whose
   array argument is a compound literal, (const clb_tensor *[]){a, b}, has more
   macro arguments than parameters (the braces' commas) and reaches the function as
   written. C++ needs no help: its qualification conversions accept both.
   `(clb_concat)(...)` and `&clb_concat` reach the function itself. */
#if !defined(__cplusplus) && !defined(CLB_BUILDING_LIBRARY) && defined(__STDC_VERSION__) && \
    __STDC_VERSION__ >= 201112L
#define CLB_INPUTS(p)                                                                              \
    _Generic((p),                                                                                  \
        clb_tensor **: (const clb_tensor *const *)(p),                                             \
        clb_tensor *const *: (const clb_tensor *const *)(p),                                       \
        const clb_tensor **: (const clb_tensor *const *)(p),                                       \
        const clb_tensor *const *: (const clb_tensor *const *)(p),                                 \
        void *: (const clb_tensor *const *)(p)) /* NULL, where n is 0 */
/* CLB__EXACTLYk(args): 1 when there are exactly k arguments, 0 when more (up to 64). */
#define CLB__PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, \
    _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, \
    _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, \
    _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, N, ...) N
#define CLB__EXACTLY3(...) CLB__PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
#define CLB__EXACTLY4(...) CLB__PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
#define CLB__EXACTLY6(...) CLB__PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
#define CLB__EXACTLY10(...) CLB__PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1)
#define CLB__CAT(a, b) CLB__CAT_(a, b)
#define CLB__CAT_(a, b) a##b
#define clb_broadcast_tensors(...) CLB__CAT(CLB__BT_, CLB__EXACTLY3(__VA_ARGS__))(__VA_ARGS__)
#define CLB__BT_0(...) (clb_broadcast_tensors)(__VA_ARGS__)
#define CLB__BT_1(n, in, out) (clb_broadcast_tensors)((n), CLB_INPUTS(in), (out))
#define clb_eval(...) CLB__CAT(CLB__EV_, CLB__EXACTLY6(__VA_ARGS__))(__VA_ARGS__)
#define CLB__EV_0(...) (clb_eval)(__VA_ARGS__)
#define CLB__EV_1(ctx, expr, n, names, inputs, out)                                                \
    (clb_eval)((ctx), (expr), (n), (names), CLB_INPUTS(inputs), (out))
#define clb_eval_into(...) CLB__CAT(CLB__EI_, CLB__EXACTLY6(__VA_ARGS__))(__VA_ARGS__)
#define CLB__EI_0(...) (clb_eval_into)(__VA_ARGS__)
#define CLB__EI_1(ctx, expr, n, names, inputs, out)                                                \
    (clb_eval_into)((ctx), (expr), (n), (names), CLB_INPUTS(inputs), (out))
#define clb_eval_reduce(...) CLB__CAT(CLB__ER_, CLB__EXACTLY10(__VA_ARGS__))(__VA_ARGS__)
#define CLB__ER_0(...) (clb_eval_reduce)(__VA_ARGS__)
#define CLB__ER_1(ctx, expr, n, names, inputs, op, naxes, axes, keepdim, out)                      \
    (clb_eval_reduce)((ctx), (expr), (n), (names), CLB_INPUTS(inputs), (op), (naxes), (axes),      \
                      (keepdim), (out))
#define clb_einsum(...) CLB__CAT(CLB__ES_, CLB__EXACTLY4(__VA_ARGS__))(__VA_ARGS__)
#define CLB__ES_0(...) (clb_einsum)(__VA_ARGS__)
#define CLB__ES_1(subscripts, n, operands, out)                                                    \
    (clb_einsum)((subscripts), (n), CLB_INPUTS(operands), (out))
#define clb_concat(...) CLB__CAT(CLB__CC_, CLB__EXACTLY4(__VA_ARGS__))(__VA_ARGS__)
#define CLB__CC_0(...) (clb_concat)(__VA_ARGS__)
#define CLB__CC_1(n, in, axis, out) (clb_concat)((n), CLB_INPUTS(in), (axis), (out))
#define clb_stack(...) CLB__CAT(CLB__ST_, CLB__EXACTLY4(__VA_ARGS__))(__VA_ARGS__)
#define CLB__ST_0(...) (clb_stack)(__VA_ARGS__)
#define CLB__ST_1(n, in, axis, out) (clb_stack)((n), CLB_INPUTS(in), (axis), (out))
#endif

#endif /* CLBROADCAST_H */
