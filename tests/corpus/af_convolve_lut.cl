// ArrayFire-style 1-D smoothing with a __constant lookup table; T comes from a define.
__constant float LUT[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

__kernel void convolve1(__global T* out, __global const T* in, const int len)
{
    const int g = get_global_id(0);
    T acc = 0;
    for (int k = -2; k <= 2; ++k) {
        const int j = clamp(g + k, 0, len - 1);
        acc += in[j] * (T)LUT[k + 2];
    }
    out[g] = acc;
}
