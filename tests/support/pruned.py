"""Small workloads for the prune and last-use tests: each launches one kernel of its own
(one define apart), so each warm stores one binary that can be evicted alone.

Kept in a module so that subprocesses (`clmodes warm support.pruned:workload_a`) import
the very same kernels.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel

SOURCE = """
__kernel void scaled(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = FACTOR * x[i] + 1.0f;
}
"""
FACTORS = {"a": 2, "b": 3, "c": 5}
N = 256


def kernel(name: str) -> Kernel:
    return Kernel(SOURCE, "scaled", defines={"FACTOR": f"{FACTORS[name]}.0f"})


def launch(name: str) -> bool:
    """Launch workload `name`'s kernel on the default stream; True if the result is right
    (under EXECUTE; a dropped launch under a compile mode reads as whatever it held)."""
    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(N, dtype=np.float32))
    out = cla.zeros(stream.queue, N, np.float32)
    stream.launch(kernel(name), N, None, out.data, x.data, np.int32(N))
    return bool(np.allclose(out.get(), FACTORS[name] * np.arange(N) + 1))


def workload_a() -> None:
    launch("a")


def workload_b() -> None:
    launch("b")


def workload_c() -> None:
    launch("c")


# Tuned workloads (what a user's workloads are: a decision, its measurements and the
# winner's binary each): one tunable apiece, a define apart, so no two share a binary.
TUNED = "defghijk"
TUNED_N = 1024


def tunable(name: str) -> clmodes.Tunable:
    from support import tunables

    return tunables.make_tunable(f"pruned.{name}",
                                 defines={"ITEMS": [1, 4], "TAG": [str(TUNED.index(name))]})


def tuned(name: str) -> None:
    from support import tunables

    stream = clmodes.client().stream()
    out, x = tunables.buffers(stream, TUNED_N)
    tunable(name)(stream, out, x, TUNED_N)


for _name in TUNED:  # `clmodes warm support.pruned:workload_d` imports them by name
    globals()[f"workload_{_name}"] = (lambda name: lambda: tuned(name))(_name)


def warm_in_turn(names: str, pause: float = 0.05) -> dict:
    """Warm each named workload in this process, one after another; the time between each
    (what `--since` tests pick a moment from)."""
    times = {}
    for name in names:
        clmodes.warm(globals()[f"workload_{name}"])
        times[name] = time.time()
        time.sleep(pause)
    return times


def run(names: str) -> dict:
    """Run each named workload in EXECUTE; per name: right result, compiled, loaded."""
    report = {}
    for name in names:
        collector = clmodes.StatisticsCollector()
        with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
            ok = launch(name) if name in FACTORS else tuned(name) is None
        statistics = clmodes.StatisticsReader(collector).statistics()
        stats = statistics.compilation
        report[name] = {"ok": ok, "compiled": stats.compiled, "loaded": stats.loaded}
        if name in TUNED:
            report[name]["tuned"] = statistics.autotune.keys
    return report


def main(action: str, names: str) -> None:
    print(json.dumps((warm_in_turn if action == "warm" else run)(names)))
