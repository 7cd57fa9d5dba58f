/* Fused broadcast reduction (clb_eval_reduce): out[o] = fold over r of
 * expr(inputs at kept(o) + reduced(r)), the expression evaluated at each
 * broadcast position and folded into the accumulator in the same kernel; the
 * broadcast result is never stored.
 *
 * The host (src/opencl/cl_eval_reduce.c) splits the launch plan into kept axes
 * (one per output axis, row-major: output element o is at out_offset + o) and
 * reduced axes (the innermost one last), both with a stride per input, and
 * generates CLB_EVAL_BODY with clb_eval's code generator (src/opencl/expr_cl.c):
 * one register per node, the input loads CLB_LOAD(dt, p<k>, o<k>), and
 * CLB_RESULT(value) with the value in the expression's dtype.
 *
 * Work decomposition, as cl/reduce.cl's general kernel:
 *   CLB_TREE=1 (GPUs, and every device that runs work items across SIMD lanes):
 *     a work-group of LX * LY items covers LX consecutive outputs; its LY lanes
 *     per output share the chunk of the reduced range this group owns (group
 *     id 1), each folding every LY-th element privately, then a tree in local
 *     memory combines the lanes;
 *   CLB_TREE=0 (CPU devices that run a work-group as a loop, PoCL): one work
 *     item per (output, chunk) walks its chunk in order, CLB_VEC consecutive
 *     elements at a time into CLB_VEC independent accumulators (the compiler
 *     turns literal inner strides into vector loads, and a long Kahan chain
 *     becomes CLB_VEC short ones).
 * With one chunk (CLB_FINAL=1) the result is written; with several,
 * accumulator-typed partials out[o * chunks + chunk], which the host reduces
 * with clb_reduce's kernel (clb__cl_reduce) in a second launch.
 *
 * Accumulators and folds are clb_reduce's (cl/reduce.cl): floats (float16
 * too) in float, float64 in double, SUM/MEAN with Kahan compensation; integer
 * and bool SUM/PROD in ulong (wrapping), MAX/MIN in long or ulong, integer
 * MEAN in double. MAX/MIN propagate NaN.
 *
 * Specialisation (-D, each with a default so the file compiles standalone):
 *   CLB_NIN                inputs (1..8), buffers p1..p8
 *   CLB_IN1_DTYPE ..       clb_dtype numbers of the inputs
 *   CLB_EXPR_DTYPE         dtype of the expression's value
 *   CLB_ACC_DTYPE, CLB_OUT_DTYPE
 *   CLB_OP                 clb_reduce_op: 0 SUM, 1 MEAN, 2 MAX, 3 MIN, 4 PROD
 *   CLB_FINAL              1: write results; 0: write partials
 *   CLB_KDIM, CLB_RDIM     kept and reduced axes (CLB_RDIM >= 1)
 *   CLB_RIN1 .. CLB_RIN8   innermost reduced stride of each input: 0, 1 or 2 (any)
 *   CLB_TREE, CLB_VEC      the decomposition above
 *   CLB_INDEX64            64-bit index arithmetic
 *   CLB_USE_<dt>           operation helpers of compute dtype <dt> (cl/scalar_ops.cl)
 *   CLB_EVAL_BODY          the generated statements
 *
 * The table (one __constant buffer): [kept shape | reduced shape | for each
 * input: kept strides | reduced strides]. */

#ifndef CLB_NIN
#define CLB_NIN 1
#endif
#ifndef CLB_EXPR_DTYPE
#define CLB_EXPR_DTYPE 10
#endif
#ifndef CLB_ACC_DTYPE
#define CLB_ACC_DTYPE 10
#endif
#ifndef CLB_OUT_DTYPE
#define CLB_OUT_DTYPE 10
#endif
#ifndef CLB_OP
#define CLB_OP 0
#endif
#ifndef CLB_FINAL
#define CLB_FINAL 1
#endif
#ifndef CLB_KDIM
#define CLB_KDIM 1
#endif
#ifndef CLB_RDIM
#define CLB_RDIM 1
#endif
#ifndef CLB_TREE
#define CLB_TREE 1
#endif
#ifndef CLB_VEC
#define CLB_VEC 16
#endif
#ifndef CLB_EVAL_BODY /* x * x */
#define CLB_IN1_DTYPE 10
#define CLB_EVAL_BODY                                                                              \
    CLB_LET(0, 10, CLB_LOAD(10, p1, o1));                                                          \
    CLB_RESULT(v0 * v0);
