/* Private structures and helpers shared by the library's source files. */
#ifndef CLB_INTERNAL_H
#define CLB_INTERNAL_H

#include "clbroadcast.h"
#include "options.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct clb__backend;

#define CLB__CONTEXT_MAGIC 0x43544358u /* "XCTC": catches use of a released/garbage context */
#define CLB__TENSOR_MAGIC 0x534e4554u  /* "TENS" */

struct clb_context {
    uint32_t magic;
    atomic_int refs;                    /* the user's reference + one per live storage */
    atomic_bool user_released;          /* clb_context_release already dropped the user's reference */
    const struct clb__backend *backend;
    void *impl;                         /* backend state (host: NULL; OpenCL: struct clb__cl_context) */
    clb_device_info info;
    atomic_size_t allocated;            /* bytes of live storage, for clb_memory_allocated */
    atomic_size_t reserved;             /* bytes held from the backend: live blocks + the pool */
    pthread_mutex_t pool_lock;
    struct clb__pool *pool;             /* released blocks kept for reuse (pool.c); NULL: none */
    clb__options options;               /* the environment, read at creation (options.c) */
    atomic_int promotion;               /* clb_promotion: the rules every op of this context follows */
};

/* A block of memory on the context's device. Views share it by reference. */
typedef struct clb__storage {
    atomic_int refs;
    clb_context *ctx; /* holds a context reference */
    size_t nbytes;    /* what the tensor asked for: counted by clb_memory_allocated */
    size_t capacity;  /* the block's real size (a pool size class) */
    void *handle;     /* host backend: malloc'd block; OpenCL: cl_mem */
    bool wrapped;     /* the application's buffer (clb_tensor_from_cl_buffer): nbytes is 0,
                         and release gives the handle to backend->free, never to the pool */
    bool borrowed;    /* the application's host memory (clb_tensor_from_host_memory): wrapped,
                         and release gives it to nobody (the application frees it) */
    bool read_only;   /* the device may not write it (a CL_MEM_READ_ONLY buffer): never an out */
    /* The memory itself, whatever record describes it: the handle, or for an OpenCL
       sub-buffer (a wrapped one, or a library block carved from a slab) its parent
       buffer; base_offset is where handle's byte 0 lies in base, and the record
       covers capacity bytes from there. Overlap and sharing are decided on (base,
       bytes), so that two wraps of one cl_mem, or a wrap of a sub-buffer and of its
       parent, alias, while two blocks of one slab do not. */
    const void *base;
    size_t base_offset;
} clb__storage;

/* What a wrapped handle is (clb__tensor_wrap). */
typedef struct clb__wrap_memory {
    const void *base;   /* NULL: the handle itself */
    size_t base_offset; /* the handle's byte 0 within base */
    bool read_only;
} clb__wrap_memory;

struct clb_tensor {
    uint32_t magic;
    atomic_int refs;
    clb__storage *storage; /* holds a storage reference */
    clb_dtype dtype;
    int ndim;
    int64_t offset; /* in elements, from the start of storage */
    int64_t numel;
    int64_t shape[CLB_MAX_DIMS];
    int64_t strides[CLB_MAX_DIMS]; /* in elements; 0 on broadcast axes */
};

