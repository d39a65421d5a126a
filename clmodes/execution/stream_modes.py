"""A stream's live `StreamModeOverride`s, owned by `execution` so that `stream.py` asks
for its mode and `execution` never calls into a stream.

A stack as a registry, like the process overrides: nested overrides restore what was in
force, and one closed out of order (two threads measuring on one stream) removes only its
own entry. Each entry carries the verdict it implies, or None where that depends on the
process mode (DISCARD: QUEUE or COMPILE), so a launch resolves its verdict with one
lookup (see `Stream.launch`).
"""

from __future__ import annotations

import itertools
import threading

from clmodes.execution.modes import LaunchMode, StreamMode, default_stream_mode
from clmodes.execution.overrides import process_mode

Entry = tuple[int, StreamMode, "LaunchMode | None"]

_count_lock = threading.Lock()
# Live entries over every stream: zero lets the pyopencl launch hook skip asking which
# stream a queue belongs to (`pyopencl_hooks.launches`), on every launch of the process.
live_entries = 0


def _count(change: int) -> None:
    global live_entries
    with _count_lock:
        live_entries += change


class StreamModes:
    """One stream's mode stack."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens = itertools.count()
        # Replaced wholesale under the lock, read without it on the launch path.
        self.entries: tuple[Entry, ...] = ()

    def push(self, mode: StreamMode, forced: LaunchMode | None = None) -> int:
        """Open an entry; `forced` pins the verdict (a gather forces QUEUE)."""
        if forced is None and mode is StreamMode.EXECUTE:
            forced = LaunchMode.EXECUTE
        with self._lock:
            token = next(self._tokens)
            self.entries = (*self.entries, (token, mode, forced))
        _count(1)
        return token

    def pop(self, token: int) -> None:
        with self._lock:
            before = len(self.entries)
            self.entries = tuple(e for e in self.entries if e[0] != token)
            removed = before - len(self.entries)
        _count(-removed)

    @property
    def mode(self) -> StreamMode:
        """The mode in force now: the innermost entry's, else what the process implies."""
        entries = self.entries
        return entries[-1][1] if entries else default_stream_mode(process_mode())