#endif
#ifndef CLB_IN1_DTYPE
#define CLB_IN1_DTYPE 0
#endif
#ifndef CLB_IN2_DTYPE
#define CLB_IN2_DTYPE 0
#endif
#ifndef CLB_IN3_DTYPE
#define CLB_IN3_DTYPE 0
#endif
#ifndef CLB_IN4_DTYPE
#define CLB_IN4_DTYPE 0
#endif
#ifndef CLB_IN5_DTYPE
#define CLB_IN5_DTYPE 0
#endif
#ifndef CLB_IN6_DTYPE
#define CLB_IN6_DTYPE 0
#endif
#ifndef CLB_IN7_DTYPE
#define CLB_IN7_DTYPE 0
#endif
#ifndef CLB_IN8_DTYPE
#define CLB_IN8_DTYPE 0
#endif
#ifndef CLB_RIN1
#define CLB_RIN1 2
#endif
#ifndef CLB_RIN2
#define CLB_RIN2 2
#endif
#ifndef CLB_RIN3
#define CLB_RIN3 2
#endif
#ifndef CLB_RIN4
#define CLB_RIN4 2
#endif
#ifndef CLB_RIN5
#define CLB_RIN5 2
#endif
#ifndef CLB_RIN6
#define CLB_RIN6 2
#endif
#ifndef CLB_RIN7
#define CLB_RIN7 2
#endif
#ifndef CLB_RIN8
#define CLB_RIN8 2
#endif

#if (CLB_ACC_DTYPE == 11 || CLB_OUT_DTYPE == 11 || CLB_EXPR_DTYPE == 11) && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

/* The body's float constants (see cl/eval.cl, quirk literal-folding). */
#if CLB_QUIRK_LITERAL_FOLDING
#define CLB_LIT32(bits) as_float((uint)(bits) ^ (uint)clb_opaque_zero)
#define CLB_LIT64(bits) as_double((ulong)(bits) ^ (ulong)clb_opaque_zero)
#else
#define CLB_LIT32(bits) as_float(bits)
#define CLB_LIT64(bits) as_double(bits)
#endif
#define CLB_LET(i, dt, x) CLB_REG(dt) v##i = (x)
#define CLB_WHERE(c, a, b) ((c) ? (a) : (b))

typedef CLB_STORAGE(CLB_ACC_DTYPE) clb_acc_t;
typedef CLB_REG(CLB_EXPR_DTYPE) clb_val_t;
#if CLB_FINAL
typedef CLB_STORAGE(CLB_OUT_DTYPE) clb_out_t;
#else
typedef clb_acc_t clb_out_t;
#endif

#define CLB_FLOAT_ACC (CLB_ACC_DTYPE == 10 || CLB_ACC_DTYPE == 11)
#define CLB_IS_SUM (CLB_OP == 0 || CLB_OP == 1)
#define CLB_KAHAN (CLB_IS_SUM && CLB_FLOAT_ACC)

#if CLB_IS_SUM
#define CLB_IDENTITY ((clb_acc_t)0)
#define CLB_COMBINE(a, x) ((a) + (x))
#elif CLB_OP == 4
#define CLB_IDENTITY ((clb_acc_t)1)
#define CLB_COMBINE(a, x) ((a) * (x))
#elif CLB_FLOAT_ACC && CLB_OP == 2
#define CLB_IDENTITY (-(clb_acc_t)INFINITY)
#define CLB_COMBINE(a, x) ((isnan(a) || (a) > (x)) ? (a) : (x))
#elif CLB_FLOAT_ACC
#define CLB_IDENTITY ((clb_acc_t)INFINITY)
#define CLB_COMBINE(a, x) ((isnan(a) || (a) < (x)) ? (a) : (x))
#elif CLB_OP == 2
#define CLB_IDENTITY (CLB_ACC_DTYPE == 8 ? (clb_acc_t)0 : (clb_acc_t)LONG_MIN)
#define CLB_COMBINE(a, x) ((a) >= (x) ? (a) : (x))
#else
#define CLB_IDENTITY (CLB_ACC_DTYPE == 8 ? (clb_acc_t)ULONG_MAX : (clb_acc_t)LONG_MAX)
#define CLB_COMBINE(a, x) ((a) <= (x) ? (a) : (x))
#endif

/* Folds x into (acc, comp): Kahan for float sums, the combine otherwise. */
#if CLB_KAHAN
#define CLB_FOLD(acc, comp, x)                                                                     \
    do {                                                                                           \
        clb_acc_t y_ = (x) - (comp);                                                               \
        clb_acc_t t_ = (acc) + y_;                                                                 \
        (comp) = (t_ - (acc)) - y_;                                                                \
        (acc) = t_;                                                                                \
    } while (0)
#else
#define CLB_FOLD(acc, comp, x) ((acc) = CLB_COMBINE((acc), (x)))
#endif
#define CLB_TO_ACC(v) CLB_CONVERT(CLB_ACC_DTYPE, CLB_EXPR_DTYPE, v)

