// A file-scope table named like a vector component, used next to .w accesses.
__constant float w[9] = {1.0f, 2.0f, 1.0f, 2.0f, 4.0f, 2.0f, 1.0f, 2.0f, 1.0f};

__kernel void weigh(__global float4* out, __global const float4* in)
{
    size_t i = get_global_id(0);
    float4 f = in[i];
    float s = 0.0f;
    for (int k = 0; k < 9; ++k)
        s += w[k];
    f.w = f.w * s + w[i % 9];
    out[i] = f;
}
