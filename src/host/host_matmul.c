/* The host backend's matmul. float32 and float64 go to CBLAS (OpenBLAS) where
 * the build has it: each operand's row and column strides become a transpose
 * flag and a leading dimension, so views (transposes, slices) are not copied;
 * an operand no flag describes (broadcast or negative strides inside the
 * matrix) is packed first. A batch whose b is shared by every matrix and whose
 * a and out matrices follow each other in memory is one call with m * batch rows.
 *
 * Other dtypes, and every dtype in a build without CBLAS, run a blocked loop:
 * panels of b and strips of a packed in the accumulator's type, a 4 x 8 block
 * of out kept in registers along each panel. Accumulators: float for float16
 * and float32 (as BLAS), double for float64, uint64 (wrapping) for integers
 * and bool (converting that sum back to bool is the OR of the ANDs).
 *
 * Threads: OpenBLAS runs its own pool (OPENBLAS_NUM_THREADS, else one thread a
 * core). Its gemm splits out's rows and columns between threads, never the
 * sum over k, so every element's sum has one order whatever the thread count:
 * results are the same bits from run to run and for any thread count on one
 * machine (test_matmul checks 1 against 2 threads); another CPU may pick another
 * kernel and round differently. */
#include "host_backend.h"

#include "dtype.h"
#include "host_map.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if CLB_HAVE_CBLAS
#include <cblas.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the register block vectorises */
#endif

_Atomic int clb__host_blas_enabled = 1;

#define MR 4   /* rows of out a register block holds */
#define NR 8   /* columns of out a register block holds */
#define KC 256 /* depth of one packed panel */
#define NC 512 /* columns of one packed panel of b */

typedef enum acc_kind { ACC_F32, ACC_F64, ACC_U64 } acc_kind;

static acc_kind acc_kind_of(clb_dtype t)
{
    if (t == CLB_FLOAT64) return ACC_F64;
    if (clb__dtype_is_float(t)) return ACC_F32;
    return ACC_U64;
}

static clb_dtype acc_dtype(acc_kind k)
{
    return k == ACC_F32 ? CLB_FLOAT32 : k == ACC_F64 ? CLB_FLOAT64 : CLB_UINT64;
}

/* One matrix: element (i, j) at base + (off + i * rs + j * cs) elements. */
typedef struct mat {
    clb__operand o;
    int64_t off, rs, cs;
} mat;

/* Packs x[r0 + r][c0 + c] (r < rows, c < cols) converted to the accumulator
   dtype into dst[r * ld_r + c * ld_c] (acc-sized elements), zero beyond. */
static void pack(const mat *x, int64_t r0, int64_t rows, int64_t c0, int64_t cols, clb_dtype acc,
                 char *dst, int64_t ld_r, int64_t ld_c, int64_t rows_pad, int64_t cols_pad)
{
    const size_t asz = clb_dtype_size(acc);
    const clb__store_fn store = clb__storer(acc);
    for (int64_t r = 0; r < rows_pad; r++)
        for (int64_t c = 0; c < cols_pad; c++) {
            char *d = dst + (size_t)(r * ld_r + c * ld_c) * asz;
            if (r < rows && c < cols)
                store(d, clb__operand_read(&x->o, x->off + (r0 + r) * x->rs + (c0 + c) * x->cs, acc));
            else
                memset(d, 0, asz);
        }
}

/* out block (MR x NR, of which mr x nr are real) += a strip (kc x MR) . b panel (kc x NR). */
#define DEFINE_MICRO(NAME, T)                                                                      \
    static void NAME(int64_t kc, const T *a, const T *b, T *c, int64_t ldc, int64_t mr, int64_t nr) \
    {                                                                                              \
        T acc[MR][NR];                                                                             \
        memset(acc, 0, sizeof acc);                                                                \
        for (int64_t p = 0; p < kc; p++)                                                           \
            for (int r = 0; r < MR; r++) {                                                         \
                T av = a[p * MR + r];                                                              \
                for (int l = 0; l < NR; l++) acc[r][l] += av * b[p * NR + l];                      \
            }                                                                                      \
        for (int64_t r = 0; r < mr; r++)                                                           \
            for (int64_t l = 0; l < nr; l++) c[r * ldc + l] += acc[r][l];                          \
    }
DEFINE_MICRO(micro_f32, float)
DEFINE_MICRO(micro_f64, double)
DEFINE_MICRO(micro_u64, uint64_t)

static void micro(acc_kind k, int64_t kc, const char *a, const char *b, char *c, int64_t ldc,
                  int64_t mr, int64_t nr)
{
    switch (k) {
    case ACC_F32: micro_f32(kc, (const float *)a, (const float *)b, (float *)c, ldc, mr, nr); break;
    case ACC_F64: micro_f64(kc, (const double *)a, (const double *)b, (double *)c, ldc, mr, nr); break;
    case ACC_U64: micro_u64(kc, (const uint64_t *)a, (const uint64_t *)b, (uint64_t *)c, ldc, mr, nr); break;
    }
}

