"""`Stream`: a command queue (profiling on) with a `StreamMode`, and `launch()`.

A stream knows only whether its launches run. Its mode is the innermost live
`StreamModeOverride` on it, else the default the process mode implies. The verdict for a
launch is resolved here, on the issuing thread, at the moment of issue.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyopencl as cl

from clmodes.execution import StreamMode, default_stream_mode, process_mode, resolve_launch_mode
from clmodes.kernel import Kernel

if TYPE_CHECKING:
    from clmodes.server import DeviceServer

Size = int | Sequence[int]


def _size(size: Size | None) -> tuple[int, ...] | None:
    if size is None:
        return None
    return (size,) if isinstance(size, int) else tuple(size)


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
        # Replaced wholesale under the lock, read without it on the launch path.
        self._overrides: tuple[tuple[int, StreamMode], ...] = ()

    @property
    def device(self):  # -> clmodes.device.Device
        return self._server.device

    @property
    def mode(self) -> StreamMode:
        """The mode in force now."""
        overrides = self._overrides
        return overrides[-1][1] if overrides else default_stream_mode(process_mode())

    def _push_mode(self, mode: StreamMode) -> int:
        with self._lock:
            token = next(self._tokens)
            self._overrides = (*self._overrides, (token, mode))
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
        """Launch `kernel`; returns its event, or None when the verdict drops the launch."""
        overrides = self._overrides
        stream_mode = overrides[-1][1] if overrides else default_stream_mode(process_mode())
        verdict = resolve_launch_mode(stream_mode, process_mode())
        return self._server.launch(
            self.queue, kernel, verdict, _size(global_size), _size(local_size), args
        )

    def finish(self) -> None:
        self.queue.finish()

    def __repr__(self) -> str:
        return f"<clmodes.Stream {self.name!r} on {self.device.label}: {self.mode.name}>"