/* ---- errors (status.c) --------------------------------------------------- */
/* Records a formatted message as clb_last_error() for this thread; returns s. */
clb_status clb__fail(clb_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prefixes the last message with "fn: " (unless it names fn already), for errors
   that come from a shared helper; a non-NULL `out_label` renames the helper's
   "tensor <out_label>" to "out" (the _into calls' write target). Returns st. */
clb_status clb__fail_in(const char *fn, clb_status st, const char *out_label);

/* CLB_TRY for a shared helper's error: the message gets "fn: " (clb__fail_in). */
#define CLB_TRY_IN(fn, out_label, expr)                                                            \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CLB_OK) {                                                                        \
            st = clb__fail_in((fn), st, (out_label));                                              \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* Early exit to the function's `cleanup:` label, keeping the status in `st`. */
#define CLB_TRY(expr)                                                                              \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CLB_OK) goto cleanup;                                                            \
    } while (0)
#define CLB_FAIL(status, ...)                                                                      \
    do {                                                                                           \
        st = clb__fail((status), __VA_ARGS__);                                                     \
        goto cleanup;                                                                              \
    } while (0)

/* ---- argument checks (tensor.c, context.c) ------------------------------- */
/* CLB_ERR_INVALID_ARGUMENT naming `what` when t is NULL or not a live tensor. */
clb_status clb__check_tensor(const clb_tensor *t, const char *what);
clb_status clb__check_context(const clb_context *ctx, const char *what);
clb_status clb__check_dtype(clb_dtype t, const char *what);
/* CLB_ERR_INVALID_ARGUMENT when a and b belong to different contexts. */
clb_status clb__check_same_context(const char *fn, const clb_tensor *a, const clb_tensor *b);
/* ---- promotion rules (ops/op_promotion.c) ---------------------------------- */
clb_promotion clb__rules(const clb_context *ctx); /* the context's clb_context_set_promotion */
/* CLB_ERR_DTYPE naming fn, the rules and the remedy when `result` is float64 on a
   device without it though neither operand a nor b (b < 0: none) is float64. */
clb_status clb__check_promoted_f64(const char *fn, const clb_context *ctx, const char *what,
                                   clb_dtype a, clb_dtype b, clb_dtype result);

/* ---- context (context.c) ------------------------------------------------- */
/* A zeroed context record with its counters, lock and options set up; the caller
   fills backend, impl and info, then sets magic. clb__context_discard frees a
   record whose backend was never (or unsuccessfully) initialised. */
clb_status clb__context_new(clb_context **out);
void clb__context_discard(clb_context *ctx);
void clb__context_retain(clb_context *ctx);
void clb__context_unref(clb_context *ctx);

/* ---- storage and tensors (tensor.c) -------------------------------------- */
clb_status clb__storage_alloc(clb_context *ctx, size_t nbytes, clb__storage **out);
void clb__storage_retain(clb__storage *s);
void clb__storage_release(clb__storage *s);

/* A new contiguous tensor with fresh storage (contents undefined). */
clb_status clb__tensor_new(clb_context *ctx, clb_dtype dtype, int ndim, const int64_t *shape,
                           clb_tensor **out);
/* A tensor over a backend handle the caller already owns a reference to (an
   application's cl_mem): the reference passes to the storage, which gives it to
   backend->free when the last view goes; on failure it is given back at once.
   capacity: the handle's size in bytes; nothing is counted by clb_memory_allocated. */
clb_status clb__tensor_wrap(clb_context *ctx, void *handle, const clb__wrap_memory *mem,
                            size_t capacity, clb_dtype dtype, int ndim, const int64_t *shape,
                            const int64_t *strides, int64_t offset, clb_tensor **out);
/* The same over memory the application keeps owning (host backend:
   clb_tensor_from_host_memory): nothing is ever freed by the library. */
clb_status clb__tensor_borrow(clb_context *ctx, void *ptr, size_t capacity, clb_dtype dtype,
                              int ndim, const int64_t *shape, const int64_t *strides,
                              int64_t offset, clb_tensor **out);
/* A new view over t's storage with the given layout (metadata only). */
clb_status clb__tensor_view(const clb_tensor *t, int ndim, const int64_t *shape,
                            const int64_t *strides, int64_t offset, clb_tensor **out);
/* The smallest and largest element offsets the view touches (numel > 0). */
void clb__tensor_extent(const clb_tensor *t, int64_t *lo, int64_t *hi);
/* Whether a and b lie in one memory object (the same storage record, or two records
   of one buffer: clb_tensor_shares_storage). */
bool clb__same_memory(const clb_tensor *a, const clb_tensor *b);
/* Whether two elements of t may lie at one address (a self-overlapping view such as
   (4, 4) with strides (1, 1)); stride-0 axes are the caller's concern. Conservative:
   true unless the strides, sorted, each step past everything the smaller ones span. */
bool clb__tensor_overlaps_itself(const clb_tensor *t);

/* `out` of an *_into call must be writable without racing the inputs: writable memory,
   no stride-0 axes, no two elements at one address, and either exactly one of the
   inputs (in place) or disjoint from every input's bytes, whatever storage records
   describe them. CLB_ERR_ALIASING naming fn and the input otherwise. */
clb_status clb__check_out_writable(const char *fn, const clb_tensor *out, int n,
                                   const char *const *names, const clb_tensor *const *in);

/* ---- copies (op_copy.c) -------------------------------------------------- */
/* dst (any layout without stride-0 axes, same shape) = cast(src viewed with src_strides). */
clb_status clb__copy_into(clb_tensor *dst, const clb_tensor *src);
/* clb_matmul with the implementation chosen by the caller (CLB__MATMUL_*,
   options.h): the tuning search times each side through it. */
clb_status clb__matmul_impl(const clb_tensor *a, const clb_tensor *b, int impl, clb_tensor **out);

#endif /* CLB_INTERNAL_H */