typedef struct blocked {
    acc_kind kind;
    clb_dtype acc;
    size_t asz;
    char *bp, *ap, *cacc; /* packed panel of b, strip of a, out's sums (m x n) */
} blocked;

/* out (m x n) = a (m x k) . b (k x n) through the packed panels. */
static void blocked_matmul(const blocked *w, const mat *a, const mat *b, const mat *out, int64_t m,
                           int64_t n, int64_t k)
{
    memset(w->cacc, 0, (size_t)(m * n) * w->asz);
    for (int64_t j0 = 0; j0 < n; j0 += NC) {
        int64_t nc = n - j0 < NC ? n - j0 : NC, panels = (nc + NR - 1) / NR;
        for (int64_t p0 = 0; p0 < k; p0 += KC) {
            int64_t kc = k - p0 < KC ? k - p0 : KC;
            for (int64_t q = 0; q < panels; q++) { /* panel q: bp[q][p][l] */
                int64_t c0 = j0 + q * NR, cols = nc - q * NR < NR ? nc - q * NR : NR;
                pack(b, p0, kc, c0, cols, w->acc, w->bp + (size_t)(q * kc * NR) * w->asz, NR, 1, kc, NR);
            }
            for (int64_t i0 = 0; i0 < m; i0 += MR) {
                int64_t mr = m - i0 < MR ? m - i0 : MR;
                /* strip: ap[p][r] = a[i0 + r][p0 + p] */
                pack(a, i0, mr, p0, kc, w->acc, w->ap, 1, MR, MR, kc);
                for (int64_t q = 0; q < panels; q++) {
                    int64_t nr = nc - q * NR < NR ? nc - q * NR : NR;
                    micro(w->kind, kc, w->ap, w->bp + (size_t)(q * kc * NR) * w->asz,
                          w->cacc + (size_t)(i0 * n + j0 + q * NR) * w->asz, n, mr, nr);
                }
            }
        }
    }
    clb__load_fn load = clb__loader(w->acc);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            clb__operand_write(&out->o, out->off + i * out->rs + j * out->cs,
                               load(w->cacc + (size_t)(i * n + j) * w->asz), w->acc);
}

/* ---- CBLAS ------------------------------------------------------------------------ */

#if CLB_HAVE_CBLAS
/* Whether x (rows x cols) is a row-major matrix (trans false) or the transpose of
   one (trans true) with leading dimension *ld that CBLAS takes as it is. */
static bool blas_view(const mat *x, int64_t rows, int64_t cols, bool *trans, int *ld)
{
    int64_t l;
    if ((x->cs == 1 || cols == 1) && (rows == 1 || x->rs >= cols)) {
        *trans = false;
        l = rows == 1 ? cols : x->rs;
    } else if ((x->rs == 1 || rows == 1) && (cols == 1 || x->cs >= rows)) {
        *trans = true;
        l = cols == 1 ? rows : x->cs;
    } else {
        return false;
    }
    if (l < 1) l = 1;
    if (l > INT_MAX) return false;
    *ld = (int)l;
    return true;
}

