// Another generated file with the same helper and macro names and other bodies.
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

static inline float _lpy_f0(float a) { return a - 3.0f; }
static inline float _lpy_f1(float a) { return _lpy_f0(a) * 4.0f; }

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) loopy_kernel(
    __global float const *__restrict__ a, __global float *__restrict__ out, int const n)
{
  if (-1 + -16 * gid(0) + -1 * lid(0) + n >= 0)
    out[16 * gid(0) + lid(0)] = _lpy_f1(a[16 * gid(0) + lid(0)]);
}
