/* The host backend's generate slot: cl/generate.cl's formulas from the same
 * clb__gen_op parameters and the same random text (cl/random.h), so the host
 * and every device give the same values; draws run a block of Philox calls
 * at a time, each call once for the elements it serves. */
/* The lane loops below vectorise at -O3 (cl/random.h's and half.h's inline
   functions too: before the includes); without trapping math, since half.h's
   conversions compute both sides of their selects (GCC otherwise keeps a float
   operation that might raise a flag on its own branch, and the loop scalar).
   Neither changes a value. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif

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
    return clb__h2f(clb__f2h(f));
}

/* A draw in blocks of cl/random.h's lanes: block b holds the G * CLB_RNG_LANES
   elements of its LANES Philox calls (element b * G * LANES + k * LANES + l
   takes slot k of call b * LANES + l), so each call runs once for the G
   elements it serves, and a float32 normal's Box-Muller pair once for both
   of its values, the same operations on the same words as the kernels. Each
   step runs over the 16 lanes at once (structure of arrays: word k of lane l
   at w[k * LANES + l], as the block's elements lie), loops GCC vectorises. */
#define LANES CLB_RNG_LANES
#define BLOCK (4 * LANES)
typedef struct draw_block {
    clb_u32 w[BLOCK]; /* word k of lane l at k * LANES + l */
    float z[BLOCK];   /* float16/32 normals: the standard normal of slot k, lane l */
} draw_block;

/* The draw's constants: low (mean), scale (std), and for uniforms the
   bound and the value that takes its place (op_generate.c's a[2..5]). */
typedef struct draw_args {
    float lo, sc, hi, top;
    double lo64, sc64, hi64, top64;
    uint16_t top16;
} draw_args;

/* clb_rng_normal2f lane by lane, its three steps in turn so the log and the
   sine/cosine loops vectorise (sqrtf stays scalar: errno keeps GCC from
   vectorising it, and the correctly rounded sqrtss is the same bits). */
static void normal_lanes(draw_block *d)
{
    for (int p = 0; p < 2; p++) {
        const clb_u32 *w0 = d->w + 2 * p * LANES, *w1 = w0 + LANES;
        float *zc = d->z + 2 * p * LANES, *zs = zc + LANES, r[LANES];
        for (int l = 0; l < LANES; l++) r[l] = clb_rng_m2log((w0[l] >> 8) + 1u);
        for (int l = 0; l < LANES; l++) r[l] = CLB_RNG_SQRTF(r[l]);
        for (int l = 0; l < LANES; l++) {
            float c, s;
            clb_rng_sincos(w1[l] >> 8, &c, &s);
            zc[l] = r[l] * c;
            zs[l] = r[l] * s;
        }
    }
}

static void block_words(const clb__gen_op *op, uint64_t b, draw_block *d)
{
    clb_u32 *w = d->w;
    for (int l = 0; l < LANES; l++)
        clb_philox4(b * LANES + (uint64_t)l, op->a[0], &w[l], &w[LANES + l], &w[2 * LANES + l],
                    &w[3 * LANES + l]);
    if (op->kind == CLB__GEN_NORMAL && op->dtype != CLB_FLOAT64) normal_lanes(d);
}

/* The block's G * LANES values (element k * LANES + l at out[k * LANES + l]),
   each loop the kernels' formula for its dtype: float arithmetic for
   float16/32 (the float16 value rounded once), double for float64; a uniform
   value at or past the bound takes the bound's predecessor. */
static void block_f32(bool normal, const draw_args *c, const draw_block *d, float *o)
{
    const float lo = c->lo, sc = c->sc, hi = c->hi, top = c->top;
    if (normal) {
        for (int i = 0; i < BLOCK; i++) o[i] = lo + sc * d->z[i];
        return;
    }
    for (int i = 0; i < BLOCK; i++) {
        const float r = lo + sc * clb_rng_unit24(d->w[i]);
        o[i] = r < hi ? r : top;
    }
}

