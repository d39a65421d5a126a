"""`Remote`: the small interface a shared cache behind the store offers.

Like Triton's remote cache backends, two verbs over opaque values, so that another
service (a managed Redis, a key-value store, an HTTP cache) is one more class: `get`
(values of keys, each bounded) and `put` (first write wins), plus their *group* forms
for a key whose values are one per device model (a tune key's decisions, which graded
matching reads all of). The values are signed entries (`clmodes.remote.entry`); a
remote is untrusted storage and never interprets them.

Every method returns what it could and never raises: a remote that is down answers
empty (`available` False), and the caller goes on with its local store.
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


Value = bytes | Refused


class Remote(abc.ABC):
    """Untrusted shared storage of signed entries."""

    #: What messages name this remote by (its URL without credentials).
    name: str

    @property
    @abc.abstractmethod
    def available(self) -> bool:
        """False once the remote failed (down, slow, full): then every call answers empty."""

    @abc.abstractmethod
    def get(self, keys: list[str], limit: int) -> dict[str, Value]:
        """The values of the keys present; a value longer than `limit` bytes is `Refused`."""

    @abc.abstractmethod
    def get_group(self, key: str, limit: int, most: int) -> dict[str, Value]:
        """Field -> value of a group; more than `most` fields is refused whole (empty,
        with a warning); a value over `limit` is `Refused`."""

    @abc.abstractmethod
    def put(self, values: dict[str, bytes]) -> int:
        """Write each key unless it exists (first write wins); how many were written."""

    @abc.abstractmethod
    def put_group(self, key: str, values: dict[str, bytes]) -> int:
        """Write each field of a group unless it exists; how many were written."""

    @abc.abstractmethod
    def present(self, keys: list[str]) -> set[str]:
        """Which of the keys exist (a publisher skips sending what is there)."""

    @abc.abstractmethod
    def group_fields(self, key: str) -> set[str]:
        """The fields a group has."""

    @abc.abstractmethod
    def ping(self) -> float | None:
        """Seconds one round trip took, or None if unreachable (`clmodes cache info`)."""
