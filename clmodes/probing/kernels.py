"""The probe's OpenCL kernels: global-memory bandwidth (read, write, copy) and float32 FMA
chains per vector width, and the tiny launch that queues them all.

Why these shapes (see `clmodes.probing` for the whole method): the bandwidth kernels
stride `items` float4 accesses by the global size, so neighbouring work-items touch
neighbouring addresses; the compute kernel runs `CHAINS` independent chains of
`x = x * a + b` with FP_CONTRACT on (the compiler fuses each step into one FMA where the
hardware has one; the `fma()` and `mad()` builtins are avoided, PoCL lowers them to
library calls ~30x slower).
"""

from __future__ import annotations

import pyopencl as cl

from clmodes.kernel import Kernel
from clmodes.stream import Stream

ITEMS = 4  # float4 elements per work-item in the bandwidth kernels
CHAINS = 8  # independent FMA chains per work-item in the compute kernel

MEMORY_SOURCE = r"""
/* clmodes throughput probe: global-memory bandwidth */
__kernel void probe_read(__global const float4* restrict in, __global float* restrict sink,
                         int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    float4 acc = (float4)(0.0f);
    for (int k = 0; k < items; ++k) acc += in[i + k * stride];
    float total = (acc.x + acc.y) + (acc.z + acc.w);
    if (total == -1.0f) sink[i] = total; /* never true for the data: keeps the loads live */
}

__kernel void probe_write(__global float4* restrict out, float value, int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    for (int k = 0; k < items; ++k) out[i + k * stride] = (float4)(value);
}

__kernel void probe_copy(__global const float4* restrict in, __global float4* restrict out,
                         int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    for (int k = 0; k < items; ++k) out[i + k * stride] = in[i + k * stride];
}
"""

COMPUTE_SOURCE = r"""
/* clmodes throughput probe: float32 FMA chains of width WIDTH */
#pragma OPENCL FP_CONTRACT ON
#if WIDTH == 1
typedef float real;
#define HSUM(v) (v)
#elif WIDTH == 2
typedef float2 real;
#define HSUM(v) ((v).s0 + (v).s1)
#elif WIDTH == 4
typedef float4 real;
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif WIDTH == 8
typedef float8 real;
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#elif WIDTH == 16
typedef float16 real;
#define HSUM4(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#define HSUM(v) ((HSUM4((v).lo.lo) + HSUM4((v).lo.hi)) + (HSUM4((v).hi.lo) + HSUM4((v).hi.hi)))
#else
#error "WIDTH must be 1, 2, 4, 8 or 16"
#endif
#define STEP(x) x = x * a + b

__kernel void probe_fma(__global float* restrict sink, float a, float b, int iterations)
{
    real x0 = (real)(get_global_id(0) * 1e-7f);
    real x1 = x0 + (real)(0.1f), x2 = x0 + (real)(0.2f), x3 = x0 + (real)(0.3f);
    real x4 = x0 + (real)(0.4f), x5 = x0 + (real)(0.5f), x6 = x0 + (real)(0.6f);
    real x7 = x0 + (real)(0.7f);
    for (int i = 0; i < iterations; ++i) {
        STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7);
    }
    real s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    sink[get_global_id(0)] = HSUM(s);
}
"""

READ = Kernel(MEMORY_SOURCE, "probe_read")
WRITE = Kernel(MEMORY_SOURCE, "probe_write")
COPY = Kernel(MEMORY_SOURCE, "probe_copy")
WIDTH_NAMES = {1: "float", 2: "float2", 4: "float4", 8: "float8", 16: "float16"}


def compute_kernel(width: int) -> Kernel:
    """The FMA-chain kernel for one vector width (1, 2, 4, 8 or 16 floats)."""
    if width not in WIDTH_NAMES:
        raise ValueError(f"probe widths are {sorted(WIDTH_NAMES)}, not {width!r}")
    return Kernel(COMPUTE_SOURCE, "probe_fma", defines={"WIDTH": width})


def launch_small(stream: Stream, widths: tuple[int, ...]) -> None:
    """Every probe kernel once, on a tiny in-bounds range: under COMPILE_ONLY (or while
    gathering) the verdict is QUEUE and nothing runs; were it EXECUTE, it would be harmless."""
    buffer = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, 64 * 16)
    stream.launch(READ, 16, None, buffer, buffer, 1)
    stream.launch(WRITE, 16, None, buffer, 1.0, 1)
    stream.launch(COPY, 16, None, buffer, buffer, 1)
    for width in widths:
        stream.launch(compute_kernel(width), 16, None, buffer, 1.0, 0.0, 1)
