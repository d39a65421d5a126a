// Uses the compiler's predefined constants and feature macros, defining nothing itself.
__kernel void predefined_constants(__global float* out, __global const float* in)
{
    size_t i = get_global_id(0);
    float v = in[i];
    float r = v * M_PI_F;
#ifdef M_PI
    r += (float)M_PI;
#else
    r -= 1000.0f;
#endif
#if defined(__has_builtin)
#if __has_builtin(__builtin_expect)
    r += 0.25f;
#endif
#else
    r -= 0.25f;
#endif
    out[i] = v > 1.5f ? MAXFLOAT : r;
}
