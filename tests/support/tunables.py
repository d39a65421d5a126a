"""A small tunable used by the autotune tests: `out = x * 2` with several launch shapes.

Kept in its own module so that subprocesses can import the very same tunable.
"""

from __future__ import annotations

import uuid

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, StatisticsReader, Tunable, kernel_variants
from support.devices import fresh

SOURCE = """
__kernel void twice(__global float* out, __global const float* x, int n)
{
    int first = get_global_id(0) * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        int i = first + j;
        if (i < n) out[i] = 2.0f * x[i];
    }
}
"""


def launch_twice(stream, kernel, variant, out, x, n):
    items = variant["ITEMS"]
    return stream.launch(kernel, -(-n // items), variant.local_size, out.data, x.data, n)


def make_tunable(name: str, source: str = SOURCE, **grid) -> Tunable:
    grid.setdefault("defines", {"ITEMS": [1, 4, 16]})
    candidates = kernel_variants(Kernel(source, "twice"), launch_twice, **grid)
    return Tunable(name, key=lambda out, x, n: {"n": n}, candidates=candidates)


def buffers(stream, n=4096, seed=0):
    x = cla.to_device(stream.queue, np.random.default_rng(seed).random(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    return out, x


def run_in_fresh_process(name: str, n: int) -> dict:
    """Used by test_store: tune (or reuse) a key in this process, report statistics."""
    stream = clmodes.client().stream()
    out, x = buffers(stream, n)
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        make_tunable(name)(stream, out, x, n)
    ok = bool(np.allclose(out.get(), 2 * x.get()))
    stats = clmodes.StatisticsReader(collector).statistics()
    return {"keys": stats.autotune.keys, "ok": ok, "winner": make_tunable(name).winner(stream, out, x, n)}


HEAVY = """
__kernel void heavy(__global float* a, int iterations)
{
    int i = get_global_id(0);
    float v = a[i];
    for (int k = 0; k < iterations; ++k) v = v * 0.999999f + 0.000001f;
    a[i] = v;
}
"""
WORKLOAD_TUNABLE = make_tunable("tests.workload")


def workload() -> dict:
    """A small workload: twelve demo kernels and one tuned operation. Returns checks."""
    from clmodes import demo

    result = demo.workload(256)
    stream = clmodes.client().stream()
    out, x = buffers(stream, 2048)
    WORKLOAD_TUNABLE(stream, out, x, 2048)
    if clmodes.process_mode() is not clmodes.ProcessMode.EXECUTE:
        return {}  # warmable: under warm the launches are dropped, so nothing is read back
    return {"demo_ok": bool(result[3] == 36.5), "tuned_ok": bool(np.allclose(out.get(), 2 * x.get()))}


def failing_workload() -> None:
    workload()
    raise ValueError("the workload failed on purpose")


def exiting_workload() -> None:
    """Ends the process from inside the workload: a `BaseException` that is not an
    `Exception`, which a warm never survives (all or nothing, like Ctrl-C)."""
    workload()
    raise SystemExit("the workload exited on purpose")


# Candidates with SCALE=undeclared_scale do not compile: the tune drops them with the
# build error, and `clmodes tune show` shows the log's first line.
BROKEN_CANDIDATE_TUNABLE = make_tunable(
    "tests.broken_candidate", SOURCE.replace("2.0f * x[i]", "SCALE * x[i]"),
    defines={"ITEMS": [1, 4], "SCALE": ["2.0f", "undeclared_scale"]})


def broken_candidate_workload() -> None:
    stream = clmodes.client().stream()
    out, x = buffers(stream, 1024)
    BROKEN_CANDIDATE_TUNABLE(stream, out, x, 1024)


def heavy_workload(seconds_hint: int = 1) -> np.ndarray:
    """Seconds of device work when executed; a buffer it overwrites."""
    stream = clmodes.client().stream()
    global HEAVY_BUFFER
    HEAVY_BUFFER = cla.to_device(stream.queue, np.full(1 << 16, 5.0, np.float32))
    stream.launch(Kernel(HEAVY, "heavy"), HEAVY_BUFFER.size, None, HEAVY_BUFFER.data, 200_000)
    return HEAVY_BUFFER.get()


def unique(prefix="t"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def keys(collector):
    return StatisticsReader(collector).statistics().autotune.keys


def slow_and_fast_candidates() -> dict:
    """`twice` with ITEMS=4, and a far slower kernel computing the same answer."""
    base = Kernel(fresh(SOURCE), "twice")
    fast = kernel_variants(base, launch_twice, defines={"ITEMS": [4]})
    slow_kernel = Kernel(fresh("""
        __kernel void slow(__global float* out, __global const float* x, int n) {
            int i = get_global_id(0); float acc = x[i];
            for (int k = 0; k < 20000; ++k) acc = acc * 0.999f + 0.001f;
            if (i < n) out[i] = 2.0f * x[i] + (acc > 1e30f ? 1.0f : 0.0f); }"""), "slow")

    def slow(stream, out, x, n):
        return stream.launch(slow_kernel, n, None, out.data, x.data, n)

    return {**fast, "slow": slow}
