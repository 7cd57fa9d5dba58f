/* The statistics kernels of clb_eval_reduce's program (cl/eval_reduce.cl),
 * appended after it to the same program (src/opencl/cl_kernels.c), so they
 * share its types, folds and defines:
 *   CLB_MOMENTS=1 (clb_var / clb_std): clb_moments_merge, Chan's merge of the
 *     chunks' (mean, M2) partials;
 *   CLB_ONLINE=1 (softmax, log_softmax, logsumexp): clb_online_merge, the
 *     chunks' (m, s) pairs merged;
 *   CLB_SOFTMAX_ROWS=1: clb_softmax_rows, softmax and log_softmax over
 *     C-contiguous rows on CPU devices in one kernel (that program holds only it).
 * The per-element folds of (mean, M2) and (m, s) are eval_reduce.cl's. */

/* The merges' launch description (cl/launch_args.h's CLB_ER_*, as the main
   kernel's): the output's offset, the counts, the chunk, the chunks in X. */
#define CLB_ER_MERGE_ARGS()                                                                        \
    CLB_ARGS_UNPACK(CLB_ER_ARGS_VECS, era_);                                                       \
    const clb_index out_offset = (clb_index)era_[CLB_ER_OUT_OFFSET];                               \
    const clb_index kept_numel = (clb_index)era_[CLB_ER_KEPT_NUMEL];                               \
    const clb_index red_numel = (clb_index)era_[CLB_ER_RED_NUMEL];                                 \
    const clb_index chunk = (clb_index)era_[CLB_ER_CHUNK];                                         \
    const int chunks = (int)era_[CLB_ER_X]

#if CLB_MOMENTS
/* The partials of clb_eval_reduce's chunks, (mean, M2) pairs of chunk c of
   output o at (o * chunks + c) * 2, merged in chunk order (Chan) into output o;
   chunk c holds min(chunk, red_numel - c * chunk) elements. */
__kernel void clb_moments_merge(__global CLB_STORAGE(CLB_OUT_DTYPE) *out,
                                __global const clb_acc_t *partial,
                                CLB_ARGS_PARAMS(CLB_ER_ARGS_VECS))
{
    CLB_ER_MERGE_ARGS();
    const long correction = era_[CLB_ER_COUNT];
    const clb_index o = (clb_index)get_global_id(0);
    if (o >= kept_numel) return;
    clb_acc_t n = 0, mean = 0, m2 = 0;
    for (int c = 0; c < chunks; c++) {
        const clb_index at = (o * chunks + c) * 2;
        const clb_index len = min(chunk, red_numel - (clb_index)c * chunk);
        if (len <= 0) break; /* past the range: nothing folded there */
        clb_chan(&n, &mean, &m2, (clb_acc_t)len, partial[at], partial[at + 1]);
    }
    const clb_acc_t r = clb_moments_result(m2, red_numel, correction, era_[CLB_ER_ROOT]);
    CLB_STORE(CLB_OUT_DTYPE, out, out_offset + o, CLB_CONVERT(CLB_OUT_DTYPE, CLB_ACC_DTYPE, r));
}
#endif

#if CLB_ONLINE
/* The partials of clb_eval_reduce's chunks, (m, s) pairs of chunk c of output
   o at (o * chunks + c) * 2, merged in chunk order into the pair of output o. */
__kernel void clb_online_merge(__global clb_acc_t *out, __global const clb_acc_t *partial,
                               CLB_ARGS_PARAMS(CLB_ER_ARGS_VECS))
{
    CLB_ER_MERGE_ARGS();
    (void)red_numel, (void)chunk;
    const clb_index o = (clb_index)get_global_id(0);
    if (o >= kept_numel) return;
    clb_acc_t m = -(clb_acc_t)INFINITY, s = 0;
    for (int c = 0; c < chunks; c++) {
        const clb_index at = (o * chunks + c) * 2;
        CLB_OMERGE(m, s, partial[at], partial[at + 1]);
    }
    out[out_offset + 2 * o] = m;
    out[out_offset + 2 * o + 1] = s;
}
#endif

#if CLB_SOFTMAX_ROWS
/* softmax and log_softmax over C-contiguous rows on CPU devices, in one kernel
   (-DCLB_SOFTMAX_ROWS=1, the input dtype in CLB_IN1_DTYPE, the arithmetic in
   the accumulator dtype, rounded once to the input's as clb_eval does). A work
   item takes rows_per_item consecutive rows, 16-wide vectors; each row is read
   from memory once, and what follows finds it in the core's cache (a
   4096-float row is 16 KiB):
     pass 1: m = max(x) (NaN makes the sum, and so every output, NaN);
     pass 2: s = sum of exp(x - m), 1 where x == m (an infinite maximum, whose
             outputs stay exp(inf - inf) = NaN, as NumPy's); the
             exps go to the work item's scratch (CLB_SM_SCRATCH: rows up to
             the scratch the host gives) or, for longer float32 / float64
             softmax rows, to out (CLB_SM_STORE_E); meanwhile the next row is
             prefetched (CLB_SM_PREFETCH), so its reads overlap this row's exps;
     pass 3: out = e / s from the stored exps (one exp per value), else from x
             again: exp(x - m) / s, or (x - m) - log(s); streaming stores
             where the host asks (CLB_SM_NT, float32, aligned rows).
   That is the order of PyTorch's CPU softmax too; against the online pair of
   (max, sum) it costs one exp per value instead of two. */
