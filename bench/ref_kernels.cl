/* Reference kernels of bench_elementwise: what "the device's copy bandwidth"
 * and "a bare kernel launch" mean in its report (BabelStream-style). */

/* A plain contiguous copy, four floats per work item. */
__kernel void ref_copy(__global const float4 *src, __global float4 *dst)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

/* The same copy with streaming (non-temporal) stores where the compiler has
   them (clang, so PoCL): on a CPU a plain store first reads the line it
   writes, so this is the device's true streaming limit. */
__kernel void ref_copy_stream(__global const float4 *src, __global float4 *dst)
{
    size_t i = get_global_id(0);
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define REF_STREAM 1
    __builtin_nontemporal_store(src[i], dst + i);
#endif
#endif
#ifndef REF_STREAM
    dst[i] = src[i];
#endif
}

/* Does nothing: its enqueue cost is the floor of any launch. */
__kernel void ref_empty(void)
{
}

/* Does nothing, with clb_map's argument list (cl/elementwise.cl: four buffers
   and the launch description, four long16 vectors, cl/launch_args.h): what a
   driver's own work per launch (copying arguments, building the command) costs
   before any planning. */
__kernel void ref_empty_map_args(__global float *out, __global const float *in0,
                                 __global const float *in1, __global const float *in2,
                                 long16 a0, long16 a1, long16 a2, long16 a3)
{
}
