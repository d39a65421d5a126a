// A scalar argument whose type is chosen by the preprocessor.
#ifdef USE_INT
typedef int value_t;
#else
typedef float value_t;
#endif

__kernel void add_value(__global value_t* out, __global const value_t* in, value_t v)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * v + (value_t)1;
}
