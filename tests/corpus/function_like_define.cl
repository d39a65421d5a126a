// The map function comes from the build options as a function-like macro (-D 'MAP(x)=...').
__kernel void mapped(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    out[i] = MAP(in[i]);
}
