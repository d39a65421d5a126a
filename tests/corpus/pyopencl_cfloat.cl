// pyopencl's own complex header (pyopencl adds its include directory to every build).
#include <pyopencl-complex.h>

__kernel void cfloat_multiply(__global cfloat_t* out, __global const cfloat_t* a,
                              __global const cfloat_t* b, const float scale)
{
    size_t i = get_global_id(0);
    out[i] = cfloat_mulr(cfloat_mul(a[i], b[i]), scale);
}
