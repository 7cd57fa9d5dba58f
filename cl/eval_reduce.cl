/* Fused broadcast reduction (clb_eval_reduce): out[o] = fold over r of
 * expr(inputs at kept(o) + reduced(r)), the expression evaluated at each
 * broadcast position and folded into the accumulator in the same kernel; the
 * broadcast result is never stored.
 *
 * The host (src/opencl/cl_eval_reduce.c) splits the launch plan into kept axes
 * (one per output axis, row-major: output element o is at out_offset + o) and
 * reduced axes (the innermost one last), both with a stride per input, and
 * generates CLB_EVAL_BODY with clb_eval's code generator (src/opencl/cl_expr.c):
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
 *     becomes CLB_VEC short ones);
 *   CLB_KLANES=1 (with CLB_TREE=0, where the innermost kept axis moves fastest
 *     in memory, a multiple of CLB_VEC outputs): one work item per (CLB_VEC
 *     consecutive outputs, chunk), lane v folding output v, so each step reads
 *     CLB_VEC neighbouring elements.
 * With one chunk (CLB_FINAL=1) the result is written; with several,
 * accumulator-typed partials out[o * chunks + chunk], which the host reduces
 * with clb_reduce's kernel (clb__cl_reduce) in a second launch.
 *
 * Accumulators and folds are clb_reduce's (cl/reduce.cl): floats (float16
 * too) in float, float64 in double, SUM/MEAN with Kahan compensation; integer
 * and bool SUM/PROD in ulong (wrapping), MAX/MIN in long or ulong, integer
 * MEAN in double. MAX/MIN propagate NaN.
 *
 * CLB_MOMENTS=1 (clb_var / clb_std): the fold is Welford's update of (mean,
 * M2) on the values shifted by the output's first value (so a large common
 * mean costs no precision), lanes and chunks merged with Chan's formula; the
 * result is M2 / max(count - correction, 0), or its square root where the
 * launch description's CLB_ER_ROOT is set (clb_std: var and std of a shape
 * share the program).
 * Partials are (mean, M2) pairs, merged by clb_moments_merge below.
 *
 * CLB_ONLINE=1 (softmax, log_softmax, logsumexp): the fold keeps (m, s), the
 * running maximum and the sum of exp(x - m), rescaled when the maximum grows
 * (online softmax); lanes and chunks merge the same way. The output holds the
 * pair: out[out_offset + 2 o] = m, out[out_offset + 2 o + 1] = s (accumulator
 * dtype); partials are such pairs, merged by clb_online_merge.
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
#ifndef CLB_KLANES
#define CLB_KLANES 0
#endif
#ifndef CLB_KTILE /* runs of CLB_VEC outputs per work item with CLB_KLANES (the tiled walk) */
#define CLB_KTILE 1
#endif
#ifndef CLB_MOMENTS
#define CLB_MOMENTS 0
#endif
#ifndef CLB_ONLINE
#define CLB_ONLINE 0
#endif
#ifndef CLB_SOFTMAX_ROWS
#define CLB_SOFTMAX_ROWS 0
#endif
#ifndef CLB_EVAL_BODY /* x * x */
#ifndef CLB_IN1_DTYPE
#define CLB_IN1_DTYPE 10
#endif
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
#if CLB_FINAL && !CLB_ONLINE
typedef CLB_STORAGE(CLB_OUT_DTYPE) clb_out_t;
#else
typedef clb_acc_t clb_out_t;
#endif

#define CLB_FLOAT_ACC (CLB_ACC_DTYPE == 10 || CLB_ACC_DTYPE == 11)
#define CLB_IS_SUM (CLB_OP == 0 || CLB_OP == 1)
#define CLB_KAHAN (CLB_IS_SUM && CLB_FLOAT_ACC && !CLB_MOMENTS && !CLB_ONLINE)

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

/* Folds x into (acc, comp): Kahan for float sums, the combine otherwise; with
   CLB_MOMENTS Welford's update of (mean, M2) = (acc, comp), inv = 1 / count. */
#if CLB_MOMENTS
#define CLB_MFOLD(acc, comp, y, inv)                                                               \
    do {                                                                                           \
        const clb_acc_t d_ = (y) - (acc);                                                          \
        (acc) += d_ * (inv);                                                                       \
        (comp) += d_ * ((y) - (acc));                                                              \
    } while (0)
#endif
#if CLB_ONLINE
/* exp(a - b) for a <= b, 1 where they are equal (infinities included). */
static clb_acc_t clb_ratio(clb_acc_t a, clb_acc_t b)
{
    return a == b ? (clb_acc_t)1 : exp(a - b);
}
/* (m, s) after one more value x, and after merging another pair (mb, sb). */
#define CLB_OFOLD(m, s, x)                                                                         \
    do {                                                                                           \
        const clb_acc_t x_ = (x);                                                                  \
        if (x_ > (m)) {                                                                            \
            (s) = (s)*clb_ratio((m), x_) + (clb_acc_t)1;                                           \
            (m) = x_;                                                                              \
        } else {                                                                                   \
            (s) += clb_ratio(x_, (m));                                                             \
        }                                                                                          \
    } while (0)
