/* Plain batched matmul: out[b][i][j] = sum_p a[b][i][p] * x[b][p][j], one work
 * item per output element, for the dtypes CLBlast does not cover (integers,
 * bool, float16 without cl_khr_fp16) and for builds without CLBlast.
 *
 * Every operand is a strided view: matrix element (i, j) of operand k lives at
 * offset_k + batch_offset_k(b) + i * rs_k + j * cs_k, where batch_offset_k
 * walks the host's coalesced batch table (shape + three stride columns, 0 on
 * broadcast batch axes), so broadcast and transposed operands need no copies.
 *
 * Accumulation matches the host backend's results: integers and bool in ulong
 * (wrapping; for bool the count of true products, so the stored value is the
 * OR of the ANDs), float16 and float32 in float, float64 in double. */

#ifndef CLB_DTYPE
#define CLB_DTYPE 5
#endif
#ifndef CLB_WIDE_TABLE
#define CLB_WIDE_TABLE 0 /* 1: batch table in a __constant buffer (more than 8 axes) */
#endif

#if CLB_DTYPE == 11 && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_STORAGE(CLB_DTYPE) clb_t;
#if CLB_DTYPE == 11
#define CLB_ACC_DTYPE 11
#elif CLB_DTYPE == 9 || CLB_DTYPE == 10
#define CLB_ACC_DTYPE 10
#else
#define CLB_ACC_DTYPE 8
#endif
typedef CLB_STORAGE(CLB_ACC_DTYPE) clb_acc_t;

#define CLB_LOAD_ACC(p, i) CLB_CONVERT(CLB_ACC_DTYPE, CLB_DTYPE, CLB_LOAD(CLB_DTYPE, p, i))

#if CLB_WIDE_TABLE
/* [shape | out strides | a strides | b strides] */
#define CLB_TABLE_ARGS __constant const clb_index *table
#define CLB_BSHAPE(d) table[d]
#define CLB_BSTRIDE(k, d) table[(1 + (k)) * batch_ndim + (d)]
#else
#define CLB_TABLE_ARGS clb_index8 shape_v, clb_index8 so_v, clb_index8 sa_v, clb_index8 sb_v
#define CLB_BSHAPE(d) bshape[d]
#define CLB_BSTRIDE(k, d) bstride[k][d]
#endif

/* Adds the offsets of batch matrix `id` (row-major over the batch table) to
   out_off, a_off and x_off (common.cl's walk). */
#define CLB_BATCH_STEP(i, d, _)                                                                    \
    (out_off += (i) * CLB_BSTRIDE(0, d), a_off += (i) * CLB_BSTRIDE(1, d),                         \
     x_off += (i) * CLB_BSTRIDE(2, d))
#define CLB_BATCH_OFFSETS(id) CLB_UNRAVEL(id, batch_ndim, CLB_BSHAPE, CLB_BATCH_STEP, 0)

__kernel void clb_matmul(__global clb_t *out, __global const clb_t *a, __global const clb_t *x,
                         clb_index m, clb_index n, clb_index k, clb_index out_off,
                         clb_index a_off, clb_index x_off, clb_index rs_o, clb_index cs_o,
                         clb_index rs_a, clb_index cs_a, clb_index rs_x, clb_index cs_x,
                         int batch_ndim, CLB_TABLE_ARGS)
{
    const clb_index j = (clb_index)get_global_id(0), i = (clb_index)get_global_id(1);
    if (j >= n || i >= m) return;
#if !CLB_WIDE_TABLE
    clb_index bshape[CLB_BYVAL_DIMS], bstride[3][CLB_BYVAL_DIMS];
    vstore8(shape_v, 0, bshape);
    vstore8(so_v, 0, bstride[0]);
    vstore8(sa_v, 0, bstride[1]);
    vstore8(sb_v, 0, bstride[2]);
#endif
    CLB_BATCH_OFFSETS((clb_index)get_global_id(2));
    a_off += i * rs_a;
    x_off += j * cs_x;
    clb_acc_t acc = 0;
    for (clb_index p = 0; p < k; ++p)
        acc += CLB_LOAD_ACC(a, a_off + p * cs_a) * CLB_LOAD_ACC(x, x_off + p * rs_x);
#if CLB_MM_ACCUMULATE /* a later piece of a split inner dimension: add to the earlier ones */
    acc += CLB_LOAD_ACC(out, out_off + i * rs_o + j * cs_o);
#endif
    CLB_STORE(CLB_DTYPE, out, out_off + i * rs_o + j * cs_o, CLB_CONVERT(CLB_DTYPE, CLB_ACC_DTYPE, acc));
}

