"""Batched compile queue: docs/contract.md, Compile queue and batching."""

import numpy as np
import pyopencl.array as cla
import pytest

from clmodes import Kernel, KernelBuildError, ProcessMode, ProcessModeOverride, StatisticsReader
from support import fresh
from clmodes.source_records import kept_as_source

VARIANT_SRC = """
#define TILE 4
typedef float real;
inline real helper(real x) { return x * FACTOR + TILE; }
__kernel void apply(__global real* out, __global const real* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = helper(x[i]);
}
"""

# Another source with the same helper name, macro name and typedef name.
OTHER_SRC = """
#define TILE 100
typedef int real;
inline float helper(float x) { return x - TILE; }
__kernel void apply(__global float* out, __global const float* x, int n)
{
    int i = get_global_id(0);
    if (i < n) out[i] = helper(x[i]);
}
"""


def _run(stream, kernel, n=8):
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    stream.launch(kernel, n, None, out.data, x.data, n)
    return out.get()


@pytest.mark.oclgrind
def test_compile_only_builds_nothing_then_one_batch(stream, collector, build_spy):
    source = fresh(VARIANT_SRC)
    kernels = [Kernel(source, "apply", defines={"FACTOR": f}) for f in range(12)]
    reader = StatisticsReader(collector)
    n = 8
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros(stream.queue, n, np.float32)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        for kernel in kernels:
            assert stream.launch(kernel, n, None, out.data, x.data, n) is None
    assert build_spy.calls == 0
    assert reader.statistics().compilation.kernels == 0
    assert stream.server.queued() >= 12

    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        assert stream.launch(kernels[0], n, None, out.data, x.data, n) is None
        assert build_spy.calls == 1
    # Closing the override persisted kernels[0], the one used, built alone (capture.py);
    # on PoCL with its kernel cache on, the batch's source record, with no build.
    captured = 1 if kept_as_source(stream.server.device) else 2
    assert build_spy.calls == captured
    stats = reader.statistics().compilation
    assert (stats.kernels, stats.compiled, stats.loaded, stats.builds) == (12, 12, 0, 1)
    assert all(stream.server.is_obtained(k) for k in kernels)

    for factor in (0, 5, 11):
        np.testing.assert_allclose(_run(stream, kernels[factor]), np.arange(n) * factor + 4)
    assert build_spy.calls == captured  # executing obtained kernels builds nothing more


@pytest.mark.oclgrind
def test_same_names_in_different_sources_batch_together(stream, build_spy):
    first = Kernel(fresh(VARIANT_SRC), "apply", defines={"FACTOR": 2})
    second = Kernel(fresh(OTHER_SRC), "apply")
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        _run(stream, first)
        _run(stream, second)
    np.testing.assert_allclose(_run(stream, first), np.arange(8) * 2 + 4)
    assert build_spy.calls == 1
    np.testing.assert_allclose(_run(stream, second), np.arange(8) - 100)
    assert build_spy.calls == 1


@pytest.mark.oclgrind
def test_macro_from_one_unit_does_not_leak_into_the_next(stream, build_spy):
    definer = Kernel(fresh("#define LEAK 1\n" + VARIANT_SRC), "apply", defines={"FACTOR": 1})
    checker = Kernel(
        fresh(
            "#ifdef LEAK\n#error LEAK leaked from another unit\n#endif\n"
            "#ifdef FACTOR\n#error FACTOR leaked from another unit\n#endif\n" + OTHER_SRC
        ),
        "apply",
    )
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        _run(stream, definer)
        _run(stream, checker)
    np.testing.assert_allclose(_run(stream, checker), np.arange(8) - 100)
    assert build_spy.calls == 1


@pytest.mark.oclgrind
def test_broken_unit_is_isolated(stream, collector, build_spy):
    good = [Kernel(fresh(VARIANT_SRC), "apply", defines={"FACTOR": f}) for f in range(5)]
    broken = Kernel(fresh("__kernel void broken(__global float* a) { a[0] = nope; }"), "broken")
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        for kernel in good[:2] + [broken] + good[2:]:
            if kernel is broken:
                stream.launch(kernel, 1, None, None)
            else:
                _run(stream, kernel)
    with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
        with pytest.raises(KernelBuildError) as caught:
            stream.launch(broken, 1, None, None)
    error = caught.value
    assert error.kernel_name == "broken"
    assert "nope" in error.build_log
    assert stream.device.label in str(error)
    assert build_spy.calls > 1  # the batch was split to isolate the broken unit
    for factor, kernel in enumerate(good):
        np.testing.assert_allclose(_run(stream, kernel), np.arange(8) * factor + 4)
    stats = StatisticsReader(collector).statistics().compilation
    assert stats.compiled == 5 and stats.builds == build_spy.calls
    # Obtaining it again raises the same error without building again.
    calls = build_spy.calls
    with pytest.raises(KernelBuildError):
        stream.launch(broken, 1, None, None)
    assert build_spy.calls == calls


def test_missing_entry_point_names_the_kernel(stream):
    kernel = Kernel(fresh(VARIANT_SRC), "no_such_kernel", defines={"FACTOR": 1})
    with pytest.raises(KernelBuildError, match="no_such_kernel"):
        stream.launch(kernel, 1, None)


def test_options_that_are_not_defines_split_batches(stream, build_spy):
    plain = Kernel(fresh(VARIANT_SRC), "apply", options=["-DFACTOR=3"])
    fast = Kernel(fresh(VARIANT_SRC), "apply", defines={"FACTOR": 3},
                  options=["-cl-fast-relaxed-math"])
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY):
        _run(stream, plain)
        _run(stream, fast)
    _run(stream, plain)
    assert build_spy.calls == 2
    np.testing.assert_allclose(_run(stream, fast), np.arange(8) * 3 + 4)


def test_two_entry_points_of_one_source_share_a_unit(stream, build_spy):
    source = fresh(
        "__kernel void inc(__global int* a) { a[get_global_id(0)] += 1; }\n"
        "__kernel void dec(__global int* a) { a[get_global_id(0)] -= 1; }\n"
    )
    inc, dec = Kernel(source, "inc"), Kernel(source, "dec")
    buf = cla.zeros(stream.queue, 4, np.int32)
    stream.launch(inc, 4, None, buf.data)
    stream.launch(inc, 4, None, buf.data)
    stream.launch(dec, 4, None, buf.data)
    assert buf.get().tolist() == [1, 1, 1, 1]
    assert build_spy.calls == 1
    assert build_spy.sources[0].count("__kernel void inc") == 1


def test_build_error_line_numbers_are_the_users(stream):
    if "oclgrind" in stream.device.label.lower():
        pytest.skip("Oclgrind's compiler ignores #line")
    source = "__kernel void k(__global float* a)\n{\n    a[0] = missing_name;\n}\n"
    with pytest.raises(KernelBuildError) as caught:
        stream.launch(Kernel(source + f"/* {id(stream)} */", "k"), 1, None, None)
    assert ":3:" in caught.value.build_log