#ifndef CLB_SM_LOG
#define CLB_SM_LOG 0
#endif
#ifndef CLB_SM_SCRATCH
#define CLB_SM_SCRATCH 0
#endif
#ifndef CLB_SM_PREFETCH
#define CLB_SM_PREFETCH 0
#endif
#ifndef CLB_SM_NT
#define CLB_SM_NT 0
#endif
#define CLB_SM_USE_SCRATCH (CLB_SM_SCRATCH && !CLB_SM_LOG)
#define CLB_SM_STORE_E (!CLB_SM_USE_SCRATCH && !CLB_SM_LOG && CLB_IN1_DTYPE != 9)
#if CLB_SM_PREFETCH && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define CLB_SM_PF(p) __builtin_prefetch((p), 0, 3)
#endif
#endif
#ifndef CLB_SM_PF
#define CLB_SM_PF(p) ((void)0)
#endif
#if CLB_SM_NT && CLB_IN1_DTYPE == 10 && defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define CLB_SM_NT_OK 1
#endif
#endif
#ifndef CLB_SM_NT_OK
#define CLB_SM_NT_OK 0
#endif
/* Streaming stores are weakly ordered: fenced before the kernel ends. */
#if CLB_SM_NT_OK && __has_builtin(__builtin_ia32_sfence)
#define CLB_NT_FENCE_SM() __builtin_ia32_sfence()
#elif CLB_SM_NT_OK
#define CLB_NT_FENCE_SM() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
#if CLB_IN1_DTYPE == 9
#define CLB_SM_LOAD16(p, at) vload_half16(0, (p) + (at))
#define CLB_SM_STORE16(v, p, at) vstore_half16((v), 0, (p) + (at))
#elif CLB_ACC_DTYPE == 11
#define CLB_SM_LOAD16(p, at) CLB_VLOAD_A(double16, 16, (p) + (at))
#define CLB_SM_STORE16(v, p, at) vstore16((v), 0, (p) + (at))
#else
#define CLB_SM_LOAD16(p, at) CLB_VLOAD_A(float16, 16, (p) + (at))
#define CLB_SM_STORE16(v, p, at) vstore16((v), 0, (p) + (at))
#endif
#define CLB_SM_LOAD1(p, at) CLB_CONVERT(CLB_ACC_DTYPE, CLB_IN1_DTYPE, CLB_LOAD(CLB_IN1_DTYPE, p, at))
#define CLB_SM_STORE1(v, p, at) CLB_STORE(CLB_IN1_DTYPE, p, at, CLB_CONVERT(CLB_IN1_DTYPE, CLB_ACC_DTYPE, v))
typedef CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 16) clb_smv_t;

static clb_acc_t clb_sm_hmax16(clb_smv_t v)
{
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 8) a = fmax(v.lo, v.hi);
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 4) b = fmax(a.lo, a.hi);
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 2) c = fmax(b.lo, b.hi);
    return fmax(c.lo, c.hi);
}
static clb_acc_t clb_sm_hsum16(clb_smv_t v)
{
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 8) a = v.lo + v.hi;
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 4) b = a.lo + a.hi;
    CLB_CAT(CLB_STORAGE(CLB_ACC_DTYPE), 2) c = b.lo + b.hi;
    return c.lo + c.hi;
}

/* The output vector y at out + b + j: streaming where it may. */
#if CLB_SM_NT_OK
#define CLB_SM_PUT16(y, at)                                                                        \
    do {                                                                                           \
        if (nt_row)                                                                                \
            __builtin_nontemporal_store((y), (__global float16 *)(out + (at)));                    \
        else                                                                                       \
            CLB_SM_STORE16((y), out, (at));                                                        \
    } while (0)
#else
#define CLB_SM_PUT16(y, at) CLB_SM_STORE16((y), out, (at))
#endif

CLB_ARGS_PROBE(CLB_ER_ARGS_VECS)

/* The description's slots (cl/launch_args.h's CLB_ER_*): input 0's offset, the
   output's, rows in KEPT_NUMEL, their length in RED_NUMEL, rows per item in CHUNK. */
