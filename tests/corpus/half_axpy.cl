// Half-precision arithmetic with the extension pragma.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void half_axpy(__global half* y, __global const half* x, const float alpha)
{
    size_t i = get_global_id(0);
    half a = (half)alpha;
    y[i] = a * x[i] + y[i];
}
