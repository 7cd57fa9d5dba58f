/* The write-only peak bench_create compares clb_full, clb_arange, clb_linspace
 * and the random draws with (issue 28): a float4 fill, plain and with
 * streaming (non-temporal) stores where the compiler has them (a CPU's true
 * write limit: no read for ownership). Outside the library, as ref_kernels.cl. */
__kernel void ref_fill(__global float4 *dst, float v)
{
    dst[get_global_id(0)] = (float4)(v);
}

__kernel void ref_fill_stream(__global float4 *dst, float v)
{
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
    __builtin_nontemporal_store((float4)(v), dst + get_global_id(0));
    return;
#endif
#endif
    dst[get_global_id(0)] = (float4)(v);
}
