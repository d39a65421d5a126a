"""Pacing a tune under a time budget (no device): `Spending.next_slice` sizes each slice of
a generation by the seconds per config seen so far, `Local` measures in those slices and
stops before a slice the remaining seconds cannot pay for, and `drive` tells each
slice's results as they are known, once, before the search is asked again.

The costs are real seconds (sleeps), small ones: what is asserted is the shape of the
pacing (the first slice is one config, the budget is not overshot by a generation), not
a timing of any kernel.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from clmodes.tune import Budget, LocalSearch
from clmodes.tune.fleet.measurer import Local
from clmodes.tune.search.spending import SLICE_S, Spending
from clmodes.tune.search.strategies.running import drive
from kernels_cl.gemm import GEMM_SPACE

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "spaces" / "gemm_pocl_n128.json"


def test_without_a_time_budget_a_generation_is_one_slice():
    assert Spending(None).next_slice(12) == 12
    assert Spending(Budget(configs=5)).next_slice(12) == 12
    assert Spending(Budget(seconds=60)).next_slice(0) == 0


def test_the_first_slice_is_one_config_then_slices_follow_the_cost():
    spending = Spending(Budget(seconds=600))
    assert spending.next_slice(16) == 1  # nothing known: the first result comes first
    spending.note_cost(1, SLICE_S / 40)  # a cheap config: batching pays
    assert spending.next_slice(16) == 16
    assert spending.next_slice(7) == 7
    dear = Spending(Budget(seconds=600))
    dear.note_cost(2, 6 * SLICE_S)  # a config costs more than a slice should: one each
    assert dear.next_slice(16) == 1
    assert dear.per_config_s() == 3 * SLICE_S


def test_no_slice_the_remaining_seconds_cannot_pay_for():
    spending = Spending(Budget(seconds=10), started=time.perf_counter() - 9.0)
    spending.note_cost(2, 4.0)  # 2 s a config, about 1 s left
    assert spending.next_slice(5) == 0
    roomy = Spending(Budget(seconds=10), started=time.perf_counter() - 1.0)
    roomy.note_cost(10, 0.5)  # 0.05 s a config, about 9 s left: a slice of SLICE_S
    assert roomy.next_slice(100) == int(SLICE_S / 0.05)


def test_local_measures_in_slices_and_stops_within_the_budget():
    """16 configs of 0.1 s each under a 0.6 s budget: measured whole (the old way) they
    would take 1.6 s; paced, the first slice is one config and the tune stops near its
    budget with nothing passed to `here` left unmeasured."""
    cost, budget = 0.1, 0.6
    spending = Spending(Budget(seconds=budget))
    parts: list[list[str]] = []

    def here(part):
        parts.append(part)
        time.sleep(cost * len(part))
        return {}

    names = [f"c{i}" for i in range(16)]
    assert Local().measure(names, here, spending) == {}
    elapsed = spending.elapsed()
    measured = [name for part in parts for name in part]
    assert len(parts[0]) == 1
    assert measured == names[:len(measured)] and len(measured) < len(names)
    assert elapsed < budget + 2 * cost, f"{elapsed:.2f} s for a {budget} s budget: {parts}"


def test_drive_tells_each_slice_once_before_the_next_ask():
    """A recorded GEMM space searched by a local search, measured in slices of one: each
    result reaches the search while its generation is still being measured, no result is
    told twice, and the search is asked again only once its generation is all told."""
    data = json.loads(FIXTURE.read_text())
    space = GEMM_SPACE.subspace(**data["fixed"])
    times = data["times_s"]
    events: list[tuple[str, object]] = []

    class Watched:
        def __init__(self, inner):
            self.inner = inner

        def ask(self):
            asked = self.inner.ask()
            events.append(("ask", [space.name(c) for c in asked]))
            return asked

        def tell(self, results):
            events.append(("tell", dict(results)))
            self.inner.tell(results)

    spending = Spending(Budget(configs=40))

    def measure(generation, tell):
        spending.measured.update(space.name(c) for c in generation)
        results = {}
        for config in generation[:-1]:  # every config but the last told as it is known
            name = space.name(config)
            results[name] = times[name]
            tell({name: times[name]})
            events.append(("measured", name))
        last = space.name(generation[-1])
        return {**results, last: times[last]}

    drive(Watched(LocalSearch(seed=3).start(space)), measure, spending.trim,
          lambda: spending.spent(on_time=False))
    told = [name for kind, what in events if kind == "tell" for name in what]  # type: ignore[union-attr]
    assert len(told) == len(set(told)) == 40
    pending: set[str] = set()
    for kind, what in events:
        if kind == "ask":
            assert not pending, f"asked again with {sorted(pending)} not told"
            pending = set(what)  # type: ignore[arg-type]
        elif kind == "tell":
            assert set(what) <= pending  # type: ignore[arg-type]
            pending -= set(what)  # type: ignore[arg-type]
    first_generation = next(what for kind, what in events if kind == "ask")
    assert events[1] == ("tell", {first_generation[0]: times[first_generation[0]]})
