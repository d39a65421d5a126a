"""`Client`: the public face of one device's server. One per device, shared by all threads."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pyopencl as cl

from clmodes import released
from clmodes.device import Device
from clmodes.server import DeviceServer
from clmodes.store.store import Store
from clmodes.stream import Stream


class Client:
    """`clmodes.client(device)`: the device, its context and its named streams."""

    def __init__(self, device: Device, store: Callable[[], Store]) -> None:
        """`store`: where its runtime keeps binaries (asked at each flush: the store can
        be relocated)."""
        released.install()  # a buffer of this context released later must be refused
        self.server = DeviceServer(device, store)
        self._streams: dict[str, Stream] = {}
        self._lock = threading.Lock()

    @property
    def device(self) -> Device:
        return self.server.device

    @property
    def context(self) -> cl.Context:
        return self.server.context

    def stream(self, name: str = "default") -> Stream:
        """The stream of that name: the same name gives the same stream."""
        with self._lock:
            found = self._streams.get(name)
            if found is None:
                found = self._streams[name] = Stream(self.server, name)
            return found

    def __repr__(self) -> str:
        return f"<clmodes.Client {self.device.label}>"
