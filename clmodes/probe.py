"""`clmodes.probe(client)`: a device's sustained memory bandwidth and float32 compute
throughput, measured once per device model, cached in the store, used to score kernels.

Why: a tune result says which candidate is fastest, not whether the fastest is any good.
Scoring a kernel against the device's roofline (`clmodes.roofline_fraction`) needs the
device's peaks. Datasheet peaks are not what a driver sustains, and a CPU runtime has no
datasheet, so they are measured, with the instrument autotuning uses (profiling events,
START..END of each launch's event: device time only, no host overhead).

What is measured, on the client's dedicated stream "clmodes.probe":
- bandwidth, in GB/s (1e9 bytes per second): `read` (each work-item sums `items` float4
  loads strided by the global size, so neighbouring work-items touch neighbouring
  addresses), `write` (stores a constant) and `copy` (its bytes count the load and the
  store, as STREAM does). Each buffer holds 1/64 of global memory, raised to 4x the
  global-memory cache (so data streams from memory, not from cache), within 16..256 MiB
  and the device's largest allocation; filled with 1.0f first. A device whose read of
  that takes over `max_launch_s` (a simulator) is measured over a smaller range.
- compute, in GFLOP/s: 8 independent chains of `x = x * a + b` per work-item (FP_CONTRACT
  on: the compiler fuses each step into one FMA where the hardware has one; the `fma()`
  and `mad()` builtins are avoided, PoCL lowers them to library calls ~30x slower), for
  float, float4 and float8; 2 FLOPs per element per step. 8 work-groups of 256 (or the
  device maximum) per compute unit; the iteration count, a kernel argument, is calibrated
  until a launch takes about `target_launch_s`.

How a figure is timed: one warm-up launch (PoCL generates code at the first enqueue per
local size), then rounds of `samples` launches; a round's statistic is the median of its
device times. Rounds stop when two consecutive medians agree within `tolerance` (5%) —
the device reached a steady state — or after `max_rounds`, or once `budget_s` is spent
(two rounds at least); `stable` records which. The figure is the median of those last two
rounds' samples. Not the fastest sample, as STREAM reports: on PoCL the fastest of a few
dozen launches was seen 2x above the median and above the hardware's peak (timestamps of
a preempted worker thread), while medians of two probes agreed within ~10-20% on a busy
2-core machine. Compute launches are kept short (~2 ms): on a CPU runtime sharing its
cores, 10 ms launches measured half the throughput of 2 ms ones (a preempted worker
stalls the whole launch), and the probe wants the device's peak, not the machine's
current share. Bounded like this a probe takes a few seconds on PoCL with 2 cores.

Modes (DESIGN §2). A measurement opens `StreamModeOverride(stream, EXECUTE)` on its
stream, covering calibration, warm-up and samples, so a probe measures under
`COMPILE_AND_AUTOTUNE` while every other stream's launches are dropped. Under
`COMPILE_ONLY` a probe that is not cached launches its kernels on that stream *without*
the override: their verdict is QUEUE, so they join the compile queue and build with the
next batch; nothing is measured or cached, and it returns None. A cached result is
returned in every mode (reading it measures nothing). Its kernels go through
`stream.launch`, so they count as obtained (compiled or loaded) like any other.

A probe is **not an autotune key**: `AutotuneStatistics.keys` counts tunable keys
measured, each one a tune entry in the store and in bundles, each a choice among
candidates for one call's shapes. A probe chooses nothing and is per device model, not
per call; counting it would make `keys` disagree with the tune entries, and a CI check
"a warmed workload tunes nothing" (keys == 0) would fail for a workload that refreshes
its probe although every tunable is cached. It shows elsewhere: in the log (INFO), the
store (`clmodes cache info`) and the kernels it obtains.

Cached per device **model** fingerprint (like tune results: peaks are the hardware's,
a driver update rarely moves them), as JSON; `refresh=True` re-measures and replaces.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyopencl as cl

from clmodes._version import __version__
from clmodes.client import Client
from clmodes.client import client as get_client
from clmodes.device import Device
from clmodes.errors import ClmodesError
from clmodes.execution import ProcessMode, StreamMode, StreamModeOverride, process_mode
from clmodes.kernel import Kernel
from clmodes.store import default_store
from clmodes.stream import Stream

log = logging.getLogger("clmodes")

PROBE_VERSION = 1  # bump when the method changes: older cached results are re-measured
STREAM_NAME = "clmodes.probe"
MIB = 1 << 20
ITEMS = 4  # float4 elements per work-item in the bandwidth kernels
CHAINS = 8  # independent FMA chains per work-item in the compute kernel
GROUPS_PER_CU = 8

MEMORY_SOURCE = r"""
/* clmodes throughput probe: global-memory bandwidth */
__kernel void probe_read(__global const float4* restrict in, __global float* restrict sink,
                         int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    float4 acc = (float4)(0.0f);
    for (int k = 0; k < items; ++k) acc += in[i + k * stride];
    float total = (acc.x + acc.y) + (acc.z + acc.w);
    if (total == -1.0f) sink[i] = total; /* never true for the data: keeps the loads live */
}

