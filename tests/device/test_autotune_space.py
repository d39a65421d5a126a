"""A Tunable over a TuningSpace on every device: COMPILE_ONLY queues the first
generation and builds nothing; measuring then builds one batch per generation."""

from __future__ import annotations

import numpy as np
import pytest

from clmodes import ProcessMode, ProcessModeOverride, Tunable, TuningSpace
from support import spaced
from support.tunables import buffers, keys, unique


def test_compile_only_then_one_batch_per_generation(stream, collector, build_spy):
    name = unique("space")
    tunable = spaced.make(name, generation=6, salt=name)
    out, x = buffers(stream, 1024)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        tunable(stream, out, x, 1024)
    assert build_spy.calls == 0 and keys(collector) == 0
    assert stream.server.queued() >= 6  # the first generation's kernels (and what ran)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 1024)
        assert build_spy.calls == 4  # 22 configs, 6 a generation: 4 generations
    assert keys(collector) == 1
    np.testing.assert_allclose(out.get(), 2 * x.get())
    assert tunable.winner(stream, out, x, 1024) in {spaced.space().name(c) for c in spaced.space()}


def test_a_space_tunable_is_declared_whole():
    space = TuningSpace({"A": [1, 2]})
    with pytest.raises(ValueError, match="exactly one of candidates= and space="):
        Tunable("t", key=lambda: 0)
    with pytest.raises(ValueError, match="launch="):
        Tunable("t", key=lambda: 0, space=space)
    with pytest.raises(ValueError, match="go with space="):
        Tunable("t", key=lambda: 0, candidates={"a": print}, launch=print)
    with pytest.raises(ValueError, match="at least one valid config"):
        Tunable("t", key=lambda: 0, space=TuningSpace({"A": [1]}, ["A > 1"]), launch=print)


# -- start=: the configs measured first ---------------------------------------------------

FIRST = [{"ITEMS": 4, "WG": 32, "BODY": "mul"}, {"ITEMS": 1, "WG": 64, "BODY": "add"},
         {"ITEMS": 2, "WG": 16, "BODY": "mul"}]


def started(name, start, configs=None, strategy=None):
    """spaced's tunable, searched by a seeded local search from `start`; its sources
    carry the name, so no earlier test has built its kernels."""
    from clmodes import Kernel
    from clmodes.tune import Budget, LocalSearch

    def launch(stream, config, out, x, n):
        source = f"{spaced.BODIES[config['BODY']]}\n/* {name} */\n"
        kernel = Kernel(source, "twice", defines={"ITEMS": config["ITEMS"], "WG": config["WG"]})
        groups = -(-n // (config["ITEMS"] * config["WG"]))
        return stream.launch(kernel, groups * config["WG"], config["WG"], out.data, x.data, n)

    return Tunable(name, key=lambda out, x, n: {"n": n}, space=spaced.space(), launch=launch,
                   strategy=strategy or LocalSearch(seed=0, generation=4),
                   budget=Budget(configs=configs) if configs else None, start=start)


def record_of(tunable, stream, args):
    from clmodes import default_store

    return default_store().get_tune_json(*tunable.tune_key(stream, args))


def test_start_configs_are_the_first_generation(stream, collector, build_spy):
    tunable = started(unique("start"), FIRST, configs=3)
    out, x = buffers(stream, 1024)
    with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
        tunable(stream, out, x, 1024)
    assert stream.server.queued() == 3  # exactly the start configs' kernels
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 1024)
    assert build_spy.calls == 1  # one batch: the three start configs
    record = record_of(tunable, stream, (out, x, 1024))
    space = spaced.space()
    tried = {*record["measurements"], *record["dropped"]}  # dropped: screened as slow
    assert tried == {space.name(c) for c in FIRST} and record["measured_here"] == 3
    np.testing.assert_allclose(out.get(), 2 * x.get())


def test_the_search_goes_on_from_the_best_start(stream, collector):
    tunable = started(unique("start-on"), FIRST[:1], configs=5)
    out, x = buffers(stream, 1024)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 1024)
    record = record_of(tunable, stream, (out, x, 1024))
    space = spaced.space()
    start = space.name(FIRST[0])
    tried = {*record["measurements"], *record["dropped"]}
    assert start in tried and len(tried) == 5 == record["measured_here"]
    # local search walks the start's neighbourhood: one parameter step away
    for name in tried:
        if name != start:
            moved = [p for p in space.params if space.config(name)[p] != FIRST[0][p]]
            assert 1 <= len(moved) <= 2, (name, moved)


