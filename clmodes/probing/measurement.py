"""Measuring a probe: bandwidth (read, write, copy) and compute (per vector width) on the
probe's stream, each figure timed by `clmodes.probing.timing`.

Bandwidth buffers hold 1/64 of global memory, raised to 4x the global-memory cache (so
data streams from memory, not from cache), within 16..256 MiB and the device's largest
allocation; filled with 1.0f first. A device whose read of that takes over
`max_launch_s` (a simulator) is measured over a smaller range. Compute launches are
calibrated to about `target_launch_s` (~2 ms): on a CPU runtime sharing its cores, 10 ms
launches measured half the throughput of 2 ms ones (a preempted worker stalls the whole
launch), and the probe wants the device's peak, not the machine's current share.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable

import numpy as np
import pyopencl as cl

from clmodes._version import __version__
from clmodes.kernel import Kernel
from clmodes.measure import build_queued, executing, gather
from clmodes.probing.kernels import (
    CHAINS, COPY, ITEMS, READ, WIDTH_NAMES, WRITE, compute_kernel, launch_small,
)
from clmodes.probing.result import Figure, ProbePolicy, ProbeResult
from clmodes.probing.timing import Timing, rounds, run_seconds
from clmodes.stream import Stream

log = logging.getLogger("clmodes")

MIB = 1 << 20
GROUPS_PER_CU = 8
Plan = tuple[Kernel, tuple[object, ...], int]  # kernel, arguments, bytes moved per work-item


def measure_result(stream: Stream, policy: ProbePolicy) -> ProbeResult:
    """Build every probe kernel in one batch, then measure every figure under one
    EXECUTE override (calibration, warm-ups and samples alike)."""
    started = time.perf_counter()
    device = stream.device
    gather(stream, lambda: launch_small(stream, policy.widths))
    build_queued(stream)  # every probe kernel in one batch
    with executing(stream):
        bandwidth, size = measure_bandwidth(stream, policy)
        compute = measure_compute(stream, policy)
    return ProbeResult(
        device=device.label,
        model=device.fingerprint.model,
        exact=device.fingerprint.exact,
        bandwidth=bandwidth,
        compute=compute,
        buffer_bytes=size,
        statistic=(
            f"median device time (profiling events START..END) of the last two rounds of "
            f"{policy.samples} launches; rounds after one warm-up launch until two consecutive "
            f"round medians agree within {policy.tolerance:.0%} (at most {policy.max_rounds})"
        ),
        tolerance=policy.tolerance,
        seconds=time.perf_counter() - started,
        measured_at=time.time(),
        clmodes=__version__,
    )


def local_size(stream: Stream, policy: ProbePolicy) -> int:
    """The policy's work-group size, or the device's maximum if smaller."""
    return max(1, min(policy.local_size, stream.device.cl_device.max_work_group_size))


def buffer_bytes(cl_device: cl.Device) -> int:
    """The size of each bandwidth buffer, from the device's memory (see module notes)."""
    size = max(cl_device.global_mem_size // 64, 4 * cl_device.global_mem_cache_size)
    size = max(16 * MIB, min(size, 256 * MIB))
    return min(size, cl_device.max_mem_alloc_size)


def filled_buffers(stream: Stream, size: int, quantum: int) -> tuple[cl.Buffer, cl.Buffer, int]:
    """Source and target buffers of `size` bytes (halved while allocation fails, down to
    16 MiB), every page touched and holding valid floats to read; and their size."""
    context, queue = stream.context, stream.queue
    while True:
        try:
            source = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
            target = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
            for buffer in (source, target):
                cl.enqueue_fill_buffer(queue, buffer, np.array(1.0, np.float32), 0, size)
            queue.finish()
            return source, target, size
        except (cl.Error, MemoryError) as error:
            if size <= 16 * MIB:
                raise
            log.info("probe: %d MiB buffers failed (%s); halving", size // MIB, error)
            size = max(quantum, size // 2 // quantum * quantum)


def measure_bandwidth(stream: Stream, policy: ProbePolicy) -> tuple[tuple[Figure, ...], int]:
    """The read, write and copy figures, and the size of each buffer."""
    local = local_size(stream, policy)
    quantum = local * ITEMS * 16
    size = max(quantum, buffer_bytes(stream.device.cl_device) // quantum * quantum)
    source, target, size = filled_buffers(stream, size, quantum)
    plans: dict[str, Plan] = {
        "read": (READ, (source, target, ITEMS), ITEMS * 16),
        "write": (WRITE, (target, 2.0, ITEMS), ITEMS * 16),
        "copy": (COPY, (source, target, ITEMS), 2 * ITEMS * 16),
    }
    global_size = size // (ITEMS * 16)

    def launch(name: str) -> None:
        kernel, arguments, _ = plans[name]
        stream.launch(kernel, global_size, local, *arguments)

    global_size = fitted_global_size(stream, lambda: launch("read"), global_size, local, policy)
    figures = []
    for name, (_, _, per_item_bytes) in plans.items():
        run_seconds(stream, functools.partial(launch, name))  # warm-up
        timing = rounds(stream, functools.partial(launch, name), policy)
        figures.append(make_figure(
            name, "GB/s", global_size * per_item_bytes, timing, global_size, local, ITEMS))
    return tuple(figures), size


def fitted_global_size(
    stream: Stream, read: Callable[[], None], global_size: int, local: int, policy: ProbePolicy
) -> int:
    """The bandwidth range, shrunk for a device far slower than its memory suggests (a
    simulator) so that one read takes about a quarter of `max_launch_s`. `read` launches
    the read kernel over the current range (`global_size` is read when it runs)."""
    run_seconds(stream, read)  # warm-up: code generation on PoCL
    first = run_seconds(stream, read)
    if first <= policy.max_launch_s:
        return global_size
    fitted = max(local, int(global_size * policy.max_launch_s / 4 / first) // local * local)
    log.info("probe: slow device; bandwidth measured over %d KiB", fitted * ITEMS * 16 >> 10)
    return fitted


def measure_compute(stream: Stream, policy: ProbePolicy) -> tuple[Figure, ...]:
    """One GFLOP/s figure per vector width of the policy."""
    cl_device = stream.device.cl_device
    local = local_size(stream, policy)
    global_size = max(1, cl_device.max_compute_units) * GROUPS_PER_CU * local
    sink = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, global_size * 4)
    figures = []
    for width in policy.widths:
        kernel = compute_kernel(width)

        def launch(iterations: int, kernel: Kernel = kernel) -> None:
            stream.launch(kernel, global_size, local, sink, 0.9999, 1e-4, iterations)

        iterations = calibrated_iterations(stream, launch, policy)
        timing = rounds(stream, functools.partial(launch, iterations), policy)
        flops = global_size * width * CHAINS * 2 * iterations
        figures.append(make_figure(
            WIDTH_NAMES[width], "GFLOP/s", flops, timing, global_size, local, iterations))
    return tuple(figures)


def calibrated_iterations(
    stream: Stream, launch: Callable[[int], None], policy: ProbePolicy
) -> int:
    """The loop count (a kernel argument) that makes one launch take about
    `target_launch_s`, after a warm-up launch (code generation on PoCL)."""
    iterations = 64
    run_seconds(stream, lambda: launch(iterations))  # warm-up
    for _ in range(6):
        seconds = run_seconds(stream, lambda: launch(iterations))
        if policy.target_launch_s / 2 <= seconds <= policy.target_launch_s * 2:
            break
        wanted = int(iterations * policy.target_launch_s / max(seconds, 1e-7))
        wanted = max(16, min(wanted, 1 << 24))
        if wanted == iterations:
            break
        iterations = wanted
    return iterations


def make_figure(
    name: str, unit: str, work: int, timing: Timing, global_size: int, local: int, per_item: int
) -> Figure:
    """A figure from its timing; an unsettled one is logged (it is still reported)."""
    if not timing.stable:
        log.info("probe: %s did not settle within the tolerance (last two rounds %.0f%% apart)",
                 name, 100 * timing.spread)
    return Figure(
        name=name, unit=unit, value=work / timing.seconds / 1e9, seconds=timing.seconds,
        work=work, global_size=global_size, local_size=local, per_item=per_item,
        samples=timing.samples, rounds=timing.rounds, stable=timing.stable,
        spread=timing.spread,
    )
