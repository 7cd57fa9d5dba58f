/* Launch descriptions of the kernel families, shared by the host (the drivers
 * in src/opencl/) and the kernels (prepended to every program).
 *
 * Everything about a launch but the buffers is an array of 64-bit integers
 * whose slots are named here once. It travels as a few long16 arguments
 * (CLB_*_ARGS_VECS of them): the OpenCL specification fixes the size and
 * layout of a vector type for every compiler, which it does not do for a
 * struct, and a kernel copies them into a private array with constant offsets
 * (cl/common.cl). Two defects of Mesa 22.3's rusticl met the struct this
 * replaces: it sizes a struct holding a 2-D array as if it held one row, and
 * its llvmpipe compiler crashes on a by-value struct indexed by a loop
 * variable (tests/quirks/). Every context still checks, the first time it
 * builds each family, that the device receives the array as the host wrote it
 * (src/opencl/cl_args.c).
 *
 * Valid C and OpenCL C: only #defines. */
#ifndef CLB_LAUNCH_ARGS_H
#define CLB_LAUNCH_ARGS_H

/* A family's description is CLB_<F>_ARGS_VECS long16 arguments, then, where
   CLB_<F>_ARGS_TAIL is 1, one long8 (families without it have none). */

/* Stride tables of up to this many axes go by value; longer ones in a
   __constant buffer, beyond the 1 KiB of arguments every device must accept. */
#define CLB_BYVAL_DIMS 8

/* One layout for every family, by its operand count n (src/opencl/cl_args.c
   fills it from a plan): */
#define CLB_ARGS_OFFSET(n, o) (o)                 /* element offset of operand o's first element */
#define CLB_ARGS_ROWS(n) (n)                      /* product of the outer extents */
#define CLB_ARGS_INNER(n) ((n) + 1)               /* the inner extent */
#define CLB_ARGS_INNER_STRIDE(n, o) ((n) + 2 + (o))
#define CLB_ARGS_RANK(n) (2 * (n) + 2)            /* >= 1; a 0-d plan is one axis of size 1 */
#define CLB_ARGS_SHAPE(n, d) (2 * (n) + 3 + (d))
#define CLB_ARGS_STRIDE(n, o, d) (2 * (n) + 3 + CLB_BYVAL_DIMS * (1 + (o)) + (d))
#define CLB_ARGS_LEN(n) (2 * (n) + 3 + CLB_BYVAL_DIMS * (1 + (n)))

/* clb_copy (cl/copy.cl): operand 0 is dst, 1 is src. */
#define CLB_COPY_OPS 2
#define CLB_COPY_OFFSET(o) CLB_ARGS_OFFSET(CLB_COPY_OPS, o)
#define CLB_COPY_ROWS CLB_ARGS_ROWS(CLB_COPY_OPS)
#define CLB_COPY_INNER CLB_ARGS_INNER(CLB_COPY_OPS)
#define CLB_COPY_INNER_STRIDE(o) CLB_ARGS_INNER_STRIDE(CLB_COPY_OPS, o)
#define CLB_COPY_RANK CLB_ARGS_RANK(CLB_COPY_OPS)
#define CLB_COPY_SHAPE(d) CLB_ARGS_SHAPE(CLB_COPY_OPS, d)
#define CLB_COPY_STRIDE(o, d) CLB_ARGS_STRIDE(CLB_COPY_OPS, o, d)
#define CLB_COPY_ARGS_LEN CLB_ARGS_LEN(CLB_COPY_OPS)
#define CLB_COPY_ARGS_VECS 2                      /* long16 arguments: 32 slots */

