"""A small pyopencl workload on an adopted context (the code's own context and queue,
handed to clmodes): for the cross-process tests of bundles and override capture."""

from __future__ import annotations

import json

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel

import clmodes

_state: dict[str, object] = {}


def _context() -> tuple[cl.Context, cl.CommandQueue]:
    if "context" not in _state:
        context = cl.Context([clmodes.client().device.cl_device])
        queue = cl.CommandQueue(context)
        clmodes.client(context=context).stream(queue=queue)
        _state.update(context=context, queue=queue,
                      kernel=ElementwiseKernel(context, "float *x", "x[i] = 3 * x[i] - 1",
                                               "small_affine"))
    return _state["context"], _state["queue"]


def workload() -> cla.Array:
    _unused, queue = _context()
    x = cla.to_device(queue, np.arange(256, dtype=np.float32))
    _state["kernel"](x)
    return cla.sum(x * x)


def execute() -> str:
    """Run it in EXECUTE: its result and statistics, as a JSON line."""
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        result = float(workload().get())
    return json.dumps({"result": result, **clmodes.StatisticsReader(collector).statistics().as_dict()})


def under_override() -> str:
    """Run it once under COMPILE_AND_AUTOTUNE, as a process that warms by itself would."""
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        workload()
    return json.dumps(clmodes.StatisticsReader(collector).statistics().as_dict())
