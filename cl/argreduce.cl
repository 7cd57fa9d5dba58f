/* Index of the extreme along the rows of a C-contiguous (rows, len) input:
 * out[out_offset + row] = the first r whose element in[in_offset + row * len + r]
 * is the largest (clb_argmax) or smallest (clb_argmin), a NaN counting as the
 * extreme (the first NaN wins), as numpy.argmax / argmin. The op layer makes
 * the input contiguous with the reduced axis last (src/ops/op_stats.c).
 *
 * One program per input dtype (and scan form) holds both: argmax and argmin
 * of a dtype share its build (clb_argmax / clb_argmax_merge, clb_argmin /
 * clb_argmin_merge). The bodies are always-inline functions of a literal
 * is_min, so each kernel compiles to the code a -D of its own would give.
 *
 * One work-group per segment (a row, or a piece of one; groups stride over the
 * segments): each lane scans every lanes-th element keeping its first best,
 * then the lanes merge by a tree in local memory, where a tie goes to the
 * smaller index. Rows in several pieces then go through the merge kernels.
 *
 * CLB_ARG_VEC=1 (float16 and float32 where a work-group is a loop, one lane per
 * group): the segment is scanned as four chains of 16 vector lanes, each lane
 * keeping its first best value and index with vector compares and selects, so
 * the scan streams at memory speed; then the chains, the 16 lanes and the
 * segment's tail merge with the same rule. */

#ifndef CLB_IN_DTYPE
#define CLB_IN_DTYPE 10
#endif
#ifndef CLB_ARG_VEC
#define CLB_ARG_VEC 0
#endif
#define CLB_ARG_LANES 64 /* most lanes per work-group (the host launches a power of two) */

#if CLB_IN_DTYPE == 11 && !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif

typedef CLB_REG(CLB_IN_DTYPE) arg_t;

/* Whether (b, ib) replaces (a, ia) as the best so far; an index < 0 is "none yet". */
__attribute__((always_inline)) inline bool clb_arg_wins(arg_t b, long ib, arg_t a, long ia,
                                                        const bool is_min)
{
    if (ib < 0) return false;
    if (ia < 0) return true;
#if CLB_IN_DTYPE >= 9
    if (isnan(a)) return isnan(b) && ib < ia;
    if (isnan(b)) return true;
#endif
    return (is_min ? b < a : b > a) || (b == a && ib < ia);
}

CLB_ARGS_PROBE(CLB_ARGRED_ARGS_VECS)

/* The launch description's values (cl/launch_args.h), from the array `a`. */
#define CLB_ARGRED_UNPACK()                                                                        \
    CLB_ARGS_UNPACK(CLB_ARGRED_ARGS_VECS, a);                                                      \
    const long in_offset = a[CLB_ARGRED_IN_OFFSET], out_offset = a[CLB_ARGRED_OUT_OFFSET];         \
    const long rows = a[CLB_ARGRED_ROWS], len = a[CLB_ARGRED_LEN], chunk = a[CLB_ARGRED_CHUNK];    \
    const long pieces = a[CLB_ARGRED_PIECES];                                                      \
    (void)chunk

/* Segment s = (row, piece) = (s / pieces, s % pieces) of the launch covers
   elements [piece * chunk, min(len, piece * chunk + chunk)) of its row; the
   index (within the row) of its first best element goes to out[out_offset + s].
   With one piece a row that is the row's result; with more, the merge kernel
   folds each row's pieces (long rows on few outputs, and rows longer than a
   loop-limited device lets one work item scan). lv and li: the work-group's
   CLB_ARG_LANES entries of local memory (unused by the vector scan). */
