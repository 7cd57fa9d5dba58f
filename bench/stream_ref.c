/* The C streaming limit of bench_peers: see stream_ref.h.
 *
 * Every kernel splits its rows (or, for the flat same-shape add, its elements)
 * into one contiguous block per OpenMP thread, the split its operands were
 * first touched with, walks the block in order and stores four floats at a
 * time with a non-temporal store, fenced once per call. Row operands that every
 * row re-reads (the (cols,) row, the outer product's row) stay in the cache. */
#include "stream_ref.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* One step is a cache line: 16 floats as a GCC/clang vector, which the
   compiler maps to the widest registers the build targets (bench/meson.build
   adds -march=native where the compiler has it), stored with the widest
   non-temporal store there is. */
typedef float v16 __attribute__((vector_size(64)));
#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#define NT 1
#else
#define NT 0
#endif
/* Vectors travel by pointer: passing a 64-byte vector by value changes the ABI
   where the build has no 512-bit registers (-Wpsabi). */
static inline void v_stream(float *p, const v16 *v)
{
#if defined(__AVX512F__)
    _mm512_stream_ps(p, (__m512)*v);
#elif defined(__AVX__)
    union { v16 v; __m256 h[2]; } u = {*v};
    _mm256_stream_ps(p, u.h[0]);
    _mm256_stream_ps(p + 8, u.h[1]);
#elif defined(__SSE2__)
    union { v16 v; __m128 q[4]; } u = {*v};
    for (int i = 0; i < 4; i++) _mm_stream_ps(p + 4 * i, u.q[i]);
#else
    memcpy(p, v, sizeof *v);
#endif
}
static inline void v_fence(void)
{
#if NT
    _mm_sfence();
#endif
}
#define V_LOAD(p) (*(const v16 *)(const void *)(p)) /* 64-byte aligned: rows are multiples of 16 */
#define V_SET1(x) ((v16){0} + (x))

int clbb_stream_nt(void) { return NT; }
int clbb_stream_threads(void) { return omp_get_max_threads(); }

/* Thread t's block [first, end) of n items, in multiples of `align`. */
static void block(int64_t n, int64_t align, int t, int nt, int64_t *first, int64_t *end)
{
    int64_t units = (n + align - 1) / align, per = (units + nt - 1) / nt;
    *first = (int64_t)t * per * align;
    *end = *first + per * align;
    if (*first > n) *first = n;
    if (*end > n) *end = n;
}

static int64_t a_count(const clbb_stream *s)
{
    switch (s->kind) {
    case CLBB_S_OUTER: return s->rows;
    case CLBB_S_EXPAND: return s->ch;
    default: return s->rows * s->cols;
    }
}
static int64_t b_count(const clbb_stream *s)
{
    switch (s->kind) {
    case CLBB_S_SAME: return s->rows * s->cols;
    case CLBB_S_ROW: case CLBB_S_OUTER: case CLBB_S_BATCHNORM: return s->cols;
    case CLBB_S_COL: return s->rows;
    case CLBB_S_CHANNEL: return s->ch;
    default: return 0;
    }
}
static int64_t out_count(const clbb_stream *s)
{
    switch (s->kind) {
    case CLBB_S_ROWSUM: return s->rows;
    case CLBB_S_COLSUM: return s->cols;
    case CLBB_S_CHMEAN: return s->ch;
    default: return s->rows * s->cols;
    }
}

double clbb_stream_bytes(const clbb_stream *s)
{
    int64_t v = s->kind == CLBB_S_BATCHNORM ? s->cols : 0;
    return 4.0 * (double)(a_count(s) + b_count(s) + v + out_count(s));
}

