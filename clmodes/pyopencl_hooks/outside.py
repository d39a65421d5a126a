"""Kernels built or run outside clmodes during a warm or a check: counted and named,
never silent.

A warm gathers what runs through clmodes: its own kernels and pyopencl programs on the
contexts it manages. A pyopencl program built on any other context (the user's own
context, not adopted) is built by pyopencl as always, and its kernels run for real in
both passes; none of it is gathered or persisted. The build hook notes each such
program's kernels, and the launch hook each such launch, into every open `watching()`:
`warm()` names them in its report instead of claiming a success that ships nothing, and
`check()` fails on them instead of passing code it never saw.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from clmodes.execution.registry import LiveRegistry

if TYPE_CHECKING:
    from clmodes.execution.statistics import OutsideStatistics

WHY = "pyopencl programs on a context clmodes does not manage"
NO_NAMES = "a program without kernels"  # what a kernel-less program outside is noted as


def summary(found: OutsideStatistics) -> str:
    """One line: how many, which, why, and what it means for the warm."""
    shown = ", ".join(found.names[:8]) + (", ..." if len(found.names) > 8 else "")
    noun = "kernel" if found.kernels == 1 else "kernels"
    return (f"{found.kernels} {noun} built or ran outside clmodes ({WHY}: {shown}): "
            "not gathered, not persisted; adopt the context with clmodes.client(context=ctx)")


class OutsideLog:
    """Launches noted while one `watching()` is open (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._launches: dict[str, int] = {}

    def note(self, name: str) -> None:
        with self._lock:
            self._launches[name] = self._launches.get(name, 0) + 1

    def note_built(self, names: Iterable[str]) -> None:
        with self._lock:
            for name in names:
                self._launches.setdefault(name, 0)

    def report(self) -> OutsideStatistics:
        # A warm's or a check's: the hooks load with every process, their report seldom.
        from clmodes.execution.statistics import OutsideStatistics

        with self._lock:
            names = tuple(sorted(self._launches))
            return OutsideStatistics(len(names), sum(self._launches.values()), names)


# The launch hook reads `WATCHERS.live` without a lock (`LiveRegistry`'s rule).
WATCHERS: LiveRegistry[OutsideLog] = LiveRegistry()
_OWN = threading.local()  # `depth`: inside `clmodes_own()` on this thread


@contextmanager
def clmodes_own() -> Iterator[None]:
    """What this thread builds and launches meanwhile on a context of its own is clmodes'
    own work, never the workload's: the device usability check (`device_check`), whose
    trivial kernel ran while a `warm --execute` or a `check` watched (the hooks installed
    first, the check at the workload's first `client()`) and was named as a kernel that
    ran outside clmodes, failing a check on any store that had not seen the device."""
    _OWN.depth = getattr(_OWN, "depth", 0) + 1
    try:
        yield
    finally:
        _OWN.depth -= 1


def _own_work() -> bool:
    return getattr(_OWN, "depth", 0) > 0


def watching() -> AbstractContextManager[OutsideLog]:
    """Note every launch outside clmodes meanwhile, on every thread."""
    return WATCHERS.holding(OutsideLog())


def note(name: str) -> None:
    """One launch of the kernel `name` outside clmodes."""
    if _own_work():
        return
    for each in WATCHERS.live:
        each.note(name)


def note_built(names: Iterable[str]) -> None:
    """A program built outside clmodes, by its kernels' names."""
    if _own_work():
        return
    for each in WATCHERS.live:
        each.note_built(list(names) or [NO_NAMES])