static void gemm(clb_dtype t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void *a,
                 int lda, const void *b, int ldb, void *c, int ldc)
{
    enum CBLAS_TRANSPOSE fa = ta ? CblasTrans : CblasNoTrans, fb = tb ? CblasTrans : CblasNoTrans;
    if (t == CLB_FLOAT32)
        cblas_sgemm(CblasRowMajor, fa, fb, (int)m, (int)n, (int)k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    else
        cblas_dgemm(CblasRowMajor, fa, fb, (int)m, (int)n, (int)k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
}
#endif

/* ---- the batch ----------------------------------------------------------------------- */

typedef struct matmul_state {
    const clb__matmul_op *op;
    mat x[3]; /* 0 = out, 1 = a, 2 = b: offsets set per matrix */
    int64_t m, n, k;
    bool use_blas;
    char *packed[3]; /* BLAS: a or b packed contiguous when no flag describes it */
    blocked w;
} matmul_state;

#if CLB_HAVE_CBLAS
static void blas_matrix(matmul_state *s)
{
    const size_t isz = clb_dtype_size(s->op->dtype);
    bool t[3];
    int ld[3];
    const void *ptr[3];
    const int64_t rows[3] = {s->m, s->m, s->k}, cols[3] = {s->n, s->k, s->n};
    for (int q = 0; q < 3; q++) {
        mat *x = &s->x[q];
        ptr[q] = x->o.base + (size_t)x->off * isz;
        if (q == 0 || blas_view(x, rows[q], cols[q], &t[q], &ld[q])) continue;
        pack(x, 0, rows[q], 0, cols[q], s->op->dtype, s->packed[q], cols[q], 1, rows[q], cols[q]);
        ptr[q] = s->packed[q];
        t[q] = false;
        ld[q] = cols[q] > 1 ? (int)cols[q] : 1;
    }
    ld[0] = s->m == 1 ? (int)(s->n > 1 ? s->n : 1) : (int)s->x[0].rs;
    gemm(s->op->dtype, t[1], t[2], s->m, s->n, s->k, ptr[1], ld[1], ptr[2], ld[2], (void *)ptr[0], ld[0]);
}
#endif

static void matrix_visit(const int64_t *offsets, void *user)
{
    matmul_state *s = user;
    for (int q = 0; q < 3; q++) s->x[q].off = offsets[q];
#if CLB_HAVE_CBLAS
    if (s->use_blas) {
        blas_matrix(s);
        return;
    }
#endif
    blocked_matmul(&s->w, &s->x[1], &s->x[2], &s->x[0], s->m, s->n, s->k);
}

/* Whether CBLAS takes out as it is and every size fits its int. */
static bool blas_fits(const clb__matmul_op *op, int64_t m)
{
#if CLB_HAVE_CBLAS
    if (!clb__host_blas_enabled) return false;
    if (op->dtype != CLB_FLOAT32 && op->dtype != CLB_FLOAT64) return false;
    if (m > INT_MAX || op->n > INT_MAX || op->k > INT_MAX || op->k == 0) return false;
    return (op->col_strides[0] == 1 || op->n == 1) &&
           (m == 1 || (op->row_strides[0] >= op->n && op->row_strides[0] <= INT_MAX));
#else
    (void)op;
    (void)m;
    return false;
#endif
}

/* A batch over one axis with b shared and a, out stepping by whole matrices of
   rows: one product of m * batch rows. */
static bool batch_as_rows(const clb__plan *batch, const clb__matmul_op *op)
{
    if (batch->ndim != 1 || batch->strides[2][0] != 0 || op->col_strides[1] != 1 ||
        op->col_strides[0] != 1)
        return false;
    return batch->strides[1][0] == op->m * op->row_strides[1] &&
           batch->strides[0][0] == op->m * op->row_strides[0] && op->row_strides[1] >= op->k &&
           op->row_strides[0] >= op->n;
}

static clb_status alloc_work(matmul_state *s)
{
    const clb__matmul_op *op = s->op;
    const size_t isz = clb_dtype_size(op->dtype);
    if (s->use_blas) {
        s->packed[1] = malloc((size_t)(s->m * s->k) * isz + 1);
        s->packed[2] = malloc((size_t)(s->k * s->n) * isz + 1);
        return s->packed[1] && s->packed[2] ? CLB_OK : CLB_ERR_OUT_OF_MEMORY;
    }
    blocked *w = &s->w;
    w->kind = acc_kind_of(op->dtype);
    w->acc = acc_dtype(w->kind);
    w->asz = clb_dtype_size(w->acc);
    w->bp = malloc((size_t)KC * (NC + NR) * w->asz);
    w->ap = malloc((size_t)KC * MR * w->asz);
    w->cacc = malloc((size_t)(s->m * s->n) * w->asz + 1);
    return w->bp && w->ap && w->cacc ? CLB_OK : CLB_ERR_OUT_OF_MEMORY;
}

clb_status clb__host_matmul(clb_context *ctx, const clb__matmul_op *op, void *const *handles)
{
    (void)ctx;
    matmul_state s = {.op = op, .m = op->m, .n = op->n, .k = op->k};
    for (int q = 0; q < 3; q++)
        s.x[q] = (mat){clb__operand_of(handles[q], op->dtype), 0, op->row_strides[q], op->col_strides[q]};
    /* The batch is walked as a plan over the batch axes (scalar plan without any). */
    clb__plan *batch = malloc(sizeof *batch);
    if (!batch)
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "host backend: out of host memory for the matmul batch plan");
    const int64_t *strides[3] = {op->batch_strides[0], op->batch_strides[1], op->batch_strides[2]};
    clb__plan_make(batch, 3, op->batch_ndim, op->batch_shape, strides, op->offsets);
    if (batch_as_rows(batch, op) && blas_fits(op, op->m * batch->shape[0])) {
        s.m = op->m * batch->shape[0];
        clb__plan_make(batch, 3, 0, NULL, strides, op->offsets);
    }
    s.use_blas = blas_fits(op, s.m);
    clb_status st = batch->numel > 0 && s.m > 0 && s.n > 0 ? alloc_work(&s) : CLB_OK;
    if (st == CLB_OK && batch->numel > 0 && s.m > 0 && s.n > 0)
        clb__plan_for_each(batch, matrix_visit, &s);
    else if (st != CLB_OK)
        st = clb__fail(st, "host backend: out of host memory for matmul's work buffers (%lld x %lld "
                           "x %lld); use smaller matrices",
                       (long long)s.m, (long long)s.n, (long long)s.k);
    free(s.packed[1]), free(s.packed[2]);
    free(s.w.bp), free(s.w.ap), free(s.w.cacc);
    free(batch);
    return st;
}
