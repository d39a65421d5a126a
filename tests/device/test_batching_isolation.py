"""Batching real code: isolation costs, units that build alone, batch sizes, argument types."""

from __future__ import annotations

import logging

import numpy as np
import pyopencl.array as cla
import pytest

from clmodes import Kernel, KernelBuildError, KernelLaunchError, ProcessMode, ProcessModeOverride
from support import fresh, is_oclgrind

GOOD = """
inline float helper(float x) { return x * FACTOR; }
__kernel void apply(__global float* out, __global const float* x)
{
    int i = get_global_id(0);
    out[i] = helper(x[i]);
}
"""

BROKEN = """
__kernel void apply(__global float* out, __global const float* x)
{
    out[0] = undeclared_thing * FACTOR;
}
"""


def _run(stream, kernel, n=8):
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    stream.launch(kernel, n, None, out.data, x.data)
    return out.get()


def _queue(stream, kernels, n=8):
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        for kernel in kernels:
            stream.launch(kernel, n, None, out.data, x.data)


def test_failing_units_cost_two_builds_plus_one_each(stream, build_spy, monkeypatch):
    if is_oclgrind(stream.device):
        pytest.skip("Oclgrind's compiler ignores #line file names")
    monkeypatch.setenv("CLMODES_MAX_BATCH", "1000")
    good_source, broken_source = fresh(GOOD), fresh(BROKEN)
    good = [Kernel(good_source, "apply", defines={"FACTOR": f}) for f in range(24)]
    broken = [Kernel(broken_source, "apply", defines={"FACTOR": f}) for f in range(12)]
    kernels = [k for pair in zip(good, broken + broken) for k in pair]
    _queue(stream, kernels)
    # The first obtain builds the queue: 1 failed batch + 12 alone + 1 rebuild of the rest.
    np.testing.assert_array_equal(_run(stream, good[3]), np.arange(8) * 3)
    assert build_spy.calls <= 2 + len(broken)
    for factor, kernel in enumerate(good):
        np.testing.assert_array_equal(_run(stream, kernel), np.arange(8) * factor)
    with pytest.raises(KernelBuildError) as caught:
        _run(stream, broken[5])
    # Its own log: its own line number, not a position in the batch.
    line = broken_source.splitlines().index("    out[0] = undeclared_thing * FACTOR;") + 1
    assert "undeclared_thing" in caught.value.build_log
    assert f":{line}:" in caught.value.build_log
    assert "clmodes-" not in caught.value.build_log
    assert build_spy.calls <= 2 + len(broken)


def test_unit_with_unknown_conditional_builds_alone_and_says_why(stream, build_spy, caplog):
    """`__INCLUDE_LEVEL__` depends on where it is read: no probe can answer it. (A name
    the compiler can answer, `__has_builtin(x)`, batches: tests/device/test_compiler_probe.py.)"""
    source = fresh(
        "#if __INCLUDE_LEVEL__ > 4\n#define LIKELY(x) __builtin_expect(!!(x), 1)\n"
        "#else\n#define LIKELY(x) (x)\n#endif\n" + GOOD.replace("x[i]", "(LIKELY(i >= 0) ? x[i] : 0)")
    )
    siblings = [Kernel(fresh(GOOD), "apply", defines={"FACTOR": f}) for f in range(3)]
    odd = Kernel(source, "apply", defines={"FACTOR": 5})
    with caplog.at_level(logging.DEBUG, logger="clmodes"):
        _queue(stream, [*siblings, odd])
        np.testing.assert_array_equal(_run(stream, odd), np.arange(8) * 5)
    assert build_spy.calls == 2  # the siblings' batch, and the odd unit alone
    assert any("__INCLUDE_LEVEL__" in r.getMessage() and "alone" in r.getMessage()
               for r in caplog.records)
    assert "__INCLUDE_LEVEL__" in build_spy.sources[1]  # its own text, not pcpp's guess


@pytest.mark.oclgrind
def test_include_dirs_do_not_split_batches(stream, build_spy, tmp_path):
    for name, factor in (("a", 2), ("b", 3)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "factor.h").write_text(
            f"#ifndef FACTOR_H\n#define FACTOR_H\n#define FACTOR {factor}\n#endif\n")
    source = fresh('#include "factor.h"\n' + GOOD)
    first = Kernel(source, "apply", options=["-I", str(tmp_path / "a")])
    second = Kernel(source, "apply", options=[f"-I{tmp_path / 'b'}"])
    _queue(stream, [first, second])
    np.testing.assert_array_equal(_run(stream, first), np.arange(8) * 2)
    np.testing.assert_array_equal(_run(stream, second), np.arange(8) * 3)
    assert build_spy.calls == 1


def test_batches_are_cut_at_the_runtime_limit(stream, build_spy, monkeypatch):
    monkeypatch.setenv("CLMODES_MAX_BATCH", "2")
    source = fresh(GOOD)
    kernels = [Kernel(source, "apply", defines={"FACTOR": f}) for f in range(5)]
    _queue(stream, kernels)
    np.testing.assert_array_equal(_run(stream, kernels[4]), np.arange(8) * 4)
    assert build_spy.calls == 3  # 2 + 2 + 1, back to back in the first obtain
    for factor, kernel in enumerate(kernels):
        np.testing.assert_array_equal(_run(stream, kernel), np.arange(8) * factor)
    assert build_spy.calls == 3


AMBIGUOUS = """
#if __INCLUDE_LEVEL__ > 4 || defined(USE_INT)
typedef int value_t;
#else
typedef float value_t;
#endif
__kernel void store(__global value_t* out, value_t v) { out[get_global_id(0)] = v; }
"""


def test_a_typedef_that_cannot_be_resolved_refuses_python_numbers(stream):
    kernel = Kernel(fresh(AMBIGUOUS), "store", defines={"USE_INT": 1})
    out = cla.zeros(stream.queue, 4, np.int32)
    with pytest.raises(KernelLaunchError, match=r"argument 1 \(value_t v\).*numpy"):
        stream.launch(kernel, 4, None, out.data, 7)
    stream.launch(kernel, 4, None, out.data, np.int32(7))
    assert out.get().tolist() == [7, 7, 7, 7]


@pytest.mark.oclgrind
def test_active_typedef_branch_converts_python_numbers(stream, build_spy):
    source = fresh(AMBIGUOUS.replace("__INCLUDE_LEVEL__ > 4 || ", ""))
    as_int = Kernel(source, "store", defines={"USE_INT": 1})
    as_float = Kernel(source, "store")
    ints, floats = cla.zeros(stream.queue, 4, np.int32), cla.zeros(stream.queue, 4, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        stream.launch(as_int, 4, None, ints.data, 7)
        stream.launch(as_float, 4, None, floats.data, 2.5)
    stream.launch(as_int, 4, None, ints.data, 7)
    stream.launch(as_float, 4, None, floats.data, 2.5)
    assert ints.get().tolist() == [7] * 4  # not 1088421888, the bits of 7.0f
    assert floats.get().tolist() == [2.5] * 4
    assert build_spy.calls == 1