/* Register-blocked float GEMM for CPU devices, where it beats CLBlast's
 * untuned defaults: each item computes a CLB_MM_ROWS x 16 tile of one output
 * matrix, holding it in 16-wide vectors and, for every p, broadcasting
 * a[i + r][p] against one contiguous 16-wide row segment of b (which needs
 * cs_x == 1 and n a multiple of 16; the host checks). Six float rows keep 12
 * of AVX2's 16 registers accumulating, enough independent FMAs to cover their
 * latency (four rows, 8 registers, ran 20-40 % slower); four double rows
 * already take 16. The last item of a matrix whose m is no multiple of the
 * tile reads row m-1 again for the rows past the end and stores only its own.
 * Accumulation in the dtype itself, as CLBlast does. */
#if CLB_DTYPE == 10 || CLB_DTYPE == 11
#if CLB_DTYPE == 11
#define CLB_MM_ROWS 4
#else
#define CLB_MM_ROWS 6
#endif
typedef CLB_CAT(CLB_STORAGE(CLB_DTYPE), 16) clb_t16;
__kernel void clb_matmul_blocked(__global clb_t *out, __global const clb_t *a,
                                 __global const clb_t *x, clb_index m, clb_index n, clb_index k,
                                 clb_index out_off, clb_index a_off, clb_index x_off,
                                 clb_index rs_o, clb_index cs_o, clb_index rs_a, clb_index cs_a,
                                 clb_index rs_x, clb_index cs_x, int batch_ndim, CLB_TABLE_ARGS)
{
    (void)cs_o;
    (void)cs_x;
    (void)n;
    const clb_index j = (clb_index)get_global_id(0) * 16,
                    i = (clb_index)get_global_id(1) * CLB_MM_ROWS;
#if !CLB_WIDE_TABLE
    clb_index bshape[CLB_BYVAL_DIMS], bstride[3][CLB_BYVAL_DIMS];
    vstore8(shape_v, 0, bshape);
    vstore8(so_v, 0, bstride[0]);
    vstore8(sa_v, 0, bstride[1]);
    vstore8(sb_v, 0, bstride[2]);
#endif
    CLB_BATCH_OFFSETS((clb_index)get_global_id(2));
#define CLB_MM_A_ROW(r) (a + a_off + min(i + (r), m - 1) * rs_a)
    __global const clb_t *a0 = CLB_MM_A_ROW(0), *a1 = CLB_MM_A_ROW(1), *a2 = CLB_MM_A_ROW(2),
                         *a3 = CLB_MM_A_ROW(3);
    clb_t16 c0 = 0, c1 = 0, c2 = 0, c3 = 0;
#if CLB_MM_ROWS == 6
    __global const clb_t *a4 = CLB_MM_A_ROW(4), *a5 = CLB_MM_A_ROW(5);
    clb_t16 c4 = 0, c5 = 0;
#endif
    __global const clb_t *xr = x + x_off + j;
    for (clb_index p = 0; p < k; ++p) {
        const clb_t16 row = vload16(0, xr + p * rs_x);
        const clb_index q = p * cs_a;
        c0 = fma((clb_t16)(a0[q]), row, c0);
        c1 = fma((clb_t16)(a1[q]), row, c1);
        c2 = fma((clb_t16)(a2[q]), row, c2);
        c3 = fma((clb_t16)(a3[q]), row, c3);
#if CLB_MM_ROWS == 6
        c4 = fma((clb_t16)(a4[q]), row, c4);
        c5 = fma((clb_t16)(a5[q]), row, c5);
#endif
    }
    __global clb_t *o = out + out_off + i * rs_o + j;
    vstore16(c0, 0, o);
    if (i + 1 < m) vstore16(c1, 0, o + rs_o);
    if (i + 2 < m) vstore16(c2, 0, o + 2 * rs_o);
    if (i + 3 < m) vstore16(c3, 0, o + 3 * rs_o);
#if CLB_MM_ROWS == 6
    if (i + 4 < m) vstore16(c4, 0, o + 4 * rs_o);
    if (i + 5 < m) vstore16(c5, 0, o + 5 * rs_o);
#endif
}
#endif