/* clb_map (cl/elementwise.cl): operand 0 is out, 1..3 the inputs. */
#define CLB_MAP_OPS 4
#define CLB_MAP_OFFSET(o) CLB_ARGS_OFFSET(CLB_MAP_OPS, o)
#define CLB_MAP_ROWS CLB_ARGS_ROWS(CLB_MAP_OPS)
#define CLB_MAP_INNER CLB_ARGS_INNER(CLB_MAP_OPS)
#define CLB_MAP_INNER_STRIDE(o) CLB_ARGS_INNER_STRIDE(CLB_MAP_OPS, o)
#define CLB_MAP_RANK CLB_ARGS_RANK(CLB_MAP_OPS)
#define CLB_MAP_SHAPE(d) CLB_ARGS_SHAPE(CLB_MAP_OPS, d)
#define CLB_MAP_STRIDE(o, d) CLB_ARGS_STRIDE(CLB_MAP_OPS, o, d)
#define CLB_MAP_ARGS_LEN CLB_ARGS_LEN(CLB_MAP_OPS)
#define CLB_MAP_ARGS_VECS 4                       /* long16 arguments: 64 slots */

/* clb_eval (cl/eval.cl): operand 0 is the output, 1..8 the inputs. 101 slots:
   six long16 and a long8 after them (CLB_EVAL_ARGS_TAIL), 832 bytes, so that
   with the nine buffers, a table buffer and an int the arguments stay within
   the 1 KiB every device must accept, alignment included. */
#define CLB_EVAL_OPS 9
#define CLB_EVAL_OFFSET(o) CLB_ARGS_OFFSET(CLB_EVAL_OPS, o)
#define CLB_EVAL_ROWS CLB_ARGS_ROWS(CLB_EVAL_OPS)
#define CLB_EVAL_INNER CLB_ARGS_INNER(CLB_EVAL_OPS)
#define CLB_EVAL_SHAPE(d) CLB_ARGS_SHAPE(CLB_EVAL_OPS, d)
#define CLB_EVAL_STRIDE(o, d) CLB_ARGS_STRIDE(CLB_EVAL_OPS, o, d)
#define CLB_EVAL_ARGS_LEN CLB_ARGS_LEN(CLB_EVAL_OPS)
#define CLB_EVAL_ARGS_VECS 6                      /* long16 arguments: 96 slots */
#define CLB_EVAL_ARGS_TAIL 1                      /* and one long8: 104 slots */

/* argmax / argmin (cl/argreduce.cl): C-contiguous (rows, len) input, no
   tables. Segment s of a launch covers elements [piece * chunk, + chunk) of its
   row (pieces per row); the merge reads the same description (chunk unused). */
#define CLB_ARGRED_IN_OFFSET 0
#define CLB_ARGRED_OUT_OFFSET 1
#define CLB_ARGRED_ROWS 2
#define CLB_ARGRED_LEN 3
#define CLB_ARGRED_CHUNK 4
#define CLB_ARGRED_PIECES 5
#define CLB_ARGRED_ARGS_LEN 6
#define CLB_ARGRED_ARGS_VECS 1                    /* long16 arguments: 16 slots */

/* clb_reduce (cl/reduce.cl), all four kernels: the input as kept x reduced
   axes, each table padded to CLB_BYVAL_DIMS (more axes: a __constant buffer
   after the description). EXTENT is the reduced count (the rows kernel: rows
   of the innermost reduced axis); X and Y are the tree's lanes over outputs
   and along the reduction (lx, ly), the fast paths' chunks and column tile;
   PARAM the op member (MEAN's divisor, -1 for SUM, 1 for MIN, 0 for MAX). */
#define CLB_RED_OUT_OFFSET 0
#define CLB_RED_IN_OFFSET 1
#define CLB_RED_KEPT_NUMEL 2
#define CLB_RED_EXTENT 3
#define CLB_RED_CHUNK 4
#define CLB_RED_KEPT_NDIM 5
#define CLB_RED_RED_NDIM 6
#define CLB_RED_X 7
#define CLB_RED_Y 8
#define CLB_RED_PARAM 9
#define CLB_RED_KSHAPE(d) (10 + (d))
#define CLB_RED_KSTRIDE(d) (10 + CLB_BYVAL_DIMS + (d))
#define CLB_RED_RSHAPE(d) (10 + 2 * CLB_BYVAL_DIMS + (d))
#define CLB_RED_RSTRIDE(d) (10 + 3 * CLB_BYVAL_DIMS + (d))
#define CLB_RED_ARGS_LEN (10 + 4 * CLB_BYVAL_DIMS)
#define CLB_RED_ARGS_VECS 3                       /* long16 arguments: 48 slots */

