/* The launch helpers the OpenCL backend's kernel drivers (cl_copy.c, cl_map.c,
 * cl_reduce.c, cl_matmul.c, ...) share: stride tables, work-group sizes,
 * pieces, row and tree geometry, and the device facts launches follow. The
 * backend's state is cl_state.h's. */
#ifndef CLB_CL_LAUNCH_H
#define CLB_CL_LAUNCH_H

#include "backend.h"
#include "cl_backend.h" /* the driver entries, which drivers call among themselves */
#include "cl_state.h"

#include "cl/launch_args.h"

#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>

/* A stride table: columns of per-axis values (a shape, then each operand's
   strides), column c holding len[c] values. Tables of up to CLB_BYVAL_DIMS
   (cl/launch_args.h) axes go by value; longer ones in a __constant buffer, beyond
   the 1 KiB of kernel arguments every device must accept. */
#define CLB__CL_TABLE_COLS 10 /* the shape and cl/eval.cl's 9 operands */
typedef struct clb__cl_table {
    int ncols;
    const int64_t *col[CLB__CL_TABLE_COLS]; /* NULL: zeros */
    int len[CLB__CL_TABLE_COLS];
    int64_t pad[CLB__CL_TABLE_COLS]; /* by value: the entries past len */
} clb__cl_table;

/* A plan's table: its shape (padded with shape_pad), then the strides of
   operands 0..slots-1 (zeros for slots the plan has no operand for). */
void clb__cl_plan_table(const clb__plan *p, int slots, int64_t shape_pad, clb__cl_table *t);

/* The one way stride tables reach kernels (copy, map, reduce, matmul, eval).
   byval: column c as an int8 / long8 argument of CLB_BYVAL_DIMS entries;
   otherwise every column, one after the other, in one __constant buffer as a
   single argument (*table receives it, for the caller to release after
   enqueueing). Values are in the kernel's index type (64-bit when wide). *arg is
   the first argument set and advances past the last. */
clb_status clb__cl_table_args(clb__cl_context *cl, cl_kernel kernel, cl_uint *arg,
                              const clb__cl_table *t, bool byval, bool wide, cl_mem *table);

/* Work-group size for a 1-D launch of numel items of `kernel`. */
clb_status clb__cl_pick_local_size(const clb__cl_context *cl, cl_kernel kernel, int64_t numel,
                                   size_t *out);
/* Enqueues numel work items (in pieces of at most 2^30). */
clb_status clb__cl_launch(clb__cl_context *cl, cl_kernel kernel, int64_t numel);

/* Whether the device rounds float32 division and sqrt correctly when asked
   (-cl-fp32-correctly-rounded-divide-sqrt), as the host backend does. */
bool clb__cl_correct_div_sqrt(const clb__cl_context *cl);
/* Whether the device keeps float32 subnormals (CL_FP_DENORM), as the host does. */
bool clb__cl_fp32_denorm(const clb__cl_context *cl);

/* Maps the first tier ran on the host while their program was built (cl_map.c);
   read by tests. */
extern _Atomic long clb__cl_first_tier_runs;
/* Whether an output of out_bytes gets streaming stores (CLB_NT, cl/common.cl): on
   CPU devices, from the size of the device's cache (at least 8 MiB) up. */
bool clb__cl_streaming(const clb__cl_context *cl, int64_t out_bytes);
/* Tests set it to give streaming stores to every output of at least this many bytes
   on every device (-1: the rule above). */
extern _Atomic int64_t clb__cl_streaming_min_bytes;
/* Whether a device of this type and platform runs a work-group as a loop over
   its work items (see clb__cl_context.loops): the documented rule is PoCL's CPU
   devices (pthread and basic drivers) only, unless a quirk rules it out. */
bool clb__cl_launch_style(clb_device_type type, const char *platform, unsigned quirks);
/* CL_DEVICE_MAX_COMPUTE_UNITS (at least 1). */
unsigned clb__cl_compute_units(const clb__cl_context *cl);

/* Enqueues a fill of bytes [offset, offset + nbytes) of mem with `value` through
   cl/fill.cl: the library never calls clEnqueueFillBuffer (NVIDIA's driver gets
   large fills wrong). */
clb_status clb__cl_fill(clb__cl_context *cl, cl_mem mem, size_t offset, size_t nbytes,
                        unsigned char value);
/* The work split of cl_map.c, cl_copy.c and cl_expr.c: -1 by device type (blocks on
   CPUs, grid stride on GPUs); tests force 0 or 1 to cover both paths on any device. */
extern _Atomic int clb__cl_map_blocked;
/* Whether work items take contiguous blocks on ctx's device (clb__cl_map_blocked). */
bool clb__cl_blocked(const clb_context *ctx);
/* CLB_VLOAD_ALIGNED for the map and reduction programs (cl/common.cl): aligned
   vector loads by pointer where a work-group runs as a loop on one core (PoCL:
   row broadcast 1.1-1.2x, row sums 1.0-1.3x, measured); vloadN elsewhere
   (llvmpipe: a row sum at 0.47x with them; GPUs: not measured). */