def test_a_start_chooser_gets_the_device_and_bad_answers_cost_only_themselves(
        stream, collector, caplog):
    seen = []

    def chooser(device):
        seen.append(device)
        return [FIRST[0], {"ITEMS": 8, "WG": 64, "BODY": "mul"}]  # the second breaks ITEMS*WG<=256

    tunable = started(unique("start-fn"), chooser, configs=2)
    out, x = buffers(stream, 1024)
    with caplog.at_level("WARNING", logger="clmodes"):
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            tunable(stream, out, x, 1024)
    assert seen and all(d is stream.device for d in seen)
    assert any("ITEMS * WG <= 256" in r.getMessage() for r in caplog.records)
    record = record_of(tunable, stream, (out, x, 1024))
    assert spaced.space().name(FIRST[0]) in {*record["measurements"], *record["dropped"]}

    def broken(device):
        raise RuntimeError("no idea")

    failing = started(unique("start-raise"), broken, configs=2)
    with caplog.at_level("WARNING", logger="clmodes"):
        with ProcessModeOverride(ProcessMode.EXECUTE, collector):
            failing(stream, out, x, 1024)
    assert any("start chooser failed" in r.getMessage() and "no idea" in r.getMessage()
               for r in caplog.records)
    np.testing.assert_allclose(out.get(), 2 * x.get())


def test_a_start_outside_the_space_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"tunable 't'.*ITEMS \* WG <= 256"):
        started("t", [{"ITEMS": 8, "WG": 64, "BODY": "mul"}])
    with pytest.raises(ValueError, match="lacks: COLOUR"):
        started("t", [{**FIRST[0], "COLOUR": 1}])
    with pytest.raises(TypeError, match="list of configs"):
        started("t", FIRST[0])
    with pytest.raises(ValueError, match="go with space="):
        Tunable("t", key=lambda: 0, candidates={"a": print}, start=FIRST)


def test_a_changed_start_is_a_new_decision(stream):
    out, x = buffers(stream, 1024)
    one, other = started("same", FIRST[:1]), started("same", FIRST[1:2])
    assert one.tune_key(stream, (out, x, 1024)) != other.tune_key(stream, (out, x, 1024))
    assert started("same", FIRST[:1]).tune_key(stream, (out, x, 1024)) == \
        one.tune_key(stream, (out, x, 1024))


# -- a time budget: measured in slices, each told as it is raced ----------------------------


class Watched:
    """A strategy whose searches note each tell (its repr is the inner one's, so the
    tunable's checksum is too)."""

    def __init__(self, inner, told: list) -> None:
        self.inner, self.told = inner, told

    def __repr__(self) -> str:
        return repr(self.inner)

    def start(self, space):
        return _WatchedSearch(self.inner.start(space), self.told)


class _WatchedSearch:
    def __init__(self, inner, told: list) -> None:
        self.inner, self.told = inner, told

    def ask(self):
        return self.inner.ask()

    def tell(self, results) -> None:
        if results:  # the tuner tells what the store held first, here nothing
            self.told.append(dict(results))
        self.inner.tell(results)


def test_a_time_budget_measures_in_slices_each_told_as_raced(stream, collector, build_spy):
    """Under `Budget(seconds=)` the first result is one config's, each slice is one
    build, every config is told once, and the decision is still a config that computes."""
    from clmodes import Kernel
    from clmodes.tune import Budget, Exhaustive

    name = unique("paced")
    told: list[dict] = []

    def launch(stream, config, out, x, n):
        source = f"{spaced.BODIES[config['BODY']]}\n/* {name} */\n"
        kernel = Kernel(source, "twice", defines={"ITEMS": config["ITEMS"], "WG": config["WG"]})
        groups = -(-n // (config["ITEMS"] * config["WG"]))
        return stream.launch(kernel, groups * config["WG"], config["WG"], out.data, x.data, n)

    tunable = Tunable(name, key=lambda out, x, n: {"n": n}, space=spaced.space(), launch=launch,
                      strategy=Watched(Exhaustive(generation=8), told),
                      budget=Budget(seconds=600))
    out, x = buffers(stream, 1024)
    with ProcessModeOverride(ProcessMode.EXECUTE, collector):
        tunable(stream, out, x, 1024)
    names = [n for results in told for n in results]
    assert len(told[0]) == 1  # the first result after one config, not a generation
    assert len(names) == len(set(names)) == len(spaced.space())  # each once, all measured
    assert build_spy.calls == len(told)  # one build per slice (the final builds nothing)
    assert record_of(tunable, stream, (out, x, 1024))["measured_here"] == len(names)
    np.testing.assert_allclose(out.get(), 2 * x.get())
