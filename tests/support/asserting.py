"""Real pyopencl-style programs that check their results, for `clmodes warm` on workloads
that were never written to be warmable (`clmodes.warming`): under a discarding pass their
launches are dropped, so `assert np.allclose(...)` raises there, and the warm must keep
what was gathered before it."""

from __future__ import annotations

import os
import time

import numpy as np
import pyopencl.array as cla

import clmodes
from clmodes import Kernel, Tunable, kernel_variants

SCALE = Kernel("""
__kernel void scale(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = 3.0f * x[i];
}
""", "scale")
SHIFT = Kernel("""
__kernel void shift(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = x[i] + 1.0f;
}
""", "shift")
AFTER = Kernel("""
__kernel void after_the_check(__global float* out, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = 0.0f;
}
""", "after_the_check")
# `int v = 1.5f;`: clang's literal conversion warning, on by default, so PoCL's compiler
# writes "1 warning generated." to the process's standard error (file descriptor 2).
CHATTY = Kernel("""
__kernel void chatty(__global float* out, int n)
{
    int v = 1.5f;
    int i = get_global_id(0);
    if (i < n) out[i] = (float)v;
}
""", "chatty")
TWICE_SOURCE = """
__kernel void asserting_twice(__global float* out, __global const float* x, int n)
{
    int first = get_global_id(0) * ITEMS;
    for (int j = 0; j < ITEMS; ++j) {
        int i = first + j;
        if (i < n) out[i] = 2.0f * x[i];
    }
}
"""
N = 1024


def _launch_twice(stream, kernel, variant, out, x, n):
    return stream.launch(kernel, -(-n // variant["ITEMS"]), variant.local_size, out.data, x.data, n)


TWICE = Tunable("asserting-twice", key=lambda out, x, n: {"n": n},
                candidates=kernel_variants(Kernel(TWICE_SOURCE, "asserting_twice"), _launch_twice,
                                           defines={"ITEMS": [1, 4]}))


def _inputs():
    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(N, dtype=np.float32))
    return stream, x, cla.empty_like(x)


def checks_then_launches_more() -> None:
    """One kernel, a check of its output, then a kernel the check stands in front of."""
    stream, x, out = _inputs()
    stream.launch(SCALE, N, None, out.data, x.data, N)
    assert np.allclose(out.get(), 3 * x.get()), "scale computed wrong"
    stream.launch(AFTER, N, None, out.data, N)


def two_kernels_and_a_tune_then_checks() -> None:
    """Two kernels and a tuned operation, then the program's checks of all three."""
    stream, x, out = _inputs()
    shifted = cla.empty_like(x)
    twice = cla.empty_like(x)
    stream.launch(SCALE, N, None, out.data, x.data, N)
    stream.launch(SHIFT, N, None, shifted.data, x.data, N)
    TWICE(stream, twice, x, N)
    assert np.allclose(out.get(), 3 * x.get()), "scale of the two computed wrong"
    assert np.allclose(shifted.get(), x.get() + 1), "shift computed wrong"
    assert np.allclose(twice.get(), 2 * x.get()), "twice computed wrong"


def fails_for_real() -> None:
    """A program whose own check fails even when its launches run."""
    stream, x, out = _inputs()
    stream.launch(SCALE, N, None, out.data, x.data, N)
    assert np.allclose(out.get(), 4 * x.get()), "scale is not 4x"


def fails_before_launching() -> None:
    raise KeyError("no such input")


def chatty_on_a_terminal() -> None:
    """A kernel whose build makes the compiler write a warning on standard error (which
    clmodes logs), and a line written to descriptor 2 the way C code writes, after the
    progress line had time to be drawn (`PAUSE` seconds in the gathering pass)."""
    if clmodes.process_mode() is clmodes.ProcessMode.COMPILE_ONLY:
        time.sleep(float(os.environ.get("PAUSE", "0.8")))
        os.write(2, b"a line written to descriptor 2\n")
    stream, x, out = _inputs()
    stream.launch(CHATTY, N, None, out.data, N)
