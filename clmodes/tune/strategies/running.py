"""The one ask -> measure -> tell loop, and `run_search`, a strategy driven without OpenCL.

`drive` is the loop every search runs: the real tune (`Tuner.run`, whose measurer builds
a generation in one batch and races it on the device, or shares it over a fleet's nodes)
and the strategy benchmarks and tests (`run_search`, whose measurer is a Python function
of a config: recorded or synthetic measurements). Why one loop: the strategy benchmark's
figures used to come from a loop the real tune did not use; now only the measurer
differs, and what a strategy is asked and told is the same in both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

from clmodes.tune.budget import Budget
from clmodes.tune.space import Config, TuningSpace
from clmodes.tune.strategies.base import Results, Strategy

Item = TypeVar("Item")  # what a search proposes: configs, or candidate names


class Asking(Protocol[Item]):
    def ask(self) -> list[Item]: ...
    def tell(self, results: Results) -> None: ...


def drive(search: Asking[Item], measure: Callable[[list[Item]], Mapping[str, float | None]],
          limit: Callable[[list[Item]], list[Item]] = list,
          exhausted: Callable[[], bool] = lambda: False) -> None:
    """Ask, trim (`limit`: a budget), measure, tell, until the search proposes nothing or
    `exhausted()` says the budget is spent."""
    while not exhausted():
        generation = limit(search.ask())
        if not generation:
            return
        search.tell(measure(generation))


def run_search(space: TuningSpace, strategy: Strategy,
               measure: Callable[[Config], "float | None"], budget: Budget | None = None,
               told: Results | None = None) -> dict[str, float | None]:
    """Drive a strategy without OpenCL (benchmarks, tests): `measure(config) -> seconds
    or None`, generations trimmed by a `Budget`. Returns every result this run measured."""
    search = strategy.start(space)
    if told:
        search.tell(told)
    measured: dict[str, float | None] = {}

    def measure_all(generation: Sequence[Config]) -> dict[str, float | None]:
        results = {space.name(c): measure(c) for c in generation}
        measured.update(results)
        return results

    def trimmed(generation: list[Config]) -> list[Config]:
        return generation if budget is None else budget.trim(generation, len(measured))

    drive(search, measure_all, trimmed,
          lambda: budget is not None and budget.exhausted(0.0, len(measured)))
    return measured
