"""What a tune chooses among: a set of named candidates and the order to measure them in.

A `Tunable` has either hand-written `candidates=` or a tuning `space=` (`space.py`,
searched by a strategy). The tuner sees both through `CandidateSet`: a name to a callable,
a checksum of what the set *is* (part of the decision's key, so a changed set is a new
decision, while measurements of unchanged candidates are reused), and a search proposing
names in generations, each generation built in one batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Protocol

Candidate = Callable[..., object]


class NameSearch(Protocol):
    """A search over candidate names (the ask/tell protocol of `strategies`)."""

    def tell(self, results: Mapping[str, float | None]) -> None: ...

    def ask(self) -> list[str]: ...


class CandidateSet(Protocol):
    """A tunable's candidates as the tuner sees them."""

    def get(self, name: str) -> Candidate | None:
        """The candidate of that name, or None if it is not one (a stale stored winner)."""

    def checksum(self) -> str:
        """A digest of what the set is: its names, or its space, strategy and budget."""

    def start(self) -> NameSearch:
        """A fresh search over the set."""

    def size(self) -> int:
        """How many candidates there are."""

    def only(self) -> str | None:
        """The one candidate's name, when there is exactly one (never tuned)."""


def checksum_of(parts: list[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


class AllAtOnce:
    """Every candidate not yet measured, as one generation: for a hand-written set,
    small enough to build in one batch and race all together."""

    def __init__(self, names: list[str]) -> None:
        self._left = list(names)

    def tell(self, results: Mapping[str, float | None]) -> None:
        self._left = [name for name in self._left if name not in results]

    def ask(self) -> list[str]:
        proposed, self._left = self._left, []
        return proposed


class Listed:
    """Hand-written candidates: `{"name": fn(stream, *args)}`."""

    def __init__(self, candidates: Mapping[str, Candidate]) -> None:
        self.candidates = dict(candidates)
        self._checksum = checksum_of(sorted(self.candidates))

    def get(self, name: str) -> Candidate | None:
        return self.candidates.get(name)

    def checksum(self) -> str:
        return self._checksum

    def start(self) -> NameSearch:
        return AllAtOnce(list(self.candidates))

    def size(self) -> int:
        return len(self.candidates)

    def only(self) -> str | None:
        return next(iter(self.candidates)) if len(self.candidates) == 1 else None
