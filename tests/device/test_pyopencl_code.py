"""Existing pyopencl code on contexts clmodes manages: built through the device's server,
counted, launches following the modes; other contexts left alone; adoption."""

from __future__ import annotations

import uuid

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest
from pyopencl.elementwise import ElementwiseKernel

import clmodes
from clmodes.pyopencl_hooks import entry_points, installed
from clmodes.pyopencl_hooks.held import first_kernel_name

pytestmark = pytest.mark.filterwarnings("ignore::pyopencl.CompilerWarning")


def _fresh_kernel(context: cl.Context) -> ElementwiseKernel:
    """An elementwise kernel no earlier test built (pyopencl memoizes per context)."""
    tag = uuid.uuid4().hex[:8]
    return ElementwiseKernel(context, "float *x", f"x[i] = 2 * x[i] + 1 /* {tag} */",
                             f"twice_{tag}")


def _statistics(mode: clmodes.ProcessMode, action) -> clmodes.ExecutionStatistics:
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(mode, collector):
        action()
    return clmodes.StatisticsReader(collector).statistics()


def test_the_entry_point_check_reads_attributes_from_code_nested_functions_included():
    """What `check` reads instead of the source: `self._prg` used in a nested lambda
    counts, a name only in a comment or a string does not."""
    def build(self, options=None):  # type: ignore[no-untyped-def]
        # self._context is only named here
        run = lambda: self._prg.build(options)  # noqa: E731
        return run, "self._source"

    names = entry_points.code_names(build.__code__)
    assert "_prg" in names and "build" in names
    assert "_context" not in names and "_source" not in names


@pytest.mark.parametrize("text", [
    "__kernel void f(__global float *x) {}",
    "kernel void f(global float *x) {}",
    "__kernel __attribute__((reqd_work_group_size(1,1,1))) void f(__global float *x) {}",
    "__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) f(__global float *x) {}",
    "__attribute__((vec_type_hint(float4))) kernel void f(global float *x) {}",
    "__kernel void __attribute__((reqd_work_group_size(1, 1, 1), vec_type_hint(float))) f(int n) {}",
    "// __kernel void commented(int n) {}\n/* kernel void neither(int n) {} */\n"
    "static float __attribute__((overloadable)) sq(float v) { return v * v; }\n"
    "__kernel void f(int n) {} __kernel void g(int n) {}",
])
def test_a_kernels_name_is_read_wherever_its_attributes_stand(text: str):
    """loopy writes `__kernel void __attribute__((...)) name(`: every one of its kernels
    was named `__attribute__` in misses, `--strict` and `--report`."""
    assert first_kernel_name(text) == "f"
    assert first_kernel_name("float helper(float x) { return x; }") is None


def test_pyopencl_entry_points_are_where_the_hooks_expect_them(client):
    """Fails loudly when a pyopencl upgrade moves what the hooks replace."""
    entry_points.check()
    assert installed()
    assert cl.Program.build.__wrapped__.__module__ == "pyopencl"
    assert cl._cl.enqueue_nd_range_kernel is cl.enqueue_nd_range_kernel
    assert cl.enqueue_nd_range_kernel.__wrapped__.__module__ in ("pyopencl._cl", None)


def test_program_on_a_managed_context_is_obtained_and_counted(client):
    queue = client.stream().queue
    x = cla.to_device(queue, np.arange(8, dtype=np.float32))
    kernel = _fresh_kernel(client.context)
    held = client.server.pyopencl.held()
    stats = _statistics(clmodes.ProcessMode.EXECUTE, lambda: kernel(x, queue=queue).wait())
    assert stats.compilation.compiled == stats.compilation.kernels == 1
    assert stats.compilation.builds == 1
    assert client.server.pyopencl.held() == held + 1
    assert x.get().tolist() == [2 * v + 1 for v in range(8)]


def test_launches_are_dropped_under_discarding_modes(client):
    queue = client.stream().queue
    x = cla.to_device(queue, np.arange(8, dtype=np.float32))
    kernel = _fresh_kernel(client.context)
    for mode in (clmodes.ProcessMode.COMPILE_ONLY, clmodes.ProcessMode.COMPILE_AND_AUTOTUNE):
        with clmodes.ProcessModeOverride(mode):
            event = kernel(x, queue=queue)
            (x * 3).get()  # array arithmetic: its own generated kernel, dropped too
        event.wait()  # a dropped launch still hands pyopencl an event to chain on
        assert x.get().tolist() == list(range(8)), mode
    kernel(x, queue=queue)
    assert x.get().tolist() == [2 * v + 1 for v in range(8)]


def test_stream_override_drops_pyopencl_launches_on_its_queue(client):
    stream = client.stream(f"test-{uuid.uuid4().hex[:8]}")
    x = cla.to_device(stream.queue, np.ones(4, dtype=np.float32))
    kernel = _fresh_kernel(client.context)
    with clmodes.StreamModeOverride(stream, clmodes.StreamMode.DISCARD):
        kernel(x, queue=stream.queue)
    assert x.get().tolist() == [1.0] * 4
    kernel(x, queue=stream.queue)
    assert x.get().tolist() == [3.0] * 4


