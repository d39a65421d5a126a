// A library header several programs include first, as pyopencl's complex kernels include
// pyopencl-complex.h: types, a constant table, helpers, a prototype its includer may
// define, and file-scope pragma state that holds for the code after it (exact
// multiply-add: no contraction into fma).
#pragma once
#pragma OPENCL FP_CONTRACT OFF

typedef float sl_real;
typedef struct { sl_real lo, hi; } sl_span;
enum sl_mode { SL_PLAIN = 1, SL_WEIGHTED = 2 };
__constant float sl_weights[4] = {0.5f, 1.25f, 2.0f, 3.5f};

inline sl_real sl_muladd(sl_real a, sl_real b, sl_real c) { return a * b + c; }
inline sl_span sl_make(sl_real lo, sl_real hi) { sl_span s; s.lo = lo; s.hi = hi; return s; }
sl_real sl_hook(sl_real x);