#define CLB_OMERGE(m, s, mb, sb)                                                                   \
    do {                                                                                           \
        const clb_acc_t mb_ = (mb), sb_ = (sb);                                                    \
        if (mb_ > (m)) {                                                                           \
            (s) = (s)*clb_ratio((m), mb_) + sb_;                                                   \
            (m) = mb_;                                                                             \
        } else {                                                                                   \
            (s) += sb_ * clb_ratio(mb_, (m));                                                      \
        }                                                                                          \
    } while (0)
#endif
#if CLB_KAHAN
#define CLB_FOLD(acc, comp, x) CLB_KAHAN_STEP(clb_acc_t, acc, comp, x)
#else
#define CLB_FOLD(acc, comp, x) ((acc) = CLB_COMBINE((acc), (x)))
#endif
/* Folds one value x into (acc, comp) by the kernel's kind: Welford's step on
   x - pv with inv = 1 / count (CLB_MOMENTS), the online pair (CLB_ONLINE), or
   the reduction's fold; pv and inv are unused but with CLB_MOMENTS. */
#if CLB_MOMENTS
#define CLB_FOLD_ONE(acc, comp, x, pv, inv) CLB_MFOLD(acc, comp, (x) - (pv), inv)
#elif CLB_ONLINE
#define CLB_FOLD_ONE(acc, comp, x, pv, inv) CLB_OFOLD(acc, comp, x)
#else
#define CLB_FOLD_ONE(acc, comp, x, pv, inv) CLB_FOLD(acc, comp, x)
#endif
#define CLB_TO_ACC(v) CLB_CONVERT(CLB_ACC_DTYPE, CLB_EXPR_DTYPE, v)

/* Lanes as one vector (CPU kernels, float accumulators): the fold of a run of
   CLB_VEC values in vector registers, whatever the compiler makes of the
   scalar body. inv: Welford's 1 / count. The host turns it off
   (CLB_SCALAR_LANES) for bodies with arithmetic, which the compiler vectorises
   together with the scalar lanes' fold. */
#ifndef CLB_SCALAR_LANES /* 1: leave the lanes to the compiler (an arithmetic body, below) */
#define CLB_SCALAR_LANES 0
#endif
#define CLB_VLANES                                                                                 \
    (!CLB_TREE && !CLB_SCALAR_LANES && CLB_VEC % 16 == 0 && CLB_FLOAT_ACC &&                       \
     (CLB_KAHAN || CLB_MOMENTS || CLB_ONLINE))
#if CLB_VLANES
typedef CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 16) clb_accv_t;
#if CLB_KAHAN
#define CLB_VFOLD(s, c, x, inv) CLB_KAHAN_STEP(clb_accv_t, s, c, x)
#elif CLB_MOMENTS
#define CLB_VFOLD(s, c, x, inv)                                                                    \
    do {                                                                                           \
        const clb_accv_t y_ = (x), d_ = y_ - (s);                                                  \
        (s) += d_ * (inv);                                                                         \
        (c) += d_ * (y_ - (s));                                                                    \
    } while (0)
#else
/* exp(a - b), 1 where a == b (infinities included). */
#define CLB_VRATIO(a, b) select(exp((a) - (b)), (clb_accv_t)1, isequal((a), (b)))
#define CLB_VFOLD(m, s, x, inv)                                                                    \
    do {                                                                                           \
        const clb_accv_t x_ = (x), mn_ = fmax((m), x_);                                            \
        (s) = (s)*CLB_VRATIO((m), mn_) + CLB_VRATIO(x_, mn_);                                      \
        (m) = mn_;                                                                                 \
    } while (0)
#endif
#endif

#if CLB_VLANES && CLB_MOMENTS
/* A block of B values per lane (x[0..B-1], shifted by the pivot) merged into
   the lanes' (mean, M2) = (vm, vM) of na values each: the block's mean and M2
   two-pass in registers, then Chan's merge, one division per block. Against a
   Welford step per value this takes no dependent chain through the
   accumulators and no division per step. B is even: the block's sum is a
   pairwise tree and its M2 two interleaved chains, so the dependent chain
   within a block is short and the core overlaps neighbouring blocks. */
#define CLB_MBLOCK_MERGE(vm, vM, na, x, B)                                                         \
    do {                                                                                           \
        clb_accv_t t_[(B)];                                                                        \
        _Pragma("unroll") for (int u_ = 0; u_ < (B); u_++) t_[u_] = (x)[u_];                       \
        _Pragma("unroll") for (int s_ = 1; s_ < (B); s_ *= 2)                                      \
        {                                                                                          \
            _Pragma("unroll") for (int u_ = 0; u_ + s_ < (B); u_ += 2 * s_) t_[u_] += t_[u_ + s_]; \
        }                                                                                          \
        const clb_accv_t bm_ = t_[0] * ((clb_acc_t)1 / (clb_acc_t)(B));                            \
        clb_accv_t b2_ = 0, b2o_ = 0;                                                              \
        _Pragma("unroll") for (int u_ = 0; u_ < (B); u_ += 2)                                      \
        {                                                                                          \
            const clb_accv_t d_ = (x)[u_] - bm_, e_ = (x)[u_ + 1] - bm_;                           \
            b2_ = fma(d_, d_, b2_);                                                                \
            b2o_ = fma(e_, e_, b2o_);                                                              \
        }                                                                                          \
        b2_ += b2o_;                                                                               \
        const clb_acc_t n_ = (na) + (clb_acc_t)(B), w_ = (clb_acc_t)(B) / n_;                      \
        const clb_accv_t dm_ = bm_ - (vm);                                                         \
        (vm) = fma(dm_, (clb_accv_t)w_, (vm));                                                     \
        (vM) += b2_ + dm_ * dm_ * (clb_accv_t)((na)*w_);                                           \
        (na) = n_;                                                                                 \
    } while (0)
