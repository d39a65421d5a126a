// The portable-header idiom for compilers without __has_builtin.
#if !defined(__has_builtin)
#define __has_builtin(x) 0
#endif

#if __has_builtin(__builtin_expect)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define EXPECT_FLAG 1
#else
#define LIKELY(x) (x)
#define EXPECT_FLAG 0
#endif

__kernel void below_limit(__global int* out, __global const float* in, const float limit)
{
    size_t i = get_global_id(0);
    out[i] = (LIKELY(in[i] < limit) ? 10 : 20) + EXPECT_FLAG;
}
