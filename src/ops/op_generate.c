/* Parameters of full / arange / linspace / random (see op_generate.h and the
 * meaning of a[0..5] in cl/generate.cl). */
#include "op_generate.h"

#include "dtype.h"
#include "half.h"
#include "host_scalar.h"

#include <math.h>
#include <string.h>

static uint64_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The largest float16 below h (a float16 value), as a float. */
static float half_below(double h)
{
    uint16_t b = clb__half_from_double(h);
    if (h > 0) b = (uint16_t)(b - 1);
    else if (h < 0) b = (uint16_t)(b + 1);
    else b = 0x8001; /* below +-0: the negative smallest subnormal */
    return clb__half_to_float(b);
}

/* The bit pattern of a value of dtype t, zero-extended to 64 bits. */
static uint64_t value_bits(clb__value v, clb_dtype t)
{
    unsigned char bytes[8] = {0};
    clb__storer(t)(bytes, v);
    uint64_t u = 0;
    for (size_t k = 0; k < clb_dtype_size(t); k++) u |= (uint64_t)bytes[k] << (8 * k);
    return u;
}

/* Whether integer v fits integer (or bool: 0/1) dtype t. */
static bool int_fits(int64_t v, clb_dtype t)
{
    if (t == CLB_BOOL) return v == 0 || v == 1;
    if (t == CLB_UINT64) return v >= 0;
    if (t == CLB_INT64) return true;
    int bits = (int)clb_dtype_size(t) * 8;
    if (clb__dtype_is_unsigned(t)) return v >= 0 && v < (INT64_C(1) << bits);
    return v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1));
}

static clb_status check_dtype(const char *fn, clb_dtype t)
{
    if (!clb__dtype_valid(t))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: dtype %d is not a clb_dtype value", fn,
                         (int)t);
    return CLB_OK;
}

clb_status clb__gen_full(const char *fn, clb_dtype dtype, clb_scalar value, clb__gen_op *op)
{
    clb_status st = check_dtype(fn, dtype);
    if (st != CLB_OK) return st;
    clb__value v;
    clb_dtype from;
    switch (value.kind) {
    case CLB_SCALAR_BOOL:
    case CLB_SCALAR_INT:
        if (value.kind == CLB_SCALAR_BOOL && value.i != 0 && value.i != 1)
            return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: a BOOL value is 0 or 1, not %lld", fn,
                             (long long)value.i);
        if (!clb__dtype_is_float(dtype) && dtype != CLB_BOOL && !int_fits(value.i, dtype))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: Python integer %lld out of bounds for %s (NumPy 2 raises "
                             "OverflowError); pick a wider dtype",
                             fn, (long long)value.i, clb_dtype_name(dtype));
        v.i = value.i;
        from = value.kind == CLB_SCALAR_BOOL ? CLB_BOOL : CLB_INT64;
        break;
    case CLB_SCALAR_FLOAT:
        v.d = value.f;
        from = CLB_FLOAT64;
        break;
    default:
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: value.kind %d is not a clb_scalar_kind (BOOL, INT, FLOAT)", fn,
                         (int)value.kind);
    }
    memset(op, 0, sizeof *op);
    op->kind = CLB__GEN_FULL;
    op->dtype = dtype;
    /* the pattern repeated over 8 bytes: kernels write it 16 bytes at a time */
    uint64_t bits = value_bits(clb__convert(v, from, dtype), dtype);
    for (size_t w = clb_dtype_size(dtype); w < 8; w *= 2) bits |= bits << (8 * w);
    op->a[0] = bits;
    return CLB_OK;
}

/* An integer arange: NumPy stores int(start) and int(start + step) (truncation),
   then fills first + i * (second - first) in the dtype. */
static clb_status arange_int(const char *fn, clb_dtype dtype, double start, double step,
                             int64_t length, clb__gen_op *op)
{
    double second = start + step, last = start + (double)(length - 1) * step;
    if (length > 0 && (fabs(start) >= 0x1p63 || fabs(second) >= 0x1p63 || fabs(last) >= 0x1p63 ||
                       !int_fits((int64_t)start, dtype) ||
                       (length > 1 && !int_fits((int64_t)second, dtype)) ||
                       !int_fits((int64_t)last, dtype)))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: the range [%g, %g] does not fit %s; pick a wider dtype", fn, start,
                         last, clb_dtype_name(dtype));
    if (dtype == CLB_BOOL && length > 2)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: a bool arange holds at most 2 values (NumPy: no fill function for "
                         "bool), this one %lld",
                         fn, (long long)length);
    if (length == 0) { /* nothing to write: start may not even fit an int64 */
        op->a[0] = op->a[1] = op->a[2] = 0;
        return CLB_OK;
    }
    int64_t first = (int64_t)start, next = length > 1 ? (int64_t)second : first;
    op->a[0] = (uint64_t)first;
    op->a[1] = (uint64_t)next - (uint64_t)first;
    op->a[2] = (uint64_t)next;
    return CLB_OK;
}

