#include "cpair.h"

__kernel void cpair_product(__global cpair_t* out, __global const cpair_t* a,
                            __global const cpair_t* b)
{
    size_t i = get_global_id(0);
    out[i] = cpair_mul(a[i], b[i]);
}
