"""Buffers their owner released: what a launch must refuse, since nothing else can tell.

The trap: `buffer.release()` frees the OpenCL object at once, but the Python object
stays, with the same `int_ptr`; passing it to a kernel hands the runtime a dangling
handle. PoCL and Oclgrind follow it and crash the process (SIGSEGV in the enqueue);
Intel refuses it (INVALID_MEM_OBJECT) but crashes on `get_info` of it, so even an error
path cannot ask the buffer anything. pyopencl knows (its `m_valid`) but does not say. So
clmodes wraps `pyopencl.MemoryObject.release` (once, at import, chaining whatever was
there; installed when the first client is made, so importing clmodes changes nothing in
pyopencl) to remember the released objects, and a launch checks its arguments against them:
one `dict` truthiness test while none is remembered, a C-level `isdisjoint` over the
arguments' ids while some are (inline in `Launchable.enqueue`).

The objects are held (a strong reference: their ids cannot be reused by a live buffer
while remembered; they are not weak-referenceable) and forgotten once nothing else holds
them, swept when the set has doubled since the last sweep, so a program that releases
buffers in a loop keeps only those it still holds.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

import pyopencl as cl


class Watcher(Protocol):
    def forget_buffer(self, int_ptr: int) -> None: ...


_watchers: "weakref.WeakSet[Watcher]" = weakref.WeakSet()  # told each released address
# id -> released memory object, while someone else holds it. Public so that the launch
# path can test it inline (`if RELEASED and ...`): a function call costs more than that.
RELEASED: dict[int, object] = {}
_sweep_at = 64
# One lock for the registry's writers: two threads releasing at the sweep threshold would
# otherwise both sweep, and the second `del` raise KeyError out of the user's release().
# Readers (the launch path's inline test) take no lock: a dict lookup is atomic.
_lock = threading.Lock()
_HELD_ONLY_HERE = 2  # getrefcount: the dict's reference and the call's argument


def is_released(value: object) -> bool:
    return id(value) in RELEASED


def watch(watcher: Watcher) -> None:
    """Tell `watcher` the address of every buffer released from now on (the address may
    be reused by the next buffer made, of any context)."""
    _watchers.add(watcher)


def remembered() -> int:
    """How many released objects are remembered (those still held elsewhere, and those
    released since the last sweep)."""
    return len(RELEASED)


def _remember(obj: object) -> None:
    global _sweep_at
    with _lock:
        RELEASED[id(obj)] = obj
        if len(RELEASED) >= _sweep_at:
            for key in list(RELEASED):
                if sys.getrefcount(RELEASED[key]) <= _HELD_ONLY_HERE:
                    del RELEASED[key]
            _sweep_at = max(64, 2 * len(RELEASED))


def _wrapping(release: Callable[[object], None]) -> Callable[[object], None]:
    def release_and_remember(self: object) -> None:
        address = getattr(self, "int_ptr", None)
        release(self)  # raises on a double release: then nothing changed
        _remember(self)
        if address is not None:
            for watcher in list(_watchers):
                watcher.forget_buffer(address)

    release_and_remember.__doc__ = release.__doc__
    release_and_remember.clmodes_wrapped = True  # type: ignore[attr-defined]
    return release_and_remember


def install() -> None:
    """Wrap `pyopencl.MemoryObject.release` (idempotent, any thread)."""
    with _lock:
        current: Callable[[Any], None] = cl.MemoryObject.release
        if not getattr(current, "clmodes_wrapped", False):
            setattr(cl.MemoryObject, "release", _wrapping(current))  # a method replaced on purpose
