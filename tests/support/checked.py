"""A workload for `clmodes check`: one tuned kernel and one plain kernel whose define and
size come from the environment, so a fresh process can change one part at a time."""

from __future__ import annotations

import os

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel
from support.tunables import make_tunable

PLAIN = """
__kernel void plus_offset(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = x[i] + OFFSET;
}
"""


def workload() -> None:
    n = int(os.environ.get("CHECKED_N", "512"))
    offset = os.environ.get("CHECKED_OFFSET", "1.0f")
    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    make_tunable("checked.twice")(stream, out, x, n)
    stream.launch(Kernel(PLAIN, "plus_offset", defines={"OFFSET": offset}), n, None,
                  out.data, x.data, np.int32(n))


def pyopencl_workload() -> None:
    """pyopencl's own kernels on clmodes' context: an ElementwiseKernel and a reduction."""
    from pyopencl.elementwise import ElementwiseKernel

    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(64, dtype=np.float32))
    scale = ElementwiseKernel(stream.context, "float *x, float s", "x[i] = x[i] * s",
                              "checked_scale")
    scale(x, np.float32(2.0))
    cla.sum(x)


UNADOPTED = """
__kernel void unadopted_square(__global float* x) { int i = get_global_id(0); x[i] *= x[i]; }
"""


def unadopted_workload() -> None:
    """A pyopencl program as its author wrote it: its own context (never handed to
    clmodes), a plain program and an ElementwiseKernel; no clmodes call at all."""
    import pyopencl as cl
    from pyopencl.elementwise import ElementwiseKernel

    device = [d for p in cl.get_platforms() for d in p.get_devices()
              if os.environ["CLMODES_DEVICE"].lower() in f"{p.name} / {d.name}".lower()][0]
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    x = cla.to_device(queue, np.arange(64, dtype=np.float32))
    cl.Program(context, UNADOPTED).build().unadopted_square(queue, (64,), None, x.data)
    ElementwiseKernel(context, "float *x", "x[i] = x[i] + 1", "unadopted_plus")(x)
    assert float(x.get()[3]) == 10.0


def printing_workload() -> None:
    """A workload that talks on standard output, from Python and from the descriptor (as a
    compiler's "4 warnings generated." does), around an ordinary launch."""
    print("step 1 of 1")
    os.write(1, b"written to descriptor 1\n")
    workload()


def broken_pyopencl_workload() -> None:
    """A pyopencl program of the workload's own that does not compile."""
    import pyopencl as cl

    stream = clmodes.client().stream()
    cl.Program(stream.context, "__kernel void broken(__global float* x)"
                               " { x[0] = undefined_thing; }").build()
