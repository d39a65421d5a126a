// Horner evaluation with unrolled loops.
__kernel void horner(__global float* out, __global const float* xs, __constant float* coeffs)
{
    const float x = xs[get_global_id(0)];
    float acc = 0.0f;
    #pragma unroll
    for (int k = 0; k < NCOEF; ++k)
        acc = acc * x + coeffs[k];
    float sum = 0.0f;
    #pragma unroll 2
    for (int k = 0; k < NCOEF; ++k)
        sum += coeffs[k];
    out[get_global_id(0)] = acc - sum;
}
