/* Fills bytes [first, first + n) of a buffer with one byte value: the library's
 * own fills (a matmul's empty sums) run through this kernel, never
 * clEnqueueFillBuffer, which NVIDIA's driver gets wrong for large fills.
 * One work item per CLB_FILL_BLOCK bytes, so no loop runs long (rusticl's loop
 * limit, quirk loop-limit); sizes are arguments, so one program serves every fill. */
#ifndef CLB_FILL_BLOCK
#define CLB_FILL_BLOCK 256
#endif

__kernel void clb_fill(__global uchar *dst, ulong first, ulong n, uchar value)
{
    ulong start = (ulong)get_global_id(0) * CLB_FILL_BLOCK;
    if (start >= n) return;
    ulong end = min(start + (ulong)CLB_FILL_BLOCK, n);
    for (ulong i = start; i < end; i++) dst[first + i] = value;
}
