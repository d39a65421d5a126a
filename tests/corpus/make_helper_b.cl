// Another file stamping a helper of the same name, with another body.
#define MAKE_HELPER(n, d) inline float n(float x) { return x + d; }

MAKE_HELPER(bump, 10.0f)

__kernel void bumped_more(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = bump(in[i]);
}
