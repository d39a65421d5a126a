"""A tiny hostile Redis: it speaks enough RESP for a client to go on asking, and
answers badly, one way per server.

    with HostileRedis("slow", delay=1.5) as server:   # server.url: redis://127.0.0.1:PORT/0
        ...

- `slow`: every answer is right but comes `delay` seconds after its request (each one
  inside a socket timeout: the trap a per-wait timeout never catches);
- `trickle`: right answers, one byte every `delay` seconds;
- `stall`: accepts, reads, never answers;
- `nested`: answers `*1\\r\\n` repeated 200,000 times (a reply nested deeper than any
  recursive parser goes);
- `garbage`: an error line of `size` bytes for every request (a megabyte "message").

A thread on a loopback port of its own (port 0: the kernel picks), inside the test's
process, with daemon threads per connection; `close()` stops accepting and closes every
connection it made. The answers keep a reader asking, as an empty Redis would: nothing
is found (`STRLEN` 0, `EXISTS` 0, an empty listing for a script).
"""

from __future__ import annotations

import socket
import threading
import time

NESTED_DEPTH = 200_000


def answer(command: list[bytes]) -> bytes:
    """What an empty Redis would answer, enough for clmodes' reads and writes."""
    name = command[0].upper() if command else b""
    if name == b"HELLO":  # as a Redis before 6: a client falls back to RESP2
        return b"-ERR unknown command 'HELLO'\r\n"
    if name == b"PING":
        return b"+PONG\r\n"
    if name in (b"EVAL", b"EVALSHA"):
        return b"*2\r\n:0\r\n:0\r\n"  # no long field names, no fields
    if name in (b"GETRANGE", b"GET", b"HGET"):
        return b"$0\r\n\r\n" if name == b"GETRANGE" else b"$-1\r\n"
    if name in (b"SET", b"SELECT", b"AUTH", b"CLIENT"):
        return b"+OK\r\n"
    if name == b"HKEYS":
        return b"*0\r\n"
    return b":0\r\n"


def commands(buffer: bytearray) -> list[list[bytes]]:
    """The complete RESP commands at the front of `buffer` (consumed)."""
    found = []
    while True:
        parsed = _one(buffer)
        if parsed is None:
            return found
        command, used = parsed
        del buffer[:used]
        found.append(command)


def _one(buffer: bytearray) -> tuple[list[bytes], int] | None:
    if not buffer.startswith(b"*"):
        end = buffer.find(b"\r\n")  # an inline command
        return None if end < 0 else (bytes(buffer[:end]).split(), end + 2)
    end = buffer.find(b"\r\n")
    if end < 0:
        return None
    count, at, parts = int(buffer[1:end]), end + 2, []
    for _ in range(count):
        end = buffer.find(b"\r\n", at)
        if end < 0:
            return None
        size = int(buffer[at + 1:end])
        if len(buffer) < end + 2 + size + 2:
            return None
        parts.append(bytes(buffer[end + 2:end + 2 + size]))
        at = end + 2 + size + 2
    return parts, at


class HostileRedis:
    def __init__(self, mode: str, delay: float = 0.5, size: int = 1 << 20) -> None:
        assert mode in ("slow", "trickle", "stall", "nested", "garbage"), mode
        self.mode, self.delay, self.size = mode, delay, size
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._connections: list[socket.socket] = []
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> HostileRedis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        for connection in list(self._connections):
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        buffer = bytearray()
        try:
            while not self._closed.is_set():
                data = connection.recv(65536)
                if not data:
                    return
                buffer += data
                for command in commands(buffer):
                    self._reply(connection, command)
        except (OSError, ValueError):
            return

    def _reply(self, connection: socket.socket, command: list[bytes]) -> None:
        if self.mode == "stall":
            return
        if self.mode == "nested":
            connection.sendall(b"*1\r\n" * NESTED_DEPTH + b":0\r\n")
        elif self.mode == "garbage":
            connection.sendall(b"-ERR " + b"x" * self.size + b"\r\n")
        elif self.mode == "slow":
            time.sleep(self.delay)
            connection.sendall(answer(command))
        else:  # trickle
            for byte in answer(command):
                time.sleep(self.delay)
                connection.sendall(bytes([byte]))
