// The same macro-declared type in another file.
#define DECLARE_PAIR(T) \
  typedef struct { T first, second; } pair_##T; \
  inline pair_##T make_pair_##T(T a, T b) { pair_##T p; p.first = a; p.second = b; return p; }

DECLARE_PAIR(float)

__kernel void pair_swap(__global float2* out, __global const float2* a)
{
    size_t i = get_global_id(0);
    pair_float p = make_pair_float(a[i].y, a[i].x);
    out[i] = (float2)(p.first, p.second * 2.0f);
}
