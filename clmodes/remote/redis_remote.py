"""`RedisRemote`: the `Remote` interface on one Redis (or a managed one, or a proxy in
front of a Redis Cluster: every command and script touches one key).

Layout (`clmodes.remote.layout` names the keys): one string per binary and per kernel
index entry, one hash per tune key whose fields are device models. First write wins
with `SET NX` and `HSETNX`; a publisher replaces only a value that does not verify, by a
compare-and-set script on what it found (`replace`).

Bounded in time, whatever the server does (`config.Bounds`): every socket is a
`deadline.DeadlineSocket` (the trap and its fix are written there). The time of every
operation is counted against the process's budget; once spent, the remote is marked
down. redis-py's retries are off (its default retries with backoff: a down remote would
cost several timeouts).

Bounded in memory, whatever the server holds or says:
- a value's length is asked first (`STRLEN`, `HSTRLEN`) and one over the limit is
  refused without reading it; one under has its first piece read (`GETRANGE`) before
  any buffer of its length is made, so junk that is not an entry costs one piece; the
  rest is read in pieces into one buffer of its length;
- a tune group's field names (device models) are listed by a server-side script that
  returns only names of a sane length, with their values' lengths: a 200 MB field name
  stays on the server;
- each round trip may receive only the bytes its replies can hold (the sizes asked
  for, plus a little): a server that floods, or sends a line without end, is cut off.
Any exception at all from the client library (its parser's RecursionError on deeply
nested replies, MemoryError, OSError, ValueError, `redis.exceptions.*`) marks the remote
down for the rest of the process with one warning: a run goes on with its local store
and never fails, or waits twice, because of its cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

from clmodes.remote.config import Bounds, RemoteError, RemoteURL
from clmodes.remote.deadline import Clock, bounded_connection
from clmodes.remote.interface import Refused, Remote, Value

log = logging.getLogger("clmodes")

PIECE = 512 << 10  # one GETRANGE: what a value costs beyond its own buffer while read
ROUND_TRIP_BYTES = 4 << 20  # the most one pipelined round trip of pieces brings back
REPLY_SLACK = 64 << 10  # protocol overhead allowed on top of the sizes a round trip asks
MAX_FIELD = 256  # a device model's name; longer field names are never read
GROUP_TOTAL = 4  # a group's values together: at most this many times the value limit
SHOWN = 200  # characters of a server's message shown in a warning

# Field names of sane length, each with its value's length, or {-1, count} when there
# are more fields than a reader takes: names and values stay on the server otherwise.
GROUP_SCRIPT = """
local n = redis.call('HLEN', KEYS[1])
if n > tonumber(ARGV[1]) then return {-1, n} end
local out, long = {0, n}, 0
for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
  if #name <= tonumber(ARGV[2]) then
    out[#out + 1] = name
    out[#out + 1] = redis.call('HSTRLEN', KEYS[1], name)
  else
    long = long + 1
  end
end
out[1] = long
return out
"""

# Compare-and-set: write ARGV[4] at KEYS[1] (or its hash field ARGV[1]) only if what is
# there is still what the publisher judged bad (ARGV[2] how, ARGV[3] the token): the same
# bytes ("sha1"), over a length ("size"), not starting with a prefix ("prefix"), or of
# the wrong type ("type"); or if it is gone.
REPLACE_SCRIPT = """
local key, field, mode, token, value = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local want = 'hash'
if field == '' then want = 'string' end
local kind = redis.call('TYPE', key)['ok']
local function write()
  if kind ~= want and kind ~= 'none' then redis.call('DEL', key) end
  if field == '' then redis.call('SET', key, value) else redis.call('HSET', key, field, value) end
  return 1
end
if kind ~= want then
  if kind == 'none' or mode == 'type' then return write() end
  return 0
end
if field ~= '' and redis.call('HEXISTS', key, field) == 0 then return write() end
if mode == 'type' then return 0 end
local function current()
  if field == '' then return redis.call('GET', key) end
  return redis.call('HGET', key, field)
end
if mode == 'size' then
  local size
  if field == '' then size = redis.call('STRLEN', key) else size = redis.call('HSTRLEN', key, field) end
  if size > tonumber(token) then return write() end
  return 0
end
if mode == 'prefix' then
  if string.sub(current(), 1, #token) ~= token then return write() end
  return 0
end
if mode == 'sha1' and redis.sha1hex(current()) == token then return write() end
return 0
"""


def client_library() -> Any:
    """redis-py, or `RemoteError` naming the extra that installs it."""
    try:
        import redis
    except ImportError as error:
        raise RemoteError("$CLMODES_REMOTE is set but the redis client is not installed: "
                          "pip install 'clmodes[remote]'") from error
    return redis


def shown(error: BaseException | str) -> str:
    """A server's or library's message as one short line (a hostile server's error
    line may be megabytes long)."""
    text = str(error).splitlines()[0] if str(error).strip() else type(error).__name__
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


class RedisRemote(Remote):
    def __init__(self, url: RemoteURL, bounds: Bounds | None = None) -> None:
        redis = client_library()
        from redis.backoff import NoBackoff
        from redis.connection import Connection, SSLConnection
        from redis.retry import Retry

        self.name = url.shown
        self.bounds = bounds or Bounds()
        self._clock = Clock()
        base = SSLConnection if url.tls else Connection
        self._client = redis.Redis.from_url(
            url.url, socket_connect_timeout=self.bounds.connect_s,
            socket_timeout=self.bounds.operation_s, retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False, health_check_interval=0, lib_name=None, lib_version=None, protocol=2,
            connection_class=bounded_connection(base, self._clock, self.bounds.connect_s))
        self._down: str | None = None
        self._spent = 0.0
        self._depth = threading.local()
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self._down is None

    @property
    def spent_s(self) -> float:
        """Seconds this process has spent on the remote (against `Bounds.budget_s`)."""
        return self._spent

    def _fail(self, why: BaseException | str) -> None:
        """Mark the remote down, with one warning for the process, and drop its
        connections (one cut off mid-reply holds the rest of that reply)."""
        first = self._why(why)
        with self._lock:
            if self._down is not None:
                return
            self._down = first
        log.warning("clmodes remote %s: unavailable (%s); using the local store only for the "
                    "rest of this process", self.name, first)
        try:
            self._client.connection_pool.disconnect()
        except Exception:  # noqa: BLE001 - closing what already failed
            pass

    def _why(self, why: BaseException | str) -> str:
        if self._clock.expired or self._clock.remaining() <= 0.01:
            return (f"no complete answer within the {self.bounds.operation_s:g} s operation "
                    f"deadline or the {self.bounds.budget_s:g} s budget of this process: "
                    f"slow, trickling or stalled ({shown(why)})")
        if self._clock.flooded:
            return f"it sent more than was asked for ({shown(why)})"
        if isinstance(why, RecursionError):
            return "a reply nested too deeply to parse"
        return f"{type(why).__name__}: {shown(why)}" if isinstance(why, MemoryError) \
            else shown(why)

    @contextlib.contextmanager
    def _operation(self) -> Iterator[bool]:
        """One operation: its deadline, the lesser of `operation_s` and what is left of
        the budget, and its time counted against the budget. Yields whether to go on."""
        depth = getattr(self._depth, "n", 0)
        if depth:
            yield self._down is None
            return
        left = self.bounds.budget_s - self._spent
        if self._down is None and left <= 0:
            self._fail(f"its {self.bounds.budget_s:g} s budget for this process is spent")
        started = time.monotonic()
        self._clock.deadline = started + min(self.bounds.operation_s, max(left, 0.0))
        self._clock.expired = self._clock.flooded = False
        self._depth.n = 1
        try:
            yield self._down is None
        finally:
            self._depth.n = 0
            self._clock.deadline = math.inf
            with self._lock:
                self._spent += time.monotonic() - started
                spent = self._spent >= self.bounds.budget_s
            if spent and self._down is None:
                self._fail(f"its {self.bounds.budget_s:g} s budget for this process is spent")

    def _run(self, commands: list[tuple[str, tuple[Any, ...]]],
             reply_bytes: int = 0) -> list[Any] | None:
        """One pipelined round trip; per-command WRONGTYPE errors come back as values (about
        one key, not the remote); None when the remote failed. `reply_bytes`: what the
        replies' values can hold in all (the round trip may receive that, and a little)."""
        if self._down is not None:
            return None
        if not commands:
            return []
        self._clock.may_receive = reply_bytes + REPLY_SLACK + 64 * len(commands)
        try:
            pipe = self._client.pipeline(transaction=False)
            for name, arguments in commands:
                pipe.execute_command(name, *arguments)
            results = pipe.execute(raise_on_error=False)
        except Exception as error:  # noqa: BLE001 - any failure of the client is the remote's
            self._fail(error)
            return None
        finally:
            self._clock.may_receive = math.inf
        for result in results:
            # Out of memory, a read-only replica, scripts refused: the remote fails for
            # this process.
            if isinstance(result, Exception) and "WRONGTYPE" not in str(result):
                self._fail(result)
                return None
        return list(results)

    # -- strings ------------------------------------------------------------------------

    def get(self, keys: list[str], limit: int, magic: bytes = b"") -> dict[str, Value]:
        found: dict[str, Value] = {}
        with self._operation() as going:
            if not going:
                return found
            sizes: dict[str, int] = {}
            for key, size in zip(keys, self._run([("STRLEN", (key,)) for key in keys]) or []):
                if isinstance(size, Exception) or not isinstance(size, int):
                    found[key] = Refused("not a string value", "type")
                elif size > limit:
                    found[key] = Refused(f"{size} bytes, over the {limit}-byte limit (not read)",
                                         "size", limit)
                elif size > 0:
                    sizes[key] = size
            buffers = self._whole(self._heads(sizes, found, magic), sizes)
            self._fill(buffers, found, PIECE, None)
            if self._down is not None:
                return {}
            found.update(buffers)
        return found

    def _heads(self, sizes: dict[str, int], found: dict[str, Value],
               magic: bytes) -> dict[str, bytearray]:
        """Each value's first piece, read before its whole buffer is allocated: the one
        allocation of a value's full length (zeroed, so every page is touched) is made
        only for a value that starts as an entry. Junk under the limit (random bytes)
        costs one piece, not its length: +94 MB for 100 MB before."""
        heads = {key: bytearray(min(size, PIECE)) for key, size in sizes.items()}
        self._fill(heads, found, 0, None)
        for key in [k for k, head in heads.items() if magic and not head.startswith(magic)]:
            del heads[key]
            found[key] = Refused("not a clmodes remote entry (not read further)", "prefix",
                                 prefix=magic)
        return heads

    @staticmethod
    def _whole(heads: dict[str, bytearray], sizes: dict[str, int]) -> dict[str, bytearray]:
        """A buffer of each value's full length holding its first piece, one at a time
        dropping the piece's own buffer."""
        buffers: dict[str, bytearray] = {}
        for key in list(heads):
            head = heads.pop(key)
            if sizes[key] == len(head):
                buffers[key] = head
            else:
                buffers[key] = bytearray(sizes[key])
                buffers[key][:len(head)] = head
        return buffers

    def _fill(self, buffers: dict[str, bytearray], found: dict[str, Value], start: int,
              end: int | None) -> None:
        """Read bytes [start, end) of each value into its buffer, `PIECE` bytes per
        `GETRANGE`, `ROUND_TRIP_BYTES` per round trip. A value that changed length or
        type meanwhile is refused (it is being rewritten; the next process reads it)."""
        pieces = [(key, offset, min(len(buffer), offset + PIECE, end or len(buffer)))
                  for key, buffer in buffers.items()
                  for offset in range(start, min(len(buffer), end or len(buffer)), PIECE)]
        while pieces and self._down is None:
            batch: list[tuple[str, int, int]] = []
            total = 0
            while pieces and (not batch or total + pieces[0][2] - pieces[0][1] <= ROUND_TRIP_BYTES):
                batch.append(pieces.pop(0))
                total += batch[-1][2] - batch[-1][1]
            results = self._run([("GETRANGE", (k, a, b - 1)) for k, a, b in batch], total) or []
            for (key, a, b), piece in zip(batch, results):
                if key not in buffers:
                    continue
                if not isinstance(piece, bytes) or len(piece) != b - a:
                    del buffers[key]
                    found[key] = Refused("it changed while it was read")
                else:
                    buffers[key][a:b] = piece

    def put(self, values: dict[str, bytes]) -> int:
        with self._operation() as going:
            if not going:
                return 0
            results = self._run([("SET", (key, value, "NX")) for key, value in values.items()])
            return sum(1 for r in results or [] if r is True or r == b"OK")

    def present(self, keys: list[str]) -> set[str]:
        with self._operation() as going:
            results = (self._run([("EXISTS", (key,)) for key in keys]) if going else None) or []
            return {key for key, result in zip(keys, results) if result == 1}

    def replace(self, key: str, value: bytes, found: Value, field: str | None = None) -> bool:
        if isinstance(found, Refused):
            if found.kind not in ("size", "type", "prefix"):
                return False
            mode = found.kind
            token: str | bytes = found.prefix if mode == "prefix" else str(found.limit)
        else:
            mode, token = "sha1", hashlib.sha1(found).hexdigest()
        with self._operation() as going:
            results = self._run([("EVAL", (REPLACE_SCRIPT, 1, key, field or "", mode, token,
                                           value))]) if going else None
            return results is not None and len(results) == 1 and results[0] == 1

    # -- groups -------------------------------------------------------------------------

    def _fields(self, key: str, most: int) -> dict[str, int] | None:
        """Field name -> value length for the group's sane names; None if it has more
        than `most` fields, or is not a hash (a warning each)."""
        listed = self._run([("EVAL", (GROUP_SCRIPT, 1, key, most, MAX_FIELD))],
                           most * (MAX_FIELD + 48))
        if not listed:
            return {}
        reply = listed[0]
        if isinstance(reply, Exception):
            log.warning("clmodes remote %s: %s is not a hash; refused", self.name, key)
            return None
        if not isinstance(reply, list) or len(reply) < 2 or len(reply) % 2:
            self._fail("an answer to the field listing that is not a list of fields")
            return None
        long, count = reply[0], reply[1]
        if long == -1:
            log.warning("clmodes remote %s: %s has %s entries, more than the %d read; refused",
                        self.name, key, count, most)
            return None
        if isinstance(long, int) and long > 0:
            log.warning("clmodes remote %s: %s has %d field names longer than %d bytes (not "
                        "device models); skipped unread", self.name, key, long, MAX_FIELD)
        fields: dict[str, int] = {}
        for name, size in zip(reply[2::2], reply[3::2]):
            if isinstance(name, bytes) and len(name) <= MAX_FIELD and isinstance(size, int):
                fields[name.decode("utf-8", "replace")] = size
        return fields

    def get_group(self, key: str, limit: int, most: int) -> dict[str, Value]:
        found: dict[str, Value] = {}
        with self._operation() as going:
            fields = self._fields(key, most) if going else None
            if not fields:
                return found
            small, total = [], 0
            for name, size in sorted(fields.items()):
                if size > limit:
                    found[name] = Refused(f"over the {limit}-byte limit ({size} bytes)",
                                          "size", limit)
                elif total + size > GROUP_TOTAL * limit:
                    found[name] = Refused(f"the group's values are over {GROUP_TOTAL * limit} "
                                          "bytes together")
                elif size > 0:
                    small.append(name)
                    total += size
            values = self._run([("HGET", (key, name)) for name in small], total) or []
            for name, value in zip(small, values):
                if isinstance(value, bytes) and len(value) <= limit:
                    found[name] = value
            return {} if self._down is not None else found

    def put_group(self, key: str, values: dict[str, bytes]) -> int:
        with self._operation() as going:
            results = self._run([("HSETNX", (key, field, value))
                                 for field, value in values.items()]) if going else None
            return sum(1 for r in results or [] if r == 1)

    def group_fields(self, key: str) -> set[str]:
        with self._operation() as going:
            return set(self._fields(key, 1 << 16) or {}) if going else set()

    def ping(self) -> float | None:
        started = time.perf_counter()
        with self._operation() as going:
            answered = going and self._run([("PING", ())]) is not None
        return time.perf_counter() - started if answered else None
