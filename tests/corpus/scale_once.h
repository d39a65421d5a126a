// The same helper behind #pragma once.
#pragma once
inline float scale_once(float x) { return x * SCALE; }
