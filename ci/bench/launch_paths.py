"""Launch paths of `bench_core.py`: per-launch overhead and the cost of a dropped launch.

Part of `bench_core.py` (parts 2 and 3 of its docstring). `stream.launch` (EXECUTE)
against calling the pyopencl kernel directly (`set_scalar_arg_dtypes`, same device,
profiling queue, on a context of its own: on a context clmodes manages, pyopencl's
`Program.build` goes through clmodes' hooks), in interleaved rounds, free-running and host side only (a
marker waiting on a user event holds each queue during the loop); then `stream.launch` of
the obtained kernel under COMPILE_AND_AUTOTUNE (verdict COMPILE) and COMPILE_ONLY (verdict
QUEUE). The caller has turned PoCL's kernel cache and pyopencl's cache off.
"""

from __future__ import annotations

import dataclasses
import gc
import statistics

import numpy as np
import pyopencl as cl

import clmodes
from benchlib import paired, rotated, salt_counter, timed
from clmodes import Kernel, ProcessMode, ProcessModeOverride

TINY_SOURCE = """\
#define CLM_SALT {salt}
__kernel void tiny(__global float *buf, int n)
{{
    int i = get_global_id(0);
    if (i < n)
        buf[i] += 1.0f + (float)(CLM_SALT % 2) * 1e-9f;
}}
"""

GSIZE = (64,)
WARMUP_LAUNCHES = 200
DROPPED_ROUNDS = 10

_salts = salt_counter(500_000)


@dataclasses.dataclass
class Sides:
    """The tiny kernel both ways: clmodes' stream and kernel, pyopencl's queue and kernel,
    one buffer each (every launch adds 1 to each element)."""

    stream: clmodes.Stream
    plain: cl.Context  # the pyopencl side's own (a queue's `context` is a fresh handle)
    kernel: Kernel
    buf_clm: cl.Buffer
    queue: cl.CommandQueue
    knl: cl.Kernel
    buf_pcl: cl.Buffer
    n: np.int32 = np.int32(64)

    def clm(self, count: int) -> None:
        launch, kernel, buf, n = self.stream.launch, self.kernel, self.buf_clm, self.n
        for _ in range(count):
            launch(kernel, GSIZE, None, buf, n)

    def direct(self, count: int) -> None:
        knl, queue, buf, n = self.knl, self.queue, self.buf_pcl, self.n
        for _ in range(count):
            knl(queue, GSIZE, None, buf, n)

    def bare(self, count: int) -> None:
        """The least a launch can cost from Python: `enqueue_nd_range_kernel` of a kernel
        whose arguments were set once before the loop (no argument handling, no checks)."""
        knl, queue, enqueue = self.knl, self.queue, cl.enqueue_nd_range_kernel
        knl.set_args(self.buf_pcl, self.n)
        for _ in range(count):
            enqueue(queue, knl, GSIZE, None)

    def set_and_enqueue(self, count: int) -> None:
        """The least a launch that sets its arguments costs: `set_args` (scalar dtypes
        preset) and `enqueue_nd_range_kernel`, nothing else."""
        knl, queue, enqueue, buf, n = self.knl, self.queue, cl.enqueue_nd_range_kernel, self.buf_pcl, self.n
        for _ in range(count):
            knl.set_args(buf, n)
            enqueue(queue, knl, GSIZE, None)

    def context_of(self, queue: cl.CommandQueue) -> cl.Context:
        return self.stream.queue.context if queue is self.stream.queue else self.plain

    def finish(self) -> None:
        self.stream.finish()
        self.queue.finish()


def make_sides(client: clmodes.Client) -> Sides:
    device = client.device.cl_device
    plain = cl.Context([device])  # the raw side's own (see the docstring)
    mf = cl.mem_flags

    def zeros(ctx: cl.Context) -> cl.Buffer:
        return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.float32))

    source = TINY_SOURCE.format(salt=next(_salts))
    queue = cl.CommandQueue(plain, device, properties=cl.command_queue_properties.PROFILING_ENABLE)
    knl = cl.Kernel(cl.Program(plain, source).build(devices=[device]), "tiny")
    knl.set_scalar_arg_dtypes([None, np.int32])
    return Sides(client.stream("bench-launch"), plain, Kernel(source, "tiny"), zeros(client.context),
                 queue, knl, zeros(plain))