#endif

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
/* Input k's innermost reduced stride (si) and innermost kept stride (ki): a
   literal where the plan said so. */
#define CLB_SI_DECL(k)                                                                             \
    const clb_index si##k = CLB_RIN##k == 0   ? (clb_index)0                                       \
                            : CLB_RIN##k == 1 ? (clb_index)1                                       \
                            : (k) <= CLB_NIN  ? CLB_RSTRIDE##k(CLB_RDIM - 1)                       \
                                              : (clb_index)0
#define CLB_KI_DECL(k)                                                                             \
    const clb_index ki##k = CLB_KIN##k == 0   ? (clb_index)0                                       \
                            : CLB_KIN##k == 1 ? (clb_index)1                                       \
                            : (k) <= CLB_NIN && CLB_KDIM > 0 ? CLB_KSTRIDE##k(CLB_KDIM - 1)        \
                                                             : (clb_index)0
#ifndef CLB_KIN1
#define CLB_KIN1 2
#endif
#ifndef CLB_KIN2
#define CLB_KIN2 2
#endif
#ifndef CLB_KIN3
#define CLB_KIN3 2
#endif
#ifndef CLB_KIN4
#define CLB_KIN4 2
#endif
#ifndef CLB_KIN5
#define CLB_KIN5 2
#endif
#ifndef CLB_KIN6
#define CLB_KIN6 2
#endif
#ifndef CLB_KIN7
#define CLB_KIN7 2
#endif
#ifndef CLB_KIN8
#define CLB_KIN8 2
#endif
/* Offsets of element (q, i) of the reduced range, and of lane v's output in kept lanes. */
#define CLB_AT(k)                                                                                  \
    const clb_index o##k = qo##k + i * si##k;                                                      \
    (void)o##k
#define CLB_AT_LANE(k)                                                                             \
    const clb_index o##k = qo##k + i * si##k + v * ki##k;                                          \
    (void)o##k
#define CLB_QO_IS_B(k) const clb_index qo##k = b##k
/* A run's loads from one base pointer per input: inside the run, p<k> is
   shadowed by the run's first element and o<k> is the literal step v times the
   stride, so a contiguous run is constant offsets from one pointer (with the
   offsets from the tensor's start, PoCL built each element's 32-bit index and
   loaded it alone: var over rows took twice as long). */
