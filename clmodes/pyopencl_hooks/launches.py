"""The launch hook: `enqueue_nd_range_kernel`, where every pyopencl launch ends.

`Kernel.__call__` (C++) calls the enqueue function pyopencl's invoker generated for the
kernel (`invoker.py`), and that code calls `pyopencl._cl.enqueue_nd_range_kernel`
through the module attribute at each call, so replacing the attribute catches every
launch: `ElementwiseKernel.__call__`, reductions, scans, `pyopencl.array` operations, a
user's `program.kernel(queue, ...)`, even from invokers pyopencl loaded from its disk
cache. `pyopencl.enqueue_nd_range_kernel` (the same function, imported into the package
namespace) is replaced too, for code that calls it directly.

Per launch, most cheaply first:
- nothing is watching, the process executes and no stream has an override open: run it
  (four module reads: the only cost on a production launch, clmodes' own included);
- a kernel of a program built through the hooks (`registry.programs`): the verdict is
  resolved here, on the issuing thread, like `Stream.launch` (the stream's mode if the
  queue is a stream's, else the process mode); the launch is recorded for persisting,
  and its event noted until it has run (`inflight`: a capture reads no binary while a
  launch may still run);
  a dropped launch returns a marker event that waits on the same events, because
  pyopencl code chains every launch's event into the next (`Array.add_event`,
  `wait_for=`) and a None would break it;
- a kernel of the servers' own batches (`registry.own`) was decided by its stream and
  runs; any other kernel on a managed context (compile + link, binaries, SPIR-V) gets
  the verdict too, and is not persisted;
- a kernel on any other context runs as well, and is noted as outside clmodes
  (`outside`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pyopencl as cl

from clmodes.execution import LaunchMode, overrides, stream_modes, usage
from clmodes.pyopencl_hooks import inflight, outside, registry

Enqueue = Callable[..., cl.Event]
_EXECUTE = LaunchMode.EXECUTE
_WAIT_FOR = 3  # position of wait_for after (global size, local size, global offset)


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the slow path decided for one launch: does it run, and, for a kernel of a
    hooked program, that program's key (its running launch is noted: `inflight`)."""

    runs: bool
    held: str | None = None


_RUN, _DROP = Decision(True), Decision(False)


def make_enqueue(original: Enqueue) -> Enqueue:
    """The replacement of `enqueue_nd_range_kernel`, delegating to `original`."""

    def enqueue_nd_range_kernel(queue: cl.CommandQueue, kernel: cl.Kernel,
                                *args: Any, **kwargs: Any) -> cl.Event:
        if (overrides.default_verdict is _EXECUTE and not usage.RECORDINGS.live and not outside.WATCHERS.live
                and not stream_modes.live_entries):
            return original(queue, kernel, *args, **kwargs)
        decision = _decide(queue, kernel)
        if not decision.runs:
            wait_for = args[_WAIT_FOR] if len(args) > _WAIT_FOR else kwargs.get("wait_for")
            return cl.enqueue_marker(queue, wait_for=wait_for)
        event = original(queue, kernel, *args, **kwargs)
        if decision.held is not None:
            inflight.note(decision.held, event)
        return event

    enqueue_nd_range_kernel.__doc__ = original.__doc__
    enqueue_nd_range_kernel.__wrapped__ = original  # type: ignore[attr-defined]
    return enqueue_nd_range_kernel


def _decide(queue: cl.CommandQueue, kernel: cl.Kernel) -> Decision:
    """Does this launch run? Records it for persisting or as outside clmodes.

    The context is asked of the queue, which is alive for certain, before the kernel is
    asked for its program: Intel's runtime fails `clRetainProgram` on the program of a
    kernel pyopencl loaded from its own disk cache once that program's last Python
    handle is gone, and only programs held here (alive) are ever looked up."""
    if registry.owner_of(queue.context) is None:
        if outside.WATCHERS.live:
            outside.note(kernel.function_name)
        return _RUN
    try:
        handle = kernel.program.int_ptr
    except cl.Error:  # Intel, a program whose Python handle is gone: none of ours (alive)
        handle = None
    held = registry.programs.get(handle) if handle is not None else None
    if held is None and handle in registry.own:  # clmodes' own kernel: its stream decided
        return _RUN
    if held is not None:
        usage.note(held.key)
    # A hooked program's, or one pyopencl did not build from source through `build()`
    # (compile + link, binaries, SPIR-V): the verdict applies; only the first is persisted.
    stream = registry.streams.get(queue.int_ptr)
    verdict = stream.verdict() if stream is not None else overrides.default_verdict
    if verdict is not _EXECUTE:
        return _DROP
    return _RUN if held is None else Decision(True, held.key)