__attribute__((always_inline)) inline void clb_argreduce_rows(
    __global const CLB_STORAGE(CLB_IN_DTYPE) *in, __global long *out, __local arg_t *lv,
    __local long *li, CLB_ARGS_PARAMS(CLB_ARGRED_ARGS_VECS), const bool is_min)
{
    CLB_ARGRED_UNPACK();
    const long segments = rows * pieces;
#if CLB_ARG_VEC
    (void)lv, (void)li;
#if CLB_IN_DTYPE == 9
#define CLB_ARG_VLOAD(p, at) vload_half16(0, (p) + (at))
#else
#define CLB_ARG_VLOAD(p, at) vload16(0, (p) + (at))
#endif
#define CLB_ARG_CHAINS 4
/* Lanes where x replaces the best so far b: strictly better, or the first NaN. */
#define CLB_ARG_WINS16(x, b)                                                                       \
    ((is_min ? isless((x), (b)) : isgreater((x), (b))) | (isnan(x) & ~isnan(b)))
    for (long s = (long)get_global_id(0); s < segments; s += (long)get_global_size(0)) {
        const long row = s / pieces, r0 = (s - row * pieces) * chunk;
        const long base = in_offset + row * len, end = min(len, r0 + chunk);
        arg_t best = 0;
        long bi = -1, r = r0;
        if (end - r0 >= 16) {
            /* Four chains of 16 lanes: chain c takes the vectors 4 k + c of the
               segment (after the first, which starts every chain), so four
               compares are in flight instead of one chain of dependent selects.
               In a lane, later elements win only strictly; the chains and lanes
               then merge by value and the smaller index (clb_arg_wins). */
            const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            float16 vb[CLB_ARG_CHAINS];
            int16 vi[CLB_ARG_CHAINS];
            _Pragma("unroll") for (int c = 0; c < CLB_ARG_CHAINS; c++)
            {
                vb[c] = CLB_ARG_VLOAD(in, base + r0);
                vi[c] = lane + (int)r0;
            }
            for (r = r0 + 16; r + 16 * CLB_ARG_CHAINS <= end; r += 16 * CLB_ARG_CHAINS) {
                _Pragma("unroll") for (int c = 0; c < CLB_ARG_CHAINS; c++)
                {
                    const int at = (int)r + 16 * c;
                    const float16 x = CLB_ARG_VLOAD(in, base + at);
                    const int16 win = CLB_ARG_WINS16(x, vb[c]);
                    vb[c] = select(vb[c], x, win);
                    vi[c] = select(vi[c], lane + at, win);
                }
            }
            for (; r + 16 <= end; r += 16) {
                const float16 x = CLB_ARG_VLOAD(in, base + r);
                const int16 win = CLB_ARG_WINS16(x, vb[0]);
                vb[0] = select(vb[0], x, win);
                vi[0] = select(vi[0], lane + (int)r, win);
            }
            /* the chains into chain 0, lane by lane: better, or as good (both
               NaN included) with the smaller index */
            _Pragma("unroll") for (int c = 1; c < CLB_ARG_CHAINS; c++)
            {
                const int16 tie = (isequal(vb[c], vb[0]) | (isnan(vb[c]) & isnan(vb[0]))) &
                                  (vi[c] < vi[0]);
                const int16 win = CLB_ARG_WINS16(vb[c], vb[0]) | tie;
                vb[0] = select(vb[0], vb[c], win);
                vi[0] = select(vi[0], vi[c], win);
            }
            float lb[16];
            int li16[16];
            vstore16(vb[0], 0, lb);
            vstore16(vi[0], 0, li16);
            for (int v = 0; v < 16; v++)
                if (clb_arg_wins(lb[v], li16[v], best, bi, is_min)) {
                    best = lb[v];
                    bi = li16[v];
                }
        }
        for (; r < end; r++) {
            arg_t v = CLB_LOAD(CLB_IN_DTYPE, in, base + r);
            if (clb_arg_wins(v, r, best, bi, is_min)) {
                best = v;
                bi = r;
            }
        }
        out[out_offset + s] = bi;
    }
#else
    const int lane = (int)get_local_id(0), lanes = (int)get_local_size(0);
    for (long s = (long)get_group_id(0); s < segments; s += (long)get_num_groups(0)) {
        const long row = s / pieces, r0 = (s - row * pieces) * chunk;
        const long base = in_offset + row * len, end = min(len, r0 + chunk);
        arg_t best = 0;
        long bi = -1;
        for (long r = r0 + lane; r < end; r += lanes) {
            arg_t v = CLB_LOAD(CLB_IN_DTYPE, in, base + r);
            if (clb_arg_wins(v, r, best, bi, is_min)) {
                best = v;
                bi = r;
            }
        }
        lv[lane] = best;
        li[lane] = bi;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int w = lanes / 2; w > 0; w >>= 1) {
            if (lane < w && clb_arg_wins(lv[lane + w], li[lane + w], lv[lane], li[lane], is_min)) {
                lv[lane] = lv[lane + w];
                li[lane] = li[lane + w];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0) out[out_offset + s] = li[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* Each row's result from its pieces' (part[row * pieces + p], indices within
   the row, in the order of the row): the first best, by clb_arg_wins. */
__attribute__((always_inline)) inline void clb_argreduce_fold(
    __global const CLB_STORAGE(CLB_IN_DTYPE) *in, __global long *out, __global const long *part,
    CLB_ARGS_PARAMS(CLB_ARGRED_ARGS_VECS), const bool is_min)
{
    CLB_ARGRED_UNPACK();
    for (long row = (long)get_global_id(0); row < rows; row += (long)get_global_size(0)) {
        arg_t best = 0;
        long bi = -1;
        for (long p = 0; p < pieces; p++) {
            const long at = part[row * pieces + p];
            const arg_t v = CLB_LOAD(CLB_IN_DTYPE, in, in_offset + row * len + at);
            if (clb_arg_wins(v, at, best, bi, is_min)) {
                best = v;
                bi = at;
            }
        }
        out[out_offset + row] = bi;
    }
}

/* The kernels: argmax and argmin, each with its merge of pieces. The
   work-group tree's local memory (none for the vector scan). */
#if CLB_ARGRED_ARGS_VECS != 1
#error "the kernels pass clb_args0 alone"
#endif
#if CLB_ARG_VEC
#define CLB_ARG_LOCAL(lv, li) __local arg_t *lv = 0; __local long *li = 0
#else
#define CLB_ARG_LOCAL(lv, li) __local arg_t lv[CLB_ARG_LANES]; __local long li[CLB_ARG_LANES]
#endif
#define CLB_ARG_KERNELS(name, is_min)                                                              \
    __kernel void name(__global const CLB_STORAGE(CLB_IN_DTYPE) *in, __global long *out,           \
                       CLB_ARGS_PARAMS(CLB_ARGRED_ARGS_VECS))                                      \
    {                                                                                              \
        CLB_ARG_LOCAL(lv, li);                                                                     \
        clb_argreduce_rows(in, out, lv, li, clb_args0, is_min);                                    \
    }                                                                                              \
    __kernel void name##_merge(__global const CLB_STORAGE(CLB_IN_DTYPE) *in, __global long *out,   \
                               __global const long *part, CLB_ARGS_PARAMS(CLB_ARGRED_ARGS_VECS))   \
    {                                                                                              \
        clb_argreduce_fold(in, out, part, clb_args0, is_min);                                      \
    }
CLB_ARG_KERNELS(clb_argmax, false)
CLB_ARG_KERNELS(clb_argmin, true)