#define CLB_RUN_BASE(k)                                                                            \
    __global const CLB_STORAGE(CLB_IN##k##_DTYPE) *const rp##k = p##k + (qo##k + i0 * si##k)
#define CLB_RUN_PTR(k)                                                                             \
    __global const CLB_STORAGE(CLB_IN##k##_DTYPE) *const p##k = rp##k;                             \
    const clb_index o##k = v * si##k;                                                              \
    (void)p##k, (void)o##k
/* The same across kept lanes: lane l0 + v of the step at reduced index i (l0:
   the first lane of a tile's run, 0 without tiles). */
#define CLB_LANE_BASE(k)                                                                           \
    __global const CLB_STORAGE(CLB_IN##k##_DTYPE) *const rp##k =                                   \
        p##k + (qo##k + i * si##k + (clb_index)l0 * ki##k)
#define CLB_LANE_PTR(k)                                                                            \
    __global const CLB_STORAGE(CLB_IN##k##_DTYPE) *const p##k = rp##k;                             \
    const clb_index o##k = v * ki##k;                                                              \
    (void)p##k, (void)o##k
#define CLB_PTR(k, dt) __global const CLB_STORAGE(dt) *p##k

/* The result of the body: the value in a register. */
#define CLB_RESULT(x) val_ = (x)

/* The expression's value at output o's first reduced position, into dst: var's
   pivot, the same in every chunk so that the chunks' shifted means merge. */
#define CLB_FIRST_VALUE(dst)                                                                       \
    do {                                                                                           \
        clb_val_t val_;                                                                            \
        const clb_index i = 0;                                                                     \
        CLB_EACH(CLB_QO_IS_B);                                                                     \
        CLB_EACH(CLB_AT);                                                                          \
        CLB_EVAL_BODY                                                                              \
        (dst) = CLB_TO_ACC(val_);                                                                  \
    } while (0)

#if CLB_MOMENTS
/* Chan's merge of (nb, mb, Mb) into (na, ma, Ma). */
static void clb_chan(clb_acc_t *na, clb_acc_t *ma, clb_acc_t *Ma, clb_acc_t nb, clb_acc_t mb,
                     clb_acc_t Mb)
{
    if (nb == 0) return;
    const clb_acc_t n = *na + nb, d = mb - *ma;
    *ma += d * (nb / n);
    *Ma += Mb + d * d * (*na * (nb / n));
    *na = n;
}

/* M2 over count - correction (NumPy: max(count - ddof, 0); 0 gives inf or nan),
   or its square root (root != 0: clb_std). */
static clb_acc_t clb_moments_result(clb_acc_t m2, long n, long correction, long root)
{
    const long div = n - correction > 0 ? n - correction : 0;
    const clb_acc_t v = m2 / (clb_acc_t)div;
    return root ? sqrt(v) : v;
}
#endif

/* Writes output o (CLB_FINAL) or its partial of chunk gy: acc, or with
   CLB_MOMENTS (mean, M2) = (acc, comp). */
#if CLB_ONLINE && CLB_FINAL
#define CLB_WRITE(o, acc, comp)                                                                    \
    do {                                                                                           \
        out[out_offset + 2 * (o)] = (acc);                                                         \
        out[out_offset + 2 * (o) + 1] = (comp);                                                    \
    } while (0)
#elif CLB_MOMENTS && CLB_FINAL
#define CLB_WRITE(o, acc, comp)                                                                    \
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + (o),                                                \
              CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE,                                            \
                          clb_moments_result((comp), red_numel, count, root)))
#elif CLB_MOMENTS || CLB_ONLINE
#define CLB_WRITE(o, acc, comp)                                                                    \
    do {                                                                                           \
        const clb_index at_ = ((o) * (clb_index)get_num_groups(1) + gy) * 2;                       \
        out[at_] = (acc);                                                                          \
        out[at_ + 1] = (comp);                                                                     \
    } while (0)
#elif CLB_FINAL && CLB_IS_SUM && CLB_FLOAT_ACC
/* MEAN divides; an empty one is 0 / 0 = NaN. */
#define CLB_WRITE(o, acc, comp)                                                                    \
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + (o),                                                \
              CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE,                                            \
                          CLB_OP == 1 ? (acc) / (clb_acc_t)count : (acc)))
#elif CLB_FINAL
#define CLB_WRITE(o, acc, comp)                                                                    \
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + (o), CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, acc))
#else
#define CLB_WRITE(o, acc, comp) out[(o) * (clb_index)get_num_groups(1) + gy] = (acc)
#endif

#if !CLB_SOFTMAX_ROWS /* that program holds only its row kernel (end of file) */
CLB_ARGS_PROBE(CLB_ER_ARGS_VECS)