__kernel void probe_write(__global float4* restrict out, float value, int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    for (int k = 0; k < items; ++k) out[i + k * stride] = (float4)(value);
}

__kernel void probe_copy(__global const float4* restrict in, __global float4* restrict out,
                         int items)
{
    size_t i = get_global_id(0), stride = get_global_size(0);
    for (int k = 0; k < items; ++k) out[i + k * stride] = in[i + k * stride];
}
"""

COMPUTE_SOURCE = r"""
/* clmodes throughput probe: float32 FMA chains of width WIDTH */
#pragma OPENCL FP_CONTRACT ON
#if WIDTH == 1
typedef float real;
#define HSUM(v) (v)
#elif WIDTH == 2
typedef float2 real;
#define HSUM(v) ((v).s0 + (v).s1)
#elif WIDTH == 4
typedef float4 real;
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif WIDTH == 8
typedef float8 real;
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#elif WIDTH == 16
typedef float16 real;
#define HSUM4(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#define HSUM(v) ((HSUM4((v).lo.lo) + HSUM4((v).lo.hi)) + (HSUM4((v).hi.lo) + HSUM4((v).hi.hi)))
#else
#error "WIDTH must be 1, 2, 4, 8 or 16"
#endif
#define STEP(x) x = x * a + b

__kernel void probe_fma(__global float* restrict sink, float a, float b, int iterations)
{
    real x0 = (real)(get_global_id(0) * 1e-7f);
    real x1 = x0 + (real)(0.1f), x2 = x0 + (real)(0.2f), x3 = x0 + (real)(0.3f);
    real x4 = x0 + (real)(0.4f), x5 = x0 + (real)(0.5f), x6 = x0 + (real)(0.6f);
    real x7 = x0 + (real)(0.7f);
    for (int i = 0; i < iterations; ++i) {
        STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7);
    }
    real s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    sink[get_global_id(0)] = HSUM(s);
}
"""

READ = Kernel(MEMORY_SOURCE, "probe_read")
WRITE = Kernel(MEMORY_SOURCE, "probe_write")
COPY = Kernel(MEMORY_SOURCE, "probe_copy")
WIDTH_NAMES = {1: "float", 2: "float2", 4: "float4", 8: "float8", 16: "float16"}


def compute_kernel(width: int) -> Kernel:
    if width not in WIDTH_NAMES:
        raise ValueError(f"probe widths are {sorted(WIDTH_NAMES)}, not {width!r}")
    return Kernel(COMPUTE_SOURCE, "probe_fma", defines={"WIDTH": width})


class ProbeError(ClmodesError):
    """A probe that could not measure (a launch dropped, a timer that reads nothing)."""


@dataclasses.dataclass(frozen=True)
class ProbePolicy:
    """How long and how hard a probe measures."""

    samples: int = 5  # launches per round
    tolerance: float = 0.05  # two consecutive round medians this close: stable
    max_rounds: int = 8
    budget_s: float = 1.0  # wall time of rounds per figure (two rounds at least)
    target_launch_s: float = 0.002  # compute launches are calibrated to about this
    max_launch_s: float = 0.1  # a slower bandwidth launch shrinks the range it covers
    widths: tuple[int, ...] = (1, 4, 8)
    local_size: int = 256  # or the device's maximum work-group size, if smaller


@dataclasses.dataclass(frozen=True)
class Figure:
    """One measured figure and how it was measured."""

    name: str  # read | write | copy | float | float4 | float8 ...
    unit: str  # "GB/s" or "GFLOP/s"
    value: float  # work / seconds / 1e9
    seconds: float  # the statistic: device time of one launch (see `ProbeResult.statistic`)
    work: int  # bytes moved (bandwidth) or FLOPs (compute) by one launch
    global_size: int
    local_size: int
    per_item: int  # float4 elements (bandwidth) or loop iterations (compute) per work-item
    samples: int  # launches the statistic is over (the last two rounds)
    rounds: int
    stable: bool  # two consecutive round medians agreed within the tolerance
    spread: float  # relative difference of the last two round medians


@dataclasses.dataclass(frozen=True)
class ProbeResult:
    """A device's measured peaks. Bandwidth figures in GB/s, compute in GFLOP/s."""

    device: str  # the label of the device measured
    model: str  # its model fingerprint: what the result is cached under
    exact: str
    bandwidth: tuple[Figure, ...]  # read, write, copy
    compute: tuple[Figure, ...]  # one per vector width
    buffer_bytes: int  # size of each bandwidth buffer
    statistic: str
    tolerance: float
    seconds: float  # wall time of the whole probe
    measured_at: float  # time.time()
    clmodes: str
    version: int = PROBE_VERSION

    def figure(self, name: str) -> Figure:
        for figure in (*self.bandwidth, *self.compute):
            if figure.name == name:
                return figure
        raise KeyError(f"no probe figure named {name!r}")

    @property
    def read_gbps(self) -> float:
        return self.figure("read").value

    @property
    def write_gbps(self) -> float:
        return self.figure("write").value

    @property
    def copy_gbps(self) -> float:
        return self.figure("copy").value

    @property
    def bandwidth_gbps(self) -> float:
        """The roofline's bandwidth: the best of read, write and copy."""
        return max(f.value for f in self.bandwidth)

    @property
    def compute_gflops(self) -> float:
        """The roofline's compute ceiling: the best vector width."""
        return max(f.value for f in self.compute)

    @property
    def ridge_intensity(self) -> float:
        """FLOPs per byte above which a kernel is compute-bound on this device."""
        return self.compute_gflops / self.bandwidth_gbps

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, value: object) -> "ProbeResult":
        """Parse a stored result; ValueError if it is malformed or of another version."""
        if not isinstance(value, dict):
            raise ValueError("not an object")
        if value.get("version") != PROBE_VERSION:
            raise ValueError(f"probe format {value.get('version')!r}, not {PROBE_VERSION}")
        try:
            fields = {f.name for f in dataclasses.fields(cls)}
            parsed = {k: v for k, v in value.items() if k in fields}
            parsed["bandwidth"] = tuple(_figure(f) for f in value["bandwidth"])
            parsed["compute"] = tuple(_figure(f) for f in value["compute"])
            result = cls(**parsed)
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed probe result ({error})") from error
        if {f.name for f in result.bandwidth} != {"read", "write", "copy"} or not result.compute:
            raise ValueError("malformed probe result (figures missing)")
        if not all(f.value > 0 for f in (*result.bandwidth, *result.compute)):
            raise ValueError("malformed probe result (a figure is not positive)")
        return result


