// A warning-free unit, built with -Werror like some libraries do.
inline float clean_helper(float v) { return v * v + 1.0f; }

__kernel void clean(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = clean_helper(in[i]);
}
