"""`run_search`: a strategy driven without OpenCL, for benchmarks and strategy tests on
recorded or synthetic measurements."""

from __future__ import annotations

from collections.abc import Callable

from clmodes.tune.budget import Budget
from clmodes.tune.space import Config, TuningSpace
from clmodes.tune.strategies.base import Results, Strategy


def run_search(space: TuningSpace, strategy: Strategy,
               measure: Callable[[Config], "float | None"], budget: Budget | None = None,
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
