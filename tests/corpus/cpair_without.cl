#include "cpair.h"

__kernel void cpair_norms(__global float* out, __global const float2* z)
{
    size_t i = get_global_id(0);
    out[i] = cpair_sq(z[i].x) + cpair_sq(z[i].y);
}
