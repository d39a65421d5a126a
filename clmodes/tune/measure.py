"""Timing candidates with OpenCL profiling events, and choosing a winner robustly.

A sample is the sum of START..END over every launch a candidate makes on the measurement
stream: device time only, so host-side Python overhead and queueing gaps do not decide
between kernels. Each candidate is run `warmup` times first (PoCL generates a kernel's
work-group function at its first enqueue per local size, which costs hundreds of
milliseconds and must not be counted).

Racing keeps tuning cheap: every candidate gets a few samples (one, if that one is already
slower than `drop_ratio` times the best median so far); any whose *fastest* sample is
slower than `drop_ratio` times the best median is dropped; the rest get more samples;
the winner has the lowest median. Samples stop at a device-time budget per candidate, so
large work costs fewer samples rather than proportionally more time.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import statistics
from collections.abc import Callable, Mapping

import pyopencl as cl
import pyopencl.array as cla

from clmodes.execution import StreamMode, StreamModeOverride
from clmodes.stream import Stream

log = logging.getLogger("clmodes")

Candidate = Callable[..., object]


@dataclasses.dataclass(frozen=True)
class RacePolicy:
    warmup: int = 1
    first_samples: int = 3
    total_samples: int = 7
    drop_ratio: float = 1.5
    slow_sample_s: float = 0.25  # a candidate this slow per sample gets no extra samples
    sample_budget_s: float = 0.5  # device seconds of samples per candidate, at least one


@dataclasses.dataclass
class Measurement:
    name: str
    samples: list[float] = dataclasses.field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def as_record(self) -> dict[str, object]:
        return {"median_s": self.median, "samples_s": self.samples}


class CandidateFailed(Exception):
    """A candidate that could not be measured; it is dropped with a warning."""


def sample(candidate: Candidate, stream: Stream, args: tuple[object, ...]) -> float:
    """One run of a candidate: seconds of device time over all the launches it made."""
    with stream._recorded() as events:
        candidate(stream, *args)
    if not events:
        raise CandidateFailed("it launched nothing on the stream it was given")
    cl.wait_for_events(events)
    return sum(e.profile.end - e.profile.start for e in events) * 1e-9


def race(
    candidates: Mapping[str, Candidate],
    stream: Stream,
    args: tuple[object, ...],
    policy: RacePolicy,
    describe: str,
) -> tuple[dict[str, Measurement], dict[str, str]]:
    """Measure candidates under `StreamModeOverride(EXECUTE)`; return (kept, dropped)."""
    measured: dict[str, Measurement] = {}
    dropped: dict[str, str] = {}
    with StreamModeOverride(stream, StreamMode.EXECUTE):
        for name, candidate in candidates.items():
            best = min((m.median for m in measured.values()), default=math.inf)
            try:
                measured[name] = _first_round(name, candidate, stream, args, policy, best)
            except Exception as error:  # noqa: BLE001 - any failure drops the candidate
                log.warning("%s: candidate %r dropped: %s", describe, name, error)
                dropped[name] = f"failed: {error}"
        if not measured:
            return measured, dropped
        best = min(m.median for m in measured.values())
        for name, measurement in list(measured.items()):
            if min(measurement.samples) > policy.drop_ratio * best:
                dropped[name] = f"slower: {measurement.median:.3g} s vs best {best:.3g} s"
                measured.pop(name)
        for measurement in measured.values():
            _more_samples(measurement, candidates[measurement.name], stream, args, policy)
    return measured, dropped


def _first_round(
    name: str, candidate: Candidate, stream: Stream, args: tuple[object, ...],
    policy: RacePolicy, best: float,
) -> Measurement:
    """Warm-up, then up to `first_samples` samples; one only when it is already clearly
    slower than the best so far, or when samples would exceed the time budget: tuning cost
    should follow the number of candidates, not the size of the work."""
    for _ in range(policy.warmup):
        candidate(stream, *args)
    stream.finish()
    measurement = Measurement(name)
    while len(measurement.samples) < policy.first_samples:
        measurement.samples.append(sample(candidate, stream, args))
        if measurement.samples[0] > policy.drop_ratio * best:
            break
        if sum(measurement.samples) > policy.sample_budget_s:
            break
    return measurement


def _more_samples(
    measurement: Measurement, candidate: Candidate, stream: Stream, args: tuple[object, ...],
    policy: RacePolicy,
) -> None:
    """Contenders get samples up to `total_samples`, within the time budget."""
    if measurement.median > policy.slow_sample_s:
        return
    while (len(measurement.samples) < policy.total_samples
           and sum(measurement.samples) < policy.sample_budget_s):
        measurement.samples.append(sample(candidate, stream, args))


def scratch_copies(args: tuple[object, ...], stream: Stream) -> tuple[object, ...]:
    """Buffer arguments copied onto the measurement stream, so measuring never writes the
    caller's buffers; everything else passed through."""
    copies: list[object] = []
    for arg in args:
        if isinstance(arg, cla.Array):
            copies.append(arg.copy(queue=stream.queue))
        elif isinstance(arg, cl.MemoryObjectHolder) and not isinstance(arg, cl.Image):
            # Buffers, and pool allocations (PooledBuffer is not a cl.Buffer subclass).
            buffer = cl.Buffer(stream._server.context, cl.mem_flags.READ_WRITE, arg.size)
            cl.enqueue_copy(stream.queue, buffer, arg)
            copies.append(buffer)
        else:
            copies.append(arg)
    stream.finish()
    return tuple(copies)