def test_unmanaged_context_is_left_alone(client):
    context = cl.Context([client.device.cl_device])
    queue = cl.CommandQueue(context)
    x = cla.to_device(queue, np.arange(4, dtype=np.float32))
    kernel = _fresh_kernel(context)
    stats = _statistics(clmodes.ProcessMode.COMPILE_ONLY, lambda: kernel(x, queue=queue))
    assert stats.compilation.kernels == stats.compilation.builds == 0
    assert x.get().tolist() == [1.0, 3.0, 5.0, 7.0]  # ran for real: not clmodes' to drop


def test_adopted_context_keeps_the_users_buffers(client):
    context = cl.Context([client.device.cl_device])
    queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
    host = np.arange(16, dtype=np.float32)
    buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    adopted = clmodes.client(context=context)
    assert adopted.context is context and adopted.device == client.device
    assert clmodes.client(context=context) is adopted
    stream = adopted.stream(queue=queue)
    assert stream.queue is queue and adopted.stream(queue=queue) is stream
    kernel = clmodes.Kernel("__kernel void inc(__global float *a) { a[get_global_id(0)] += 1; }",
                            "inc")
    stream.launch(kernel, 16, None, buffer)
    x = cla.Array(queue, 16, np.float32, data=buffer)
    stats = _statistics(clmodes.ProcessMode.EXECUTE, lambda: _fresh_kernel(context)(x).wait())
    assert stats.compilation.compiled == 1  # pyopencl on the adopted context: through clmodes
    assert x.get().tolist() == [2 * (v + 1) + 1 for v in range(16)]
    assert clmodes.client(context=client.context) is client


def test_foreign_buffer_refusal_says_how_to_adopt(client, stream):
    context = cl.Context([client.device.cl_device])
    foreign = cl.Buffer(context, cl.mem_flags.READ_WRITE, 64)
    kernel = clmodes.Kernel("__kernel void inc(__global float *a) { a[get_global_id(0)] += 1; }",
                            "inc")
    with pytest.raises(clmodes.KernelLaunchError, match=r"clmodes\.client\(context="):
        stream.launch(kernel, 16, None, foreign)


def test_foreign_queue_is_refused_with_the_remedy(client):
    context = cl.Context([client.device.cl_device])
    with pytest.raises(ValueError, match=r"adopt its context first: clmodes\.client\(context="):
        client.stream(queue=cl.CommandQueue(context))


def test_multi_device_context_is_refused(client):
    if len(client.device.cl_device.platform.get_devices()) < 2:
        pytest.skip("one device on this platform")
    context = cl.Context(client.device.cl_device.platform.get_devices()[:2])
    with pytest.raises(ValueError, match="one-device contexts"):
        clmodes.client(context=context)


def test_warm_names_kernels_outside_clmodes_and_refuses_an_empty_warm(client):
    context = cl.Context([client.device.cl_device])
    queue = cl.CommandQueue(context)
    kernel = _fresh_kernel(context)

    def outside_only() -> None:
        kernel(cla.zeros(queue, 8, np.float32))

    with pytest.raises(clmodes.NothingWarmedError, match=rf"nothing gathered.*{kernel.name}"):
        clmodes.warm(outside_only)

    managed = _fresh_kernel(client.context)

    def mixed() -> None:
        outside_only()
        managed(cla.zeros(client.stream().queue, 8, np.float32))

    stats = clmodes.warm(mixed)
    assert kernel.name in stats.outside.names and stats.outside.kernels >= 1
    assert managed.name not in stats.outside.names
    assert stats.compilation.kernels >= 1


def test_program_from_binaries_on_a_managed_context_follows_the_modes_too(client):
    source = f"__kernel void bump(__global float *a) {{ a[get_global_id(0)] += 1; }} // {uuid.uuid4()}"
    elsewhere = cl.Context([client.device.cl_device])
    binary = cl.Program(elsewhere, source).build().get_info(cl.program_info.BINARIES)[0]
    program = cl.Program(client.context, [client.device.cl_device], [binary]).build()
    queue = client.stream().queue
    x = cla.to_device(queue, np.zeros(4, dtype=np.float32))
    bump = cl.Kernel(program, "bump")
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.COMPILE_ONLY):
        bump(queue, (4,), None, x.data).wait()
    assert x.get().tolist() == [0.0] * 4
    bump(queue, (4,), None, x.data)
    assert x.get().tolist() == [1.0] * 4


def test_build_error_on_a_managed_context_carries_the_compiler_log(client):
    broken = ElementwiseKernel(client.context, "float *x",
                               f"x[i] = undeclared_{uuid.uuid4().hex[:6]} * 2", "broken")
    queue = client.stream().queue
    with pytest.raises(cl.RuntimeError, match="undeclared_"):  # what pyopencl raises
        broken(cla.zeros(queue, 4, np.float32))
