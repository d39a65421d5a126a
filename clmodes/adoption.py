"""Adopting a user's context and queue: code that already has them keeps them.

`clmodes.client(context=ctx)` gives a client whose server uses `ctx` instead of making
its own, so the buffers, arrays and kernels the user already made on `ctx` stay valid:
clmodes launches take them, and the programs pyopencl builds on `ctx` go through the
store. `client.stream(queue=q)` wraps the user's queue in a stream, so launches on `q`
(clmodes' and pyopencl's) follow that stream's mode.

One device per context: a client is one device's server (its store keys, its compile
queue, its tune answers), and a program pyopencl builds on a context of two devices is
two binaries clmodes cannot file under one device. Such a context is refused with the
remedy (one context per device). An adopted queue keeps its own properties: without
profiling, a tune cannot time candidates on it, which is why tunes measure on a stream
of their own.
"""

from __future__ import annotations

import pyopencl as cl

from clmodes.device import Device
from clmodes.discovery import candidates


def context_device(context: cl.Context, device: object = None) -> Device:
    """The clmodes device of a one-device `context`; `device`, if given, must be it."""
    if not isinstance(context, cl.Context):
        raise TypeError(f"clmodes.client(context=...) needs a pyopencl.Context, not {context!r}")
    members = list(context.devices)
    if len(members) != 1:
        names = ", ".join(d.name.strip() for d in members)
        raise ValueError(f"clmodes.client(context=...): the context has {len(members)} devices "
                         f"({names}); clmodes adopts one-device contexts: make one per device")
    listed = [d for d in candidates(members[0]) if d.cl_device == members[0]]
    if not listed:
        raise ValueError(f"clmodes.client(context=...): the context's device "
                         f"({members[0].name.strip()}) is not one clmodes lists (clmodes devices)")
    found = listed[0]
    if device is not None and found.index not in {d.index for d in candidates(device)}:
        raise ValueError(f"clmodes.client(context=...): the context is on {found.label}, "
                         f"not on the device asked for ({device!r})")
    return found


def check_queue(queue: cl.CommandQueue, context: cl.Context, label: str) -> None:
    """Refuse a queue of another context, saying how to adopt it."""
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"client.stream(queue=...) needs a pyopencl.CommandQueue, not {queue!r}")
    if queue.context.int_ptr != context.int_ptr:
        raise ValueError(f"client.stream(queue=...): the queue belongs to another context than "
                         f"this client's on {label}; adopt its context first: "
                         "clmodes.client(context=queue.context).stream(queue=queue)")


def queue_stream_name(queue: cl.CommandQueue) -> str:
    """The name of the stream adopting `queue`: one stream per queue."""
    return f"queue-{queue.int_ptr:#x}"
