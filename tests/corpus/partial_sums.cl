// pyopencl-style reduction with the scratch space passed as a __local argument.
__kernel void partial_sums(__global const float* in, __global float* out, __local float* scratch,
                           const uint n)
{
    const uint lid = get_local_id(0), gid = get_global_id(0), wg = get_local_size(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
