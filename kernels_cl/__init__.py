"""kernels_cl: tunable OpenCL kernels on `pyopencl.array.Array`s, built on clmodes.

Every operation takes a `clmodes.Stream` first and is autotuned per device through a
`clmodes.Tunable` (one per operation and dtype), so it gathers, batch-compiles and tunes
under `clmodes.warm` like any clmodes workload::

    import clmodes, kernels_cl
    stream = clmodes.client().stream()
    c = kernels_cl.matmul(stream, a, b)                     # a, b: pyopencl arrays
    y = kernels_cl.elementwise(stream, "relu(x + b)", x=c, b=bias)
    p = kernels_cl.softmax(stream, y)

Everything is decided from shapes and dtypes (never from data), so the same code runs
under every process mode. Dtypes: float32; float64 where the device has cl_khr_fp64;
float16 where it has cl_khr_fp16 (computed in float). Anything else, or arrays of
another context, wrong shapes, non-contiguous arrays: TypeError/ValueError naming the
operation and the argument, before anything is launched. Empty results launch nothing.
"""

from kernels_cl._common import (
    DTYPES,
    UnsupportedDTypeError,
    set_race_policy,
    tunables,
)
from kernels_cl.elementwise import FUNCTIONS, elementwise
from kernels_cl.matmul import matmul
from kernels_cl.reduce import max, mean, sum  # noqa: A004 - numpy-like names on purpose
from kernels_cl.rows import layer_norm, softmax
from kernels_cl.transpose import transpose

__all__ = [
    "DTYPES",
    "FUNCTIONS",
    "UnsupportedDTypeError",
    "elementwise",
    "layer_norm",
    "matmul",
    "max",
    "mean",
    "set_race_policy",
    "softmax",
    "sum",
    "transpose",
    "tunables",
]
