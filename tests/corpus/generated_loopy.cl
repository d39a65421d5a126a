// Generated in the style of loopy: index macros, many small static inline helpers, restrict.
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

static inline float _lpy_f0(float a) { return a * 0.5f; }
static inline float _lpy_f1(float a) { return _lpy_f0(a) + 1.0f; }
static inline float _lpy_f2(float a) { return _lpy_f1(a) * _lpy_f1(a); }
static inline float _lpy_f3(float a, float b) { return _lpy_f2(a) - b; }
static inline int _lpy_i0(int i) { return i % 3; }
static inline int _lpy_i1(int i) { return _lpy_i0(i) * 2 - 1; }
static inline float __attribute__((overloadable)) _lpy_sq(float v) { return v * v; }
static inline int __attribute__((overloadable)) _lpy_sq(int v) { return v * v; }

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) loopy_kernel(
    __global float const *__restrict__ a, __global float const *__restrict__ b,
    __global float *__restrict__ out, int const n)
{
  if (-1 + -16 * gid(0) + -1 * lid(0) + n >= 0)
    out[16 * gid(0) + lid(0)] = _lpy_f3(a[16 * gid(0) + lid(0)], b[16 * gid(0) + lid(0)])
        * (float) _lpy_i1(16 * gid(0) + lid(0)) + _lpy_sq(a[16 * gid(0) + lid(0)])
        + (float) _lpy_sq(lid(0));
}
