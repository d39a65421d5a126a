"""`Stream`: a command queue (profiling on) with a `StreamMode`, and `launch()`.

A stream knows only whether its launches run. Its mode is the innermost live
`StreamModeOverride` on it, else the default the process mode implies. The verdict for a
launch is resolved here, on the issuing thread, at the moment of issue.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import pyopencl as cl

from clmodes.execution import LaunchMode, StreamMode
from clmodes.execution import overrides as _overrides
from clmodes.execution.stream_modes import StreamModes
from clmodes.kernel import Kernel
from clmodes.pyopencl_hooks import registry

if TYPE_CHECKING:
    from clmodes.device import Device
    from clmodes.server import DeviceServer

Size = int | Sequence[int]
_EXECUTE = LaunchMode.EXECUTE


class Owner(Protocol):
    """The `Client` whose stream this is, as the layers above read it: `clmodes.clients`
    imports this module, so the client is typed here by what is used of it."""

    @property
    def runtime(self) -> object:
        """The `clmodes.runtime.Runtime` that made the client (a layer above both)."""

    def stream(self, name: str | None = None, queue: cl.CommandQueue | None = None) -> "Stream":
        """Another stream of the same client."""


class Stream:
    """One named command queue of one device."""

    def __init__(self, server: "DeviceServer", name: str,
                 queue: cl.CommandQueue | None = None, client: Owner | None = None) -> None:
        """`queue`: a user's command queue to adopt (on the server's context). `client`:
        the `Client` whose stream it is (its runtime is the one tunes and measurements
        on this stream use)."""
        self.name = name
        self.client: Owner | None = client
        self.server = server
        self.queue = queue if queue is not None else cl.CommandQueue(
            server.context,
            server.device.cl_device,
            properties=cl.command_queue_properties.PROFILING_ENABLE,
        )
        self.modes = StreamModes()  # its live StreamModeOverrides (owned by execution)
        self._capturing: list[cl.Event] | None = None
        # The keys of kernels launched meanwhile (`gathering`, `identifying`); read only
        # on the slow path, so the launch path of an obtained kernel never pays for it.
        self._seen: set[str] | None = None
        self._drop_all = False
        registry.add_stream(self)  # pyopencl launches on its queue follow its mode

    @property
    def device(self) -> "Device":
        return self.server.device

    @property
    def context(self) -> cl.Context:
        return self.server.context

    @property
    def mode(self) -> StreamMode:
        """The mode in force now."""
        return self.modes.mode

    def verdict(self) -> LaunchMode:
        """The verdict a launch on this stream gets now (what `launch` resolves inline;
        the pyopencl launch hook asks it for launches made on this stream's queue)."""
        entries = self.modes.entries
        if entries:
            return entries[-1][2] or _overrides.discard_verdict
        return _overrides.default_verdict

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
        entries = self.modes.entries
        if entries:
            verdict = entries[-1][2] or _overrides.discard_verdict
        else:
            verdict = _overrides.default_verdict
        if verdict is _EXECUTE:
            # The common case, an obtained kernel run for real: straight to the kernel.
            launchable = self.server.ready(kernel)
            if launchable is not None:
                event = launchable.enqueue(self.queue, global_size, local_size, args)
                if self._capturing is not None:
                    self._capturing.append(event)
                return event
        if self._seen is not None:
            self._seen.add(kernel.key)
            if self._drop_all:
                return None
        event = self.server.act(self.queue, kernel, verdict, global_size, local_size, args)
        if self._capturing is not None and event is not None:
            self._capturing.append(event)
        return event

    @contextmanager
    def gathering(self) -> Iterator[set[str]]:
        """Launches only queue their kernels (verdict QUEUE), whatever the process mode;
        yields the keys of the kernels launched meanwhile.

        For measurements: before measuring candidates, a tune runs each once like this so
        that all their kernels build in one batch, without switching the whole process to
        COMPILE_ONLY under other threads' feet."""
        with self._watching(drop=False) as seen:
            yield seen

    @contextmanager
    def identifying(self) -> Iterator[set[str]]:
        """Launches are dropped, not even queued; yields the keys of the kernels launched.

        What a tune entry's identity is checked with: which kernels a candidate launches
        now, without compiling (or queueing for compilation) the losers' kernels."""
        with self._watching(drop=True) as seen:
            yield seen

    @contextmanager
    def _watching(self, drop: bool) -> Iterator[set[str]]:
        token = self.modes.push(StreamMode.DISCARD, LaunchMode.QUEUE)
        previous = self._seen, self._drop_all
        self._seen, self._drop_all = set(), drop
        try:
            yield self._seen
        finally:
            self._seen, self._drop_all = previous
            self.modes.pop(token)

    def build_queued(self) -> None:
        """Obtain everything queued on this stream's device now (one batch where it pays)."""
        self.server.flush()

    @contextmanager
    def capture_events(self) -> Iterator[list[cl.Event]]:
        """Collect the events of every launch made on this stream meanwhile."""
        previous, self._capturing = self._capturing, []
        try:
            yield self._capturing
        finally:
            self._capturing = previous

    def finish(self) -> None:
        self.queue.finish()

    def __repr__(self) -> str:
        return f"<clmodes.Stream {self.name!r} on {self.device.label}: {self.mode.name}>"
