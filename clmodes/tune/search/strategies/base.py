"""What every search strategy shares: the ask/tell protocol and `SearchBase` (the results
told, the configs already asked, seeded randomness). The rules every strategy keeps are
in the package docstring."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Protocol

from clmodes.tune.search.space import Config, TuningSpace

Results = Mapping[str, "float | None"]
DEFAULT_GENERATION = 16  # docs/decisions/generation-size.md: build time against units per build


class Search(Protocol):
    def tell(self, results: Results) -> None: ...
    def ask(self) -> list[Config]: ...


class Strategy(Protocol):
    def start(self, space: TuningSpace) -> Search: ...


class SearchBase:
    """What every search shares: the results told and the configs already asked."""

    def __init__(self, space: TuningSpace, generation: int, seed: int = 0) -> None:
        if generation < 1:
            raise ValueError(f"generation must be at least 1, got {generation}")
        self.space = space
        self.generation = generation
        self.rng = random.Random(seed)
        self.results: dict[str, float | None] = {}
        self.asked: set[str] = set()

    def tell(self, results: Results) -> None:
        for name, seconds in results.items():
            if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds)):
                seconds = None
            self.results[name] = seconds
            self.asked.add(name)

    def seen(self, name: str) -> bool:
        return name in self.asked or name in self.results

    def propose(self, configs: list[Config]) -> list[Config]:
        """Mark `configs` asked (distinct, unseen ones only) and return them."""
        chosen = []
        for config in configs:
            name = self.space.name(config)
            if not self.seen(name):
                self.asked.add(name)
                chosen.append(config)
        return chosen

    def random_unseen(self, count: int) -> list[Config]:
        """Up to `count` random valid configs never asked nor told (marked asked)."""
        return self.propose(self.space.sample(self.rng, count, exclude=self.asked | set(self.results)))

    def ranked(self) -> list[tuple[float, str]]:
        """Measured configs of this space, fastest first (ties by name: deterministic)."""
        return sorted((s, n) for n, s in self.results.items()
                      if s is not None and n in self.space)
