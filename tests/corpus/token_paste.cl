// Entry points named by token pasting.
#define KNAME(t) fill_##t

__kernel void KNAME(f32)(__global float* out, const float v)
{
    size_t i = get_global_id(0);
    out[i] = v + (float)i;
}

__kernel void KNAME(i32)(__global int* out, const int v)
{
    size_t i = get_global_id(0);
    out[i] = v - (int)i;
}
