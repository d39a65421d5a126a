"""`LocalSearch`: greedy iterated local search, the default strategy (see the package
docstring for why)."""

from __future__ import annotations

import dataclasses
import math

from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import DEFAULT_GENERATION, SearchBase


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


class _LocalSearch(SearchBase):
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
