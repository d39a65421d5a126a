"""`Client`: the public face of one device's server. One per device, shared by all threads."""

from __future__ import annotations

import threading

import pyopencl as cl

from clmodes.device import Device, select
from clmodes.server import DeviceServer
from clmodes.stream import Stream


class Client:
    """`clmodes.client(device)`: the device, its context and its named streams."""

    def __init__(self, device: Device) -> None:
        self.server = DeviceServer(device)
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


_clients: dict[int, Client] = {}
_lock = threading.Lock()


def client(device: object = None) -> Client:
    """The client of a device: a `Device`, an index, a label substring, or
    `$CLMODES_DEVICE`, else the first device."""
    chosen = select(device)
    with _lock:
        found = _clients.get(chosen.index)
        if found is None:
            found = _clients[chosen.index] = Client(chosen)
        return found


def all_clients() -> list[Client]:
    """Every client created so far in this process."""
    with _lock:
        return list(_clients.values())
