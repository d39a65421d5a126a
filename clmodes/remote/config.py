"""Where the team's remote is and how long a process may wait for it.

`$CLMODES_REMOTE` (or `clmodes.remote.configure(url)`) names it: `redis://HOST:PORT/DB`,
or `rediss://...` for TLS, optionally with `USER:PASSWORD@` (never shown: `shown` strips
it from every message). The timeouts are the whole cost of a remote that is down or
slow: one connect timeout, or one socket timeout, then the remote is marked down for the
rest of the process (`clmodes.remote.redis_remote`).
"""

from __future__ import annotations

import dataclasses
import os
import urllib.parse

from clmodes.errors import ClmodesError

URL_ENV = "CLMODES_REMOTE"
SIGNING_KEY_ENV = "CLMODES_SIGNING_KEY"
CONNECT_TIMEOUT_S = 1.0
SOCKET_TIMEOUT_S = 2.0
SCHEMES = ("redis", "rediss")


class RemoteError(ClmodesError):
    """A remote named wrongly, or its client library missing (one line, naming which)."""


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
    text = os.environ.get(URL_ENV, "").strip()
    return parse(text) if text else None


def signing_key_from_environment() -> str | None:
    """`$CLMODES_SIGNING_KEY`: the private key warm publishes with, or None."""
    return os.environ.get(SIGNING_KEY_ENV, "").strip() or None