bool clb__cl_vload_aligned(const clb__cl_context *cl);

/* ---- index width ---------------------------------------------------------------------
 * Every family's kernels compute indices in 32 bits (cl/common.cl's clb_index:
 * the divisions of the offset walk cost several times less on GPUs) unless a
 * value their index arithmetic reaches lies outside the int32 range less a
 * margin at each end (the family's overshoot past its last element). A driver
 * gathers the values its kernel reaches; clb__cl_index64 is the one place that
 * decides, and where the fault walk forces 64 bits. */
typedef struct clb__cl_reach {
    int64_t lo, hi; /* the least and the greatest value gathered ({0, 0} to start) */
} clb__cl_reach;
/* Gathers v. */
void clb__cl_reach_add(clb__cl_reach *r, int64_t v);
/* Gathers the least and the greatest offset of a walk from base over n axes
   (shape, stride): base plus every negative, resp. positive, (extent-1)*stride. */
void clb__cl_reach_walk(clb__cl_reach *r, int64_t base, const int64_t *shape,
                        const int64_t *stride, int n);
/* Whether the kernel needs 64-bit indices (CLB_INDEX64): a value gathered lies
   outside [INT32_MIN + margin, INT32_MAX - margin], or the fault walk's index
   path (CLB__FAULT_INDEX64) forces them. */
bool clb__cl_index64(const clb__cl_reach *r, int64_t margin);

/* How a plan is launched: in one piece with 32-bit indices when it fits them,
   else in 32-bit pieces (clb__plan_split, at most CLB__CL_MAX_PIECES), else in
   one piece with 64-bit indices (clb__cl_index64 decides). */
#define CLB__CL_MAX_PIECES 65536
typedef struct clb__cl_pieces {
    bool wide;     /* 64-bit indices */
    int64_t count; /* pieces (1: the plan itself) */
    int64_t shape[CLB__PLAN_MAX_DIMS];
} clb__cl_pieces;
void clb__cl_plan_pieces(const clb__plan *plan, clb__cl_pieces *out);
/* Calls launch(piece, user) for each piece in order, stopping at the first failure. */
clb_status clb__cl_each_piece(const clb__plan *plan, const clb__cl_pieces *pieces,
                              clb_status (*launch)(const clb__plan *piece, void *user),
                              void *user);

/* NDRange of a rows x chunks kernel (cl/elementwise.cl, cl/copy.cl: dimension 0
   chunks of the inner axis, dimension 1 rows; work items loop over their share).
   blocked: one work item per group, at most `blocks` groups and a few per compute
   unit, each taking a contiguous block (CPU devices); otherwise groups of several
   SIMD widths of `k` covering the work once. chunk_trips: loop iterations one
   chunk costs inside the kernel (its elements' clb__cl_op_trips and the row's
   offset walk), which bounds a block where the device limits loops. */
void clb__cl_rows_geometry(const clb__cl_context *cl, const clb__cl_kernel *k, bool blocked,
                           int64_t blocks, int64_t chunks, int64_t rows, int64_t chunk_trips,
                           size_t local[2], size_t global[2]);
/* Loop iterations that one element of an op may cost inside its scalar rule
   (cl/scalar_ops.cl): 1 for straight-line rules; float floor division and
   remainder call fmod, whose loop (libclc's) runs once per bit of exponent
   difference; integer powers square once per exponent bit. */
int64_t clb__cl_op_trips(bool binary, int op, clb_dtype compute);

/* A reduction tree's work-group of wg items (a power of two): with `row`, ly
   lanes per output along the reduced range (the smallest power of two >= red,
   at most wg) and lx = wg / ly outputs; else lx outputs (the same rule over
   kept) and ly = wg / lx lanes each. */
void clb__cl_tree_lanes(bool row, int64_t red, int64_t kept, int64_t wg, int64_t *lx, int64_t *ly);
/* Work items along one row's reduction on a CPU device whose work items run
   across SIMD lanes (llvmpipe): one or two SIMD vectors of them. A wider tree's
   barriers cost more than its lanes gain there: argmax of (2048, 4096) float32
   117 ms with 1 item a row, 20 with 8 or 16, 29 with 32 or 64; var over those
   rows 24.4 ms with 256, 18.6 with 16 (cl_argreduce.c, cl_eval_reduce.c). */
#define CLB__CL_CPU_ROW_LANES 16
/* Elements per CPU block: enough that a block's loop amortizes its launch. */
#define CLB__CL_CPU_ELEMENTS_PER_GROUP 32768

#endif /* CLB_CL_LAUNCH_H */
