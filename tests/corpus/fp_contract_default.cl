// The same expression with the default FP_CONTRACT (the compiler may fuse it into an fma).
__kernel void muladd_default(__global float* out, __global const float* a, __global const float* b,
                             __global const float* c)
{
    size_t i = get_global_id(0);
    out[i] = a[i] * b[i] + c[i];
}
