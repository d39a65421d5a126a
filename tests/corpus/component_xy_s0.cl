// Program-scope constants named x, y and s0 next to .x, .y and .s0 accesses.
__constant float x = 0.5f;
__constant float y = 0.25f;
__constant int s0 = 3;

__kernel void offsets(__global float2* out, __global const float4* in)
{
    size_t i = get_global_id(0);
    float4 v = in[i];
    float2 r;
    r.x = v.x * x + v.s0;
    r.y = v.y * y + (float)(s0 + (int)i);
    out[i] = r;
}
