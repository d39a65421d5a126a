// Helpers named lo, hi, even and odd next to .lo, .hi, .even and .odd accesses.
inline float lo(float a, float b) { return fmin(a, b); }
inline float hi(float a, float b) { return fmax(a, b); }
inline int even(int k) { return (k & 1) == 0; }
inline int odd(int k) { return k & 1; }

__kernel void halves(__global float4* out, __global const float8* in)
{
    size_t i = get_global_id(0);
    float8 v = in[i];
    float4 a = v.lo, b = v.hi, e = v.even, o = v.odd;
    float4 r;
    r.x = lo(a.x, b.y);
    r.y = hi(e.s0, o.s1);
    r.z = even((int)i) ? a.z : b.z;
    r.w = odd((int)i) ? e.w : o.w;
    out[i] = r;
}
