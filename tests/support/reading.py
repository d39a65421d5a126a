"""Workloads that read device memory back, for the tests of what a warm says about it."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clmodes
from clmodes import Kernel

INC = "__kernel void inc(__global float* a) { a[get_global_id(0)] += 1.0f; }"


def reads_back():
    """Three `Array.get()`s and one `enqueue_copy` to the host: four reads a pass."""
    stream = clmodes.client().stream()
    a = cla.zeros(stream.queue, 16, np.float32)
    for _ in range(3):
        stream.launch(Kernel(INC, "inc"), 16, None, a.data)
        a.get()  # the first read
    out = np.empty(16, np.float32)
    cl.enqueue_copy(stream.queue, out, a.data)
    cl.enqueue_copy(stream.queue, a.data, out)  # to the device: not a read


def shapes_only():
    """A warmable workload: launches driven by shapes, nothing read back."""
    stream = clmodes.client().stream()
    a = cla.zeros(stream.queue, 16, np.float32)
    stream.launch(Kernel(INC, "inc"), 16, None, a.data)
