#include "scale.h"

__kernel void scaled(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = scale_it(in[i]) + 0.5f;
}
