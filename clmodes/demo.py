"""A small built-in workload: twelve variants of one kernel source, launched once each."""

from __future__ import annotations

import numpy as np
import pyopencl.array as cla

from clmodes.client import client
from clmodes.kernel import Kernel

SOURCE = """
#ifndef FACTOR
#define FACTOR 1
#endif
inline float scale(float x) { return x * FACTOR; }
__kernel void axpb(__global float* out, __global const float* x, float b, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = scale(x[i]) + b;
}
"""

KERNELS = [Kernel(SOURCE, "axpb", defines={"FACTOR": f}) for f in range(1, 13)]


def workload(n: int = 1024) -> np.ndarray:
    """Run every variant once on the default stream and return the last output."""
    stream = client().stream()
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    for kernel in KERNELS:
        stream.launch(kernel, n, None, out.data, x.data, 0.5, n)
    return out.get()
