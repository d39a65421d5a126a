"""Which pyopencl objects clmodes manages: contexts, stream queues, hooked programs.

The hooks (`builds`, `launches`) ask this registry on every build and on the slow path
of every launch, from any thread. Each table is a dict replaced wholesale under a lock
and read without it, like the overrides: a reader sees the old table or the new one,
never a half-written one.

Objects are recognized by their OpenCL handle (`int_ptr`), never by Python identity:
pyopencl hands out a new wrapper object for the same `cl_context` each time it is asked
(`kernel.context`, `queue.context`), so `is` would miss. A handle is only unique while
its object lives, so every table holds a strong reference to what it names (a client's
context, a stream's queue, a held program): the handle cannot be freed and reused by an
unrelated object while the entry exists.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import pyopencl as cl
import pyopencl._cl as _cl

from clmodes.execution import LaunchMode
from clmodes.execution.stream_modes import StreamModes


class SourcePrograms(Protocol):
    """A device's pyopencl programs (`held.SourcePrograms`), as the build hook uses it."""

    def obtain(self, source: str | bytes, options: bytes) -> _cl._Program: ...


class HeldSource(Protocol):
    """One held pyopencl program (`held.HeldSource`): what a launch records."""

    key: str


class Stream(Protocol):
    """A clmodes stream (`clmodes.stream.Stream`), as the launch hook uses it."""

    queue: cl.CommandQueue
    modes: StreamModes

    def verdict(self) -> LaunchMode: ...


_lock = threading.Lock()
# cl_context handle -> (the context, the programs of its device's server)
contexts: dict[int, tuple[cl.Context, SourcePrograms]] = {}
# cl_command_queue handle -> the clmodes stream owning that queue
streams: dict[int, Stream] = {}
# cl_program handle -> the program as held (its key, its owner)
programs: dict[int, HeldSource] = {}
# cl_program handles of the servers' own batches (held by their server for the process:
# the handle cannot be reused): their launches were decided by `Stream.launch` already.
own: frozenset[int] = frozenset()
# While `clmodes run` runs a program (`clmodes.running.adopting`): called with a context
# no client manages when a source program is built on it, it adopts the context and
# returns its programs (None: left to pyopencl, e.g. a context of two devices).
Adopter = Callable[[cl.Context], "SourcePrograms | None"]
adopter: Adopter | None = None


def set_adopter(found: Adopter | None) -> None:
    """Adopt every context a source program is built on from now on (None: stop)."""
    global adopter
    with _lock:
        adopter = found


def manage(context: cl.Context, owner: SourcePrograms) -> None:
    """Programs pyopencl builds on `context` go through `owner` from now on."""
    global contexts
    with _lock:
        contexts = {**contexts, context.int_ptr: (context, owner)}


def add_stream(stream: Stream) -> None:
    """Launches pyopencl makes on this stream's queue follow this stream's mode."""
    global streams
    with _lock:
        streams = {**streams, stream.queue.int_ptr: stream}


def add_program(handle: int, held: HeldSource) -> None:
    """A program built or loaded through the hooks: its launches get clmodes verdicts."""
    global programs
    with _lock:
        programs = {**programs, handle: held}


def add_own(program: cl.Program) -> None:
    """A program a server built or loaded for clmodes kernels."""
    global own
    with _lock:
        own = own | {program.int_ptr}


def owner_of(context: cl.Context) -> SourcePrograms | None:
    """The programs of the server managing `context`, or None (not ours: leave it alone)."""
    found = contexts.get(context.int_ptr)
    return None if found is None else found[1]


def owner_or_adopted(context: cl.Context) -> SourcePrograms | None:
    """`owner_of`, or, while an adopter is set, the programs of the client adopting it."""
    found = owner_of(context)
    adopt = adopter
    return found if found is not None or adopt is None else adopt(context)
