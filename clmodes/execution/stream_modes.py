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
            return token

    def pop(self, token: int) -> None:
        with self._lock:
            self.entries = tuple(e for e in self.entries if e[0] != token)

    @property
    def mode(self) -> StreamMode:
        """The mode in force now: the innermost entry's, else what the process implies."""
        entries = self.entries
        return entries[-1][1] if entries else default_stream_mode(process_mode())
