"""The workload of `bench_warm.py`: 16 fixed kernels and 2 tunables doing real work.

    import warm_workload; warm_workload.workload()          # size from $WARM_BENCH_SIZE
    warm_workload.workload(1 << 20)                          # or given

What it does on `n` float32 elements (every size decided from `n`, never from data, so it
behaves the same under every process mode, docs/contract.md, Modes):

1. uploads an input vector;
2. runs 16 *stages*, each a kernel of one shared source compiled with another `OP`
   define (so 16 distinct kernels whose entry point and helper functions share names:
   they must batch with per-unit renaming), ping-ponging between two buffers. Each stage
   does `ROUNDS` rounds of arithmetic per element: this is where most of the work is;
3. `warm_bench.poly`: a tunable elementwise polynomial, 6 candidates (ITEMS per
   work-item in {1, 4, 16} x local size in {16, 128}: 3 kernels);
4. `warm_bench.partial_sum`: a tunable work-group reduction into 64 partial sums,
   4 candidates (WG in {32, 64, 128, 256}: 4 kernels);
5. reads the 64 partial sums back (`.get()`) and returns them.

So 23 kernels, 2 tune keys per size (both keyed by `n`).
"""

from __future__ import annotations

import os

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, Tunable, kernel_variants

DEFAULT_SIZE = 1 << 20
STAGES = 16
ROUNDS = 24
GROUPS = 64  # partial sums of the reduction

STAGE_SOURCE = """
static float shape(float v, float s)
{
    return v * s + 0.25f / (1.0f + v * v);
}

__kernel void stage(__global float* y, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    const float s = 0.75f + 0.01f * OP;
    for (int k = 0; k < ROUNDS; ++k) {
#if OP % 4 == 0
        v = shape(v, s);
#elif OP % 4 == 1
        v = s * v - 0.1f * v * v * v + 0.05f;
#elif OP % 4 == 2
        v = shape(v, s) + 0.01f * (float)(k & 3);
#else
        v = 0.5f * (v + s / (1.0f + fabs(v)));
#endif
    }
    y[i] = v;
}
"""

POLY_SOURCE = """
static float shape(float v)
{
    return ((0.01f * v - 0.02f) * v + 0.9f) * v + 0.001f;
}

__kernel void poly(__global float* y, __global const float* x, int n)
{
    int first = get_global_id(0) * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        int i = first + j;
        if (i < n) {
            float v = x[i];
            for (int k = 0; k < ROUNDS; ++k) v = shape(v);
            y[i] = v;
        }
    }
}
"""

SUM_SOURCE = """
__kernel void partial_sum(__global float* partial, __global const float* x, int n)
{
    __local float scratch[WG];
    int lid = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i];
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
"""

STAGE_KERNELS = [
    Kernel(STAGE_SOURCE, "stage", defines={"OP": op, "ROUNDS": ROUNDS}) for op in range(STAGES)
]


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def _launch_poly(stream, kernel, variant, y, x, n):
    work_items = -(-n // variant["ITEMS"])
    local = variant.local_size[0]
    return stream.launch(kernel, _round_up(work_items, local), local, y.data, x.data, n)


def _launch_sum(stream, kernel, variant, partial, x, n):
    wg = variant["WG"]
    return stream.launch(kernel, GROUPS * wg, wg, partial.data, x.data, n)


POLY = Tunable(
    "warm_bench.poly",
    key=lambda y, x, n: {"n": n},
    candidates=kernel_variants(
        Kernel(POLY_SOURCE, "poly", defines={"ROUNDS": ROUNDS}), _launch_poly,
        defines={"ITEMS": [1, 4, 16]}, local_sizes=[16, 128],
    ),
)
# local_size is set per variant below so that it always equals WG.
PARTIAL_SUM = Tunable(
    "warm_bench.partial_sum",
    key=lambda partial, x, n: {"n": n, "groups": GROUPS},
    candidates={
        name: candidate
        for wg in (32, 64, 128, 256)
        for name, candidate in kernel_variants(
            Kernel(SUM_SOURCE, "partial_sum"), _launch_sum, defines={"WG": [wg]},
            local_sizes=[wg],
        ).items()
    },
    # Each work-group size splits the sum another way: the 64 partial sums differ from
    # candidate to candidate (their total does not), so outputs are not compared.
    check=False,
)


def size_from_env() -> int:
    return int(os.environ.get("WARM_BENCH_SIZE", DEFAULT_SIZE))


def host_input(n: int) -> np.ndarray:
    """Deterministic and cheap to make at any size (values in [0, 1))."""
    return (np.arange(n, dtype=np.uint32) % 1021).astype(np.float32) / np.float32(1021)


def workload(size: int | None = None) -> np.ndarray:
    """Run the workload once on the default stream; returns the 64 partial sums."""
    n = size_from_env() if size is None else int(size)
    stream = clmodes.client().stream()
    src = cla.to_device(stream.queue, host_input(n))
    dst = cla.empty(stream.queue, n, np.float32)
    for kernel in STAGE_KERNELS:
        stream.launch(kernel, n, None, dst.data, src.data, n)
        src, dst = dst, src
    POLY(stream, dst, src, n)
    partial = cla.empty(stream.queue, GROUPS, np.float32)
    PARTIAL_SUM(stream, partial, dst, n)
    return partial.get()