/* clb_eval_reduce (cl/eval_reduce.cl): its counts and offsets. The kept and
   reduced shapes and every input's strides over them (rank fixed by -D) go in
   a __constant table after the description, (kdim + rdim) x (1 + inputs)
   entries in the index type. X and Y are the tree's lanes (lx, ly); COUNT is
   MEAN's divisor or the moments' correction. */
#define CLB_ER_OUT_OFFSET 0
#define CLB_ER_IN_OFFSET(k) (1 + (k))             /* inputs 0..7 */
#define CLB_ER_KEPT_NUMEL 9
#define CLB_ER_RED_NUMEL 10
#define CLB_ER_CHUNK 11
#define CLB_ER_X 12
#define CLB_ER_Y 13
#define CLB_ER_COUNT 14
#define CLB_ER_ROOT 15                            /* clb_std: the square root of the variance */
#define CLB_ER_ARGS_LEN 16
#define CLB_ER_ARGS_VECS 1                        /* long16 arguments: 16 slots */

/* clb_matmul's own kernels (cl/matmul.cl): operand 0 is out, 1 a, 2 b. The
   batch plan takes the shared layout (offsets, rank, the batch shape and each
   operand's batch strides); the matrices' extents and each operand's row and
   column strides follow it. */
#define CLB_MM_OPS 3
#define CLB_MM_OFFSET(o) CLB_ARGS_OFFSET(CLB_MM_OPS, o)
#define CLB_MM_RANK CLB_ARGS_RANK(CLB_MM_OPS)
#define CLB_MM_SHAPE(d) CLB_ARGS_SHAPE(CLB_MM_OPS, d)
#define CLB_MM_STRIDE(o, d) CLB_ARGS_STRIDE(CLB_MM_OPS, o, d)
#define CLB_MM_M CLB_ARGS_LEN(CLB_MM_OPS)
#define CLB_MM_N (CLB_MM_M + 1)
#define CLB_MM_K (CLB_MM_M + 2)
#define CLB_MM_ROW_STRIDE(o) (CLB_MM_M + 3 + (o))
#define CLB_MM_COL_STRIDE(o) (CLB_MM_M + 6 + (o))
#define CLB_MM_ARGS_LEN (CLB_MM_M + 9)
#define CLB_MM_ARGS_VECS 4                        /* long16 arguments: 64 slots */

/* clb_take (cl/take.cl): source (outer, n, inner) and output (outer, m, inner),
   both C-contiguous; the index read at idx_offset + o * IS(0) + j * IS(1) +
   i * IS(2). A runs launch (CLB_TAKE_RUNS) gives each work item PER of UNITS
   units of CHUNK elements of a row (CHUNKS a row); the other form one element
   a work item (UNITS elements). */
#define CLB_TAKE_N 0
#define CLB_TAKE_M 1
#define CLB_TAKE_INNER 2
#define CLB_TAKE_CHUNK 3
#define CLB_TAKE_CHUNKS 4
#define CLB_TAKE_IS(d) (5 + (d))                  /* the index's strides, d = 0..2 */
#define CLB_TAKE_SRC_OFFSET 8
#define CLB_TAKE_IDX_OFFSET 9
#define CLB_TAKE_OUT_OFFSET 10
#define CLB_TAKE_UNITS 11
#define CLB_TAKE_PER 12
#define CLB_TAKE_ARGS_LEN 13
#define CLB_TAKE_ARGS_VECS 1                      /* long16 arguments: 16 slots */

