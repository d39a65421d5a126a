// A fallback for a constant the compiler predefines (where doubles are supported).
#ifndef M_PI
#define M_PI 3.14159f
#endif

__kernel void to_radians(__global float* out, __global const float* deg)
{
    size_t i = get_global_id(0);
    out[i] = deg[i] * ((float)M_PI / 180.0f);
}
