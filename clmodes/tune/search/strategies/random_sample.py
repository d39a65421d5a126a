"""`RandomSample`: distinct valid configs drawn uniformly, seeded."""

from __future__ import annotations

import dataclasses
import random

from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import DEFAULT_GENERATION, SearchBase


@dataclasses.dataclass(frozen=True)
class RandomSample:
    """`count` distinct valid configs drawn uniformly (seeded); configs already told
    count as drawn and are not proposed, so a resumed sample measures only the rest."""

    count: int
    seed: int = 0
    generation: int = DEFAULT_GENERATION

    def start(self, space: TuningSpace) -> _RandomSearch:
        return _RandomSearch(space, self.generation, self.count, self.seed)


class _RandomSearch(SearchBase):
    def __init__(self, space: TuningSpace, generation: int, count: int, seed: int) -> None:
        super().__init__(space, generation)
        self._pending = space.sample(random.Random(seed), count)

    def ask(self) -> list[Config]:
        chosen: list[Config] = []
        while self._pending and len(chosen) < self.generation:
            chosen += self.propose([self._pending.pop(0)])
        return chosen