__kernel void clb_eval_reduce(__global clb_out_t *out, CLB_PTR(1, CLB_IN1_DTYPE),
                              CLB_PTR(2, CLB_IN2_DTYPE), CLB_PTR(3, CLB_IN3_DTYPE),
                              CLB_PTR(4, CLB_IN4_DTYPE), CLB_PTR(5, CLB_IN5_DTYPE),
                              CLB_PTR(6, CLB_IN6_DTYPE), CLB_PTR(7, CLB_IN7_DTYPE),
                              CLB_PTR(8, CLB_IN8_DTYPE), CLB_ARGS_PARAMS(CLB_ER_ARGS_VECS),
                              __local clb_acc_t *scratch, __constant const clb_index *table,
                              int clb_opaque_zero)
{
    /* The launch description (cl/launch_args.h's CLB_ER_*). */
    CLB_ARGS_UNPACK(CLB_ER_ARGS_VECS, era_);
    const clb_index out_offset = (clb_index)era_[CLB_ER_OUT_OFFSET];
    const clb_index kept_numel = (clb_index)era_[CLB_ER_KEPT_NUMEL];
    const clb_index red_numel = (clb_index)era_[CLB_ER_RED_NUMEL];
    const clb_index chunk = (clb_index)era_[CLB_ER_CHUNK];
    const int lx_count = (int)era_[CLB_ER_X], ly_count = (int)era_[CLB_ER_Y];
    const long count = era_[CLB_ER_COUNT], root = era_[CLB_ER_ROOT];
    const clb_index gy = (clb_index)get_group_id(1);
    (void)count, (void)root;
    (void)clb_opaque_zero;
    (void)out_offset;
    p1 += era_[CLB_ER_IN_OFFSET(0)];
    p2 += era_[CLB_ER_IN_OFFSET(1)];
    p3 += era_[CLB_ER_IN_OFFSET(2)];
    p4 += era_[CLB_ER_IN_OFFSET(3)];
    p5 += era_[CLB_ER_IN_OFFSET(4)];
    p6 += era_[CLB_ER_IN_OFFSET(5)];
    p7 += era_[CLB_ER_IN_OFFSET(6)];
    p8 += era_[CLB_ER_IN_OFFSET(7)];
    const clb_index start = gy * chunk;
    const clb_index end = min(start + chunk, red_numel);
    const clb_index n_inner = CLB_RSHAPE(CLB_RDIM - 1);
    CLB_EACH(CLB_SI_DECL);
    clb_index b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0;
    clb_index qo1, qo2, qo3, qo4, qo5, qo6, qo7, qo8;

#if CLB_TREE
    /* ---- lanes of a work-group, combined by a tree in local memory ---- */
    const int lid = (int)get_local_id(0);
    const int ly = lid / lx_count, lx = lid - ly * lx_count;
    const clb_index o = (clb_index)get_group_id(0) * lx_count + lx;
    clb_acc_t acc = CLB_IDENTITY, comp = 0;
#if CLB_MOMENTS
    acc = 0;
    clb_acc_t nl = 0, pivot = 0;
#elif CLB_ONLINE
    acc = -(clb_acc_t)INFINITY;
#endif
    clb_index r = start + ly;
    if (o < kept_numel && r < end) {
        CLB_EACH(CLB_KEPT_BASE);
#if CLB_MOMENTS
        CLB_FIRST_VALUE(pivot);
#endif
        clb_index q = r / n_inner, i = r - q * n_inner;
        CLB_EACH(CLB_OUTER_OFF);
        const clb_index step = ly_count;
        while (r < end) {
            clb_val_t val_;
            {
                CLB_EACH(CLB_AT);
                CLB_EVAL_BODY
            }
#if CLB_MOMENTS
            nl += 1;
#endif
            CLB_FOLD_ONE(acc, comp, CLB_TO_ACC(val_), pivot, (clb_acc_t)1 / nl);
            r += step;
            i += step;
            if (i >= n_inner) {
                const clb_index w_ = i / n_inner;
                q += w_;
                i -= w_ * n_inner;
                CLB_EACH(CLB_OUTER_OFF);
            }
        }
    }
#if CLB_KAHAN
    acc -= comp;
#endif
    const int wg = lx_count * ly_count;
#if CLB_MOMENTS
    scratch[lid] = acc;
    scratch[wg + lid] = comp;
    scratch[2 * wg + lid] = nl;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = ly_count / 2; w > 0; w /= 2) {
        if (ly < w) {
            clb_acc_t na = scratch[2 * wg + lid], ma = scratch[lid], Ma = scratch[wg + lid];
            const int b = lid + w * lx_count;
            clb_chan(&na, &ma, &Ma, scratch[2 * wg + b], scratch[b], scratch[wg + b]);
            scratch[lid] = ma;
            scratch[wg + lid] = Ma;
            scratch[2 * wg + lid] = na;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || o >= kept_numel) return;
    acc = scratch[lx];
    comp = scratch[wg + lx];
#elif CLB_ONLINE
    scratch[lid] = acc;
    scratch[wg + lid] = comp;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = ly_count / 2; w > 0; w /= 2) {
        if (ly < w) {
            clb_acc_t ma = scratch[lid], sa = scratch[wg + lid];
            const int b = lid + w * lx_count;
            CLB_OMERGE(ma, sa, scratch[b], scratch[wg + b]);
            scratch[lid] = ma;
            scratch[wg + lid] = sa;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || o >= kept_numel) return;
    acc = scratch[lx];
    comp = scratch[wg + lx];
#else
    (void)wg;
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = ly_count / 2; w > 0; w /= 2) {
        if (ly < w) scratch[lid] = CLB_COMBINE(scratch[lid], scratch[lid + w * lx_count]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ly != 0 || o >= kept_numel) return;
    acc = scratch[lx];
#endif
    CLB_WRITE(o, acc, comp);

#elif CLB_KLANES && CLB_KTILE > 1 && CLB_VLANES && !CLB_ONLINE
    /* The 16 lanes 16 u .. 16 u + 15 of tile run w (l0) at reduced index at_i, as a vector. */
#define CLB_TILE_FILL16(dst, at_i)                                                                 \
    do {                                                                                           \
        const clb_index i = (at_i);                                                                \
        CLB_EACH(CLB_LANE_BASE);                                                                   \
        clb_acc_t vals[16];                                                                        \
        _Pragma("unroll") for (int v0 = 0; v0 < 16; v0++)                                          \
        {                                                                                          \
            const int v = 16 * u + v0;                                                             \
            clb_val_t val_;                                                                        \
            {                                                                                      \
                CLB_EACH(CLB_LANE_PTR);                                                            \
                CLB_EVAL_BODY                                                                      \
            }                                                                                      \
            vals[v0] = CLB_TO_ACC(val_);                                                           \
        }                                                                                          \
        (dst) = vload16(0, vals);                                                                  \
    } while (0)
    /* ---- a tile of CLB_KTILE runs of CLB_VEC neighbouring outputs per work
       item, eight steps at a time: each of the eight rows is read as one long
       segment (a stride the prefetchers follow, where 256 bytes a row ran at
       half the column sum's speed), the eight values of a lane are combined in
       registers (a sum, or the block's mean and M2) and folded into the lane's
       state in private memory once (Kahan add, or Chan's merge) ---- */
    (void)lx_count, (void)ly_count, (void)scratch;
#define CLB_TW (CLB_VEC * CLB_KTILE)
    const clb_index o = (clb_index)get_global_id(0) * CLB_TW;
    if (o >= kept_numel || start >= end) return;
    CLB_EACH(CLB_KEPT_BASE);
    CLB_EACH(CLB_KI_DECL);
    /* The lanes' state as vectors (aligned whole-register loads and stores),
       read as scalars through lane / lcomp / pivot. */
    clb_accv_t lane_v[CLB_TW / 16], lcomp_v[CLB_TW / 16];
    clb_acc_t *const lane = (clb_acc_t *)lane_v, *const lcomp = (clb_acc_t *)lcomp_v;
#if CLB_MOMENTS
    clb_accv_t pivot_v[CLB_TW / 16];
    clb_acc_t *const pivot = (clb_acc_t *)pivot_v;
#endif
    clb_index r = start, q = r / n_inner, i = r - q * n_inner;
    CLB_EACH(CLB_OUTER_OFF);
    for (int w = 0; w < CLB_KTILE; w++) {
        const int l0 = w * CLB_VEC;
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
#if CLB_MOMENTS
            /* the pivot: the lane's first value of the whole reduced range, the
               same in every chunk, so the chunks' shifted means merge */
            clb_val_t val_;
            {
                const clb_index i = 0;
                CLB_EACH(CLB_QO_IS_B);
                CLB_EACH(CLB_LANE_BASE);
                CLB_EACH(CLB_LANE_PTR);
                CLB_EVAL_BODY
            }
            pivot[l0 + v] = CLB_TO_ACC(val_);
#endif
            lane[l0 + v] = CLB_MOMENTS ? 0 : CLB_IDENTITY;
            lcomp[l0 + v] = 0;
        }
    }