def _figure(value: object) -> Figure:
    if not isinstance(value, dict):
        raise TypeError("a figure is not an object")
    figure = Figure(**value)
    if not isinstance(figure.value, (int, float)) or not isinstance(figure.name, str):
        raise TypeError("a figure's name or value has the wrong type")
    return figure


# -- the cache ---------------------------------------------------------------------------

_results: dict[str, ProbeResult] = {}  # model -> result
_locks: dict[str, threading.Lock] = {}
_lock = threading.Lock()


def _resolve(device: object) -> Client:
    if isinstance(device, Client):
        return device
    return get_client(device)


def _model_lock(model: str) -> threading.Lock:
    with _lock:
        return _locks.setdefault(model, threading.Lock())


def cached(device: object = None) -> ProbeResult | None:
    """The cached probe result of a device (a `Client`, a `Device`, or what
    `clmodes.client()` takes), from memory or the store; None if none. Measures nothing."""
    model = device.fingerprint.model if isinstance(device, Device) else \
        _resolve(device).device.fingerprint.model
    found = _results.get(model)
    if found is not None:
        return found
    stored = default_store().get_probe(model)
    if stored is None:
        return None
    try:
        found = ProbeResult.from_dict(stored)
    except ValueError as error:
        log.warning("clmodes store: unusable probe result for %s (%s); it will be re-measured",
                    model, error)
        return None
    with _lock:
        return _results.setdefault(model, found)