clb_status clb__gen_arange(const char *fn, clb_dtype dtype, double start, double stop, double step,
                           int64_t *length, clb__gen_op *op)
{
    clb_status st = check_dtype(fn, dtype);
    if (st != CLB_OK) return st;
    if (!isfinite(start) || !isfinite(stop) || !isfinite(step))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                         "%s: start, stop and step must be finite (got %g, %g, %g)", fn, start,
                         stop, step);
    if (step == 0)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: step is 0 (NumPy: Maximum allowed size "
                         "exceeded); give a non-zero step", fn);
    double len = ceil((stop - start) / step);
    if (!(len < 0x1p62))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: %g elements is too many", fn, len);
    *length = len > 0 ? (int64_t)len : 0;
    memset(op, 0, sizeof *op);
    op->kind = CLB__GEN_ARANGE;
    op->dtype = dtype;
    if (dtype == CLB_FLOAT64) {
        double second = start + step;
        op->a[0] = f64_bits(start), op->a[1] = f64_bits(second - start), op->a[2] = f64_bits(second);
    } else if (clb__dtype_is_float(dtype)) { /* NumPy's FLOAT_fill / HALF_fill, in float */
        float first = (float)start, second = (float)(start + step);
        if (dtype == CLB_FLOAT16) { /* a Python float into a half array: one rounding */
            first = clb__half_to_float(clb__half_from_double(start));
            second = clb__half_to_float(clb__half_from_double(start + step));
        }
        op->a[0] = f32_bits(first), op->a[1] = f32_bits(second - first), op->a[2] = f32_bits(second);
    } else {
        return arange_int(fn, dtype, start, step, *length, op);
    }
    return CLB_OK;
}

clb_status clb__gen_linspace(const char *fn, clb_dtype dtype, double start, double stop,
                             int64_t num, int endpoint, bool f64, clb__gen_op *op)
{
    clb_status st = check_dtype(fn, dtype);
    if (st != CLB_OK) return st;
    if (num < 0)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: num is %lld; it must be non-negative", fn,
                         (long long)num);
    if (endpoint != 0 && endpoint != 1)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: endpoint must be 0 or 1, not %d", fn,
                         endpoint);
    if (!isfinite(start) || !isfinite(stop))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: start and stop must be finite (got %g, %g)",
                         fn, start, stop);
    /* numpy.linspace: step = delta / div; y = i * step + start (i / div * delta
       where the step underflows to 0, i * delta when div is 0); stop exactly at
       the end; floor for integer dtypes; then astype. */
    double div = endpoint ? (double)(num - 1) : (double)num, delta = stop - start;
    double step = div > 0 ? delta / div : NAN;
    int mode = div > 0 ? (step == 0 ? 1 : 0) : 2;
    double p[4] = {start, mode == 1 ? div : step, stop, delta};
    memset(op, 0, sizeof *op);
    op->kind = CLB__GEN_LINSPACE;
    op->dtype = dtype;
    op->f64 = f64;
    for (int k = 0; k < 4; k++) op->a[k] = f64 ? f64_bits(p[k]) : f32_bits((float)p[k]);
    op->a[4] = (uint64_t)mode;
    op->a[5] = endpoint && num > 1 ? (uint64_t)(num - 1) : UINT64_MAX;
    return CLB_OK;
}

clb_status clb__gen_random(const char *fn, clb_dtype dtype, bool is_normal, uint64_t seed,
                           uint64_t offset, double a, double b, clb__gen_op *op)
{
    clb_status st = check_dtype(fn, dtype);
    if (st != CLB_OK) return st;
    if (!clb__dtype_is_float(dtype))
        return clb__fail(CLB_ERR_DTYPE, "%s: draws are float16, float32 or float64, not %s; "
                         "clb_cast the result for another dtype", fn, clb_dtype_name(dtype));
    if (!isfinite(a) || !isfinite(b))
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: %s must be finite (got %g, %g)", fn,
                         is_normal ? "mean and std" : "low and high", a, b);
    if (is_normal && b < 0)
        return clb__fail(CLB_ERR_INVALID_ARGUMENT, "%s: std is %g; it must be >= 0", fn, b);
    memset(op, 0, sizeof *op);
    op->kind = is_normal ? CLB__GEN_NORMAL : CLB__GEN_UNIFORM;
    op->dtype = dtype;
    op->a[0] = seed;
    op->a[1] = offset;
    double lo = a, hi = b, scale = is_normal ? b : hi - lo, below = 0;
    if (!is_normal) { /* the dtype's own bounds: [lo, hi) with hi's predecessor for ties */
        if (dtype == CLB_FLOAT16) {
            lo = clb__half_to_float(clb__half_from_double(a));
            hi = clb__half_to_float(clb__half_from_double(b));
            below = half_below(hi);
        } else if (dtype == CLB_FLOAT32) {
            lo = (float)a, hi = (float)b, below = nextafterf((float)hi, -INFINITY);
        } else {
            below = nextafter(hi, -INFINITY);
        }
        scale = dtype == CLB_FLOAT64 ? hi - lo : (double)((float)hi - (float)lo);
        if (!(lo < hi) || !isfinite(scale))
            return clb__fail(CLB_ERR_INVALID_ARGUMENT,
                             "%s: low (%g) must be below high (%g) in %s, and high - low finite",
                             fn, a, b, clb_dtype_name(dtype));
    }
    double p[4] = {lo, scale, hi, below};
    for (int k = 0; k < 4; k++)
        op->a[2 + k] = dtype == CLB_FLOAT64 ? f64_bits(p[k]) : f32_bits((float)p[k]);
    return CLB_OK;
}
