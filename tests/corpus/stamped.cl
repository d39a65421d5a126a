// Kernels stamped out by a macro.
#define DEF_SCALE(name, f) \
__kernel void name(__global float* o, __global const float* i) \
{ size_t g = get_global_id(0); o[g] = i[g] * f; }

DEF_SCALE(twice, 2.0f)
DEF_SCALE(thrice, 3.0f)
