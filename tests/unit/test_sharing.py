"""The sharing hook of a spread tune (`clmodes.tune.fleet.sharing`), without Ray: threads play
the nodes and a `MemoryLedger` is what they share. It documents the protocol: each node
measures its share of a generation, everyone reads every share back, a share whose node
never posts is taken over after the deadline, and only the leader re-races the
finalists while the others adopt its record."""

from __future__ import annotations

import threading
import time

import pytest

from clmodes.errors import TuneError
from clmodes.store.store import Store
from clmodes.tune import LocalSearch
from clmodes.tune.fleet.sharing import MemoryLedger, Spread, current, installed
from clmodes.tune.tuner import Tuner
from support import spaced
from support.tunables import buffers

NAMES = [f"c{i}" for i in range(7)]


def in_threads(*jobs):
    """Run each job in a thread; their results in order (a job's exception re-raised)."""
    results: list = [None] * len(jobs)
    errors: list = []

    def run(index, job):
        try:
            results[index] = job()
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    if errors:
        raise errors[0]
    return results


def fake_measure(node: str, measured: list):
    def measure(names):
        measured.extend((node, name) for name in names)
        return {name: {"identity": f"id-{name}", "record": {"median_s": float(name[1:]) + 1}}
                for name in names}
    return measure


def test_each_node_measures_its_share_and_both_see_every_result():
    ledger, measured = MemoryLedger(), []
    a, b = Spread(ledger, 0, 2, "a"), Spread(ledger, 1, 2, "b")
    shared_a, shared_b = in_threads(
        lambda: a.measure("k", 0, NAMES, fake_measure("a", measured), lambda: False),
        lambda: b.measure("k", 0, NAMES, fake_measure("b", measured), lambda: False))
    assert shared_a == shared_b
    assert list(shared_a.results) == NAMES  # in the generation's order, for the search
    assert sorted(measured) == sorted([("a", n) for n in NAMES[0::2]]
                                      + [("b", n) for n in NAMES[1::2]])
    assert len({name for _, name in measured}) == len(NAMES)  # none measured twice
    assert (a.configs, b.configs) == (4, 3) and not shared_a.stop
    assert shared_a.measured_by["c1"] == "b" and shared_a.measured_by["c2"] == "a"


def test_the_generation_stops_when_any_node_says_its_budget_is_spent():
    ledger = MemoryLedger()
    a, b = Spread(ledger, 0, 2, "a"), Spread(ledger, 1, 2, "b")
    shared = in_threads(
        lambda: a.measure("k", 0, NAMES, fake_measure("a", []), lambda: False),
        lambda: b.measure("k", 0, NAMES, fake_measure("b", []), lambda: True))
    assert shared[0].stop and shared[1].stop


def test_a_share_never_posted_is_measured_by_the_leader_after_the_deadline():
    ledger, measured = MemoryLedger(), []
    leader = Spread(ledger, 0, 2, "a", timeout_s=0.3)
    started = time.monotonic()
    shared = leader.measure("k", 0, NAMES, fake_measure("a", measured), lambda: False)
    assert time.monotonic() - started >= 0.3
    assert list(shared.results) == NAMES and set(shared.measured_by.values()) == {"a"}
    assert leader.took_over == 1 and leader.configs == len(NAMES)
    # The late node finds its share decided: it measures it, but its post is ignored.
    late = Spread(ledger, 1, 2, "b")
    again = late.measure("k", 0, NAMES, fake_measure("b", []), lambda: False)
    assert again.results == shared.results and late.configs == 0


def test_only_the_leader_reraces_and_the_others_adopt_its_record():
    ledger, reraced = MemoryLedger(), []

    def rerace(node):
        def run():
            reraced.append(node)
            time.sleep(0.1)
            return {"winner": "c3", "spread": {"reraced_on": node}}
        return run

    nodes = [Spread(ledger, rank, 3, name) for rank, name in enumerate("abc")]
    records = in_threads(*[lambda n=n: n.decide("k", rerace(n.node)) for n in reversed(nodes)])
    assert reraced == ["a"]
    assert {r["winner"] for r in records} == {"c3"}
    assert [r["spread"].get("adopted_on") for r in records] == ["c", "b", None]
    assert [n.reraced for n in nodes] == [1, 0, 0]


def test_a_decision_that_failed_fails_every_node():
    ledger = MemoryLedger()

    def fails():
        raise TuneError("every candidate failed")

    leader, other = Spread(ledger, 0, 2, "a"), Spread(ledger, 1, 2, "b")
    with pytest.raises(TuneError, match="every candidate failed"):
        leader.decide("k", fails)
    with pytest.raises(TuneError, match="decided on a"):
        other.decide("k", lambda: {"winner": "c0"})


def test_no_hook_by_default():
    assert current() is None
    hook = Spread(MemoryLedger(), 0, 1, "a")
    with installed(hook):
        assert current() is hook
    assert current() is None


def test_two_tuners_share_one_local_search(stream):
    """Two tuners on real OpenCL, one per thread, each with a store of its own: a search
    told the same results proposes the same generations, so the two measure disjoint
    halves of the budget and record the same decision."""
    tunable = spaced.make("tests.sharing.spaced", configs=8,
                          strategy=LocalSearch(generation=4))
    out, x = buffers(stream, 2048)
    args = (out, x, 2048)
    key = tunable.tune_key(stream, args)
    ledger = MemoryLedger()
    hooks = [Spread(ledger, 0, 2, "a"), Spread(ledger, 1, 2, "b")]
    stores = [Store(None), Store(None)]

    def tune(rank):
        return Tuner(key, tunable.choices, stream, args, stores[rank], tunable.policy,
                     describe="spread", budget=tunable.budget, sharing=hooks[rank]).run().to_json()

    leader, other = in_threads(lambda: tune(0), lambda: tune(1))
    assert leader["winner"] == other["winner"]
    assert set(leader["measurements"]) == set(other["measurements"])
    assert leader["measured_here"] == other["measured_here"] == 8
    # Shares are names[rank::2] of each generation: the leader gets the odd one out.
    counts = leader["spread"]["measured_on"]
    assert counts == {"a": hooks[0].configs, "b": hooks[1].configs}
    assert sum(counts.values()) == 8 and counts["a"] >= counts["b"] >= 2
    assert leader["spread"]["reraced_on"] == "a" and "adopted_on" not in leader["spread"]
    assert other["spread"]["adopted_on"] == "b"
    assert hooks[0].reraced == 1 and hooks[1].reraced == 0
    # Both stores hold every measurement of the group (a re-tune there reuses them).
    for store in stores:
        assert len(store.measurement_records(*key[:3])) >= 8


def test_a_leader_that_never_decides_is_replaced_by_the_next_rank():
    ledger = MemoryLedger()
    second = Spread(ledger, 1, 2, "b", timeout_s=0.2)
    started = time.monotonic()
    record = second.decide("k", lambda: {"winner": "c1", "spread": {"reraced_on": "b"}})
    assert time.monotonic() - started >= 0.2  # it waited its turn (timeout x rank)
    assert record["winner"] == "c1" and second.reraced == 1
    # A leader arriving late adopts what was decided instead of re-racing.
    late = Spread(ledger, 0, 2, "a").decide("k", lambda: {"winner": "c9"})
    assert late["winner"] == "c1" and late["spread"]["adopted_on"] == "a"
