"""Measuring OpenCL work by device time: the instrument autotuning and the probe share.

A measurement has three steps, each on one *measurement stream* (a stream of its own, so
that switching its mode never touches the caller's launches):

1. `gather(stream, run)`: run the work once with queue-only launches (verdict QUEUE,
   whatever the process mode), so its kernels join the compile queue and nothing runs;
2. `build_queued(stream)`: obtain everything queued in one batch, so no kernel build
   lands inside a timed run;
3. `device_seconds(stream, run)`: run the work under `StreamModeOverride(stream,
   EXECUTE)` (it runs even under COMPILE_AND_AUTOTUNE, while every other stream's
   launches are dropped) and return the sum of START..END over the profiling events of
   every launch it made on the stream: device time only, so host-side Python overhead
   and queueing gaps decide nothing. `executing(stream)` holds that override across many
   runs (warm-ups, calibration, samples).

`scratch_copies` gives the work inputs of its own, so measuring never writes the caller's
buffers. Policy (how many runs, which statistic, what to drop) is the caller's: racing
candidates in `clmodes.tune`, rounds until stable in `clmodes.probing`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pyopencl as cl
import pyopencl.array as cla

from clmodes.runtime import client
from clmodes.errors import ClmodesError
from clmodes.execution import StreamMode, StreamModeOverride
from clmodes.stream import Stream

Run = Callable[[], object]


class NothingLaunched(ClmodesError):
    """A measured run that made no launch on its stream (or whose launches were dropped):
    there is no device time to report, and zero would look like the fastest."""


def measurement_stream(caller: Stream) -> Stream:
    """A stream of the caller's device for this thread's measurements: one per thread, so
    two threads measuring at once never capture each other's events."""
    owner = caller.client if caller.client is not None else client(caller.device)
    return owner.stream(f"clmodes.measure.{threading.get_ident()}")


def gather(stream: Stream, run: Run) -> set[str]:
    """Run `run` with queue-only launches on `stream`: its kernels join the compile
    queue, nothing executes (without switching the whole process to COMPILE_ONLY under
    other threads' feet). Returns the keys of the kernels it launched."""
    with stream.gathering() as seen:
        run()
    return seen


def identify(stream: Stream, run: Run) -> set[str]:
    """The keys of the kernels `run` launches on `stream`; nothing is queued or run."""
    with stream.identifying() as seen:
        run()
    return seen


def build_queued(stream: Stream) -> None:
    """Obtain everything queued on the stream's device now: one batch where it pays."""
    stream.build_queued()


def executing(stream: Stream) -> StreamModeOverride:
    """The override a measurement runs under: the stream's launches execute in every
    process mode. Nests; `device_seconds` opens one itself."""
    return StreamModeOverride(stream, StreamMode.EXECUTE)


def device_seconds(stream: Stream, run: Run) -> float:
    """Run `run` on `stream` under `executing(stream)`; the seconds of device time
    (profiling events, END - START) summed over every launch it made on the stream.
    NothingLaunched if it made none."""
    with executing(stream), stream.capture_events() as events:
        run()
    if not events:
        raise NothingLaunched("it launched nothing on the stream it was given")
    cl.wait_for_events(events)
    return sum(e.profile.end - e.profile.start for e in events) * 1e-9


def scratch_copies(args: tuple[object, ...], stream: Stream) -> tuple[object, ...]:
    """Buffer arguments copied onto the measurement stream, so measuring never writes the
    caller's buffers; everything else passed through."""
    copies: list[object] = []
    for arg in args:
        if isinstance(arg, cla.Array):
            copies.append(arg.copy(queue=stream.queue))
        elif isinstance(arg, cl.MemoryObjectHolder) and not isinstance(arg, cl.Image):
            # Buffers, and pool allocations (PooledBuffer is not a cl.Buffer subclass).
            buffer = cl.Buffer(stream.context, cl.mem_flags.READ_WRITE, arg.size)
            cl.enqueue_copy(stream.queue, buffer, arg)  # type: ignore[call-overload]  # a pooled buffer copies as a buffer
            copies.append(buffer)
        else:
            copies.append(arg)
    stream.finish()
    return tuple(copies)
