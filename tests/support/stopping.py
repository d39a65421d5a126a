"""A workload stopped at a chosen moment of its warm, for the tests of what an interrupted
warm keeps (`clmodes.warming`, `clmodes.store.tuning`): SIGINT, SIGTERM, SIGKILL or an
exception, sent by the process to itself in the gathering pass, the tuning pass or while
the warm persists. `STOP` names the way, `STOP_AT` the moment (unset: it runs whole).

In EXECUTE it checks its result, so a warmed run that computes wrong fails."""

from __future__ import annotations

import os
import signal

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, Tunable, kernel_variants

SOURCE = """
__kernel void thrice(__global float* out, __global const float* x, int n)
{
    int first = get_global_id(0) * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        int i = first + j;
        if (i < n) out[i] = 3.0f * x[i];
    }
}
"""
N = (1024, 2048)


def _launch(stream, kernel, variant, out, x, n):
    return stream.launch(kernel, -(-n // variant["ITEMS"]), variant.local_size, out.data, x.data, n)


THRICE = Tunable("stopping-thrice", key=lambda out, x, n: {"n": n},
                 candidates=kernel_variants(Kernel(SOURCE, "thrice"), _launch,
                                            defines={"ITEMS": [1, 4, 16]}))
MOMENTS = {"gathering": clmodes.ProcessMode.COMPILE_ONLY,
           "tuning": clmodes.ProcessMode.COMPILE_AND_AUTOTUNE}


def stop_now() -> None:
    """Stop the way `$STOP` names: a signal to this very process, or an exception."""
    way = os.environ.get("STOP", "SIGINT")
    if way == "exception":
        raise RuntimeError("the workload failed on purpose")
    os.kill(os.getpid(), getattr(signal, way))


def workload() -> None:
    stream = clmodes.client().stream()
    for n in N:
        x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
        out = cla.zeros_like(x)
        THRICE(stream, out, x, n)
        if clmodes.process_mode() is clmodes.ProcessMode.EXECUTE:
            assert np.array_equal(out.get(), 3 * x.get()), "a warmed run computed wrong"
    moment = MOMENTS.get(os.environ.get("STOP_AT", ""))
    if moment is not None and clmodes.process_mode() is moment:
        stop_now()


def stop_while_persisting() -> None:
    """Make the warm's persisting step stop this process (`$STOP`), as a Ctrl-C or a
    kill landing in `[persisting]` does."""
    from clmodes import capture

    persist = capture.persist

    def stopping(*args, **kwargs):
        persist(*args, **kwargs)  # the binaries are captured, nothing is committed yet
        stop_now()
    capture.persist = stopping


if os.environ.get("STOP_AT") == "persisting":  # the CLI imports the workload's module
    stop_while_persisting()
