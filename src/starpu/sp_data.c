/* Tensors as StarPU data: matrix handles of shape[0] rows (the shape and dtype
 * travel beside them), their partition along the first axis, and the codelet
 * side: a clbroadcast tensor over a buffer StarPU placed, never a copy. */
#include "sp_internal.h"

#if CLB_SP_OPENCL
#include "clbroadcast_cl.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *clb_sp_shape_text(int ndim, const int64_t *shape, char *buf, size_t size)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, size, "(");
    for (int d = 0; d < ndim && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, d ? ", %lld" : "%lld", (long long)shape[d]);
    if (at < size) snprintf(buf + at, size - at, ndim == 1 ? ",)" : ")");
    return buf;
}

/* numel, or -1 with a message when dtype, ndim or shape is unusable. */
static int64_t checked_numel(const char *fn, const char *what, clb_dtype dtype, int ndim,
                             const int64_t *shape)
{
    if (clb_dtype_size(dtype) == 0) {
        clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s: dtype %d is not a clb_dtype", fn, what, (int)dtype);
        return -1;
    }
    if (ndim < 0 || ndim > CLB_MAX_DIMS || (ndim > 0 && !shape)) {
        clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s: ndim %d (0 .. %d, shape not NULL)", fn,
                    what, ndim, CLB_MAX_DIMS);
        return -1;
    }
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0 || __builtin_mul_overflow(numel, shape[d], &numel)) {
            clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s: shape[%d] = %lld is negative or "
                        "the element count overflows", fn, what, d, (long long)shape[d]);
            return -1;
        }
    }
    return numel;
}

clb_status clb_sp_check_tensor(const char *fn, const char *what, const clb_starpu_tensor *t)
{
    if (!t || !t->handle)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s is NULL or has no handle "
                           "(clb_starpu_register or clb_starpu_describe)", fn, what);
    return checked_numel(fn, what, t->dtype, t->ndim, t->shape) < 0 ? CLB_ERR_INVALID_ARGUMENT
                                                                     : CLB_OK;
}

static void describe_into(clb_starpu_tensor *out, starpu_data_handle_t h, clb_dtype dtype,
                          int ndim, const int64_t *shape)
{
    memset(out, 0, sizeof *out);
    out->handle = h;
    out->dtype = dtype;
    out->ndim = ndim;
    for (int d = 0; d < ndim; d++) out->shape[d] = shape[d];
}

clb_status clb_starpu_register(void *data, clb_dtype dtype, int ndim, const int64_t *shape,
                               clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_register";
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    int64_t numel = checked_numel(fn, "the tensor", dtype, ndim, shape);
    if (numel < 0) return CLB_ERR_INVALID_ARGUMENT;
    int64_t rows = ndim ? shape[0] : 1, inner = rows ? numel / rows : 0;
    char text[64];
    if (numel == 0)
        return clb_sp_fail(CLB_ERR_UNSUPPORTED, "%s: shape %s has no elements; StarPU does "
                           "not register empty data", fn, clb_sp_shape_text(ndim, shape, text, sizeof text));
    if (rows > UINT32_MAX || inner > UINT32_MAX)
        return clb_sp_fail(CLB_ERR_UNSUPPORTED, "%s: shape %s: StarPU 1.3's matrix interface "
                           "counts rows and row lengths in 32 bits (at most %lu); split the "
                           "tensor or reshape it", fn,
                           clb_sp_shape_text(ndim, shape, text, sizeof text), (unsigned long)UINT32_MAX);
    starpu_data_handle_t h = NULL;
    starpu_matrix_data_register(&h, data ? STARPU_MAIN_RAM : -1, (uintptr_t)data, (uint32_t)inner,
                                (uint32_t)inner, (uint32_t)rows, clb_dtype_size(dtype));
    describe_into(out, h, dtype, ndim, shape);
    return CLB_OK;
}