static void block_f16(bool normal, const draw_args *c, const draw_block *d, uint16_t *o)
{
    const float lo = c->lo, sc = c->sc, hi = c->hi;
    const uint16_t top = c->top16;
    if (normal) {
        for (int i = 0; i < BLOCK; i++) o[i] = clb__f2h(lo + sc * d->z[i]);
        return;
    }
    for (int i = 0; i < BLOCK; i++) {
        const uint16_t h = clb__f2h(lo + sc * clb_rng_unit11(d->w[i]));
        o[i] = clb__h2f(h) < hi ? h : top;
    }
}

/* The C library's cos and sin, called as such: GCC merges a sin and a cos of
   one value into one sincos call, whose bits the C library does not promise
   equal theirs (the host's float64 normals are theirs). */
static double (*volatile const host_cos)(double) = cos;
static double (*volatile const host_sin)(double) = sin;

/* float64: 2 slots, each of a lane's words 2k and 2k + 1 (normal: the pair of
   one Box-Muller draw, slot 0 its cosine, slot 1 its sine). */
static void block_f64(bool normal, const draw_args *c, const draw_block *d, double *o)
{
    const double lo = c->lo64, sc = c->sc64, hi = c->hi64, top = c->top64;
    if (normal) {
        for (int l = 0; l < LANES; l++) {
            const clb_u32 *w = d->w + l, words[4] = {w[0], w[LANES], w[2 * LANES], w[3 * LANES]};
            double t;
            const double r = clb_rng_polar(words, &t);
            o[l] = lo + sc * (r * host_cos(t));
            o[LANES + l] = lo + sc * (r * host_sin(t));
        }
        return;
    }
    for (int k = 0; k < 2; k++)
        for (int l = 0; l < LANES; l++) {
            const clb_u32 *w = d->w + 2 * k * LANES + l;
            const double r = lo + sc * clb_rng_unit53(w[0], w[LANES]);
            o[k * LANES + l] = r < hi ? r : top;
        }
}

static void block_values(const clb__gen_op *op, const draw_args *c, const draw_block *d,
                         unsigned char *out)
{
    const bool normal = op->kind == CLB__GEN_NORMAL;
    if (op->dtype == CLB_FLOAT32) block_f32(normal, c, d, (float *)(void *)out);
    else if (op->dtype == CLB_FLOAT16) block_f16(normal, c, d, (uint16_t *)(void *)out);
    else block_f64(normal, c, d, (double *)(void *)out);
}

/* Elements [0, numel) of the draw at offset a[1], block by block; a block the
   draw covers only in part (at its start or end) goes through a buffer. */
static void draw(const clb__gen_op *op, unsigned char *out)
{
    const int g = clb_rng_group(op->kind == CLB__GEN_NORMAL, op->dtype == CLB_FLOAT64);
    const uint64_t per = (uint64_t)g * LANES, first = op->a[1], numel = (uint64_t)op->numel;
    const size_t size = clb_dtype_size(op->dtype);
    const uint64_t *a = op->a;
    const draw_args c = {bits_f32(a[2]), bits_f32(a[3]), bits_f32(a[4]), bits_f32(a[5]),
                         bits_f64(a[2]), bits_f64(a[3]), bits_f64(a[4]), bits_f64(a[5]),
                         clb__f2h(bits_f32(a[5]))};
    draw_block d;
    double part[BLOCK]; /* G * LANES elements of at most 8 bytes */
    for (uint64_t i = 0; i < numel;) {
        const uint64_t j = first + i, r = j % per, n = per - r < numel - i ? per - r : numel - i;
        block_words(op, j / per, &d);
        if (n == per) {
            block_values(op, &c, &d, out + (size_t)i * size);
        } else {
            block_values(op, &c, &d, (unsigned char *)part);
            memcpy(out + (size_t)i * size, (unsigned char *)part + (size_t)r * size,
                   (size_t)n * size);
        }
        i += n;
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
