"""Sockets bounded by an operation's deadline and by what its replies may hold.

Bounded in time, whatever the server does (`config.Bounds`). The trap: redis-py's
socket timeout bounds one wait for one packet, so a server answering each reply in
1.9 s, or trickling a byte a second, never trips it. Here every socket of the client is
a `DeadlineSocket`: before each wait it is given what is left of the operation's
deadline, and past the deadline it raises.

`Clock` is the operation in progress (per thread); `DeadlineSocket` cuts every wait to
what is left of it and stops reads at the bytes its round trip may receive;
`bounded_connection` makes redis-py's connection class hand out such sockets. Split from
`redis_remote` (which decides what each operation asks): this module is the trap's fix.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from typing import Any


class Clock(threading.local):
    """The operation in progress on this thread: its deadline, and the bytes its round
    trip may still receive. Thread-local because redis-py gives each thread its own
    connection from the pool, and each thread's operation its own deadline."""

    deadline: float = math.inf
    may_receive: float = math.inf
    expired: bool = False
    flooded: bool = False

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def left(self) -> float:
        """What `remaining` says, for a wait: past the deadline, `socket.timeout` (and the
        operation marked expired)."""
        left = self.remaining()
        if left <= 0:
            self.expired = True
            raise socket.timeout("the remote operation's deadline passed")
        return left


class DeadlineSocket:
    """A connected socket whose every wait is cut to what is left of the operation's
    deadline, and whose reads stop at the bytes the round trip may receive. Everything
    else is the socket's own (redis-py calls `setsockopt`, `shutdown`, `close`...)."""

    def __init__(self, sock: socket.socket, clock: Clock, wait_s: float | None) -> None:
        self._sock = sock
        self._clock = clock
        self._wait = wait_s

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def settimeout(self, wait_s: float | None) -> None:
        self._wait = wait_s
        self._sock.settimeout(wait_s)

    def gettimeout(self) -> float | None:
        return self._wait

    def _bound(self) -> None:
        if self._wait == 0:  # a poll (redis-py's can_read): never blocks
            return
        left = self._clock.left()
        self._sock.settimeout(left if self._wait is None else min(self._wait, left))

    def _received(self, count: int) -> None:
        self._clock.may_receive -= count
        if self._clock.may_receive < 0:
            self._clock.flooded = True
            raise OSError("the server sent more than the replies asked for can hold")

    def recv(self, size: int, *flags: int) -> bytes:
        self._bound()
        data = self._sock.recv(size, *flags)
        self._received(len(data))
        return data

    def recv_into(self, buffer: Any, size: int = 0, *flags: int) -> int:
        self._bound()
        count = self._sock.recv_into(buffer, size, *flags)
        self._received(count)
        return count

    def sendall(self, data: Any, *flags: int) -> None:
        self._bound()  # since Python 3.5 the timeout bounds the whole sendall
        self._sock.sendall(data, *flags)

    def send(self, data: Any, *flags: int) -> int:
        self._bound()
        return self._sock.send(data, *flags)


def bounded_connection(base: type, clock: Clock, connect_s: float) -> type:
    """redis-py's connection class `base` (plain or TLS) with its sockets bounded.

    `_connect` is redis-py's documented hook for making the socket (its TLS connection
    overrides it the same way); the connect wait is cut to the operation's deadline too."""

    class Bounded(base):  # type: ignore[misc, valid-type]
        def _connect(self) -> Any:
            self.socket_connect_timeout = min(connect_s, clock.left())
            return DeadlineSocket(super()._connect(), clock, self.socket_timeout)

    return Bounded
