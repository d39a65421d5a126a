// doOp is a function in one configuration and a macro in the other.
#ifdef FUNC
T doOp(T in) { return in * 2; }
#else
#define doOp(in) in
#endif

__kernel void do_op(__global T* out, __global const T* in)
{
    size_t i = get_global_id(0);
    out[i] = doOp(in[i]) + (T)1;
}