clb_status clb_starpu_describe(starpu_data_handle_t handle, clb_dtype dtype, int ndim,
                               const int64_t *shape, clb_starpu_tensor *out)
{
    static const char fn[] = "clb_starpu_describe";
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    memset(out, 0, sizeof *out);
    if (!handle) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: handle is NULL", fn);
    int64_t numel = checked_numel(fn, "the tensor", dtype, ndim, shape);
    if (numel < 0) return CLB_ERR_INVALID_ARGUMENT;
    size_t itemsize = clb_dtype_size(dtype);
    char text[64];
    clb_sp_shape_text(ndim, shape, text, sizeof text);
    enum starpu_data_interface_id id = starpu_data_get_interface_id(handle);
    if (id == STARPU_VECTOR_INTERFACE_ID) {
        uint32_t nx = starpu_vector_get_nx(handle);
        size_t elem = starpu_vector_get_elemsize(handle);
        if (elem != itemsize || (int64_t)nx != numel)
            return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                               "%s: the vector handle holds %u elements of %zu bytes, but a %s "
                               "tensor of shape %s needs %lld of %zu", fn, nx, elem,
                               clb_dtype_name(dtype), text, (long long)numel, itemsize);
    } else if (id == STARPU_MATRIX_INTERFACE_ID) {
        uint32_t nx = starpu_matrix_get_nx(handle), ny = starpu_matrix_get_ny(handle);
        size_t elem = starpu_matrix_get_elemsize(handle);
        int64_t rows = ndim ? shape[0] : 1, inner = rows ? numel / rows : 0;
        if (elem != itemsize || (int64_t)ny != rows || (int64_t)nx != inner)
            return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                               "%s: the matrix handle holds %u rows of %u elements of %zu bytes, "
                               "but a %s tensor of shape %s is %lld rows of %lld of %zu", fn, ny,
                               nx, elem, clb_dtype_name(dtype), text, (long long)rows,
                               (long long)inner, itemsize);
    } else {
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: the handle is neither a vector nor a "
                           "matrix (StarPU interface id %d)", fn, (int)id);
    }
    describe_into(out, handle, dtype, ndim, shape);
    return CLB_OK;
}

void clb_starpu_unregister(clb_starpu_tensor *t)
{
    if (!t || !t->handle) return;
    starpu_data_unregister(t->handle);
    memset(t, 0, sizeof *t);
}

clb_status clb_starpu_partition(const clb_starpu_tensor *t, int nparts, clb_starpu_tensor *parts)
{
    static const char fn[] = "clb_starpu_partition";
    clb_status st = clb_sp_check_tensor(fn, "t", t);
    if (st != CLB_OK) return st;
    if (!parts) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: parts is NULL", fn);
    int64_t rows = t->ndim ? t->shape[0] : 1;
    if (nparts < 1 || nparts > rows)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: nparts %d is outside 1 .. %lld (the "
                           "rows of the first axis)", fn, nparts, (long long)rows);
    memset(parts, 0, (size_t)nparts * sizeof *parts);
    if (starpu_data_get_nb_children(t->handle) > 0)
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: t is partitioned already; "
                           "clb_starpu_unpartition it first", fn);
    struct starpu_data_filter f;
    memset(&f, 0, sizeof f);
    f.nchildren = (unsigned)nparts;
    uint32_t *lengths = NULL;
    enum starpu_data_interface_id id = starpu_data_get_interface_id(t->handle);
    if (id == STARPU_MATRIX_INTERFACE_ID) {
        f.filter_func = starpu_matrix_filter_vertical_block;
    } else {
        /* A vector: blocks of whole rows. */
        int64_t inner = t->ndim ? (int64_t)starpu_vector_get_nx(t->handle) / rows : 1;
        lengths = malloc((size_t)nparts * sizeof *lengths);
        if (!lengths) return clb_sp_fail(CLB_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        for (int i = 0; i < nparts; i++)
            lengths[i] = (uint32_t)((rows * (i + 1) / nparts - rows * i / nparts) * inner);
        f.filter_func = starpu_vector_filter_list;
        f.filter_arg_ptr = lengths;
    }
    starpu_data_partition(t->handle, &f);
    free(lengths);
    for (int i = 0; i < nparts; i++) {
        starpu_data_handle_t child = starpu_data_get_sub_data(t->handle, 1, (unsigned)i);
        describe_into(&parts[i], child, t->dtype, t->ndim, t->shape);
        if (t->ndim)
            parts[i].shape[0] = id == STARPU_MATRIX_INTERFACE_ID
                                    ? (int64_t)starpu_matrix_get_ny(child)
                                    : rows * (i + 1) / nparts - rows * i / nparts;
    }
    return CLB_OK;
}