__kernel void clb_softmax_rows(__global CLB_STORAGE(CLB_IN1_DTYPE) *out,
                               __global const CLB_STORAGE(CLB_IN1_DTYPE) *in,
                               CLB_ARGS_PARAMS(CLB_ER_ARGS_VECS), __local clb_acc_t *scratch)
{
    CLB_ARGS_UNPACK(CLB_ER_ARGS_VECS, era_);
    const long in_offset = era_[CLB_ER_IN_OFFSET(0)], out_offset = era_[CLB_ER_OUT_OFFSET];
    const long rows = era_[CLB_ER_KEPT_NUMEL], len = era_[CLB_ER_RED_NUMEL];
    const long rows_per_item = era_[CLB_ER_CHUNK];
    (void)scratch;
    const long vlen = len / 16 * 16;
    const long r0 = (long)get_global_id(0) * rows_per_item;
    const long r1 = min(r0 + rows_per_item, rows);
    for (long row = r0; row < r1; row++) {
        const long a = in_offset + row * len, b = out_offset + row * len;
        /* the next row of this item, prefetched during pass 2 */
        __global const CLB_STORAGE(CLB_IN1_DTYPE) *const next = in + a + (row + 1 < r1 ? len : 0);
        (void)next;
#if CLB_SM_NT_OK
        const bool nt_row = CLB_ALIGNED(out + b, 16);
#endif
        /* pass 1: the maximum; NaN does not win fmax, and pass 2 makes s NaN */
        clb_smv_t m0 = (clb_smv_t)(-INFINITY), m1 = m0;
        long j = 0;
        for (; j + 32 <= vlen; j += 32) {
            m0 = fmax(m0, CLB_SM_LOAD16(in, a + j));
            m1 = fmax(m1, CLB_SM_LOAD16(in, a + j + 16));
        }
        for (; j < vlen; j += 16) m0 = fmax(m0, CLB_SM_LOAD16(in, a + j));
        clb_acc_t m = clb_sm_hmax16(fmax(m0, m1));
        for (; j < len; j++) m = fmax(m, CLB_SM_LOAD1(in, a + j));
        /* pass 2: the sum of exp(x - m), the exps kept where pass 3 reuses them */
        clb_smv_t s0 = 0, s1 = 0;
        for (j = 0; j + 32 <= vlen; j += 32) {
            if (row + 1 < r1) {
                CLB_SM_PF(next + j);
                CLB_SM_PF(next + j + 16);
            }
            const clb_smv_t x0 = CLB_SM_LOAD16(in, a + j), x1 = CLB_SM_LOAD16(in, a + j + 16);
            const clb_smv_t e0 = exp(x0 - m), e1 = exp(x1 - m);
#if CLB_SM_USE_SCRATCH
            vstore16(e0, 0, scratch + j);
            vstore16(e1, 0, scratch + j + 16);
#elif CLB_SM_STORE_E
            CLB_SM_STORE16(e0, out, b + j);
            CLB_SM_STORE16(e1, out, b + j + 16);
#endif
            s0 += e0;
            s1 += e1;
        }
        for (; j < vlen; j += 16) {
            const clb_smv_t x0 = CLB_SM_LOAD16(in, a + j), e0 = exp(x0 - m);
#if CLB_SM_USE_SCRATCH
            vstore16(e0, 0, scratch + j);
#elif CLB_SM_STORE_E
            CLB_SM_STORE16(e0, out, b + j);
#endif
            s0 += e0;
        }
        clb_acc_t s = clb_sm_hsum16(s0 + s1);
        for (; j < len; j++) {
            const clb_acc_t x = CLB_SM_LOAD1(in, a + j), e = exp(x - m);
#if CLB_SM_USE_SCRATCH
            scratch[j] = e;
#elif CLB_SM_STORE_E
            CLB_SM_STORE1(e, out, b + j);
#endif
            s += e;
        }
        /* An infinite maximum: exp(inf - inf) is NaN, and the online fold
           counts each x == m as 1 instead; the sum again with that rule (rare,
           so outside the loop above). */
        if (isinf(m)) {
            s = 0;
            for (j = 0; j < len; j++) {
                const clb_acc_t x = CLB_SM_LOAD1(in, a + j);
                s += x == m ? (clb_acc_t)1 : exp(x - m);
            }
        }
        /* pass 3: the outputs */
#if CLB_SM_LOG
        const clb_acc_t ls = log(s);
#else
        const clb_acc_t inv = (clb_acc_t)1 / s;
#endif
        for (j = 0; j < vlen; j += 16) {
#if CLB_SM_USE_SCRATCH
            const clb_smv_t y = vload16(0, scratch + j) * inv;
#elif CLB_SM_STORE_E
            const clb_smv_t y = CLB_SM_LOAD16((__global const CLB_STORAGE(CLB_IN1_DTYPE) *)out, b + j) * inv;
#elif CLB_SM_LOG
            const clb_smv_t y = (CLB_SM_LOAD16(in, a + j) - m) - ls;
#else
            const clb_smv_t y = exp(CLB_SM_LOAD16(in, a + j) - m) * inv;
#endif
            CLB_SM_PUT16(y, b + j);
        }
        for (; j < len; j++) {
#if CLB_SM_USE_SCRATCH
            const clb_acc_t y = scratch[j] * inv;
#elif CLB_SM_STORE_E
            const clb_acc_t y = CLB_SM_LOAD1(out, b + j) * inv;
#elif CLB_SM_LOG
            const clb_acc_t y = (CLB_SM_LOAD1(in, a + j) - m) - ls;
#else
            const clb_acc_t y = exp(CLB_SM_LOAD1(in, a + j) - m) * inv;
#endif
            CLB_SM_STORE1(y, out, b + j);
        }
    }
#if CLB_SM_NT_OK
    CLB_NT_FENCE_SM();
#endif
}
#endif