#if CLB_MOMENTS
    clb_acc_t nl = 0;
#endif
    /* One step over the tile: `steps` (8 or 1) values per lane, step t at
       reduced index ROW(t), folded into the lanes' state. */
#if CLB_MOMENTS
#define CLB_TILE_MERGE(va, vc, at, steps)                                                          \
    do {                                                                                           \
        const clb_accv_t pv = pivot_v[at];                                                         \
        if ((steps) == 8) {                                                                        \
            _Pragma("unroll") for (int t = 0; t < 8; t++) xb[t] -= pv;                             \
            clb_acc_t na = nl;                                                                     \
            CLB_MBLOCK_MERGE(va, vc, na, xb, 8);                                                   \
        } else {                                                                                   \
            const clb_acc_t n1 = nl + 1;                                                           \
            CLB_VFOLD(va, vc, xb[0] - pv, (clb_acc_t)1 / n1);                                      \
        }                                                                                          \
    } while (0)
#else
#define CLB_TILE_MERGE(va, vc, at, steps)                                                          \
    do {                                                                                           \
        if ((steps) == 8) {                                                                        \
            const clb_accv_t bs = ((xb[0] + xb[1]) + (xb[2] + xb[3])) +                            \
                                  ((xb[4] + xb[5]) + (xb[6] + xb[7]));                             \
            CLB_VFOLD(va, vc, bs, 0);                                                              \
        } else {                                                                                   \
            CLB_VFOLD(va, vc, xb[0], 0);                                                           \
        }                                                                                          \
    } while (0)
#endif
#define CLB_TILE_STEP(steps, ROW)                                                                  \
    for (int w = 0; w < CLB_KTILE; w++) {                                                          \
        const int l0 = w * CLB_VEC;                                                                \
        _Pragma("unroll") for (int u = 0; u < CLB_VEC / 16; u++)                                   \
        {                                                                                          \
            clb_accv_t xb[8];                                                                      \
            if ((steps) == 8) {                                                                    \
                _Pragma("unroll") for (int t = 0; t < 8; t++) CLB_TILE_FILL16(xb[t], ROW(t));      \
            } else {                                                                               \
                CLB_TILE_FILL16(xb[0], ROW(0));                                                    \
            }                                                                                      \
            const int at = l0 / 16 + u;                                                            \
            clb_accv_t va = lane_v[at], vc = lcomp_v[at];                                          \
            CLB_TILE_MERGE(va, vc, at, steps);                                                     \
            lane_v[at] = va;                                                                       \
            lcomp_v[at] = vc;                                                                      \
        }                                                                                          \
    }
#if CLB_RDIM == 1
    /* One reduced axis and a chunk of 64 rows or more: the eight rows of a
       step lie an eighth of the chunk apart, so each of the eight streams
       walks consecutive rows (one long run where the tile is a whole
       contiguous row) instead of restarting every step (as clb_reduce's
       column kernel, cl/reduce.cl). */
    if (end - r >= 64) {
        const clb_index gsz = (end - r) / 8, r0 = r;
        for (clb_index k = 0; k < gsz; ++k) {
#define CLB_BAND_ROW(t) (r0 + k + (t)*gsz)
            CLB_TILE_STEP(8, CLB_BAND_ROW)
#undef CLB_BAND_ROW
#if CLB_MOMENTS
            nl += 8;
#endif
        }
        r += 8 * gsz;
        i = r; /* the one axis's index (q stays 0) */
    }
