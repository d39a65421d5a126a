"""Process-mode and stream-mode overrides.

`ProcessModeOverride` is a *registry of live overrides*, never a save-and-restore of a
global: overrides opened on different threads may close in any order, and closing one
removes exactly that one. Save-and-restore would let thread A's exit resurrect the
mode thread B had already closed. The process mode is the mode of the most recently
opened override that is still live.

`StreamModeOverride` opens an entry on the stream's own stack (`stream_modes`): nested
overrides on one stream restore what was in force, and an override closed out of order
(two threads measuring on one stream) removes only its own entry.
"""

from __future__ import annotations

import itertools
import threading
from types import TracebackType
from typing import Protocol

from clmodes.execution.modes import (
    LaunchMode,
    ProcessMode,
    StreamMode,
    default_stream_mode,
    resolve_launch_mode,
)
from clmodes.execution.counters import Counter, StatisticsCollector



class ModeStack(Protocol):
    """A stream's mode stack (`stream_modes.StreamModes`), as overrides use it."""

    def push(self, mode: StreamMode, forced: LaunchMode | None = None) -> int: ...

    def pop(self, token: int) -> None: ...


class CompileListener(Protocol):
    """Told when the first compile-mode override opens and when the last one closes
    (`clmodes.capture` persists the binaries a compile-mode run used)."""

    def compile_started(self) -> None: ...

    def compile_ended(self) -> None: ...


class HasStreamModes(Protocol):
    """What `StreamModeOverride` needs of a stream: its mode stack."""

    @property
    def modes(self) -> ModeStack: ...  # read-only: a stream's own stack type is a ModeStack

_lock = threading.Lock()
_sequence = itertools.count()
_live: dict[int, "ProcessModeOverride"] = {}  # insertion order == opening order
# Read without the lock on the launch path: replaced wholesale (never mutated) under it.
_current: ProcessMode = ProcessMode.EXECUTE
_collectors: tuple[StatisticsCollector, ...] = ()
# The verdicts implied by `_current`, precomputed because the launch path reads them on
# every launch (an enum comparison costs more than a module attribute on CPython 3.11):
# for a stream with no override of its own, and for a stream overridden to DISCARD.
default_verdict: LaunchMode = LaunchMode.EXECUTE
discard_verdict: LaunchMode = LaunchMode.COMPILE
_listeners: tuple[CompileListener, ...] = ()


def listen(listener: CompileListener) -> None:
    """Register a listener for compile-mode overrides (outermost open and close)."""
    global _listeners
    with _lock:
        _listeners = (*_listeners, listener)


def _compiling() -> bool:
    return any(o.mode is not ProcessMode.EXECUTE for o in _live.values())


def process_mode() -> ProcessMode:
    """The process mode in force now: the newest live override's, else EXECUTE."""
    return _current


def tally(counter: Counter, amount: int = 1) -> None:
    """Count something the process did into every live override's collector (once each)."""
    if amount:
        for collector in _collectors:
            collector.add(counter, amount)


def _refresh() -> None:
    global _current, _collectors, default_verdict, discard_verdict
    overrides = list(_live.values())
    _current = overrides[-1].mode if overrides else ProcessMode.EXECUTE
    default_verdict = resolve_launch_mode(default_stream_mode(_current), _current)
    discard_verdict = resolve_launch_mode(StreamMode.DISCARD, _current)
    unique: dict[int, StatisticsCollector] = {}
    for override in overrides:
        if override.collector is not None:
            unique.setdefault(id(override.collector), override.collector)
    _collectors = tuple(unique.values())


class ProcessModeOverride:
    """Set the process mode while this lives; count everything triggered into `collector`."""

    def __init__(self, mode: ProcessMode, collector: StatisticsCollector | None = None) -> None:
        if not isinstance(mode, ProcessMode):
            raise TypeError(f"ProcessModeOverride needs a ProcessMode, not {mode!r}")
        self.mode = mode
        self.collector = collector
        self._token: int | None = None

    def __enter__(self) -> "ProcessModeOverride":
        with _lock:
            if self._token is not None:
                raise RuntimeError("this ProcessModeOverride is already open")
            was = _compiling()
            self._token = next(_sequence)
            _live[self._token] = self
            _refresh()
            started = not was and _compiling()
        if started:
            for listener in _listeners:
                listener.compile_started()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with _lock:
            if self._token is None:
                return
            was = _compiling()
            _live.pop(self._token, None)
            self._token = None
            _refresh()
            ended = was and not _compiling()
        if ended:  # outside the lock: a listener may take seconds (capturing binaries)
            for listener in _listeners:
                listener.compile_ended()  # never raises (the listener's promise)


class StreamModeOverride:
    """Set one stream's mode while this lives; nests, and restores on exit."""

    def __init__(self, stream: HasStreamModes, mode: StreamMode) -> None:
        if not isinstance(mode, StreamMode):
            raise TypeError(f"StreamModeOverride needs a StreamMode, not {mode!r}")
        self.stream = stream
        self.mode = mode
        self._token: int | None = None

    def __enter__(self) -> "StreamModeOverride":
        self._token = self.stream.modes.push(self.mode)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            self.stream.modes.pop(self._token)
            self._token = None
