/* The host backend's generate slot: cl/generate.cl's formulas, element by
 * element, from the same clb__gen_op parameters and the same random text
 * (cl/random.h), so the host and every device give the same values. */
#include "host_gen.h"

#include "dtype.h"
#include "half.h"
#include "host_scalar.h"

#include "../../cl/random.h"

#include <math.h>
#include <string.h>

static float bits_f32(uint64_t u)
{
    uint32_t w = (uint32_t)u;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static float round_half(float f)
{
    return clb__half_to_float(clb__half_from_float(f));
}

/* The words of element i's Philox call and its slot k in the call (cl/random.h's
   lanes). */
static int words_of(const clb__gen_op *op, uint64_t i, clb_u32 *w)
{
    int g = clb_rng_group(op->kind == CLB__GEN_NORMAL, op->dtype == CLB_FLOAT64);
    uint64_t counter;
    int k = clb_rng_locate(op->a[1] + i, g, &counter);
    clb_philox(counter, op->a[0], w);
    return k;
}

/* A float32 / float16 draw (float arithmetic, as the kernel). */
static float random_f32(const clb__gen_op *op, uint64_t i)
{
    const uint64_t *a = op->a;
    clb_u32 w[4];
    int k = words_of(op, i, w);
    float lo = bits_f32(a[2]), sc = bits_f32(a[3]), r;
    bool half = op->dtype == CLB_FLOAT16;
    if (op->kind == CLB__GEN_NORMAL) {
        r = lo + sc * clb_rng_normalf(w[k & 2], w[(k & 2) + 1], k & 1);
        return half ? round_half(r) : r;
    }
    r = half ? round_half(lo + sc * clb_rng_unit11(w[k])) : lo + sc * clb_rng_unit24(w[k]);
    return r < bits_f32(a[4]) ? r : bits_f32(a[5]);
}

static double random_f64(const clb__gen_op *op, uint64_t i)
{
    const uint64_t *a = op->a;
    clb_u32 w[4];
    int k = words_of(op, i, w);
    if (op->kind == CLB__GEN_NORMAL) return bits_f64(a[2]) + bits_f64(a[3]) * clb_rng_normal(w, k);
    double r = bits_f64(a[2]) + bits_f64(a[3]) * clb_rng_unit53(w[2 * k], w[2 * k + 1]);
    return r < bits_f64(a[4]) ? r : bits_f64(a[5]);
}

static clb__value arange_value(const clb__gen_op *op, uint64_t i)
{
    const uint64_t *a = op->a;
    clb__value v;
    if (op->dtype == CLB_FLOAT64) {
        v.d = i == 1 ? bits_f64(a[2]) : bits_f64(a[0]) + (double)i * bits_f64(a[1]);
    } else if (clb__dtype_is_float(op->dtype)) {
        v.f = i == 1 ? bits_f32(a[2]) : bits_f32(a[0]) + (float)i * bits_f32(a[1]);
        if (op->dtype == CLB_FLOAT16) v.f = round_half(v.f);
    } else {
        v.u = a[0] + i * a[1];
        return clb__convert(v, CLB_UINT64, op->dtype);
    }
    return v;
}

static clb__value linspace_value(const clb__gen_op *op, uint64_t i)
{
    const uint64_t *a = op->a;
    clb__value v;
    if (op->f64) {
        double y = i == a[5]  ? bits_f64(a[2])
                   : a[4] == 0 ? (double)i * bits_f64(a[1]) + bits_f64(a[0])
                   : a[4] == 1 ? (double)i / bits_f64(a[1]) * bits_f64(a[3]) + bits_f64(a[0])
                               : (double)i * bits_f64(a[3]) + bits_f64(a[0]);
        v.d = clb__dtype_is_integer(op->dtype) ? floor(y) : y;
        return clb__convert(v, CLB_FLOAT64, op->dtype);
    }
    float y = i == a[5]  ? bits_f32(a[2])
              : a[4] == 0 ? (float)i * bits_f32(a[1]) + bits_f32(a[0])
              : a[4] == 1 ? (float)i / bits_f32(a[1]) * bits_f32(a[3]) + bits_f32(a[0])
                          : (float)i * bits_f32(a[3]) + bits_f32(a[0]);
    v.f = clb__dtype_is_integer(op->dtype) ? floorf(y) : y;
    return clb__convert(v, CLB_FLOAT32, op->dtype);
}

clb_status clb__host_generate(clb_context *ctx, const clb__gen_op *op, void *handle)
{
    (void)ctx;
    unsigned char *out = handle;
    size_t size = clb_dtype_size(op->dtype);
    clb__store_fn store = clb__storer(op->dtype);
    for (int64_t k = 0; k < op->numel; k++) {
        uint64_t i = (uint64_t)k;
        unsigned char *dst = out + (size_t)k * size;
        clb__value v;
        switch (op->kind) {
        case CLB__GEN_FULL: /* the bit pattern, little-endian */
            for (size_t b = 0; b < size; b++) dst[b] = (unsigned char)(op->a[0] >> (8 * b));
            continue;
        case CLB__GEN_ARANGE: v = arange_value(op, i); break;
        case CLB__GEN_LINSPACE: v = linspace_value(op, i); break;
        default:
            if (op->dtype == CLB_FLOAT64) v.d = random_f64(op, i);
            else v.f = random_f32(op, i);
            break;
        }
        store(dst, v);
    }
    return CLB_OK;
}