#endif
    while (r < end) {
        /* eight steps within one inner row, or one step */
        const int steps = (r + 8 <= end && i + 8 <= n_inner) ? 8 : 1;
        const clb_index ib = i;
#define CLB_NEXT_ROWS(t) (ib + (t))
        CLB_TILE_STEP(steps, CLB_NEXT_ROWS)
#undef CLB_NEXT_ROWS
#if CLB_MOMENTS
        nl += steps;
#endif
        r += steps;
        i += steps;
        if (i >= n_inner) {
            i = 0;
            ++q;
            CLB_EACH(CLB_OUTER_OFF);
        }
    }
#undef CLB_TILE_STEP
#undef CLB_TILE_MERGE
    for (int t = 0; t < CLB_TW; t++) {
#if CLB_KAHAN
        lane[t] -= lcomp[t];
#endif
        CLB_WRITE(o + t, lane[t], lcomp[t]);
    }
#undef CLB_TW
#undef CLB_TILE_FILL16

#elif CLB_KLANES
    /* ---- CLB_VEC neighbouring outputs per work item, lane v output o + v ---- */
    (void)lx_count, (void)ly_count, (void)scratch;
    const clb_index o = (clb_index)get_global_id(0) * CLB_VEC;
    if (o >= kept_numel || start >= end) return;
    CLB_EACH(CLB_KEPT_BASE);
    CLB_EACH(CLB_KI_DECL);
    clb_acc_t lane[CLB_VEC], lcomp[CLB_VEC];
#if CLB_MOMENTS
    clb_acc_t pivot[CLB_VEC];
    {
        const clb_index i = 0;
        CLB_EACH(CLB_QO_IS_B);
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
            clb_val_t val_;
            {
                CLB_EACH(CLB_AT_LANE);
                CLB_EVAL_BODY
            }
            pivot[v] = CLB_TO_ACC(val_);
            lane[v] = 0;
            lcomp[v] = 0;
        }
    }
    clb_acc_t nl = 0;
#else
    _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
    {
        lane[v] = CLB_ONLINE ? -(clb_acc_t)INFINITY : CLB_IDENTITY;
        lcomp[v] = 0;
    }
#endif
    clb_index r = start, q = r / n_inner, i = r - q * n_inner;
    CLB_EACH(CLB_OUTER_OFF);
#if CLB_VLANES
    /* CLB_VEC / 16 vectors of lanes */
    clb_accv_t vl[CLB_VEC / 16], vc[CLB_VEC / 16];
    _Pragma("unroll") for (int u = 0; u < CLB_VEC / 16; u++)
    {
        vl[u] = vload16(u, lane);
        vc[u] = vload16(u, lcomp);
    }
#endif
    for (; r < end; ++r) {
#if CLB_MOMENTS
        nl += 1;
        const clb_acc_t inv = (clb_acc_t)1 / nl;
#endif
        const int l0 = 0;
        CLB_EACH(CLB_LANE_BASE);
#if CLB_VLANES
        clb_acc_t vals[CLB_VEC];
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
            clb_val_t val_;
            {
                CLB_EACH(CLB_LANE_PTR);
                CLB_EVAL_BODY
            }
            vals[v] = CLB_TO_ACC(val_);
        }
        _Pragma("unroll") for (int u = 0; u < CLB_VEC / 16; u++)
        {
#if CLB_MOMENTS
            CLB_VFOLD(vl[u], vc[u], vload16(u, vals) - vload16(u, pivot), inv);
#else
            CLB_VFOLD(vl[u], vc[u], vload16(u, vals), 0);
#endif
        }
#else
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
            clb_val_t val_;
            {
                CLB_EACH(CLB_LANE_PTR);
                CLB_EVAL_BODY
            }
            CLB_FOLD_ONE(lane[v], lcomp[v], CLB_TO_ACC(val_), pivot[v], inv);
        }
#endif
        if (++i == n_inner) {
            i = 0;
            ++q;
            CLB_EACH(CLB_OUTER_OFF);
        }
    }
#if CLB_VLANES
    _Pragma("unroll") for (int u = 0; u < CLB_VEC / 16; u++)
    {
        vstore16(vl[u], u, lane);
        vstore16(vc[u], u, lcomp);
    }
#endif
    for (int v = 0; v < CLB_VEC; v++) {
#if CLB_KAHAN
        lane[v] -= lcomp[v];
#endif
        CLB_WRITE(o + v, lane[v], lcomp[v]);
    }

#else
    /* ---- one output per work item, CLB_VEC lanes along its reduced range ---- */
    (void)lx_count, (void)ly_count, (void)scratch;
    const clb_index o = (clb_index)get_global_id(0);
    if (o >= kept_numel) return;
    clb_acc_t acc = CLB_IDENTITY, comp = 0;
#if CLB_MOMENTS
    acc = 0;
    clb_acc_t nt = 0, nl = 0, pivot = 0; /* the tail's count, each lane's count */
#elif CLB_ONLINE
    acc = -(clb_acc_t)INFINITY;
