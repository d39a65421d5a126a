#include "scale_once.h"

__kernel void scaled_once(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = scale_once(in[i]) - 1.0f;
}
