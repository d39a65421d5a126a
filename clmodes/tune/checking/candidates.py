"""What a tune chooses among: a set of named candidates and the order to measure them in.

A `Tunable` has either hand-written `candidates=` or a tuning `space=` (`space.py`,
searched by a strategy). The tuner sees both through `CandidateSet`: a name to a callable,
a checksum of what the set *is* (part of the decision's key, so a changed set is a new
decision, while measurements of unchanged candidates are reused), and a search proposing
names in generations, each generation built in one batch.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping
from typing import Protocol

from clmodes.tune.search.budget import Budget
from clmodes.tune.search.space import Config, TuningSpace, format_value
from clmodes.tune.search.starts import Start
from clmodes.tune.search.strategies import Search, Strategy

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

    def start(self, device: object = None) -> NameSearch:
        """A fresh search over the set, for `device` (None: not known)."""

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

    def start(self, device: object = None) -> NameSearch:
        return AllAtOnce(list(self.candidates))

    def size(self) -> int:
        return len(self.candidates)

    def only(self) -> str | None:
        return next(iter(self.candidates)) if len(self.candidates) == 1 else None


class _SpaceSearch:
    """A strategy's search over configs, seen as a search over config names; the start
    configs (`starts.py`) are its first generation, whatever the strategy."""

    def __init__(self, space: TuningSpace, search: Search, first: list[Config]) -> None:
        self._space = space
        self._search = search
        self._first = [space.name(config) for config in first]
        self._told: set[str] = set()

    def tell(self, results: Mapping[str, float | None]) -> None:
        self._told.update(results)
        self._search.tell(results)

    def ask(self) -> list[str]:
        first, self._first = self._first, []
        first = [name for name in dict.fromkeys(first) if name not in self._told]
        if first:
            return first
        return [self._space.name(config) for config in self._search.ask()]


class Searched:
    """A tuning space searched by a strategy: `launch(stream, config, *args)` per config."""

    def __init__(self, space: TuningSpace, launch: Callable[..., object],
                 strategy: Strategy, budget: Budget | None, start: Start = Start(),
                 owner: str = "a tunable") -> None:
        self.space = space
        self.launch = launch
        self.strategy = strategy
        self.budget = budget
        self.first = start
        self.owner = owner
        self._candidates: dict[str, Candidate] = {}
        # What the decision is about: the space (values, restrictions), how it is
        # searched and how far. Measurements do not depend on it and are reused.
        self._checksum = checksum_of(
            [f"{name}={','.join(format_value(v) for v in space.values(name))}"
             for name in space.params]
            + [restriction.label for restriction in space.restrictions]
            + [repr(strategy), repr(budget)] + ([start.label] if start != Start() else []))

    def get(self, name: str) -> Candidate | None:
        found = self._candidates.get(name)
        if found is None:
            try:
                config = self.space.config(name)
            except (ValueError, KeyError, TypeError):
                return None
            if config not in self.space:
                return None
            launch = self.launch

            def found(stream: object, *args: object) -> object:
                return launch(stream, config, *args)
            self._candidates[name] = found
        return found

    def checksum(self) -> str:
        return self._checksum

    def start(self, device: object = None) -> NameSearch:
        first = self.first.configs_for(device, self.space, self.owner)
        return _SpaceSearch(self.space, self.strategy.start(self.space), first)

    def size(self) -> int:
        return len(self.space)

    def only(self) -> str | None:
        # Two configs are enough to know: counting a space walks all of it (GEMM_SPACE:
        # about 0.1 s, paid by every warmed process's first launch before this).
        configs = list(itertools.islice(self.space, 2))
        return self.space.name(configs[0]) if len(configs) == 1 else None