def warm_up(sides: Sides) -> None:
    """Obtain/build, PoCL's work-group function generation at first enqueue."""
    if clmodes.process_mode().name != "EXECUTE":
        raise RuntimeError("launch benchmark must run under EXECUTE")
    if sides.stream.launch(sides.kernel, GSIZE, None, sides.buf_clm, sides.n) is None:
        raise RuntimeError("EXECUTE launch was dropped")
    sides.direct(1)
    sides.finish()
    sides.clm(WARMUP_LAUNCHES)
    sides.direct(WARMUP_LAUNCHES)
    sides.bare(WARMUP_LAUNCHES)
    sides.set_and_enqueue(WARMUP_LAUNCHES)
    sides.finish()


# Per-launch seconds of each round: clmodes, pyopencl's kernel call, bare enqueue, set_args
# and enqueue.
Times = tuple[list[float], list[float], list[float], list[float]]


def measure(sides: Sides, rounds: int, per_round: int,
            gated: bool) -> Times:
    """Per-launch seconds of each round, sides alternating first.

    Free-running: the device executes while the loop enqueues (on PoCL its worker
    threads share the host's cores with the loop). Gated: a marker waiting on a user
    event holds the queue, so the loop times the host-side enqueue path alone.
    """
    clm_times: list[float] = []
    pcl_times: list[float] = []
    bare_times: list[float] = []
    set_times: list[float] = []
    order = ((sides.clm, sides.stream.queue, clm_times), (sides.direct, sides.queue, pcl_times),
             (sides.bare, sides.queue, bare_times), (sides.set_and_enqueue, sides.queue, set_times))
    interleaved(sides, order, rounds, per_round, gated)
    return clm_times, pcl_times, bare_times, set_times


def interleaved(sides: Sides, order, rounds: int, per_round: int, gated: bool) -> None:
    """Time each (launch function, its queue, the list its round times go to) per round,
    the order rotating; gated: each queue held by a marker on a user event meanwhile."""
    for r in range(rounds):
        for fn, q, out in rotated(order, r):
            gate = None
            if gated:
                gate = cl.UserEvent(sides.context_of(q))  # each side has its own context
                cl.enqueue_marker(q, wait_for=[gate])
            out.append(timed(fn, per_round))
            if gate is not None:
                gate.set_status(cl.command_execution_status.COMPLETE)
            q.finish()
        gc.collect()


def check_counts(sides: Sides, expected: int, expected_plain: int) -> None:
    """Each side incremented its buffer once per launch: every launch really ran (the
    direct and the bare side share the plain buffer)."""
    got_clm = np.empty(64, np.float32)
    got_pcl = np.empty(64, np.float32)
    cl.enqueue_copy(sides.stream.queue, got_clm, sides.buf_clm)
    cl.enqueue_copy(sides.queue, got_pcl, sides.buf_pcl)
    sides.finish()
    if not (np.allclose(got_clm, expected) and np.allclose(got_pcl, expected_plain)):
        raise RuntimeError(f"launch check failed: {got_clm[0]}, {got_pcl[0]} != "
                           f"{expected}, {expected_plain}")


def _us(times: list[float]) -> list[float]:
    return [t * 1e6 for t in times]


def launch_figures(free: Times, gated: Times, per_round: int, rounds: int) -> dict[str, object]:
    (clm_times, pcl_times, _, _), (gated_clm, gated_pcl, gated_bare, _) = free, gated
    clm_us, pcl_us, bare_us, set_us = (statistics.median(t) * 1e6 for t in free)
    gated_clm_us, gated_pcl_us, gated_bare_us, gated_set_us = (statistics.median(t) * 1e6 for t in gated)
    return {
        "global_size": GSIZE[0],
        "launches_per_side": per_round * rounds,
        "rounds": rounds,
        "clmodes_us": clm_us,
        "pyopencl_us": pcl_us,
        "ratio_clmodes_over_pyopencl": clm_us / pcl_us,
        "ratio_paired_median": paired(clm_times, pcl_times),
        "bare_enqueue_us": bare_us,
        "ratio_clmodes_over_bare_enqueue": clm_us / bare_us,
        "set_args_enqueue_us": set_us,
        "ratio_clmodes_over_set_args_enqueue": clm_us / set_us,
        "clmodes_rounds_us": _us(clm_times),
        "pyopencl_rounds_us": _us(pcl_times),
        "host_side": {
            "method": "queue held by a marker waiting on a user event while the loop enqueues",
            "clmodes_us": gated_clm_us,
            "pyopencl_us": gated_pcl_us,
            "ratio_clmodes_over_pyopencl": gated_clm_us / gated_pcl_us,
            "ratio_paired_median": paired(gated_clm, gated_pcl),
            "bare_enqueue_us": gated_bare_us,
            "ratio_clmodes_over_bare_enqueue": gated_clm_us / gated_bare_us,
            "ratio_paired_median_over_bare_enqueue": paired(gated_clm, gated_bare),
            "set_args_enqueue_us": gated_set_us,
            "ratio_clmodes_over_set_args_enqueue": gated_clm_us / gated_set_us,
            "ratio_set_args_enqueue_over_bare_enqueue": gated_set_us / gated_bare_us,
            "clmodes_added_us": gated_clm_us - gated_pcl_us,
            "clmodes_rounds_us": _us(gated_clm),
            "pyopencl_rounds_us": _us(gated_pcl),
        },
    }


