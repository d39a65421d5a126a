"""Where the team's remote is and how long a process may wait for it.

`$CLMODES_REMOTE` (or `clmodes.remote.configure(url)`) names it: `redis://HOST:PORT/DB`,
or `rediss://...` for TLS, optionally with `USER:PASSWORD@` (never shown: `shown` strips
it from every message). `Bounds` is the whole cost a remote may impose on a process, in
time and memory, whatever it answers (`clmodes.remote.redis_remote` enforces it):

- `operation_s`: one deadline for each operation (a read, a write, a ping), over every
  byte of it. The trap: a socket timeout bounds one wait for one packet, so a server
  that answers each reply in 1.9 s, or trickles one byte a second, never trips a 2 s
  timeout and holds a process for minutes.
- `budget_s`: the remote time a process may spend in all; once spent, the remote is
  marked down for the process (one warning) and everything is local work. A run facing
  a bad server waits at most this long, however many misses it has.
- `max_entry`: the largest value read (a program binary's entry; the tune and kernel
  entries keep their own 1 MiB limit below it). Checked on the server before reading.

From the environment: `$CLMODES_REMOTE_TIMEOUT_S`, `$CLMODES_REMOTE_BUDGET_S`,
`$CLMODES_REMOTE_MAX_ENTRY` (bytes); from Python: `configure(url, bounds=Bounds(...))`.
"""

from __future__ import annotations

import dataclasses
import urllib.parse

from clmodes import settings
from clmodes.errors import ClmodesError

URL_ENV = settings.REMOTE.name
CONNECT_TIMEOUT_S = 1.0
SOCKET_TIMEOUT_S = settings.REMOTE_TIMEOUT_S.default
BUDGET_S = settings.REMOTE_BUDGET_S.default
MAX_ENTRY = settings.REMOTE_MAX_ENTRY.default  # a program binary: the largest PoCL ones are tens of MiB
SCHEMES = ("redis", "rediss")


class RemoteError(ClmodesError):
    """A remote named wrongly, or its client library missing (one line, naming which)."""


@dataclasses.dataclass(frozen=True)
class Bounds:
    """What one process may spend on its remote, whatever the server does."""

    operation_s: float = SOCKET_TIMEOUT_S  # one read, write or ping, every byte of it
    budget_s: float = BUDGET_S  # all remote operations of the process together
    max_entry: int = MAX_ENTRY  # the largest value read, in bytes
    connect_s: float = CONNECT_TIMEOUT_S  # one connection attempt (within operation_s)

    def __post_init__(self) -> None:
        for name in ("operation_s", "budget_s", "connect_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value < 86400:
                raise RemoteError(f"remote bounds: {name}={value!r} is not a number of "
                                  "seconds above 0")
        if not isinstance(self.max_entry, int) or not 4096 <= self.max_entry <= 1 << 31:
            raise RemoteError(f"remote bounds: max_entry={self.max_entry!r} is not a byte "
                              "count from 4096 to 2 GiB")

    @classmethod
    def from_environment(cls) -> Bounds:
        """The defaults, overridden by `$CLMODES_REMOTE_TIMEOUT_S`, `$CLMODES_REMOTE_BUDGET_S`
        and `$CLMODES_REMOTE_MAX_ENTRY`; `RemoteError` naming a variable that does not parse."""
        try:
            return cls(operation_s=settings.REMOTE_TIMEOUT_S.get(),
                       budget_s=settings.REMOTE_BUDGET_S.get(),
                       max_entry=settings.REMOTE_MAX_ENTRY.get())
        except settings.SettingError as error:
            raise RemoteError(str(error)) from None


@dataclasses.dataclass(frozen=True)
class RemoteURL:
    url: str
    host: str
    port: int
    db: int
    tls: bool

    @property
    def shown(self) -> str:
        """The URL without credentials, for messages and `cache info`."""
        scheme = "rediss" if self.tls else "redis"
        return f"{scheme}://{self.host}:{self.port}/{self.db}"


def parse(url: str) -> RemoteURL:
    """A remote URL, or `RemoteError` naming what is wrong with it."""
    parts = urllib.parse.urlsplit(url.strip())
    where = f"${URL_ENV}={url[:80]!r}" if url else f"${URL_ENV}"
    if parts.scheme not in SCHEMES:
        raise RemoteError(f"{where}: not a remote URL (redis://HOST:PORT/DB or rediss://...)")
    try:
        port = parts.port or 6379
        db_text = parts.path.strip("/") or "0"
        db = int(db_text)
    except ValueError as error:
        raise RemoteError(f"{where}: not a remote URL ({error})") from error
    if not parts.hostname or db < 0:
        raise RemoteError(f"{where}: not a remote URL (no host, or a negative DB)")
    return RemoteURL(url.strip(), parts.hostname, port, db, parts.scheme == "rediss")


def from_environment() -> RemoteURL | None:
    """`$CLMODES_REMOTE` parsed, or None when unset or empty."""
    text = settings.REMOTE.get()
    return parse(text) if text else None


def signing_key_from_environment() -> str | None:
    """`$CLMODES_SIGNING_KEY`: the private key warm publishes with, or None."""
    return settings.SIGNING_KEY.get()
