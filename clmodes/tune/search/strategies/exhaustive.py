"""`Exhaustive`: every valid config, in the space's order."""

from __future__ import annotations

import dataclasses

from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import DEFAULT_GENERATION, SearchBase


@dataclasses.dataclass(frozen=True)
class Exhaustive:
    """Every valid config, in the space's order, `generation` at a time."""

    generation: int = DEFAULT_GENERATION

    def start(self, space: TuningSpace) -> _ExhaustiveSearch:
        return _ExhaustiveSearch(space, self.generation)


class _ExhaustiveSearch(SearchBase):
    def __init__(self, space: TuningSpace, generation: int) -> None:
        super().__init__(space, generation)
        self._configs = iter(space)

    def ask(self) -> list[Config]:
        chosen: list[Config] = []
        for config in self._configs:
            chosen += self.propose([config])
            if len(chosen) == self.generation:
                break
        return chosen
