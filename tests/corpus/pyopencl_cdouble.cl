// pyopencl's complex header with cdouble_t, as pyopencl.elementwise does it.
#pragma OPENCL EXTENSION cl_khr_fp64: enable
#define PYOPENCL_DEFINE_CDOUBLE
#include <pyopencl-complex.h>

__kernel void cdouble_multiply(__global cdouble_t* out, __global const cdouble_t* a,
                               __global const cdouble_t* b)
{
    size_t i = get_global_id(0);
    out[i] = cdouble_add(cdouble_mul(a[i], b[i]), cdouble_fromreal(1.0));
}