/* ---- the table ------------------------------------------------------------------------ */
#define CLB_KSHAPE(d) table[d]
#define CLB_RSHAPE(d) table[CLB_KDIM + (d)]
#define CLB_COLS_ (CLB_KDIM + CLB_RDIM)
#define CLB_KSTRIDE_OF(k, d) table[CLB_COLS_ * (k) + (d)]
#define CLB_RSTRIDE_OF(k, d) table[CLB_COLS_ * (k) + CLB_KDIM + (d)]
#define CLB_KSTRIDE1(d) CLB_KSTRIDE_OF(1, d)
#define CLB_KSTRIDE2(d) CLB_KSTRIDE_OF(2, d)
#define CLB_KSTRIDE3(d) CLB_KSTRIDE_OF(3, d)
#define CLB_KSTRIDE4(d) CLB_KSTRIDE_OF(4, d)
#define CLB_KSTRIDE5(d) CLB_KSTRIDE_OF(5, d)
#define CLB_KSTRIDE6(d) CLB_KSTRIDE_OF(6, d)
#define CLB_KSTRIDE7(d) CLB_KSTRIDE_OF(7, d)
#define CLB_KSTRIDE8(d) CLB_KSTRIDE_OF(8, d)
#define CLB_RSTRIDE1(d) CLB_RSTRIDE_OF(1, d)
#define CLB_RSTRIDE2(d) CLB_RSTRIDE_OF(2, d)
#define CLB_RSTRIDE3(d) CLB_RSTRIDE_OF(3, d)
#define CLB_RSTRIDE4(d) CLB_RSTRIDE_OF(4, d)
#define CLB_RSTRIDE5(d) CLB_RSTRIDE_OF(5, d)
#define CLB_RSTRIDE6(d) CLB_RSTRIDE_OF(6, d)
#define CLB_RSTRIDE7(d) CLB_RSTRIDE_OF(7, d)
#define CLB_RSTRIDE8(d) CLB_RSTRIDE_OF(8, d)

/* Per existing input k (a compile-time test: the others vanish). */
#define CLB_EACH(M)                                                                                \
    M(1);                                                                                          \
    M(2);                                                                                          \
    M(3);                                                                                          \
    M(4);                                                                                          \
    M(5);                                                                                          \
    M(6);                                                                                          \
    M(7);                                                                                          \
    M(8)

