/* The host backend's generate slot: cl/generate.cl's formulas from the same
 * clb__gen_op parameters and the same random text (cl/random.h), so the host
 * and every device give the same values; draws run a block of Philox calls
 * at a time, each call once for the elements it serves. */
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

/* A draw in blocks of cl/random.h's lanes: block b holds the G * CLB_RNG_LANES
   elements of its LANES Philox calls (element b * G * LANES + k * LANES + l
   takes slot k of call b * LANES + l), so each call runs once for the G
   elements it serves, and a float32 normal's Box-Muller pair once for both
   of its values, the same operations on the same words as the kernels. */
typedef struct draw_block {
    clb_u32 w[CLB_RNG_LANES][4];
    float z[4 * CLB_RNG_LANES]; /* float16/32 normals: the standard normal of each slot */
} draw_block;

static void block_words(const clb__gen_op *op, uint64_t b, draw_block *d)
{
    const bool normal = op->kind == CLB__GEN_NORMAL;
    for (int l = 0; l < CLB_RNG_LANES; l++) {
        clb_philox(b * CLB_RNG_LANES + (uint64_t)l, op->a[0], d->w[l]);
        if (!normal || op->dtype == CLB_FLOAT64) continue;
        for (int p = 0; p < 2; p++)
            clb_rng_normal2f(d->w[l][2 * p], d->w[l][2 * p + 1], &d->z[2 * p * CLB_RNG_LANES + l],
                             &d->z[(2 * p + 1) * CLB_RNG_LANES + l]);
    }
}

/* Slot k of lane l as a float32 / float16 draw (float arithmetic, as the kernel). */
static float random_f32(const clb__gen_op *op, const draw_block *d, int k, int l)
{
    const uint64_t *a = op->a;
    float lo = bits_f32(a[2]), sc = bits_f32(a[3]), r;
    bool half = op->dtype == CLB_FLOAT16;
    if (op->kind == CLB__GEN_NORMAL) {
        r = lo + sc * d->z[k * CLB_RNG_LANES + l];
        return half ? round_half(r) : r;
    }
    const clb_u32 w = d->w[l][k];
    r = half ? round_half(lo + sc * clb_rng_unit11(w)) : lo + sc * clb_rng_unit24(w);
    return r < bits_f32(a[4]) ? r : bits_f32(a[5]);
}

static double random_f64(const clb__gen_op *op, const draw_block *d, int k, int l)
{
    const uint64_t *a = op->a;
    const clb_u32 *w = d->w[l];
    if (op->kind == CLB__GEN_NORMAL) return bits_f64(a[2]) + bits_f64(a[3]) * clb_rng_normal(w, k);
    double r = bits_f64(a[2]) + bits_f64(a[3]) * clb_rng_unit53(w[2 * k], w[2 * k + 1]);
    return r < bits_f64(a[4]) ? r : bits_f64(a[5]);
}

/* Elements [0, numel) of the draw at offset a[1], block by block. */
static void draw(const clb__gen_op *op, unsigned char *out)
{
    const int g = clb_rng_group(op->kind == CLB__GEN_NORMAL, op->dtype == CLB_FLOAT64);
    const uint64_t per = (uint64_t)g * CLB_RNG_LANES, first = op->a[1];
    const size_t size = clb_dtype_size(op->dtype);
    clb__store_fn store = clb__storer(op->dtype);
    draw_block d;
    uint64_t i = 0;
    while (i < (uint64_t)op->numel) {
        const uint64_t j = first + i, b = j / per;
        block_words(op, b, &d);
        for (uint64_t r = j % per; r < per && i < (uint64_t)op->numel; r++, i++) {
            const int k = (int)(r / CLB_RNG_LANES), l = (int)(r % CLB_RNG_LANES);
            clb__value v;
            if (op->dtype == CLB_FLOAT64) v.d = random_f64(op, &d, k, l);
            else v.f = random_f32(op, &d, k, l);
            store(out + (size_t)i * size, v);
        }
    }
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

/* full: the value's bit pattern (little-endian) in every element. */
static void fill(const clb__gen_op *op, unsigned char *out)
{
    const size_t size = clb_dtype_size(op->dtype), n = (size_t)op->numel;
    unsigned char pattern[8];
    for (size_t b = 0; b < size; b++) pattern[b] = (unsigned char)(op->a[0] >> (8 * b));
    bool same = true;
    for (size_t b = 1; b < size; b++) same = same && pattern[b] == pattern[0];
    if (same) {
        memset(out, pattern[0], n * size);
        return;
    }
    /* the pattern once, then the filled part doubled */
    memcpy(out, pattern, size);
    for (size_t done = 1; done < n;) {
        const size_t more = done < n - done ? done : n - done;
        memcpy(out + done * size, out, more * size);
        done += more;
    }
}

clb_status clb__host_generate(clb_context *ctx, const clb__gen_op *op, void *handle)
{
    (void)ctx;
    unsigned char *out = handle;
    if (op->numel == 0) return CLB_OK;
    if (op->kind == CLB__GEN_FULL) {
        fill(op, out);
        return CLB_OK;
    }
    if (op->kind != CLB__GEN_ARANGE && op->kind != CLB__GEN_LINSPACE) {
        draw(op, out);
        return CLB_OK;
    }
    size_t size = clb_dtype_size(op->dtype);
    clb__store_fn store = clb__storer(op->dtype);
    for (int64_t k = 0; k < op->numel; k++) {
        uint64_t i = (uint64_t)k;
        clb__value v = op->kind == CLB__GEN_ARANGE ? arange_value(op, i) : linspace_value(op, i);
        store(out + (size_t)k * size, v);
    }
    return CLB_OK;
}