/* Float GEMM against a transposed b (b's columns contiguous: a clb_permute or
 * clb_swapaxes view such as K^T in attention) with a's rows contiguous, read in
 * place: c[i][j] = dot(a row i, b column j), both runs contiguous in p. Each
 * item computes a CLB_NT_ROWS x 4 tile of one output matrix, holding one 8-wide
 * partial-sum vector per output element; the last k % 8 products go to lane 0;
 * each row's four vectors are summed across at the end in one transposing
 * tree (7 vector adds for 4 sums). Rows and columns past the end of the matrix
 * repeat the last one and are not stored. Strides are arguments, so this
 * kernel joins the program of its dtype (no specialization per layout).
 * Accumulation in the dtype itself, as clb_matmul_blocked. */
#if CLB_DTYPE == 10 || CLB_DTYPE == 11
#if CLB_DTYPE == 11
#define CLB_NT_ROWS 2
#else
#define CLB_NT_ROWS 4
#endif
typedef CLB_CAT(CLB_STORAGE(CLB_DTYPE), 8) clb_t8;
typedef CLB_CAT(CLB_STORAGE(CLB_DTYPE), 4) clb_t4;

/* (sum of a0's lanes, a1's, a2's, a3's). */
static inline clb_t4 clb_nt_sum4(clb_t8 a0, clb_t8 a1, clb_t8 a2, clb_t8 a3)
{
    const clb_t4 s0 = a0.lo + a0.hi, s1 = a1.lo + a1.hi, s2 = a2.lo + a2.hi, s3 = a3.lo + a3.hi;
    const clb_t4 u0 = (clb_t4)(s0.even, s1.even) + (clb_t4)(s0.odd, s1.odd);
    const clb_t4 u1 = (clb_t4)(s2.even, s3.even) + (clb_t4)(s2.odd, s3.odd);
    return (clb_t4)(u0.even, u1.even) + (clb_t4)(u0.odd, u1.odd);
}

__kernel void clb_matmul_nt(__global clb_t *out, __global const clb_t *a, __global const clb_t *x,
                            clb_index m, clb_index n, clb_index k, clb_index out_off,
                            clb_index a_off, clb_index x_off, clb_index rs_o, clb_index cs_o,
                            clb_index rs_a, clb_index cs_a, clb_index rs_x, clb_index cs_x,
                            int batch_ndim, CLB_TABLE_ARGS)
{
    (void)cs_a;
    (void)rs_x;
    const clb_index j = (clb_index)get_global_id(0) * 4, i = (clb_index)get_global_id(1) * CLB_NT_ROWS;
#if !CLB_WIDE_TABLE
    clb_index bshape[CLB_BYVAL_DIMS], bstride[3][CLB_BYVAL_DIMS];
    vstore8(shape_v, 0, bshape);
    vstore8(so_v, 0, bstride[0]);
    vstore8(sa_v, 0, bstride[1]);
    vstore8(sb_v, 0, bstride[2]);
#endif
    CLB_BATCH_OFFSETS((clb_index)get_global_id(2));
    __global const clb_t *ar[CLB_NT_ROWS], *xc[4];
    _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++) ar[r] = a + a_off + min(i + r, m - 1) * rs_a;
    _Pragma("unroll") for (int c = 0; c < 4; c++) xc[c] = x + x_off + min(j + c, n - 1) * cs_x;
    clb_t8 acc[CLB_NT_ROWS][4];
    _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++)
        _Pragma("unroll") for (int c = 0; c < 4; c++) acc[r][c] = 0;
    const clb_index k8 = k / 8 * 8;
    for (clb_index p = 0; p < k8; p += 8) {
        clb_t8 av[CLB_NT_ROWS], xv[4];
        _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++) av[r] = vload8(0, ar[r] + p);
        _Pragma("unroll") for (int c = 0; c < 4; c++) xv[c] = vload8(0, xc[c] + p);
        _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++)
            _Pragma("unroll") for (int c = 0; c < 4; c++) acc[r][c] = fma(av[r], xv[c], acc[r][c]);
    }
    for (clb_index p = k8; p < k; ++p)
        _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++)
            _Pragma("unroll") for (int c = 0; c < 4; c++) acc[r][c].s0 = fma(ar[r][p], xc[c][p], acc[r][c].s0);
    _Pragma("unroll") for (int r = 0; r < CLB_NT_ROWS; r++) {
        if (i + r >= m) break;
        const clb_t4 v = clb_nt_sum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
        __global clb_t *o = out + out_off + (i + r) * rs_o + j * cs_o;
        if (j + 3 < n && cs_o == 1) {
            vstore4(v, 0, o);
        } else {
            o[0] = v.s0;
            if (j + 1 < n) o[cs_o] = v.s1;
            if (j + 2 < n) o[2 * cs_o] = v.s2;
            if (j + 3 < n) o[3 * cs_o] = v.s3;
        }
    }
}
#endif