def forget() -> None:
    """Drop what memory holds (the store keeps its entries)."""
    with _lock:
        _results.clear()


# -- probing -------------------------------------------------------------------------------


def probe(
    client: object = None, *, refresh: bool = False, policy: ProbePolicy | None = None
) -> ProbeResult | None:
    """The device's peak bandwidth and compute: cached, else measured and cached.

    `client`: a `Client`, or what `clmodes.client()` takes (default: the default device).
    `refresh=True` measures again and replaces the cached result. Under `COMPILE_ONLY`
    an uncached probe only queues its kernels and returns None (see the module notes).
    """
    chosen = _resolve(client)
    policy = policy or ProbePolicy()
    if not refresh:
        found = cached(chosen)
        if found is not None:
            return found
    stream = chosen.stream(STREAM_NAME)
    if process_mode() is ProcessMode.COMPILE_ONLY:
        _launch_small(stream, policy)  # the stream's own verdict: QUEUE
        log.info("probe of %s: kernels queued (COMPILE_ONLY); nothing measured",
                 chosen.device.label)
        return None
    model = chosen.device.fingerprint.model
    with _model_lock(model):
        if not refresh and model in _results:  # measured by another thread meanwhile
            return _results[model]
        result = _measure(stream, policy)
        with _lock:
            _results[model] = result
        default_store().put_probe(model, result.as_dict())
    log.info(
        "probed %s in %.2f s: read %.3g, write %.3g, copy %.3g GB/s; %s GFLOP/s",
        result.device, result.seconds, result.read_gbps, result.write_gbps, result.copy_gbps,
        ", ".join(f"{f.name} {f.value:.3g}" for f in result.compute),
    )
    return result


def _launch_small(stream: Stream, policy: ProbePolicy) -> None:
    """Every probe kernel once, on a tiny in-bounds range: under COMPILE_ONLY (or while
    gathering) the verdict is QUEUE and nothing runs; were it EXECUTE, it would be harmless."""
    buffer = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, 64 * 16)
    stream.launch(READ, 16, None, buffer, buffer, 1)
    stream.launch(WRITE, 16, None, buffer, 1.0, 1)
    stream.launch(COPY, 16, None, buffer, buffer, 1)
    for width in policy.widths:
        stream.launch(compute_kernel(width), 16, None, buffer, 1.0, 0.0, 1)


def _measure(stream: Stream, policy: ProbePolicy) -> ProbeResult:
    started = time.perf_counter()
    device = stream.device
    with stream.gathering():
        _launch_small(stream, policy)
    stream.build_queued()  # every probe kernel in one batch
    with StreamModeOverride(stream, StreamMode.EXECUTE):
        bandwidth, size = _bandwidth(stream, policy)
        compute = _compute(stream, policy)
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


def _local_size(stream: Stream, policy: ProbePolicy) -> int:
    return max(1, min(policy.local_size, stream.device.cl_device.max_work_group_size))


def _device_seconds(event: cl.Event | None) -> float:
    if event is None:
        raise ProbeError("a probe launch was dropped; probes measure under an EXECUTE override")
    event.wait()
    return (event.profile.end - event.profile.start) * 1e-9


@dataclasses.dataclass
class _Timing:
    seconds: float
    samples: int
    rounds: int
    stable: bool
    spread: float


def _rounds(launch: Callable[[], cl.Event | None], policy: ProbePolicy) -> _Timing:
    """Rounds of launches until two consecutive round medians agree (see module notes)."""
    started = time.perf_counter()
    rounds: list[list[float]] = []
    medians: list[float] = []
    stable, spread = False, float("inf")
    while True:
        rounds.append([_device_seconds(launch()) for _ in range(max(1, policy.samples))])
        medians.append(statistics.median(rounds[-1]))
        if len(medians) >= 2:
            a, b = medians[-2:]
            spread = abs(a - b) / min(a, b) if min(a, b) > 0 else float("inf")
            stable = spread <= policy.tolerance
            if stable or len(medians) >= policy.max_rounds or \
                    time.perf_counter() - started >= policy.budget_s:
                break
    window = rounds[-2] + rounds[-1]
    seconds = statistics.median(window)
    if seconds <= 0:
        raise ProbeError("the device's profiling timer read zero for the probe's launches")
    return _Timing(seconds, len(window), len(rounds), stable, spread)


