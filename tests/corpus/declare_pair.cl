// A type and its functions declared by a macro, pyopencl-complex.h style, in the user's own file.
#define DECLARE_PAIR(T) \
  typedef struct { T first, second; } pair_##T; \
  inline pair_##T make_pair_##T(T a, T b) { pair_##T p; p.first = a; p.second = b; return p; } \
  inline T pair_##T##_dot(pair_##T p, pair_##T q) { return p.first * q.first + p.second * q.second; }

DECLARE_PAIR(float)

__kernel void pair_dots(__global float* out, __global const float2* a, __global const float2* b)
{
    size_t i = get_global_id(0);
    out[i] = pair_float_dot(make_pair_float(a[i].x, a[i].y), make_pair_float(b[i].y, b[i].x));
}
