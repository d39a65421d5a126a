"""Real libraries' kernels (tests/corpus/real) through clmodes' compile queue.

Per library, every program the device builds is queued at once and obtained with one
flush: all kernels are obtained, in the few builds batching promises (ArrayFire's and
pyopencl's in one, CLBlast's in at most three), and kernels launched from the batch
compute bit for bit what they compute built alone with plain pyopencl (CLBlast's Xaxpy,
whose `real_arg` is chosen by `#if PRECISION`; pyopencl's complex elementwise).
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

from clmodes import Kernel, ProcessMode, ProcessModeOverride, StatisticsCollector, StatisticsReader
from corpus.real_libraries import LibraryCase, library_cases
from support import fresh

TARGET_BUILDS = {"arrayfire": 1, "clblast": 3, "pyopencl": 1, "clpeak": 1}


@pytest.fixture(autouse=True)
def _batch_all(monkeypatch):
    """These tests are about what batching computes on real code: every unit is batched,
    whatever preparing it costs (`batch.costs` would build some big units alone)."""
    monkeypatch.setenv("CLMODES_BATCH_ALL", "1")


def _runnable(case: LibraryCase, device: cl.Device) -> bool:
    return "fp64" not in case.requires or "cl_khr_fp64" in device.extensions.split()


def _built_entries(device: cl.Device, case: LibraryCase) -> tuple[str, ...]:
    """Entry points this device builds (none where the program does not build at all:
    clpeak's int8 one on Intel's CPU runtime, whose compiler defines
    cl_khr_integer_dot_product but not `dot_acc_sat`; clpeak skips it too)."""
    context = cl.Context([device])
    try:
        program = cl.Program(context, case.source).build(options=case.build_options())
    except cl.Error:
        return ()
    names = set(program.get_info(cl.program_info.KERNEL_NAMES).split(";"))
    return tuple(e for e in case.entries if e in names)


_obtained: dict[tuple[str, str], tuple[dict[str, Kernel], int]] = {}


def _obtain(stream, group: str) -> tuple[dict[str, Kernel], int]:
    """Every kernel of the group obtained in one flush (once per device and group)."""
    key = (stream.device.label, group)
    if key not in _obtained:
        device = stream.device.cl_device
        kernels: dict[str, Kernel] = {}
        for case in library_cases():
            if case.group == group and _runnable(case, device):
                source = fresh(case.source)
                for entry in _built_entries(device, case):
                    kernels[f"{case.label}:{entry}"] = Kernel(
                        source, entry, defines=dict(case.defines), options=case.options)
        collector = StatisticsCollector()
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            for kernel in kernels.values():
                stream.server.queue_kernel(kernel)
            stream.server.flush()
        missing = [name for name, k in kernels.items() if not stream.server.is_obtained(k)]
        assert not missing, f"{group}: not obtained: {missing[:5]}"
        _obtained[key] = kernels, StatisticsReader(collector).statistics().compilation.builds
    return _obtained[key]


@pytest.mark.parametrize("group", sorted(TARGET_BUILDS))
def test_library_batches(stream, group):
    kernels, builds = _obtain(stream, group)
    programs = len({name.split(":")[0] for name in kernels})
    if programs < 2:
        pytest.skip(f"{group}: {programs} program on {stream.device.label}: nothing to batch")
    assert builds <= TARGET_BUILDS[group], f"{group}: {len(kernels)} kernels in {builds} builds"


def _reference(device, case: LibraryCase, entry: str, args, global_size, local_size):
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    program = cl.Program(context, case.source).build(options=case.build_options())
    moved = [cla.to_device(queue, a) if isinstance(a, np.ndarray) else a for a in args]
    getattr(program, entry)(queue, global_size, local_size,
                            *[m.data if isinstance(m, cla.Array) else m for m in moved])
    return [m.get() for m in moved if isinstance(m, cla.Array)]


def _batched(stream, kernel, args, global_size, local_size, python_args):
    moved = [cla.to_device(stream.queue, a) if isinstance(a, np.ndarray) else a for a in args]
    stream.launch(kernel, global_size, local_size,
                  *[m.data if isinstance(m, cla.Array) else p for m, p in zip(moved, python_args)])
    stream.finish()
    return [m.get() for m in moved if isinstance(m, cla.Array)]


def test_clblast_xaxpy_batched_matches_alone(stream):
    kernels, _ = _obtain(stream, "clblast")
    case = next(c for c in library_cases() if c.label == "xaxpy_32")
    kernel = kernels["xaxpy_32:Xaxpy"]
    n = 256
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    args = [np.int32(n), np.float32(0.75), x, np.int32(0), np.int32(1), y, np.int32(0), np.int32(1)]
    python = [n, 0.75, None, 0, 1, None, 0, 1]  # clmodes converts Python numbers itself
    expected = _reference(stream.device.cl_device, case, "Xaxpy", args, (n,), (64,))
    got = _batched(stream, kernel, args, (n,), (64,), python)
    assert got[1].tobytes() == expected[1].tobytes()


def test_pyopencl_complex_batched_matches_alone(stream):
    kernels, _ = _obtain(stream, "pyopencl")
    case = next(c for c in library_cases() if c.label == "cfloat_axpbyz")
    kernel = kernels["cfloat_axpbyz:cfloat_axpbyz"]
    n = 64
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    args = [np.zeros(n, np.complex64), x, y, np.int64(n)]
    expected = _reference(stream.device.cl_device, case, "cfloat_axpbyz", args, (n,), None)
    got = _batched(stream, kernel, args, (n,), None, [None, None, None, n])
    assert got[0].tobytes() == expected[0].tobytes()
    np.testing.assert_allclose(got[0], x * y + 2 * x, rtol=1e-5)