def launch_overhead(sides: Sides, launches: int, rounds: int, log) -> dict[str, object]:
    """2. Per-launch overhead, free-running and host side only."""
    warm_up(sides)
    per_round = max(1, launches // rounds)
    free = measure(sides, rounds, per_round, gated=False)
    gated = measure(sides, rounds, per_round, gated=True)
    done = WARMUP_LAUNCHES + 2 * per_round * rounds  # per side: warm-up, free and gated
    check_counts(sides, 1 + done, 1 + 3 * done)  # the plain buffer: three sides
    result = launch_figures(free, gated, per_round, rounds)
    host = result["host_side"]
    log(f"  launch: clmodes {result['clmodes_us']:.2f} us, pyopencl {result['pyopencl_us']:.2f} us, "
        f"bare enqueue {result['bare_enqueue_us']:.2f} us (host side only: {host['clmodes_us']:.2f}"
        f" us, {host['pyopencl_us']:.2f} us, {host['bare_enqueue_us']:.2f} us)")
    return result


def dropped_launches(client: clmodes.Client, sides: Sides, dropped_calls: int,
                     clm_us: float, log) -> dict[str, object]:
    """3. Dropped launches of the (already obtained) tiny kernel."""
    for mode in (ProcessMode.COMPILE_AND_AUTOTUNE, ProcessMode.COMPILE_ONLY):
        with ProcessModeOverride(mode):
            if sides.stream.launch(sides.kernel, GSIZE, None, sides.buf_clm, sides.n) is not None:
                raise RuntimeError(f"launch under {mode.name} was not dropped")
    per_round = max(1, dropped_calls // DROPPED_ROUNDS)
    compile_times: list[float] = []
    queue_times: list[float] = []
    order = ((ProcessMode.COMPILE_AND_AUTOTUNE, compile_times),
             (ProcessMode.COMPILE_ONLY, queue_times))
    for r in range(DROPPED_ROUNDS):
        for mode, out in rotated(order, r):
            with ProcessModeOverride(mode):
                out.append(timed(sides.clm, per_round))
    if client.server.queued():
        raise RuntimeError("a QUEUE verdict for an obtained kernel queued it again")
    compile_us = statistics.median(compile_times) * 1e6
    queue_us = statistics.median(queue_times) * 1e6
    log(f"  dropped: COMPILE {compile_us:.3f} us, QUEUE {queue_us:.3f} us")
    return {
        "calls_per_mode": per_round * DROPPED_ROUNDS,
        "compile_verdict_us": compile_us,
        "queue_verdict_us": queue_us,
        "compile_verdict_rounds_us": _us(compile_times),
        "queue_verdict_rounds_us": _us(queue_times),
        "relative_to_execute_launch_clmodes": {
            "compile_verdict": compile_us / clm_us,
            "queue_verdict": queue_us / clm_us,
        },
    }


def run_launch(client: clmodes.Client, launches: int, rounds: int, dropped_calls: int,
               log) -> tuple[dict[str, object], dict[str, object]]:
    """Parts 2 and 3: (launch figures, dropped-launch figures)."""
    sides = make_sides(client)
    launch_result = launch_overhead(sides, launches, rounds, log)
    dropped_result = dropped_launches(client, sides, dropped_calls,
                                      launch_result["clmodes_us"], log)
    return launch_result, dropped_result
