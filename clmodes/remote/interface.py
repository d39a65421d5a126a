"""`Remote`: the small interface a shared cache behind the store offers.

Like Triton's remote cache backends, two verbs over opaque values, so that another
service (a managed Redis, a key-value store, an HTTP cache) is one more class: `get`
(values of keys, each bounded) and `put` (first write wins), plus their *group* forms
for a key whose values are one per device model (a tune key's decisions, which graded
matching reads all of). The values are signed entries (`clmodes.remote.entry`); a
remote is untrusted storage and never interprets them.

Every method returns what it could and never raises: a remote that is down answers
empty (`available` False), and the caller goes on with its local store. A publisher that
finds a value that does not verify replaces it with `replace`, a compare-and-set on what
it found: an entry written meanwhile by another publisher is never overwritten.
"""

from __future__ import annotations

import abc
import dataclasses


@dataclasses.dataclass(frozen=True)
class Refused:
    """A value the remote would not hand over as bytes: over the size limit, or not a
    value of the expected type (what an implementation read instead). Reported by the
    caller, naming the key."""

    why: str
    #: What was wrong, as the server can check it again (`Remote.replace`): "size" (over
    #: `limit` bytes), "type" (not the kind of value expected), "prefix" (not starting
    #: with `prefix`), or "" (not checkable).
    kind: str = ""
    limit: int = 0
    prefix: bytes = b""


#: A value read: its bytes (a bytearray where the remote read it in pieces, so that a
#: reader can verify it in place, `clmodes.remote.entry.decode`), or why it was refused.
Value = bytes | bytearray | Refused


class Remote(abc.ABC):
    """Untrusted shared storage of signed entries."""

    #: What messages name this remote by (its URL without credentials).
    name: str

    @property
    @abc.abstractmethod
    def available(self) -> bool:
        """False once the remote failed (down, slow, full): then every call answers empty."""

    @abc.abstractmethod
    def get(self, keys: list[str], limit: int, magic: bytes = b"") -> dict[str, Value]:
        """The values of the keys present; a value longer than `limit` bytes is `Refused`
        without being read, and so is one that does not start with `magic` (after its
        first piece is read)."""

    @abc.abstractmethod
    def get_group(self, key: str, limit: int, most: int) -> dict[str, Value]:
        """Field -> value of a group; more than `most` fields is refused whole (empty,
        with a warning); a value over `limit` is `Refused`; a field name too long to be
        a device model is skipped unread (one warning)."""

    @abc.abstractmethod
    def put(self, values: dict[str, bytes]) -> int:
        """Write each key unless it exists (first write wins); how many were written."""

    @abc.abstractmethod
    def put_group(self, key: str, values: dict[str, bytes]) -> int:
        """Write each field of a group unless it exists; how many were written."""

    @abc.abstractmethod
    def replace(self, key: str, value: bytes, found: Value, field: str | None = None) -> bool:
        """Write `value` at `key` (or the group's `field`) only if what is there is still
        `found` (the same bytes, or still over the limit or of the wrong type, as
        `Refused` says), or nothing: whether it was written."""

    @abc.abstractmethod
    def present(self, keys: list[str]) -> set[str]:
        """Which of the keys exist (a publisher skips sending what is there)."""

    @abc.abstractmethod
    def group_fields(self, key: str) -> set[str]:
        """The fields a group has (names of a sane length only)."""

    @abc.abstractmethod
    def ping(self) -> float | None:
        """Seconds one round trip took, or None if unreachable (`clmodes cache info`)."""