/* cl/scan.cl, all seven kernels (each reads the slots it needs): the scanned
   tensor (outer, len, inner) in NB blocks of BLOCK along the axis, a row's
   columns in ICHUNKS runs of CLB_SCAN_COLS (clb_scan_totals / _apply; 1 in the
   vector forms); clb_scan_strips: runs of BLOCK columns, ICHUNKS a row, down
   the whole axis; HAS_PREFIX 1 where the block totals' scan is to be applied;
   COUNT the work items of the launch. */
#define CLB_SCAN_IN_OFFSET 0
#define CLB_SCAN_OUT_OFFSET 1
#define CLB_SCAN_LEN 2
#define CLB_SCAN_INNER 3
#define CLB_SCAN_BLOCK 4
#define CLB_SCAN_NB 5
#define CLB_SCAN_ICHUNKS 6
#define CLB_SCAN_HAS_PREFIX 7
#define CLB_SCAN_COUNT 8
#define CLB_SCAN_ARGS_LEN 9
#define CLB_SCAN_ARGS_VECS 1                      /* long16 arguments: 16 slots */

/* cl/sort.cl, all five kernels (each reads the slots it needs): C-contiguous
   (rows, len) input; VALUES_OFFSET / INDICES_OFFSET -1 where that output is
   not wanted. The tile kernels sort TILES tiles of TILE pairs a row (DIRECT 1:
   one tile covers the row, results written directly); a merge pass merges
   runs of WIDTH; COUNT the work items of a launch; clb_topk_rows keeps the K
   best of each of ROWS rows, PER rows a work item; clb_topk_chunks the K best
   of each of CHUNKS chunks a row, CAND 1 where the indices come from the
   candidates of a lower level. */
#define CLB_SORT_IN_OFFSET 0
#define CLB_SORT_VALUES_OFFSET 1
#define CLB_SORT_INDICES_OFFSET 2
#define CLB_SORT_LEN 3
#define CLB_SORT_TILE 4
#define CLB_SORT_TILES 5
#define CLB_SORT_DIRECT 6
#define CLB_SORT_WIDTH 7
#define CLB_SORT_COUNT 8
#define CLB_SORT_K 9
#define CLB_SORT_ROWS 10
#define CLB_SORT_PER 11
#define CLB_SORT_CHUNKS 12
#define CLB_SORT_CAND 13
#define CLB_SORT_ARGS_LEN 14
#define CLB_SORT_ARGS_VECS 1                      /* long16 arguments: 16 slots */

/* clb_select (cl/select.cl): N positions of the running count at
   SCAN_OFFSET; masked_select's source at SRC_OFFSET; the output at
   OUT_OFFSET; NDIM the rank of nonzero's shape (0 for masked_select). */
#define CLB_SELECT_SCAN_OFFSET 0
#define CLB_SELECT_SRC_OFFSET 1
#define CLB_SELECT_OUT_OFFSET 2
#define CLB_SELECT_NDIM 3
#define CLB_SELECT_N 4
#define CLB_SELECT_ARGS_LEN 5
#define CLB_SELECT_ARGS_VECS 1                    /* long16 arguments: 16 slots */

/* cl/generate.cl, all three kernels: this launch's units (or blocks of
   draws) BASE .. BASE + N - 1, the parameters A(0..5) from src/ops/
   op_generate.c as bit patterns (clb__gen_op.a), TOTAL the output's elements. */
#define CLB_GEN_BASE 0
#define CLB_GEN_N 1
#define CLB_GEN_A(i) (2 + (i))                    /* i = 0..5 */
#define CLB_GEN_TOTAL 8
#define CLB_GEN_ARGS_LEN 9
#define CLB_GEN_ARGS_VECS 1                       /* long16 arguments: 16 slots */

#endif /* CLB_LAUNCH_ARGS_H */
