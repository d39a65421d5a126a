"""`RedisRemote`: the `Remote` interface on one Redis (or a managed one, or a proxy in
front of a Redis Cluster: the commands are single-key or one hash).

Layout (`clmodes.remote.layout` names the keys): one string per binary and per kernel
index entry, one hash per tune key whose fields are device models. First write wins
with `SET NX` and `HSETNX`: two publishers of one entry agree on the first, and a
republish costs nothing.

Bounded, always: connect and socket timeouts (`config`), redis-py's retries off (its
default retries three times with backoff: a down remote would cost several timeouts),
every value read with a limit (`GETRANGE 0 LIMIT` for strings, `HSTRLEN` before `HGET`
for a hash; `HLEN` before a hash is listed), so a huge value costs its limit, never its
size. The first failure of any kind (refused, timed out, out of memory on a write, a
protocol error) marks the remote down for the rest of the process with one warning:
a run goes on with its local store and never waits twice.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from clmodes.remote.config import CONNECT_TIMEOUT_S, SOCKET_TIMEOUT_S, RemoteError, RemoteURL
from clmodes.remote.interface import Refused, Remote, Value

log = logging.getLogger("clmodes")


def client_library() -> Any:
    """redis-py, or `RemoteError` naming the extra that installs it."""
    try:
        import redis
    except ImportError as error:
        raise RemoteError("$CLMODES_REMOTE is set but the redis client is not installed: "
                          "pip install 'clmodes[remote]'") from error
    return redis


class RedisRemote(Remote):
    def __init__(self, url: RemoteURL, connect_timeout_s: float = CONNECT_TIMEOUT_S,
                 socket_timeout_s: float = SOCKET_TIMEOUT_S) -> None:
        redis = client_library()
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.name = url.shown
        self._errors = (redis.RedisError, OSError)
        self._client = redis.Redis.from_url(
            url.url, socket_connect_timeout=connect_timeout_s, socket_timeout=socket_timeout_s,
            retry=Retry(NoBackoff(), 0), retry_on_timeout=False, health_check_interval=0)
        self._down: str | None = None
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self._down is None

    @property
    def down_because(self) -> str | None:
        return self._down

    def _fail(self, error: BaseException) -> None:
        """Mark the remote down, with one warning for the process."""
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        with self._lock:
            if self._down is not None:
                return
            self._down = first
        log.warning("clmodes remote %s: unavailable (%s); using the local store only for the "
                    "rest of this process", self.name, first)

    def _run(self, commands: list[tuple[str, tuple[Any, ...]]]) -> list[Any] | None:
        """One pipelined round trip; per-command errors come back as values (a WRONGTYPE
        is about one key, not the remote); None when the remote failed."""
        if self._down is not None:
            return None
        if not commands:
            return []
        try:
            pipe = self._client.pipeline(transaction=False)
            for name, arguments in commands:
                pipe.execute_command(name, *arguments)
            results = pipe.execute(raise_on_error=False)
        except self._errors as error:
            self._fail(error)
            return None
        for result in results:
            # Out of memory or a read-only replica: the remote is full for this process.
            if isinstance(result, self._errors) and not str(result).startswith("WRONGTYPE"):
                self._fail(result)
                return None
        return list(results)

    def get(self, keys: list[str], limit: int) -> dict[str, Value]:
        results = self._run([("GETRANGE", (key, 0, limit)) for key in keys]) or []
        found: dict[str, Value] = {}
        for key, value in zip(keys, results):
            if isinstance(value, BaseException):
                found[key] = Refused(f"not a string value ({str(value)[:60]})")
            elif value:
                found[key] = Refused(f"over the {limit}-byte limit") if len(value) > limit \
                    else bytes(value)
        return found

    def get_group(self, key: str, limit: int, most: int) -> dict[str, Value]:
        counted = self._run([("HLEN", (key,))])
        if not counted or isinstance(counted[0], BaseException) or not counted[0]:
            if counted and isinstance(counted[0], BaseException):
                log.warning("clmodes remote %s: %s is not a hash; refused", self.name, key)
            return {}
        if int(counted[0]) > most:
            log.warning("clmodes remote %s: %s has %d entries, more than the %d read; refused",
                        self.name, key, int(counted[0]), most)
            return {}
        listed = self._run([("HKEYS", (key,))])
        fields = [bytes(f) for f in (listed[0] if listed and isinstance(listed[0], list) else [])]
        sizes = self._run([("HSTRLEN", (key, field)) for field in fields]) or []
        small = [f for f, size in zip(fields, sizes) if isinstance(size, int) and 0 < size <= limit]
        values = self._run([("HGET", (key, field)) for field in small]) or []
        found: dict[str, Value] = {}
        for field, size in zip(fields, sizes):
            name = field.decode("utf-8", "replace")
            if isinstance(size, int) and size > limit:
                found[name] = Refused(f"over the {limit}-byte limit ({size} bytes)")
        for field, value in zip(small, values):
            if isinstance(value, bytes):
                found[field.decode("utf-8", "replace")] = value
        return found

    def put(self, values: dict[str, bytes]) -> int:
        results = self._run([("SET", (key, value, "NX")) for key, value in values.items()])
        return sum(1 for r in results or [] if r is True or r == b"OK")

    def put_group(self, key: str, values: dict[str, bytes]) -> int:
        results = self._run([("HSETNX", (key, field, value)) for field, value in values.items()])
        return sum(1 for r in results or [] if r == 1)

    def present(self, keys: list[str]) -> set[str]:
        results = self._run([("EXISTS", (key,)) for key in keys]) or []
        return {key for key, result in zip(keys, results) if result == 1}

    def group_fields(self, key: str) -> set[str]:
        results = self._run([("HKEYS", (key,))])
        if not results or not isinstance(results[0], list):
            return set()
        return {bytes(f).decode("utf-8", "replace") for f in results[0]}

    def ping(self) -> float | None:
        started = time.perf_counter()
        return None if self._run([("PING", ())]) is None else time.perf_counter() - started
