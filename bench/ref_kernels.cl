/* Reference kernels of bench_elementwise: what "the device's copy bandwidth"
 * and "a bare kernel launch" mean in its report (BabelStream-style). */

/* A plain contiguous copy, four floats per work item. */
__kernel void ref_copy(__global const float4 *src, __global float4 *dst)
{
    size_t i = get_global_id(0);
    dst[i] = src[i];
}

/* Does nothing: its enqueue cost is the floor of any launch. */
__kernel void ref_empty(void)
{
}
