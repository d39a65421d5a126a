// Another file with the same fallback.
#ifndef M_PI
#define M_PI 3.14159f
#endif

__kernel void to_degrees(__global float* out, __global const float* rad)
{
    size_t i = get_global_id(0);
    out[i] = rad[i] * (180.0f / (float)M_PI);
}
