"""A small built-in workload, and the demonstration `clmodes demo` runs on it.

Twelve variants of one kernel source, launched once each: warmed by `clmodes.warm`, they
are all gathered without building anything (COMPILE_ONLY) and then obtained in a single
batch build (COMPILE_AND_AUTOTUNE), which is what the demonstration shows. It returns
its report; the command prints it.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, TextIO

import numpy as np
import pyopencl.array as cla

from clmodes.runtime import client
from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
    process_mode,
)
from clmodes.kernel import Kernel
from clmodes.warming import warm

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
B = 0.5


def workload(n: int = 1024) -> np.ndarray:
    """Run every variant once on the default stream and return the last output."""
    stream = client().stream()
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    for kernel in KERNELS:
        stream.launch(kernel, n, None, out.data, x.data, B, n)
    return out.get()


@dataclasses.dataclass(frozen=True)
class DemoReport:
    """What `run` saw: the statistics after each of warm's passes, and the real run."""

    device: str
    kernels: int
    after_compile_only: ExecutionStatistics
    after_compile_and_autotune: ExecutionStatistics
    result_ok: bool
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def run(progress: TextIO | None = None) -> DemoReport:
    """Warm `workload` with `clmodes.warm` on the default device, then run it for real.

    warm does both passes; this only watches: a collector of its own, open around the
    warm, is read when warm's COMPILE_ONLY pass returns, so the report can show that the
    gathering pass built nothing. The final EXECUTE run checks the results, i.e. that
    the batched build computes what each variant computes alone. The kernels go to
    the default store as any warm's do; `progress` is passed on to `warm`.
    """
    collector = StatisticsCollector()
    reader = StatisticsReader(collector)
    after_gathering: list[ExecutionStatistics] = []

    def observed() -> None:
        workload()
        if process_mode() is ProcessMode.COMPILE_ONLY:
            after_gathering.append(reader.statistics())

    started = time.perf_counter()
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        warmed = warm(observed, progress=progress)
    result = workload()
    return DemoReport(
        device=client().device.label,
        kernels=len(KERNELS),
        after_compile_only=after_gathering[0],
        after_compile_and_autotune=warmed,
        result_ok=bool(result[3] == 3 * len(KERNELS) + B),
        seconds=round(time.perf_counter() - started, 3),
    )
