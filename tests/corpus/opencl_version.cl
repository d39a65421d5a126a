// Reports the language version it was compiled for and whether fast math is on.
__kernel void language_version(__global int* out)
{
    out[0] = __OPENCL_C_VERSION__;
    out[1] = __OPENCL_VERSION__;
#ifdef __FAST_RELAXED_MATH__
    out[2] = 1;
#else
    out[2] = 0;
#endif
    out[3] = __LINE__;
}