/* Input k's offset of output o (its kept part), into b<k>. */
#define CLB_KEPT_BASE(k)                                                                           \
    if ((k) <= CLB_NIN) CLB_OFFSET_OF(o, CLB_KDIM, CLB_KSHAPE, CLB_KSTRIDE##k, b##k)
/* Input k's offset of outer reduced index q (all but the innermost reduced axis), into qo<k>. */
#define CLB_OUTER_OFF(k)                                                                           \
    qo##k = b##k;                                                                                  \
    if ((k) <= CLB_NIN) CLB_OFFSET_OF(q, CLB_RDIM - 1, CLB_RSHAPE, CLB_RSTRIDE##k, qo##k)
/* Input k's innermost reduced stride: a literal where the plan said so. */
#define CLB_SI_DECL(k)                                                                             \
    const clb_index si##k = CLB_RIN##k == 0   ? (clb_index)0                                       \
                            : CLB_RIN##k == 1 ? (clb_index)1                                       \
                            : (k) <= CLB_NIN  ? CLB_RSTRIDE##k(CLB_RDIM - 1)                       \
                                              : (clb_index)0
#define CLB_AT(k) const clb_index o##k = qo##k + i * si##k
#define CLB_PTR(k, dt) __global const CLB_STORAGE(dt) *p##k

/* The result of the body: the value in a register. */
#define CLB_RESULT(x) val_ = (x)

__kernel void clb_eval_reduce(__global clb_out_t *out, CLB_PTR(1, CLB_IN1_DTYPE),
                              CLB_PTR(2, CLB_IN2_DTYPE), CLB_PTR(3, CLB_IN3_DTYPE),
                              CLB_PTR(4, CLB_IN4_DTYPE), CLB_PTR(5, CLB_IN5_DTYPE),
                              CLB_PTR(6, CLB_IN6_DTYPE), CLB_PTR(7, CLB_IN7_DTYPE),
                              CLB_PTR(8, CLB_IN8_DTYPE), clb_index out_offset, long8 in_offsets,
                              clb_index kept_numel, clb_index red_numel, clb_index chunk,
                              int lx_count, int ly_count, long count, __local clb_acc_t *scratch,
                              __constant const clb_index *table, int clb_opaque_zero)
{
#if CLB_TREE
    const int lid = (int)get_local_id(0);
    const int ly = lid / lx_count, lx = lid - ly * lx_count;
    const clb_index o = (clb_index)get_group_id(0) * lx_count + lx;
#else
    const int ly = 0;
    const clb_index o = (clb_index)get_global_id(0);
    (void)lx_count, (void)scratch;
#endif
    const clb_index gy = (clb_index)get_group_id(1);
    (void)count;
    (void)clb_opaque_zero;
    p1 += in_offsets.s0;
    p2 += in_offsets.s1;
    p3 += in_offsets.s2;
    p4 += in_offsets.s3;
    p5 += in_offsets.s4;
    p6 += in_offsets.s5;
    p7 += in_offsets.s6;
    p8 += in_offsets.s7;

    clb_acc_t acc = CLB_IDENTITY, comp = 0;
    const clb_index start = gy * chunk;
    const clb_index end = min(start + chunk, red_numel);
    clb_index r = start + ly;
    if (o < kept_numel && r < end) {
        clb_index b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0;
        CLB_EACH(CLB_KEPT_BASE);
        CLB_EACH(CLB_SI_DECL);
        const clb_index n_inner = CLB_RSHAPE(CLB_RDIM - 1);
        clb_index q = r / n_inner, i = r - q * n_inner;
        clb_index qo1, qo2, qo3, qo4, qo5, qo6, qo7, qo8;
        CLB_EACH(CLB_OUTER_OFF);
#if CLB_TREE
        const clb_index step = ly_count;
        while (r < end) {
            clb_val_t val_;
            {
                CLB_EACH(CLB_AT);
                CLB_EVAL_BODY
            }
            CLB_FOLD(acc, comp, CLB_TO_ACC(val_));
            r += step;
            i += step;
            if (i >= n_inner) {
                const clb_index w_ = i / n_inner;
                q += w_;
                i -= w_ * n_inner;
                CLB_EACH(CLB_OUTER_OFF);
            }
        }
#else
        (void)ly_count;
        /* CLB_VEC lanes: element v of each run of CLB_VEC goes to lane v. */
        clb_acc_t lane[CLB_VEC], lcomp[CLB_VEC];
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
            lane[v] = CLB_IDENTITY;
            lcomp[v] = 0;
        }
        while (r < end) {
            const clb_index m = min(n_inner - i, end - r); /* left in this inner row */
            clb_index j = 0;
            for (; j + CLB_VEC <= m; j += CLB_VEC) {
                const clb_index i0 = i + j;
                _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
                {
                    clb_val_t val_;
                    {
                        const clb_index i = i0 + v;
                        CLB_EACH(CLB_AT);
                        CLB_EVAL_BODY
                    }
                    CLB_FOLD(lane[v], lcomp[v], CLB_TO_ACC(val_));
                }
            }
            for (; j < m; j++) {
                clb_val_t val_;
                {
                    const clb_index i0 = i + j;
                    {
                        const clb_index i = i0;
                        CLB_EACH(CLB_AT);
                        CLB_EVAL_BODY
                    }
                }
                CLB_FOLD(acc, comp, CLB_TO_ACC(val_));
            }
            r += m;
            i += m;
            if (i >= n_inner) {
                i = 0;
                ++q;
                CLB_EACH(CLB_OUTER_OFF);
            }
        }
        /* The lanes pairwise, then the tail's fold. */
#if CLB_KAHAN
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++) lane[v] -= lcomp[v];
#endif
        _Pragma("unroll") for (int w = CLB_VEC / 2; w > 0; w /= 2)
        {
            _Pragma("unroll") for (int v = 0; v < w; v++) lane[v] = CLB_COMBINE(lane[v], lane[v + w]);
        }
#if CLB_KAHAN
        acc = (acc - comp) + lane[0];
        comp = 0;
#else
        acc = CLB_COMBINE(acc, lane[0]);
#endif
#endif
    }
#if CLB_KAHAN
    acc -= comp;
#endif

#if CLB_TREE
    /* Tree over the LY lanes of each output (lanes of one output are LX apart). */
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = ly_count / 2; w > 0; w /= 2) {
        if (ly < w) scratch[lid] = CLB_COMBINE(scratch[lid], scratch[lid + w * lx_count]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || o >= kept_numel) return;
    acc = scratch[lx];
#else
    if (o >= kept_numel) return;
#endif
#if CLB_FINAL
#if CLB_IS_SUM && CLB_FLOAT_ACC
    if (CLB_OP == 1) acc = acc / (clb_acc_t)count; /* MEAN; an empty one is 0 / 0 = NaN */
#endif
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, acc));
#else
    (void)out_offset;
    out[o * (clb_index)get_num_groups(1) + gy] = acc;
#endif
}
