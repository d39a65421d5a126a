#include "shared_lib.h"

// Defines what the header declares: this program's copy of the header is its own.
sl_real sl_hook(sl_real x) { return x * 3.0f + 1.0f; }

__kernel void shared_hook(__global float* out, __global const float* a)
{
    size_t i = get_global_id(0);
    out[i] = sl_hook(a[i]);
}
