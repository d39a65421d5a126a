"""`Stream`: a command queue (profiling on) with a `StreamMode`, and `launch()`.

A stream knows only whether its launches run. Its mode is the innermost live
`StreamModeOverride` on it, else the default the process mode implies. The verdict for a
launch is resolved here, on the issuing thread, at the moment of issue.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pyopencl as cl

from clmodes.execution import LaunchMode, StreamMode, default_stream_mode, process_mode
from clmodes.execution import overrides as _overrides
from clmodes.kernel import Kernel

if TYPE_CHECKING:
    from clmodes.server import DeviceServer

Size = int | Sequence[int]
_EXECUTE = LaunchMode.EXECUTE


class Stream:
    """One named command queue of one device."""

    def __init__(self, server: "DeviceServer", name: str) -> None:
        self.name = name
        self._server = server
        self.queue = cl.CommandQueue(
            server.context,
            server.device.cl_device,
            properties=cl.command_queue_properties.PROFILING_ENABLE,
        )
        self._lock = threading.Lock()
        self._tokens = itertools.count()
        # Replaced wholesale under the lock, read without it on the launch path. Each entry:
        # (token, mode, forced verdict or None); see `_gathering`.
        self._overrides: tuple[tuple[int, StreamMode, LaunchMode | None], ...] = ()
        self._recording: list[cl.Event] | None = None

    @property
    def device(self):  # -> clmodes.device.Device
        return self._server.device

    @property
    def mode(self) -> StreamMode:
        """The mode in force now."""
        overrides = self._overrides
        return overrides[-1][1] if overrides else default_stream_mode(process_mode())

    def _push_mode(self, mode: StreamMode, forced: LaunchMode | None = None) -> int:
        """Entries carry the verdict they imply, or None where it depends on the process
        mode (DISCARD: QUEUE or COMPILE), so a launch resolves it with one lookup."""
        if forced is None and mode is StreamMode.EXECUTE:
            forced = LaunchMode.EXECUTE
        with self._lock:
            token = next(self._tokens)
            self._overrides = (*self._overrides, (token, mode, forced))
            return token

    def _pop_mode(self, token: int) -> None:
        with self._lock:
            self._overrides = tuple(o for o in self._overrides if o[0] != token)

    def launch(
        self,
        kernel: Kernel,
        global_size: Size,
        local_size: Size | None,
        *args: object,
    ) -> cl.Event | None:
        """Launch `kernel`; returns its event, or None when the verdict drops the launch.

        The verdict is resolved here, on the issuing thread, from this stream's innermost
        override or the process mode, both precomputed: this is the hot path."""
        overrides = self._overrides
        if overrides:
            verdict = overrides[-1][2] or _overrides.discard_verdict
        else:
            verdict = _overrides.default_verdict
        if verdict is _EXECUTE:
            # The common case, an obtained kernel run for real: straight to the kernel.
            launchable = self._server.ready(kernel)
            if launchable is not None:
                event = launchable.enqueue(self.queue, global_size, local_size, args)
                if self._recording is not None:
                    self._recording.append(event)
                return event
        event = self._server.launch(self.queue, kernel, verdict, global_size, local_size, args)
        if self._recording is not None and event is not None:
            self._recording.append(event)
        return event

    @contextmanager
    def _gathering(self) -> Iterator[None]:
        """Launches only queue their kernels (verdict QUEUE), whatever the process mode.

        Private to clmodes' own measurements: before measuring candidates, a tune runs
        each once like this so that all their kernels build in one batch, without
        switching the whole process to COMPILE_ONLY under other threads' feet.
        """
        token = self._push_mode(StreamMode.DISCARD, LaunchMode.QUEUE)
        try:
            yield
        finally:
            self._pop_mode(token)

    @contextmanager
    def _recorded(self) -> Iterator[list[cl.Event]]:
        """Collect the events of every launch made on this stream meanwhile."""
        previous, self._recording = self._recording, []
        try:
            yield self._recording
        finally:
            self._recording = previous

    def finish(self) -> None:
        self.queue.finish()

    def __repr__(self) -> str:
        return f"<clmodes.Stream {self.name!r} on {self.device.label}: {self.mode.name}>"
