"""Search strategies (ask/tell) and budgets, on synthetic objectives: no device."""

from __future__ import annotations

import math
import statistics

import pytest

from clmodes.tune import (
    Budget,
    Exhaustive,
    Genetic,
    LocalSearch,
    ModelGuided,
    RandomSample,
    TuningSpace,
)
from clmodes.tune.search.strategies import run_search

SPACE = TuningSpace(
    {"MWG": [16, 32, 64, 128], "NWG": [16, 32, 64, 128], "MDIMC": [4, 8, 16], "NDIMC": [4, 8, 16],
     "VWN": [1, 2, 4, 8], "KWI": [1, 2, 4], "SA": [0, 1], "SB": [0, 1]},
    ["MWG % MDIMC == 0", "NWG % (NDIMC * VWN) == 0", "(MWG // MDIMC) * (NWG // NDIMC) <= 64"],
)

STRATEGIES = {
    "exhaustive": lambda seed: Exhaustive(generation=16),
    "random": lambda seed: RandomSample(40, seed=seed, generation=16),
    "local": lambda seed: LocalSearch(seed=seed, generation=16),
    "genetic": lambda seed: Genetic(seed=seed, generation=16),
    "model": lambda seed: ModelGuided(seed=seed, generation=16),
}


def smooth(config: dict) -> float:
    """A bowl over value positions with its minimum inside the space."""
    optimum = {"MWG": 2, "NWG": 1, "MDIMC": 1, "NDIMC": 1, "VWN": 2, "KWI": 1, "SA": 0, "SB": 1}
    position = dict(zip(SPACE.params, SPACE.indices(config)))
    return math.prod(1 + 0.3 * (position[p] - optimum[p]) ** 2 for p in SPACE.params)


def proposals(strategy, objective=smooth, budget=40, told=None):
    """Every generation a search proposes (as names) until the budget or its end."""
    search = strategy.start(SPACE)
    if told:
        search.tell(told)
    generations, measured = [], 0
    while measured < budget:
        generation = Budget(configs=budget).trim(search.ask(), measured)
        if not generation:
            break
        names = [SPACE.name(c) for c in generation]
        generations.append(names)
        measured += len(names)
        search.tell({n: objective(c) for n, c in zip(names, generation)})
    return generations


@pytest.mark.parametrize("kind", STRATEGIES)
def test_same_seed_same_proposals_and_every_proposal_is_new_and_valid(kind):
    first = proposals(STRATEGIES[kind](3))
    assert first == proposals(STRATEGIES[kind](3))
    names = [n for g in first for n in g]
    assert len(names) == len(set(names)) == 40
    assert all(n in SPACE for n in names)
    assert all(len(g) <= 16 for g in first)
    if kind != "exhaustive":
        assert proposals(STRATEGIES[kind](4)) != first


@pytest.mark.parametrize("kind", STRATEGIES)
def test_a_resumed_search_never_reproposes_what_it_was_told(kind):
    done = [n for g in proposals(STRATEGIES[kind](1), budget=20) for n in g]
    told = {n: smooth(SPACE.config(n)) for n in done}
    told[done[0]] = None  # a config that failed to build stays failed
    resumed = [n for g in proposals(STRATEGIES[kind](1), budget=200, told=told) for n in g]
    assert resumed and not set(resumed) & set(told)


def test_a_resumed_local_search_starts_from_the_best_told_config():
    best = min(SPACE, key=smooth)
    start = SPACE.neighbours(best)[0]  # near the optimum, not at it
    told = {SPACE.name(start): smooth(start)}
    first = LocalSearch(seed=0).start(SPACE)
    first.tell(told)
    generation = first.ask()
    assert {SPACE.name(c) for c in generation} == {
        SPACE.name(c) for c in SPACE.neighbours(start)} - set(told)
    assert best in generation


@pytest.mark.parametrize("kind", STRATEGIES)
@pytest.mark.parametrize("budget", [1, 17, 33])
def test_a_budget_of_n_configs_gives_exactly_n_proposals(kind, budget):
    measured = run_search(SPACE, STRATEGIES[kind](0), smooth, Budget(configs=budget))
    assert len(measured) == min(budget, 40 if kind == "random" else budget)


def test_exhaustive_proposes_every_valid_config_once():
    measured = run_search(SPACE, Exhaustive(generation=64), smooth)
    assert list(measured) == [SPACE.name(c) for c in SPACE]


def test_failed_configs_are_not_chosen_as_a_start():
    """Every config with SA=0 fails; the local search keeps walking among the rest."""
    def objective(config):
        return None if config["SA"] == 0 else smooth(config)
    measured = run_search(SPACE, LocalSearch(seed=2, generation=16), objective, Budget(configs=60))
    assert len(measured) == 60
    assert any(v is not None for v in measured.values())


def test_local_search_beats_random_sampling_on_a_smooth_function():
    best = min(smooth(c) for c in SPACE)
    ratios = {"random": [], "local": []}
    for seed in range(30):
        for kind, strategy in [("random", RandomSample(48, seed=seed)), ("local", LocalSearch(seed=seed))]:
            measured = run_search(SPACE, strategy, smooth, Budget(configs=48))
            ratios[kind].append(min(v for v in measured.values() if v is not None) / best)
    assert statistics.mean(ratios["local"]) < 0.8 * statistics.mean(ratios["random"])
    assert sum(r < 1.0001 for r in ratios["local"]) > sum(r < 1.0001 for r in ratios["random"])


def test_budget_rules():
    assert Budget(configs=5).remaining_configs(3) == 2
    assert Budget(configs=5).remaining_configs(9) == 0
    assert Budget().remaining_configs(100) is None
    assert Budget(seconds=2).exhausted(2.5, 0) and not Budget(seconds=2).exhausted(1.0, 10**6)
    assert Budget(configs=3).exhausted(0.0, 3) and not Budget().exhausted(1e9, 10**9)
    assert Budget(configs=2).trim([1, 2, 3], 1) == [1]
    for bad in [dict(configs=0), dict(configs=2.5), dict(configs=True), dict(seconds=-1),
                dict(seconds=float("nan"))]:
        with pytest.raises(ValueError, match="Budget"):
            Budget(**bad)
