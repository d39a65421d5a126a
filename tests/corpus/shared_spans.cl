#include "shared_lib.h"

__kernel void shared_spans(__global float* out, __global const float* a, int mode)
{
    size_t i = get_global_id(0);
    sl_span s = sl_make(a[i], a[i] * 2.0f + 1.0f);
    float w = mode == SL_WEIGHTED ? sl_weights[i % 4] : 1.0f;
    out[i] = (s.hi - s.lo) * w + s.lo;
}
