// Another library file including the same guarded header (with its own SCALE).
#include "scale.h"

__kernel void scaled_sum(__global float* out, __global const float* a, __global const float* b)
{
    size_t i = get_global_id(0);
    out[i] = scale_it(a[i]) - b[i];
}
