"""DESIGN §2 Autotune: every rule, on real OpenCL."""

import uuid


from clmodes import (
    Kernel,
    StatisticsReader,
    kernel_variants,
)
from clmodes.tune import grid
from support import fresh
from support.tunables import SOURCE, launch_twice


def unique(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def keys(collector):
    return StatisticsReader(collector).statistics().autotune.keys


def slow_and_fast_candidates() -> dict:
    base = Kernel(fresh(SOURCE), "twice")
    fast = kernel_variants(base, launch_twice, defines={"ITEMS": [4]})
    slow_kernel = Kernel(fresh("""
        __kernel void slow(__global float* out, __global const float* x, int n) {
            int i = get_global_id(0); float acc = x[i];
            for (int k = 0; k < 20000; ++k) acc = acc * 0.999f + 0.001f;
            if (i < n) out[i] = acc; }"""), "slow")

    def slow(stream, out, x, n):
        return stream.launch(slow_kernel, n, None, out.data, x.data, n)

    return {**fast, "slow": slow}


def test_grid_names_and_filter():
    variants = grid({"B": [1, 2], "A": ["x"]}, local_sizes=[8, (4, 2)],
                    where=lambda v: not (v["B"] == 2 and v.local_size == (8,)))
    assert [v.name for v in variants] == [
        "A=x,B=1 local=8", "A=x,B=1 local=4x2", "A=x,B=2 local=4x2",
    ]


