"""`ModelGuided` replayed on a recorded GEMM subspace (no device): it reaches a config
within 1.05 of the best in fewer measurements than random sampling, is deterministic for
a seed, and without scikit-learn fails in one line naming the extra.

The fixture (tests/fixtures/spaces/) is every config of a GEMM_SPACE subspace measured
once on a real runtime by `ci/bench/record_space.py`; the search's measurer reads it.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path

import pytest

from clmodes.tune import Budget, ModelGuided, RandomSample
from clmodes.tune.search.strategies import run_search
from kernels_cl.gemm import GEMM_SPACE

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "spaces").glob("gemm_*.json"))
SEEDS = range(5)
BUDGET = 150


def recorded(path: Path):
    data = json.loads(path.read_text())
    space = GEMM_SPACE.subspace(**data["fixed"])
    times = data["times_s"]
    assert set(times) == {space.name(c) for c in space}, "the fixture is not its whole subspace"
    return space, times


def measurements_to_quality(space, times, strategy, within=1.05) -> float:
    """How many measurements until the best so far is within `within` of the best."""
    best = min(t for t in times.values() if t is not None)
    order: list[float | None] = []

    def measure(config):
        seconds = times[space.name(config)]
        order.append(seconds)
        return seconds

    run_search(space, strategy, measure, Budget(configs=BUDGET))
    incumbent = math.inf
    for count, seconds in enumerate(order, 1):
        if seconds is not None:
            incumbent = min(incumbent, seconds)
        if incumbent <= within * best:
            return count
    return math.inf


@pytest.mark.skipif(not FIXTURES, reason="no recorded space in tests/fixtures/spaces")
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_model_guided_reaches_quality_in_fewer_measurements_than_random(path):
    space, times = recorded(path)
    model = [measurements_to_quality(space, times, ModelGuided(seed=s)) for s in SEEDS]
    random = [measurements_to_quality(space, times, RandomSample(BUDGET, seed=s)) for s in SEEDS]
    assert statistics.median(model) < statistics.median(random), (model, random)
    assert statistics.median(model) <= BUDGET


def test_same_seed_same_generations_on_a_recorded_space():
    if not FIXTURES:
        pytest.skip("no recorded space in tests/fixtures/spaces")
    space, times = recorded(FIXTURES[0])

    def generations(seed):
        found = []
        search = ModelGuided(seed=seed).start(space)
        for _ in range(5):
            generation = [space.name(c) for c in search.ask()]
            found.append(generation)
            search.tell({name: times[name] for name in generation})
        return found

    assert generations(2) == generations(2)
    assert generations(2) != generations(3)


def test_bad_options_are_refused_by_name():
    with pytest.raises(ValueError, match="generation"):
        ModelGuided(generation=0)
    with pytest.raises(ValueError, match="xi"):
        ModelGuided(xi=float("nan"))


def test_without_scikit_learn_one_line_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sklearn", None)  # what an absent package imports as
    with pytest.raises(ImportError) as raised:
        ModelGuided()
    message = str(raised.value)
    assert "\n" not in message and "'search' extra" in message and "scikit-learn" in message
