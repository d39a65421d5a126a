"""`Runtime`: everything one process shares, held by one object instead of module globals.

A runtime holds the store, the device clients (one per device, shared by all threads),
the tune cache and the probe cache. The module-level functions (`clmodes.client()`,
`clmodes.default_store()`, `clmodes.set_cache_dir()`) delegate to the default runtime,
made on first use so that importing clmodes touches no device and no file.

Why an object: the store, the clients and the caches were four ambient singletons in four
modules, called from a dozen places; what belongs to one process is now in one place that
a test or an embedding application can see whole. The caches are created here, lazily,
from their own modules, which never import this one (no import circle).
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import pyopencl as cl

from clmodes.adoption import context_device
from clmodes.clients import Client
from clmodes.stream import Stream
from clmodes.device import Device
from clmodes.selection import choose
from clmodes.store.connection import default_location
from clmodes.store.store import Store
from clmodes.device_check import Usability, UsabilityCache

if TYPE_CHECKING:
    from clmodes.probing.cache import ProbeCache
    from clmodes.tune.decisions.cache import TuneCache


class Runtime:
    """One process's store, clients and caches."""

    def __init__(self, location: Path | str | None = None, *, default: bool = True) -> None:
        """`location`: the store's directory (None with `default=False`: in memory);
        by default `default_location()` ($CLMODES_CACHE_DIR or the user cache dir)."""
        self._lock = threading.Lock()
        self._location = location
        self._use_default = default and location is None
        self._store: Store | None = None
        self._clients: dict[int, Client] = {}
        self._adopted: dict[int, Client] = {}  # by cl_context handle
        self._tunes: "TuneCache | None" = None
        self._probes: "ProbeCache | None" = None
        self._usability = UsabilityCache(lambda: self.store)

    @property
    def store(self) -> Store:
        """The store, opened on first use."""
        with self._lock:
            if self._store is None:
                self._store = Store(default_location() if self._use_default else self._location)
            return self._store

    @property
    def opened_store(self) -> Store | None:
        """The store if this process has opened it (None: never asked for), so that a
        caller that only reports on it does not open one."""
        with self._lock:
            return self._store

    def relocate(self, directory: Path | str | None, read_only: str | None = None) -> Store:
        """Move the store (None: in memory); returns the new one. `read_only`: why this
        process reads the store and never writes it (its writes stay in memory)."""
        with self._lock:
            if self._store is not None:
                self._store.close()
            self._location, self._use_default = directory, False
            self._store = Store(directory, read_only)
            return self._store

    def usability(self, device: Device) -> Usability:
        """Can `device` build and run a trivial kernel? Checked once per exact device and
        compiler environment, the verdict kept in the store (`clmodes.device_check`)."""
        return self._usability.of(device)

    def client(self, device: object = None, context: cl.Context | None = None) -> Client:
        """The client of a device: a `Device`, an index, a label substring, or
        `$CLMODES_DEVICE`, else the first usable device. A device named explicitly that
        cannot build raises `DeviceUnusableError` with the reason and the remedy.
        `context`: adopt a user's one-device context (`clmodes.adoption`): the same
        context gives the same client, and a client's own context gives that client."""
        if context is not None:
            return self._adopt(context, device)
        chosen = choose(device, self.usability)
        _live.add(self)
        with self._lock:
            found = self._clients.get(chosen.index)
            if found is None:
                found = self._clients[chosen.index] = Client(chosen, lambda: self.store,
                                                             runtime=self)
            return found

    def _adopt(self, context: cl.Context, device: object) -> Client:
        chosen = context_device(context, device)
        _live.add(self)
        handle = context.int_ptr
        with self._lock:
            for each in (*self._clients.values(), *self._adopted.values()):
                if each.context.int_ptr == handle:
                    return each
            found = self._adopted[handle] = Client(chosen, lambda: self.store, context,
                                                   runtime=self)
            return found

    def clients(self) -> list[Client]:
        """Every client created so far (adopted contexts' included)."""
        with self._lock:
            return [*self._clients.values(), *self._adopted.values()]

    @property
    def tunes(self) -> "TuneCache":
        with self._lock:
            if self._tunes is None:
                from clmodes.tune.decisions.cache import TuneCache

                self._tunes = TuneCache(lambda: self.store)
            return self._tunes

    @property
    def probes(self) -> "ProbeCache":
        with self._lock:
            if self._probes is None:
                from clmodes.probing.cache import ProbeCache

                self._probes = ProbeCache(lambda: self.store)
            return self._probes


_live: "weakref.WeakSet[Runtime]" = weakref.WeakSet()  # every runtime with a client


def live_runtimes() -> list[Runtime]:
    """Every runtime that made a client and is still alive (what a compile-mode override
    closing persists: each runtime's clients into its own store)."""
    return list(_live)


_default: Runtime | None = None
_default_lock = threading.Lock()


def default_runtime() -> Runtime:
    """The process's runtime, made on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Runtime()
        return _default


def runtime_of(stream: Stream) -> Runtime:
    """The runtime a stream belongs to (its client's), else the process's: what a tune,
    a measurement or a warm on that stream uses, so that a stream of another `Runtime` is
    never measured in a foreign context or recorded in a foreign store."""
    owner = stream.client.runtime if stream.client is not None else None
    return owner if isinstance(owner, Runtime) else default_runtime()


def client(device: object = None, context: cl.Context | None = None) -> Client:
    """`clmodes.client(device)`: the default runtime's client of a device;
    `clmodes.client(context=ctx)`: the client adopting a user's context."""
    return default_runtime().client(device, context)


def usability(device: object = None) -> Usability:
    """`clmodes.usability(device)`: can the device build and run a trivial kernel? The
    verdict (usable, reason, remedy), checked once per machine and driver."""
    from clmodes.discovery import select

    return default_runtime().usability(select(device))


def all_clients() -> list[Client]:
    """Every client the default runtime has created."""
    return default_runtime().clients()


def default_store() -> Store:
    """The process's store, opened on first use at `default_location()`."""
    return default_runtime().store


def set_cache_dir(directory: Path | str | None) -> Store:
    """Relocate the process's store (None: in memory). Returns the new store."""
    return default_runtime().relocate(directory)
