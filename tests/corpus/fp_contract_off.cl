// Bit-reproducible arithmetic: no fused multiply-add contraction in this file.
#pragma OPENCL FP_CONTRACT OFF

__kernel void muladd_exact(__global float* out, __global const float* a, __global const float* b,
                           __global const float* c)
{
    size_t i = get_global_id(0);
    out[i] = a[i] * b[i] + c[i];
}
