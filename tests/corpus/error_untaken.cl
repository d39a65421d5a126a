// Configuration checks that stop the build when a parameter is wrong (they are not taken here).
#ifndef WPT
#error "WPT must be defined"
#endif
#if WPT < 1 || WPT > 8
#error Can't use WPT outside [1, 8]: it isn't supported
#endif
#if defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ < 120
#error "OpenCL 1.2 or later is required"
#endif

__kernel void strided_copy(__global float* out, __global const float* in)
{
    const int base = get_global_id(0) * WPT;
    for (int w = 0; w < WPT; ++w)
        out[base + w] = in[base + w] * (float)(w + 1);
}
