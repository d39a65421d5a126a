"""Search strategies over a `TuningSpace`, as ask/tell: the tuner asks for a generation,
builds its kernels in one batch, measures them and tells the times back.

    search = strategy.start(space)
    search.tell(already_measured)          # optional: a resumed tune
    while generation := search.ask():      # [] once the strategy is done
        search.tell({space.name(c): seconds_or_None for c in generation})

Rules every strategy keeps (tests/unit/test_strategies.py):
- `ask` proposes only valid configs that were never told nor asked before, so a resumed
  tune never measures a config twice; results told before the first `ask` are used (a
  local search starts from the best of them);
- given its seed and the results told, what it proposes is determined (its own
  `random.Random(seed)`, never the global one, no set or dict iteration over hashes);
- `None` is a config that failed to build or run: never proposed again, never a parent.

Budgets are not the strategies' business (`clmodes.tune.budget`): the tuner trims.

Measured (ci/bench/bench_strategies.py, the GEMM space, smooth, rugged and noisy
synthetic objectives, 100 seeds): at 32-128 configs `LocalSearch` finds configs closer to
the best than `RandomSample` and `Genetic` (tied with a 16-config genetic generation only
at 128 noisy configs); it is the default (`DEFAULT_STRATEGY`).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping
from typing import Protocol

from clmodes.tune.space import Config, TuningSpace

Results = Mapping[str, "float | None"]
DEFAULT_GENERATION = 16  # see ARCHITECTURE.md: build time against units per build


class Search(Protocol):
    def tell(self, results: Results) -> None: ...
    def ask(self) -> list[Config]: ...


class Strategy(Protocol):
    def start(self, space: TuningSpace) -> Search: ...


class _Search:
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


# -- exhaustive and random ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Exhaustive:
    """Every valid config, in the space's order, `generation` at a time."""

    generation: int = DEFAULT_GENERATION

    def start(self, space: TuningSpace) -> _ExhaustiveSearch:
        return _ExhaustiveSearch(space, self.generation)


class _ExhaustiveSearch(_Search):
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


@dataclasses.dataclass(frozen=True)
class RandomSample:
    """`count` distinct valid configs drawn uniformly (seeded); configs already told
    count as drawn and are not proposed, so a resumed sample measures only the rest."""

    count: int
    seed: int = 0
    generation: int = DEFAULT_GENERATION

    def start(self, space: TuningSpace) -> _RandomSearch:
        return _RandomSearch(space, self.generation, self.count, self.seed)


class _RandomSearch(_Search):
    def __init__(self, space: TuningSpace, generation: int, count: int, seed: int) -> None:
        super().__init__(space, generation)
        self._pending = space.sample(random.Random(seed), count)

    def ask(self) -> list[Config]:
        chosen: list[Config] = []
        while self._pending and len(chosen) < self.generation:
            chosen += self.propose([self._pending.pop(0)])
        return chosen


# -- local search ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LocalSearch:
    """Greedy iterated local search (model-free; Kernel Tuner's `greedy_ils` family).

    The first generation is `first` random configs (or, when results were told first,
    none: the best told config is the start). Each later generation is the unmeasured
    neighbours of the centre (at first the best config; one step along one parameter's value list,
    then two steps when no one-step neighbour is left), at most `generation` of them;
    the centre moves greedily to the fastest of itself and the last generation. When no
    neighbour is left the centre is a local optimum and the search restarts from `first`
    perturbations of the best (`perturb` random parameters changed) or, every
    `random_every`-th restart, from `first` random configs, the fastest of which becomes
    the next centre. Ends when no unmeasured config can be found.
    """

    seed: int = 0
    generation: int = DEFAULT_GENERATION
    first: int = 8
    perturb: int = 3
    random_every: int = 3

    def start(self, space: TuningSpace) -> _LocalSearch:
        return _LocalSearch(space, self)