#endif
    if (start < end) {
        CLB_EACH(CLB_KEPT_BASE);
#if CLB_MOMENTS
        CLB_FIRST_VALUE(pivot);
#endif
        clb_index r = start, q = r / n_inner, i = r - q * n_inner;
        CLB_EACH(CLB_OUTER_OFF);
        /* CLB_VEC lanes: element v of each run of CLB_VEC goes to lane v. */
        clb_acc_t lane[CLB_VEC], lcomp[CLB_VEC];
        _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
        {
            lane[v] = CLB_MOMENTS ? 0 : CLB_ONLINE ? -(clb_acc_t)INFINITY : CLB_IDENTITY;
            lcomp[v] = 0;
        }
#if CLB_VLANES
        clb_accv_t vl = vload16(0, lane), vc = vload16(0, lcomp);
#endif
        while (r < end) {
            const clb_index m = min(n_inner - i, end - r); /* left in this inner row */
            clb_index j = 0;
#if CLB_VLANES && (CLB_ONLINE || CLB_MOMENTS)
            /* Blocks of 8 runs, 8 values per lane at a time: online softmax
               rescales once per block (about one exp per value); var merges the
               block's mean and M2 (one division per block). */
            for (; j + 8 * CLB_VEC <= m; j += 8 * CLB_VEC) {
                const clb_index i0 = i + j;
                CLB_EACH(CLB_RUN_BASE);
                clb_acc_t vals[8 * CLB_VEC];
                _Pragma("unroll") for (int v = 0; v < 8 * CLB_VEC; v++)
                {
                    clb_val_t val_;
                    {
                        CLB_EACH(CLB_RUN_PTR);
                        CLB_EVAL_BODY
                    }
                    vals[v] = CLB_TO_ACC(val_);
                }
#if CLB_ONLINE
                clb_accv_t bm = vload16(0, vals);
                _Pragma("unroll") for (int u = 1; u < 8; u++) bm = fmax(bm, vload16(u, vals));
                const clb_accv_t mn = fmax(vl, bm);
                clb_accv_t add = CLB_VRATIO(vload16(0, vals), mn);
                _Pragma("unroll") for (int u = 1; u < 8; u++) add += CLB_VRATIO(vload16(u, vals), mn);
                vc = vc * CLB_VRATIO(vl, mn) + add;
                vl = mn;
#else
                clb_accv_t xb[8];
                _Pragma("unroll") for (int u = 0; u < 8; u++) xb[u] = vload16(u, vals) - pivot;
                CLB_MBLOCK_MERGE(vl, vc, nl, xb, 8);
#endif
            }
#endif
            for (; j + CLB_VEC <= m; j += CLB_VEC) {
                const clb_index i0 = i + j;
                CLB_EACH(CLB_RUN_BASE);
#if CLB_MOMENTS
                nl += 1;
                const clb_acc_t inv = (clb_acc_t)1 / nl;
#endif
#if CLB_VLANES
                clb_acc_t vals[CLB_VEC];
                _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
                {
                    clb_val_t val_;
                    {
                        CLB_EACH(CLB_RUN_PTR);
                        CLB_EVAL_BODY
                    }
                    vals[v] = CLB_TO_ACC(val_);
                }
#if CLB_MOMENTS
                CLB_VFOLD(vl, vc, vload16(0, vals) - pivot, inv);
#else
                CLB_VFOLD(vl, vc, vload16(0, vals), 0);
#endif
#else
                _Pragma("unroll") for (int v = 0; v < CLB_VEC; v++)
                {
                    clb_val_t val_;
                    {
                        CLB_EACH(CLB_RUN_PTR);
                        CLB_EVAL_BODY
                    }
                    CLB_FOLD_ONE(lane[v], lcomp[v], CLB_TO_ACC(val_), pivot, inv);
                }
#endif
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
#if CLB_MOMENTS
                nt += 1;
#endif
                CLB_FOLD_ONE(acc, comp, CLB_TO_ACC(val_), pivot, (clb_acc_t)1 / nt);
            }
            r += m;
            i += m;
            if (i >= n_inner) {
                i = 0;
                ++q;
                CLB_EACH(CLB_OUTER_OFF);
            }
        }
#if CLB_VLANES
        vstore16(vl, 0, lane);
        vstore16(vc, 0, lcomp);
#endif
        /* The lanes pairwise, then the tail's fold. */
#if CLB_MOMENTS
        clb_acc_t ln = nl;
        _Pragma("unroll") for (int w = CLB_VEC / 2; w > 0; w /= 2)
        {
            _Pragma("unroll") for (int v = 0; v < w; v++)
            {
                /* equal counts: the mean of the means */
                const clb_acc_t d = lane[v + w] - lane[v];
                lane[v] += d * (clb_acc_t)0.5;
                lcomp[v] += lcomp[v + w] + d * d * (ln * (clb_acc_t)0.5);
            }
            ln += ln;
        }
        clb_chan(&nt, &acc, &comp, ln, lane[0], lcomp[0]);
#elif CLB_ONLINE
        _Pragma("unroll") for (int w = CLB_VEC / 2; w > 0; w /= 2)
        {
            _Pragma("unroll") for (int v = 0; v < w; v++)
                CLB_OMERGE(lane[v], lcomp[v], lane[v + w], lcomp[v + w]);
        }
        CLB_OMERGE(acc, comp, lane[0], lcomp[0]);
#else
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
    CLB_WRITE(o, acc, comp);
#endif
}

#endif /* !CLB_SOFTMAX_ROWS */
