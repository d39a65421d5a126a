// A struct member named like a program-scope table.
typedef struct { float w; float v; } Pair;

__constant float w[4] = {0.5f, 1.5f, 2.5f, 3.5f};

__kernel void pair_weights(__global float* out, __global const Pair* pairs)
{
    size_t i = get_global_id(0);
    Pair p = pairs[i];
    out[i] = p.w * w[i % 4] + p.v;
}
