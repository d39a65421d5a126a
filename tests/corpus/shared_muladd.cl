#include "shared_lib.h"

__kernel void shared_muladd(__global float* out, __global const float* a,
                            __global const float* b, __global const float* c)
{
    size_t i = get_global_id(0);
    out[i] = sl_muladd(a[i], b[i], c[i]) + a[i] * b[i] + c[i] * sl_weights[i % 4];
}
