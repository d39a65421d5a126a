// Scalar arguments typed by typedefs that live in an #included header.
#include "types.h"

__kernel void typed_saxpy(__global real_t* y, __global const real_t* x, const real_t alpha,
                          const index_t n)
{
    index_t i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}
