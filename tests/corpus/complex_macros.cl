// clFFT/VexCL-style complex arithmetic on float2 with helper macros and a __constant twiddle table.
#define CMUL(a, b) ((float2)(mad(-(a).y, (b).y, (a).x * (b).x), mad((a).y, (b).x, (a).x * (b).y)))
#define CONJ(a) ((float2)((a).x, -(a).y))
#define CADD(a, b) ((a) + (b))

__constant float2 twiddles[4] = {
    (float2)(1.0f, 0.0f), (float2)(0.70710678f, -0.70710678f),
    (float2)(0.0f, -1.0f), (float2)(-0.70710678f, -0.70710678f)
};

__kernel void twiddle_mul(__global float2* out, __global const float2* a, __global const float2* b)
{
    size_t i = get_global_id(0);
    out[i] = CADD(CMUL(a[i], twiddles[i % 4]), CONJ(b[i]));
}
