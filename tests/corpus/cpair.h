// Like pyopencl-complex.h's cdouble_t: a type declared only when the includer asks for it.
#pragma once

#ifdef DEFINE_CPAIR
typedef struct { float re, im; } cpair_t;

inline cpair_t cpair_mul(cpair_t a, cpair_t b)
{
    cpair_t r;
    r.re = a.re * b.re - a.im * b.im;
    r.im = a.re * b.im + a.im * b.re;
    return r;
}
#endif

inline float cpair_sq(float v) { return v * v; }
