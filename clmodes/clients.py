"""`Client`: the public face of one device's server. One per device, shared by all threads."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import pyopencl as cl

from clmodes import released
from clmodes.device import Device
from clmodes.adoption import check_queue, queue_stream_name
from clmodes.server import DeviceServer
from clmodes.store.store import Store
from clmodes.stream import Stream

log = logging.getLogger("clmodes")


class Client:
    """`clmodes.client(device)`: the device, its context and its named streams;
    `clmodes.client(context=ctx)`: one adopting a user's context (`clmodes.adoption`)."""

    def __init__(self, device: Device, store: Callable[[], Store],
                 context: cl.Context | None = None, runtime: object = None) -> None:
        """`store`: where its runtime keeps binaries (asked at each flush: the store can
        be relocated). `runtime`: the `clmodes.runtime.Runtime` that made it, which its
        streams' tunes, measurements and warms use (typed `object` here: the runtime
        sits a layer above and knows clients, not the other way round)."""
        released.install()  # a buffer of this context released later must be refused
        self.runtime = runtime
        self.server = DeviceServer(device, store, context)
        self._streams: dict[str, Stream] = {}
        self._lock = threading.Lock()

    @property
    def device(self) -> Device:
        return self.server.device

    @property
    def context(self) -> cl.Context:
        return self.server.context

    def stream(self, name: str | None = None, queue: cl.CommandQueue | None = None) -> Stream:
        """The stream of that name (default "default"): the same name gives the same
        stream. `queue`: adopt a user's queue on this client's context; its stream is
        named after the queue unless `name` is given, and adopting it again gives it back."""
        if queue is None:
            return self._named(name or "default", None)
        check_queue(queue, self.context, self.device.label)
        return self._named(name or queue_stream_name(queue), queue)

    def _named(self, name: str, queue: cl.CommandQueue | None) -> Stream:
        with self._lock:
            found = self._streams.get(name)
            if found is None:
                found = self._streams[name] = Stream(self.server, name, queue, client=self)
            elif queue is not None and found.queue.int_ptr != queue.int_ptr:
                raise ValueError(f"client.stream(name={name!r}, queue=...): a stream of that "
                                 f"name already has another queue on {self.device.label}")
            return found

    def finish(self) -> None:
        """Wait for every launch queued on this client's streams. Before a capture reads a
        program's BINARIES: on PoCL that read puts each kernel's generic code first in
        the list its running launches release into, and a launch of a
        `reqd_work_group_size` kernel still running then aborts PoCL 3.1
        (`pyopencl_hooks.inflight` says how it was found; it waits for pyopencl's own
        programs, this for clmodes' kernels, whose launches skip the hook)."""
        with self._lock:
            streams = list(self._streams.values())
        for stream in streams:
            try:
                stream.queue.finish()
            except cl.Error as error:  # a queue the program broke: nothing to wait for
                log.debug("stream %r on %s: not finished (%s)", stream.name,
                          self.device.label, error)

    def __repr__(self) -> str:
        return f"<clmodes.Client {self.device.label}>"
