// A helper whose body depends on the includer's SCALE, behind a classic include guard.
#ifndef SCALE_H
#define SCALE_H
inline float scale_it(float x) { return x * SCALE; }
#endif