void clb_starpu_unpartition(const clb_starpu_tensor *t)
{
    if (t && t->handle && starpu_data_get_nb_children(t->handle) > 0)
        starpu_data_unpartition(t->handle, STARPU_MAIN_RAM);
}

/* ---- the codelet side ---------------------------------------------------------- */

clb_status clb_sp_view(const char *fn, clb_context *ctx, int on_device, void *buffer,
                       clb_dtype dtype, int ndim, const int64_t *shape, clb_tensor **out)
{
    int64_t numel = checked_numel(fn, "the buffer's tensor", dtype, ndim, shape);
    if (numel < 0) return CLB_ERR_INVALID_ARGUMENT;
    size_t itemsize = clb_dtype_size(dtype);
    int64_t strides[CLB_MAX_DIMS];
    int64_t step = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = step;
        step *= shape[d];
    }
    enum starpu_data_interface_id id = *(enum starpu_data_interface_id *)buffer;
    uintptr_t ptr = 0, dev = 0;
    size_t offset = 0, nbytes = 0, elem = 0;
    int64_t have = 0;
    if (id == STARPU_MATRIX_INTERFACE_ID) {
        struct starpu_matrix_interface *m = buffer;
        int64_t rows = ndim ? shape[0] : 1;
        elem = m->elemsize;
        have = (int64_t)m->nx * m->ny;
        if ((int64_t)m->ny != rows || (numel && (int64_t)m->nx != numel / rows)) have = -1;
        if (ndim) strides[0] = m->ld;
        ptr = m->ptr, dev = m->dev_handle, offset = m->offset;
        nbytes = ((size_t)(m->ny - 1) * m->ld + m->nx) * m->elemsize;
    } else if (id == STARPU_VECTOR_INTERFACE_ID) {
        struct starpu_vector_interface *v = buffer;
        elem = v->elemsize;
        have = v->nx;
        ptr = v->ptr, dev = v->dev_handle, offset = v->offset;
        nbytes = (size_t)v->nx * v->elemsize;
    } else {
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: the buffer is neither a vector nor a "
                           "matrix (StarPU interface id %d)", fn, (int)id);
    }
    if (elem != itemsize || have != numel) {
        char text[64];
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: the buffer holds %lld elements of "
                           "%zu bytes, laid out otherwise than a %s tensor of shape %s", fn,
                           (long long)(have < 0 ? 0 : have), elem, clb_dtype_name(dtype),
                           clb_sp_shape_text(ndim, shape, text, sizeof text));
    }
#if CLB_SP_OPENCL
    if (on_device)
        return clb_tensor_from_cl_buffer(ctx, (cl_mem)dev, offset, dtype, ndim, shape, strides, out);
#else
    (void)dev;
    (void)offset;
    if (on_device)
        return clb_sp_fail(CLB_ERR_UNSUPPORTED, "%s: this clbroadcast has no OpenCL", fn);
#endif
    return clb_tensor_from_host_memory(ctx, (void *)ptr, nbytes, dtype, ndim, shape, strides, out);
}

clb_status clb_starpu_buffer_tensor(clb_starpu *sp, clb_context *ctx, void *buffer, clb_dtype dtype,
                                    int ndim, const int64_t *shape, clb_tensor **out)
{
    static const char fn[] = "clb_starpu_buffer_tensor";
    if (!out) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    clb_status st = clb_sp_check(sp, fn);
    if (st != CLB_OK) return st;
    if (!ctx || !buffer) return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: ctx or buffer is NULL", fn);
    int w = starpu_worker_get_id();
    if (w < 0 || (unsigned)w >= sp->nworkers || !sp->contexts[w])
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT, "%s: not called from a CPU or OpenCL worker's "
                           "codelet", fn);
    if (ctx != sp->contexts[w]) {
        char name[64];
        starpu_worker_get_name(w, name, sizeof name);
        return clb_sp_fail(CLB_ERR_INVALID_ARGUMENT,
                           "%s: ctx runs on \"%s\" but this codelet runs on worker %d (%s), whose "
                           "buffers live on \"%s\"; use clb_starpu_current_context",
                           fn, clb_context_device_name(ctx), w, name,
                           clb_context_device_name(sp->contexts[w]));
    }
    return clb_sp_view(fn, ctx, starpu_worker_get_type(w) == STARPU_OPENCL_WORKER, buffer, dtype,
                       ndim, shape, out);
}
