"""Use recording: which kernels a workload launched, for `warm()` to persist only those.

A registry of live recordings, like the overrides: two recordings open on two threads
compose (each sees every launch made while it is open), and closing one removes only it.
A launch is recorded whatever its verdict. `unrecorded()` exempts one thread's launches
meanwhile: a tune runs every candidate, but only the winner's real launch says what a
workload uses.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from clmodes.execution.registry import LiveRegistry

# The launch path reads `RECORDINGS.live` without a lock; an empty tuple (no recording)
# costs it one truth test.
RECORDINGS: LiveRegistry[set[str]] = LiveRegistry()
_exempt = threading.local()  # .active: this thread's launches are not recorded


def recording() -> AbstractContextManager[set[str]]:
    """Collect the keys of every kernel launched meanwhile, on every thread and device."""
    return RECORDINGS.holding(set())


@contextmanager
def unrecorded() -> Iterator[None]:
    """Launches from this thread meanwhile are not recorded."""
    previous = getattr(_exempt, "active", False)
    _exempt.active = True
    try:
        yield
    finally:
        _exempt.active = previous


def note(key: str) -> None:
    """Record one launch of the kernel `key` (a no-op with no recording open)."""
    recordings = RECORDINGS.live
    if recordings and not getattr(_exempt, "active", False):
        for keys in recordings:
            keys.add(key)