static float *alloc_floats(int64_t n)
{
    void *p = NULL;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    bytes = (bytes + 63) / 64 * 64;
    if (posix_memalign(&p, 2u << 20, bytes) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* 2 MiB pages before the first touch, as the library (and NumPy) ask for:
       the limit takes no TLB miss per 4 KiB either. */
    if (bytes >= (4u << 20)) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

int clbb_stream_setup(clbb_stream_kind kind, int64_t rows, int64_t cols, int64_t ch, uint64_t seed,
                      clbb_stream *s)
{
    memset(s, 0, sizeof *s);
    s->kind = kind, s->rows = rows, s->cols = cols, s->ch = ch > 0 ? ch : 1;
    if (cols % 16 != 0) return -1; /* rows are whole cache lines */
    omp_set_dynamic(0);
    s->threads = omp_get_max_threads();
    int64_t na = a_count(s), nb = b_count(s), no = out_count(s);
    s->a = alloc_floats(na);
    s->b = alloc_floats(nb);
    s->v = alloc_floats(cols);
    s->out = alloc_floats(no);
    s->partial = alloc_floats((int64_t)s->threads * (cols > ch ? cols : ch) + cols);
    if (!s->a || !s->b || !s->v || !s->out || !s->partial) return -1;
    /* First touch: each thread its own block, as the kernels split the work. */
    int big_out = no == rows * cols;
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        int64_t f, e;
        block(na, 16, t, n, &f, &e);
        uint64_t x = seed + 0x9E3779B97F4A7C15ull * (uint64_t)(f + 1);
        for (int64_t i = f; i < e; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            s->a[i] = (float)(x >> 40) / (float)(1 << 24);
        }
        if (big_out) {
            block(no, 16, t, n, &f, &e);
            memset(s->out + f, 0, (size_t)(e - f) * sizeof(float));
        }
    }
    for (int64_t i = 0; i < nb; i++) s->b[i] = (float)(i % 1000) / 1000.0f;
    for (int64_t i = 0; i < cols; i++) s->v[i] = 0.5f + (float)(i % 7) / 7.0f;
    if (!big_out) memset(s->out, 0, (size_t)no * sizeof(float));
    return 0;
}

void clbb_stream_read_from(clbb_stream *s, const float *a) { s->src = a; }

void clbb_stream_close(clbb_stream *s)
{
    free(s->a), free(s->b), free(s->v), free(s->out), free(s->partial);
    memset(s, 0, sizeof *s);
}

/* One row of n (a multiple of 16) floats at 64-byte aligned o: o[k] = EXPR(k). */
#define ROW_LOOP(n, EXPR)                                                                          \
    for (int64_t j = 0; j < (n); j += 16) {                                                        \
        const int64_t k = j;                                                                       \
        const v16 r_ = EXPR;                                                                       \
        (void)k;                                                                                   \
        v_stream(o + j, &r_);                                                                      \
    }

/* Reads go in 256-bit vectors even where the build has 512-bit ones: on the
   AMD EPYC (Zen 4, AVX-512) these figures come from, a row sum of 256 MiB on 2
   threads with eight 256-bit accumulators ran 5-9 % faster than with four (or
   eight) 512-bit ones, interleaved in one process (41 rounds, load ~3), and
   matched PyTorch 1.13's x.sum(1) (its AVX2 kernel: four 256-bit
   accumulators), which the 512-bit form trailed by 4-12 %. */
typedef float v8 __attribute__((vector_size(32)));
#define V8_LOAD(p) (*(const v8 *)(const void *)(p))

/* Sum of n (a multiple of 16) floats at p: eight 256-bit accumulators, four
   cache lines a step, the tail by lines. */
static float row_sum(const float *p, int64_t n)
{
    v8 s0 = {0}, s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    int64_t j = 0;
    for (; j + 64 <= n; j += 64) {
        s0 += V8_LOAD(p + j);
        s1 += V8_LOAD(p + j + 8);
        s2 += V8_LOAD(p + j + 16);
        s3 += V8_LOAD(p + j + 24);
        s4 += V8_LOAD(p + j + 32);
        s5 += V8_LOAD(p + j + 40);
        s6 += V8_LOAD(p + j + 48);
        s7 += V8_LOAD(p + j + 56);
    }
    for (; j < n; j += 16) {
        s0 += V8_LOAD(p + j);
        s1 += V8_LOAD(p + j + 8);
    }
    const v8 t = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    float f = 0;
    for (int i = 0; i < 8; i++) f += t[i];
    return f;
}

/* acc[0..n) += p[0..n), n a multiple of 16. */
static void add_row(float *acc, const float *p, int64_t n)
{
    for (int64_t j = 0; j < n; j += 8) *(v8 *)(void *)(acc + j) += V8_LOAD(p + j);
}

/* acc[0..n) += the sum of the eight rows p, p + n, ..., p + 7n: eight streams
   and one pass over the accumulators per eight rows (as the library's column
   kernel), so the accumulators' loads and stores stay off the read rate. */
static void add_rows8(float *acc, const float *p, int64_t n)
{
    for (int64_t j = 0; j < n; j += 8) {
        const float *q = p + j;
        v8 x = ((V8_LOAD(q) + V8_LOAD(q + n)) + (V8_LOAD(q + 2 * n) + V8_LOAD(q + 3 * n))) +
               ((V8_LOAD(q + 4 * n) + V8_LOAD(q + 5 * n)) + (V8_LOAD(q + 6 * n) + V8_LOAD(q + 7 * n)));
        *(v8 *)(void *)(acc + j) += x;
    }
}

int clbb_stream_run(void *user)
{
    clbb_stream *s = user;
    const int64_t R = s->rows, C = s->cols, CH = s->ch;
    const float *a = s->src ? s->src : s->a, *b = s->b;
    float *out = s->out, *part = s->partial;
    float *sq = part + (int64_t)s->threads * (C > CH ? C : CH); /* the sqrt row */
    if (s->kind == CLBB_S_BATCHNORM)
        for (int64_t c = 0; c < C; c++) sq[c] = sqrtf(s->v[c] + 1e-5f);
    if (s->kind == CLBB_S_COLSUM || s->kind == CLBB_S_CHMEAN)
        memset(part, 0, (size_t)s->threads * (size_t)(C > CH ? C : CH) * sizeof *part);
#pragma omp parallel num_threads(s->threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t f, e;
        if (s->kind == CLBB_S_SAME) {
            block(R * C, 16, t, nt, &f, &e);
            float *o = out + f;
            const float *x = a + f, *y = b + f;
            ROW_LOOP(e - f, V_LOAD(x + k) + V_LOAD(y + k))
        } else {
            block(R, 1, t, nt, &f, &e);
        }
        switch (s->kind) {
        case CLBB_S_SAME: break;
        case CLBB_S_ROW:
            for (int64_t r = f; r < e; r++) {
                float *o = out + r * C;
                const float *x = a + r * C;
                ROW_LOOP(C, V_LOAD(x + k) + V_LOAD(b + k))
            }
            break;
        case CLBB_S_COL:
        case CLBB_S_CHANNEL:
            for (int64_t r = f; r < e; r++) {
                float *o = out + r * C;
                const float *x = a + r * C;
                if (s->kind == CLBB_S_COL) {
                    v16 br = V_SET1(b[r]);
                    ROW_LOOP(C, V_LOAD(x + k) + br)
                } else {
                    v16 br = V_SET1(b[r % CH]);
                    ROW_LOOP(C, V_LOAD(x + k) - br)
                }
            }
            break;
        case CLBB_S_OUTER:
            for (int64_t r = f; r < e; r++) {
                float *o = out + r * C;
                v16 ar = V_SET1(a[r]);
                ROW_LOOP(C, ar + V_LOAD(b + k))
            }
            break;
        case CLBB_S_EXPAND:
            for (int64_t r = f; r < e; r++) {
                float *o = out + r * C;
                v16 ar = V_SET1(a[r % CH]);
                ROW_LOOP(C, ar)
            }
            break;
        case CLBB_S_BATCHNORM:
            for (int64_t r = f; r < e; r++) {
                float *o = out + r * C;
                const float *x = a + r * C;
                ROW_LOOP(C, (V_LOAD(x + k) - V_LOAD(b + k)) / V_LOAD(sq + k))
            }
            break;
        case CLBB_S_ROWSUM:
            for (int64_t r = f; r < e; r++) out[r] = row_sum(a + r * C, C);
            break;
        case CLBB_S_COLSUM: {
            float *acc = part + (int64_t)t * C;
            int64_t r = f;
            for (; r + 8 <= e; r += 8) add_rows8(acc, a + r * C, C);
            for (; r < e; r++) add_row(acc, a + r * C, C);
            break;
        }
        case CLBB_S_CHMEAN: {
            float *acc = part + (int64_t)t * CH;
            for (int64_t r = f; r < e; r++) acc[r % CH] += row_sum(a + r * C, C);
            break;
        }
        }
        v_fence();
    }
    /* The threads' partial sums, combined on one thread (cols or ch values). */
    if (s->kind == CLBB_S_COLSUM) {
        memcpy(out, part, (size_t)C * sizeof *out);
        for (int t = 1; t < s->threads; t++) add_row(out, part + (int64_t)t * C, C);
    } else if (s->kind == CLBB_S_CHMEAN) {
        for (int64_t k = 0; k < CH; k++) {
            float sum = 0;
            for (int t = 0; t < s->threads; t++) sum += part[(int64_t)t * CH + k];
            out[k] = sum / (float)(R / CH * C);
        }
    }
    return 0;
}
