// Helpers stamped out by a macro.
#define MAKE_HELPER(n) inline float n(float x) { return x + 1.0f; }

MAKE_HELPER(bump)
MAKE_HELPER(nudge)

__kernel void bumped(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = bump(nudge(in[i])) * 0.5f;
}
