"""The one ask -> measure -> tell loop, and `run_search`, a strategy driven without OpenCL.

`drive` is the loop every search runs: the real tune (`Tuner.run`, whose measurer builds
a generation in one batch and races it on the device, or shares it over a fleet's nodes)
and the strategy benchmarks and tests (`run_search`, whose measurer is a Python function
of a config: recorded or synthetic measurements). Why one loop: the strategy benchmark's
figures used to come from a loop the real tune did not use; now only the measurer
differs, and what a strategy is asked and told is the same in both.

Why `measure` is handed `tell`: a generation can take a long time to measure (on PoCL
each config's first launch generates its code; on Intel each config's compile is most of
its cost), and a result known early is worth telling early: the tune's time to quality
is when the strategy (and whoever watches it) knows the best config, not when the last
config of its generation was raced. A measurer that measures in slices tells each
slice's results as they are known; whatever it returns that it did not tell is told
then, and nothing is told twice. The search is still asked only once its whole
generation has been told, so what it proposes does not depend on how the generation was
sliced.

`run_search` counts its budget with the tuner's `Spending` (one budget check), but its
measurer is not a `tune.fleet.measurer.Measurer`: that protocol is about candidate names, the
entries a ledger carries and the record a decision makes, and a pure-Python objective
has none of them. Its time is not counted either: the objective's Python seconds are not
what a time budget of a tune means.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

from clmodes.tune.search.budget import Budget
from clmodes.tune.search.spending import Spending
from clmodes.tune.search.space import Config, TuningSpace
from clmodes.tune.search.strategies.base import Results, Strategy

Item = TypeVar("Item")  # what a search proposes: configs, or candidate names
Tell = Callable[[Results], None]  # results known before the generation is done


class Asking(Protocol[Item]):
    def ask(self) -> list[Item]: ...
    def tell(self, results: Results) -> None: ...


def drive(search: Asking[Item],
          measure: Callable[[list[Item], Tell], Mapping[str, float | None]],
          limit: Callable[[list[Item]], list[Item]] = list,
          exhausted: Callable[[], bool] = lambda: False) -> None:
    """Ask, trim (`limit`: a budget), measure, tell, until the search proposes nothing or
    `exhausted()` says the budget is spent. `measure(generation, tell)` may tell part of
    its results early; the rest of what it returns is told when it returns."""
    while not exhausted():
        generation = limit(search.ask())
        if not generation:
            return
        told: set[str] = set()

        def tell(results: Results) -> None:
            fresh = {name: seconds for name, seconds in results.items() if name not in told}
            if fresh:
                told.update(fresh)
                search.tell(fresh)
        tell(measure(generation, tell))


def run_search(space: TuningSpace, strategy: Strategy,
               measure: Callable[[Config], "float | None"], budget: Budget | None = None,
               told: Results | None = None) -> dict[str, float | None]:
    """Drive a strategy without OpenCL (benchmarks, tests): `measure(config) -> seconds
    or None`, generations trimmed by a `Budget`. Returns every result this run measured."""
    search = strategy.start(space)
    if told:
        search.tell(told)
    measured: dict[str, float | None] = {}
    spending = Spending(budget)

    def measure_all(generation: Sequence[Config], tell: Tell) -> dict[str, float | None]:
        results = {space.name(c): measure(c) for c in generation}
        measured.update(results)
        spending.measured.update(results)
        return results

    drive(search, measure_all, spending.trim, lambda: spending.spent(on_time=False))
    return measured