def buffer_bytes(cl_device: cl.Device) -> int:
    """The size of each bandwidth buffer, from the device's memory (see module notes)."""
    size = max(cl_device.global_mem_size // 64, 4 * cl_device.global_mem_cache_size)
    size = max(16 * MIB, min(size, 256 * MIB))
    return min(size, cl_device.max_mem_alloc_size)


def _bandwidth(stream: Stream, policy: ProbePolicy) -> tuple[tuple[Figure, ...], int]:
    local = _local_size(stream, policy)
    quantum = local * ITEMS * 16
    size = max(quantum, buffer_bytes(stream.device.cl_device) // quantum * quantum)
    context, queue = stream.context, stream.queue
    while True:
        try:
            source = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
            target = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
            for buffer in (source, target):  # touches every page; valid floats to read
                cl.enqueue_fill_buffer(queue, buffer, np.float32(1.0), 0, size)
            queue.finish()
            break
        except (cl.Error, MemoryError) as error:
            if size <= 16 * MIB:
                raise
            log.info("probe: %d MiB buffers failed (%s); halving", size // MIB, error)
            size = max(quantum, size // 2 // quantum * quantum)
    global_size = size // (ITEMS * 16)
    plans = {  # name: (kernel, arguments, bytes moved per work-item)
        "read": (READ, (source, target, ITEMS), ITEMS * 16),
        "write": (WRITE, (target, 2.0, ITEMS), ITEMS * 16),
        "copy": (COPY, (source, target, ITEMS), 2 * ITEMS * 16),
    }

    def launch(name: str) -> cl.Event | None:
        kernel, arguments, _ = plans[name]
        return stream.launch(kernel, global_size, local, *arguments)

    _device_seconds(launch("read"))  # warm-up: code generation on PoCL
    first = _device_seconds(launch("read"))
    if first > policy.max_launch_s:  # a device far slower than its memory suggests
        global_size = max(local, int(global_size * policy.max_launch_s / 4 / first) // local * local)
        log.info("probe: slow device; bandwidth measured over %d KiB",
                 global_size * ITEMS * 16 >> 10)
    figures = []
    for name, (_, _, per_item_bytes) in plans.items():
        _device_seconds(launch(name))  # warm-up
        timing = _rounds(lambda name=name: launch(name), policy)
        figures.append(_make_figure(
            name, "GB/s", global_size * per_item_bytes, timing, global_size, local, ITEMS))
    return tuple(figures), size


def _compute(stream: Stream, policy: ProbePolicy) -> tuple[Figure, ...]:
    cl_device = stream.device.cl_device
    local = _local_size(stream, policy)
    global_size = max(1, cl_device.max_compute_units) * GROUPS_PER_CU * local
    sink = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, global_size * 4)
    figures = []
    for width in policy.widths:
        kernel = compute_kernel(width)

        def launch(iterations: int, kernel: Kernel = kernel) -> cl.Event | None:
            return stream.launch(kernel, global_size, local, sink, 0.9999, 1e-4, iterations)

        iterations = 64
        _device_seconds(launch(iterations))  # warm-up: code generation on PoCL
        for _ in range(6):  # calibrate the iteration count to the target launch time
            seconds = _device_seconds(launch(iterations))
            if policy.target_launch_s / 2 <= seconds <= policy.target_launch_s * 2:
                break
            wanted = int(iterations * policy.target_launch_s / max(seconds, 1e-7))
            wanted = max(16, min(wanted, 1 << 24))
            if wanted == iterations:
                break
            iterations = wanted
        timing = _rounds(lambda n=iterations, run=launch: run(n), policy)
        flops = global_size * width * CHAINS * 2 * iterations
        figures.append(_make_figure(
            WIDTH_NAMES[width], "GFLOP/s", flops, timing, global_size, local, iterations))
    return tuple(figures)


def _make_figure(
    name: str, unit: str, work: int, timing: _Timing, global_size: int, local: int, per_item: int
) -> Figure:
    if not timing.stable:
        log.info("probe: %s did not settle within the tolerance (last two rounds %.0f%% apart)",
                 name, 100 * timing.spread)
    return Figure(
        name=name, unit=unit, value=work / timing.seconds / 1e9, seconds=timing.seconds,
        work=work, global_size=global_size, local_size=local, per_item=per_item,
        samples=timing.samples, rounds=timing.rounds, stable=timing.stable,
        spread=timing.spread,
    )