class _LocalSearch(_Search):
    def __init__(self, space: TuningSpace, options: LocalSearch) -> None:
        super().__init__(space, options.generation, options.seed)
        self.options = options
        self.centre: str | None = None  # the config whose neighbourhood is being walked
        self.last: list[str] = []  # the previous generation (where the centre may move)
        self.restarts = 0
        self.started = False

    def ask(self) -> list[Config]:
        if not self.started:
            self.started = True
            if not self.ranked():
                return self._remember(self.random_unseen(min(self.options.first, self.generation)))
        for _ in range(8):  # a few restarts in a row when neighbourhoods are all measured
            ranked = self.ranked()
            if not ranked:
                return self._remember(self.random_unseen(self.generation))
            self._move_centre(ranked[0][1])
            assert self.centre is not None  # just moved to the best measured config
            chosen = self._neighbourhood(self.centre)
            if not chosen:
                chosen = self._restart(ranked[0][1])
            if chosen:
                return self._remember(chosen)
        return []

    def _remember(self, chosen: list[Config]) -> list[Config]:
        self.last = [self.space.name(c) for c in chosen]
        return chosen

    def _time(self, name: str | None) -> float:
        seconds = self.results.get(name) if name is not None else None
        return math.inf if seconds is None else seconds

    def _move_centre(self, best: str) -> None:
        """Greedy: the centre moves to the fastest of itself and the last generation; a
        search without a centre (start, restart) starts from the global best or the
        fastest restart point."""
        options = ([self.centre] if self.centre is not None else []) + self.last
        measured = [n for n in options if self._time(n) < math.inf and n in self.space]
        self.centre = min(measured, key=lambda n: (self._time(n), n)) if measured else best

    def _neighbourhood(self, centre: str) -> list[Config]:
        config = self.space.config(centre)
        for radius in (1, 2):
            fresh = [c for c in self.space.neighbours(config, radius)
                     if not self.seen(self.space.name(c))]
            if fresh:
                if len(fresh) > self.generation:
                    fresh = self.rng.sample(fresh, self.generation)
                return self.propose(fresh)
        return []

    def _restart(self, best: str) -> list[Config]:
        """New starting points (`first` of them): perturbations of the best, or random
        ones every `random_every`-th restart; the fastest becomes the next centre."""
        self.restarts += 1
        self.centre = None
        count = min(self.options.first, self.generation)
        chosen: list[Config] = []
        if self.restarts % self.options.random_every:
            names: set[str] = set()
            for _ in range(64 * count):
                if len(chosen) == count:
                    break
                candidate = self._perturbed(self.space.config(best))
                if candidate is None:
                    continue
                name = self.space.name(candidate)
                if name not in names and not self.seen(name):
                    names.add(name)
                    chosen.append(candidate)
            chosen = self.propose(chosen)
        return chosen or self.random_unseen(count)

    def _perturbed(self, config: Config) -> Config | None:
        changed = dict(config)
        for param in self.rng.sample(self.space.params, min(self.options.perturb, len(self.space.params))):
            changed[param] = self.rng.choice(self.space.values(param))
        return changed if self.space.is_valid(changed) else None

# -- genetic --------------------------------------------------------------------------


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


class _GeneticSearch(_Search):
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

DEFAULT_STRATEGY = LocalSearch


def run_search(space: TuningSpace, strategy: Strategy, measure, budget=None,
               told: Results | None = None) -> dict[str, float | None]:
    """Drive a strategy without OpenCL (benchmarks, tests): `measure(config) -> seconds
    or None`, generations trimmed by a `Budget`. Returns every result this run measured."""
    search = strategy.start(space)
    if told:
        search.tell(told)
    measured: dict[str, float | None] = {}
    while budget is None or not budget.exhausted(0.0, len(measured)):
        generation = search.ask()
        if budget is not None:
            generation = budget.trim(generation, len(measured))
        if not generation:
            break
        results = {space.name(c): measure(c) for c in generation}
        measured.update(results)
        search.tell(results)
    return measured


__all__ = ["DEFAULT_GENERATION", "DEFAULT_STRATEGY", "Exhaustive", "Genetic", "LocalSearch",
           "RandomSample", "Search", "Strategy", "run_search"]
