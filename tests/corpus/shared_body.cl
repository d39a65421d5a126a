// Two function headers sharing one body, chosen by a define.
#ifdef WIDE
float4 op(float4 v)
#else
float op(float v)
#endif
{
    return v * 2;
}

#ifdef WIDE
__kernel void apply_op(__global float4* out, __global const float4* in)
#else
__kernel void apply_op(__global float* out, __global const float* in)
#endif
{
    size_t i = get_global_id(0);
    out[i] = op(in[i]) + 1;
}
