"""`Genetic`: a genetic algorithm over the parameters' value indices."""

from __future__ import annotations

import dataclasses

from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import DEFAULT_GENERATION, SearchBase


@dataclasses.dataclass(frozen=True)
class Genetic:
    """A genetic algorithm: each generation is `generation` children of tournament-
    selected parents (uniform crossover, each parameter mutated with probability
    `mutation` by one step along its value list), invalid or measured children redrawn,
    topped up with random configs when the population has converged."""

    seed: int = 0
    generation: int = DEFAULT_GENERATION
    mutation: float = 0.15
    tournament: int = 3

    def start(self, space: TuningSpace) -> _GeneticSearch:
        return _GeneticSearch(space, self)


class _GeneticSearch(SearchBase):
    def __init__(self, space: TuningSpace, options: Genetic) -> None:
        super().__init__(space, options.generation, options.seed)
        self.options = options

    def ask(self) -> list[Config]:
        ranked = self.ranked()
        if len(ranked) < 2:
            return self.random_unseen(self.generation)
        population = [self.space.indices(self.space.config(n)) for _, n in ranked[:self.generation]]
        chosen: dict[str, Config] = {}
        for _ in range(20 * self.generation):
            if len(chosen) == self.generation:
                break
            child = self._child(population)
            name = self.space.name(child)
            if name not in chosen and not self.seen(name) and self.space.is_valid(child):
                chosen[name] = child
        proposed = self.propose(list(chosen.values()))
        if len(proposed) < self.generation:
            proposed += self.random_unseen(self.generation - len(proposed))
        return proposed

    def _parent(self, population: list[tuple[int, ...]]) -> tuple[int, ...]:
        picks = [self.rng.randrange(len(population)) for _ in range(self.options.tournament)]
        return population[min(picks)]  # the population is ranked: lower index is faster

    def _child(self, population: list[tuple[int, ...]]) -> Config:
        mother, father = self._parent(population), self._parent(population)
        genes = []
        for position, param in enumerate(self.space.params):
            gene = mother[position] if self.rng.random() < 0.5 else father[position]
            if self.rng.random() < self.options.mutation:
                size = len(self.space.values(param))
                gene = min(size - 1, max(0, gene + self.rng.choice((-1, 1))))
            genes.append(gene)
        return self.space.from_indices(genes)
