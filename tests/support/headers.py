"""Kernels that include headers a test edits between processes (issue 24, item 1).

Run in a fresh process. `run(folder)` launches two kernels that include `val.h` from
`folder` (`-I`): `fill`, which batches, and `fill_alone`, which builds alone (its
conditional reads `__has_builtin`, which a compiler may predefine). It warms them
(`warm=True`) or runs them, and reports what they wrote and what was compiled or loaded.
`tune(name, folder)` calls a tunable whose candidates include `a.h` and `b.h`, and
reports what its tune measured.
"""

from __future__ import annotations

import json

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, Tunable
from support.tunables import buffers

FILL = """#include "val.h"
__kernel void fill(__global float* out) { out[get_global_id(0)] = VAL; }
"""
ALONE = """#include "val.h"
#ifdef __has_builtin
#endif
__kernel void fill_alone(__global float* out) { out[get_global_id(0)] = VAL + 10.0f; }
"""
SCALED = """#include "NAME.h"
__kernel void scale_NAME(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = SCALE * x[i];
}
"""


def workload(folder: str) -> list[cla.Array]:
    stream = clmodes.client().stream()
    outs = [cla.zeros(stream.queue, 4, np.float32) for _ in range(2)]
    for (source, name), out in zip([(FILL, "fill"), (ALONE, "fill_alone")], outs):
        stream.launch(Kernel(source, name, options=["-I", folder]), (4,), None, out.data)
    return outs


def run(folder: str, warm: bool = False) -> str:
    values = None
    if warm:
        statistics = clmodes.warm(lambda: workload(folder))
    else:
        collector = clmodes.StatisticsCollector()
        with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
            values = [float(out.get()[0]) for out in workload(folder)]
        statistics = clmodes.StatisticsReader(collector).statistics()
    return json.dumps({"values": values, **statistics.as_dict()["compilation"]})


def make(name: str, folder: str) -> Tunable:
    def candidate(header: str):
        kernel = Kernel(SCALED.replace("NAME", header), f"scale_{header}", options=["-I", folder])
        return lambda stream, out, x, n: stream.launch(kernel, (n,), None, out.data, x.data, n)
    return Tunable(name, key=lambda out, x, n: {"n": n},
                   candidates={"a": candidate("a"), "b": candidate("b")})


def tune(name: str, folder: str, n: int = 2048) -> str:
    stream = clmodes.client().stream()
    out, x = buffers(stream, n)
    tunable = make(name, folder)
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, n)
    record = clmodes.default_store().get_tune_json(*tunable.tune_key(stream, (out, x, n))) or {}
    return json.dumps({
        "keys": clmodes.StatisticsReader(collector).statistics().autotune.keys,
        "ok": bool(np.allclose(out.get(), 2 * x.get())),
        "measured_here": record.get("measured_here"),
        "identities": record.get("identities"),
    })
