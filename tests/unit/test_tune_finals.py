"""The decision logic of a tune's final (`clmodes.tune.measuring.finals`) and of screening
(`racing.screen`), on synthetic samples: no OpenCL. Each test is a way an exhaustive
tune on a loaded machine chose a config 1.4x-3x slower than the best, and fails under
the logic before the final (top three by median, re-race skipped on separated quartiles,
only the first candidate re-timed before screening, dropping on three samples)."""

from __future__ import annotations

import random
import statistics

from clmodes.records.measurement import Drop, Dropped
from clmodes.tune.measuring.finals import Contender, finalists, paired, play, scores, settled
from clmodes.tune.measuring.policy import RacePolicy
from clmodes.tune.measuring.racing import Measurement, drop_slower, screen, separated

POLICY = RacePolicy()


def contenders(race: int, medians: dict[str, float], spread: float = 0.02) -> dict[str, Contender]:
    return {name: Contender(median, median * (1 - spread), (race, ""))
            for name, median in medians.items()}


def test_a_loaded_races_best_reaches_the_final():
    # Race 0 was quiet; race 1 ran under load that inflated every median 1.6x, so its
    # best ("b0", truly 0.95) shows 1.52, behind race 0's four.
    found = {**contenders(0, {"a0": 1.0, "a1": 1.02, "a2": 1.05, "a3": 1.1}),
             **contenders(1, {"b0": 1.52, "b1": 1.7})}
    chosen = finalists(found, POLICY)
    assert "b0" in chosen and "b1" in chosen
    assert chosen[:3] == ["a0", "a1", "a2"] and chosen.index("b0") > chosen.index("a2")


def test_a_candidate_within_noise_of_the_best_reaches_the_final():
    found = contenders(0, {f"c{i}": 1.0 + 0.05 * i for i in range(8)})
    found["c6"] = Contender(1.3, 0.99, (0, ""))  # one sample beat the best's median
    assert "c6" in finalists(found, POLICY)


def test_the_cap_keeps_every_races_best():
    found: dict[str, Contender] = {}
    for race in range(6):  # six races, each slower overall than the one before
        found.update(contenders(race, {f"r{race}x{i}": (1 + race * 0.2) * (1 + 0.01 * i)
                                       for i in range(4)}))
    chosen = finalists(found, POLICY)
    assert len(chosen) == POLICY.finalists_max
    assert {f"r{race}x0" for race in range(6)} <= set(chosen)


def test_a_separated_looking_pair_on_three_rounds_is_not_settled():
    # The leader won two of three rounds; its quartiles look apart from the runner-up's,
    # which made the old re-race stop (or never start). One more block decides.
    leader, runner = [1.0, 1.0, 1.0], [1.2, 1.2, 0.95]
    assert separated([Measurement("a", leader), Measurement("b", runner)])
    rounds = [{"a": x, "b": y} for x, y in zip(leader, runner)]
    assert not settled(rounds, ["a", "b"], POLICY, blocks=1)
    rounds += [{"a": 1.0, "b": 1.2}] * 5
    assert settled(rounds, ["a", "b"], POLICY, blocks=2)


def test_a_tie_settles_after_two_blocks_only():
    rounds = [{"a": 1.0, "b": 1.0 + (0.01 if i % 2 else -0.005)} for i in range(10)]
    order = sorted(scores(rounds, ["a", "b"]), key=scores(rounds, ["a", "b"]).get)
    assert not settled(rounds[:5], order, POLICY, blocks=1)
    assert settled(rounds, order, POLICY, blocks=2)


def noisy_timing(rng: random.Random, bases: dict[str, float]):
    """A loaded machine: the load drifts from sample to sample (a round is back to back,
    so its samples share most of it) and a burst hits one sample in three."""
    state = {"level": 1.0, "count": 0}

    def timing(name: str) -> float:
        if state["count"] % len(bases) == 0:
            state["level"] = rng.lognormvariate(0, 0.5)
        state["count"] += 1
        burst = rng.choice([1.0, 1.0, rng.uniform(1.2, 2.5)])
        return 1e-3 * bases[name] * state["level"] * rng.lognormvariate(0, 0.02) * burst
    return timing


def test_the_final_chooses_the_best_through_drift_and_bursts():
    # "a" is 8% faster than "b", 30% than "c". The old re-race decided on the pooled
    # medians of at most three races of three to seven samples.
    rng = random.Random(7)
    bases = {"a": 1.0, "b": 1.08, "c": 1.3}
    wrong = wrong_pooled = 0
    for _ in range(200):
        final = play(list(bases), noisy_timing(rng, bases), POLICY)
        wrong += final.order[0] != "a"
        pooled = {name: statistics.median(m.samples) for name, m in final.measurements.items()}
        wrong_pooled += min(pooled, key=pooled.__getitem__) != "a"
    assert wrong <= 0.05 * 200
    assert wrong < wrong_pooled  # the same samples, pooled: each round's load kept


def test_a_finalist_that_raises_leaves_the_final():
    def timing(name):
        if name == "bad":
            raise RuntimeError("launch failed")
        return {"a": 1e-3, "b": 2e-3}[name]

    final = play(["bad", "a", "b"], timing, POLICY)
    assert final.order == ["a", "b"] and "bad" not in final.measurements


def test_a_clearly_slower_finalist_leaves_after_a_block():
    times = {"a": 1e-3, "b": 1.04e-3, "c": 3e-3}  # a round under `sample_budget_s`
    calls: list[str] = []

    def timing(name):
        calls.append(name)
        nth = calls.count(name)  # b wins every third round: a is not settled after one block
        return times[name] * (0.9 if name == "b" and nth % 3 == 1 else 1.0)

    final = play(list(times), timing, POLICY)
    assert final.order == ["a", "b", "c"]
    assert calls.count("c") == POLICY.final_rounds < calls.count("a")


def test_the_last_finalist_standing_leads_the_order():
    # "b" is dropped as 1.5x slower (paired) after a block; "a", alone, still wins: a
    # lone finalist has no score of its own (its rounds have no one else).
    times = {"a": 1e-3, "b": 1.6e-3}
    calls: list[str] = []

    def timing(name):
        calls.append(name)
        nth = calls.count(name)  # "b" wins every third round: not settled in one block
        return times[name] * (0.5 if name == "b" and nth % 3 == 1 else 1.0)

    final = play(list(times), timing, POLICY)
    assert final.order == ["a", "b"]
    assert calls.count("a") == calls.count("b") == POLICY.final_rounds  # no lone block


def test_paired_ratios_use_rounds_that_timed_both():
    rounds = [{"a": 1.0, "b": 2.0}, {"a": 1.0}, {"b": 3.0, "a": 2.0}]
    assert paired(rounds, "b", "a") == [2.0, 1.5]


def test_screening_retimes_every_candidate_it_would_drop():
    # "best" warmed up third, during a burst: 5x its real time. The old screening
    # re-timed only the first candidate warmed up, and dropped the best config.
    alive = {name: Measurement(name) for name in ("first", "second", "best", "slow")}
    warm = {"first": 0.010, "second": 0.012, "best": 0.045, "slow": 0.2}
    retimed = []

    def retime(name):
        retimed.append(name)
        return {"best": 0.009, "slow": 0.19}[name]

    dropped: dict[str, Dropped] = {}
    screen(alive, warm, dropped, POLICY, retime)
    assert "best" in alive and list(dropped) == ["slow"]
    assert retimed == ["best"] + ["slow"] * (POLICY.screen_timings - 1)


def test_screening_on_two_bursts_in_a_row_keeps_the_candidate():
    alive = {name: Measurement(name) for name in ("a", "best")}
    timings = iter([0.040, 0.009])  # its warm-up and one re-timing hit bursts; the third not
    dropped: dict[str, Dropped] = {}
    screen(alive, {"a": 0.010, "best": 0.050}, dropped, POLICY, lambda name: next(timings))
    assert not dropped


def test_a_candidate_about_to_be_dropped_is_sampled_once_more():
    # Every one of the best's first three samples was a burst (load only adds time).
    measured = {"ok": Measurement("ok", [2e-3, 2.1e-3, 2e-3]),
                "best": Measurement("best", [15e-3, 22e-3, 30e-3]),
                "slow": Measurement("slow", [9e-3, 9.5e-3, 9.2e-3])}
    dropped: dict[str, Dropped] = {}
    drop_slower(measured, dropped, POLICY, {"best": 1e-3, "slow": 9.1e-3}.__getitem__)
    assert "best" in measured and list(dropped) == ["slow"]


def test_screening_keeps_its_first_timing_when_the_retime_is_unreal():
    alive = {name: Measurement(name) for name in ("a", "b")}
    dropped: dict[str, Dropped] = {}
    screen(alive, {"a": 0.01, "b": 0.05}, dropped, POLICY, lambda name: float("nan"))
    assert list(dropped) == ["b"] and "0.05" in dropped["b"].reason
    assert dropped["b"].kind is Drop.SCREENED


# -- a final that starts from its race's rounds (measuring only where doubt is left) -----

def race_rounds(times: dict[str, float], count: int, jitter: dict[str, list[float]] | None = None
                ) -> list[dict[str, float]]:
    """`count` paired rounds of a race: each name's time, times its jitter in that round."""
    jitter = jitter or {}
    return [{name: seconds * jitter.get(name, [1.0] * count)[i] for name, seconds in times.items()}
            for i in range(count)]


def counting(times: dict[str, float]):
    calls: list[str] = []

    def timing(name: str) -> float:
        calls.append(name)
        return times[name]
    return timing, calls


def test_a_leader_the_race_settled_is_the_decision_without_timing_again():
    times = {"a": 1e-3, "b": 1.1e-3, "c": 1.3e-3}
    timing, calls = counting(times)
    final = play(list(times), timing, POLICY, prior=race_rounds(times, 7))
    assert final.order == ["a", "b", "c"] and calls == []
    assert len(final.race_rounds) == 7 and len(final.rounds) == 7 and final.measurements == {}
    info = final.info()
    assert info is not None and info.from_race == 7 and info.against_winner["b"].slower == 7


def test_only_the_finalists_in_doubt_are_timed_again():
    # "b" won 3 of the race's 7 rounds against "a": in doubt. "c" lost all 7: decided.
    times = {"a": 1e-3, "b": 1.01e-3, "c": 1.3e-3}
    prior = race_rounds(times, 7, {"b": [0.97, 1, 0.97, 1, 0.97, 1, 1]})
    timing, calls = counting(times)
    final = play(list(times), timing, POLICY, prior=prior)
    assert "c" not in calls and set(calls) == {"a", "b"}
    assert final.order == ["a", "b", "c"] and len(final.race_rounds) == 7
    assert len(final.rounds) == 7 + POLICY.final_rounds  # the race as block 1: ties settle at 2
    info = final.info()
    assert info is not None and info.rounds == 12 and info.from_race == 7
    assert info.against_winner["c"].rounds == 7 and set(info.scores) == {"a", "b"}


def test_a_short_race_is_not_a_block_of_the_final():
    # Three rounds (a costly race) once made configs look apart that were not: the final
    # times every finalist as if there had been no race.
    times = {"a": 1e-3, "b": 1.1e-3}
    timing, calls = counting(times)
    final = play(list(times), timing, POLICY, prior=race_rounds(times, POLICY.first_samples))
    assert final.race_rounds == [] and calls.count("a") == calls.count("b") >= POLICY.final_rounds


def test_finalists_of_different_races_are_timed_together():
    # Each race settled its own leader; nothing compares "a" with "x", which met in no round.
    times = {"a": 1e-3, "b": 1.3e-3, "x": 0.95e-3, "y": 1.4e-3}
    prior = race_rounds({"a": 1e-3, "b": 1.3e-3}, 7) + race_rounds({"x": 0.95e-3, "y": 1.4e-3}, 7)
    timing, calls = counting(times)
    final = play(list(times), timing, POLICY, prior=prior)
    assert final.order[0] == "x" and {"a", "x"} <= set(calls) and "y" not in calls
    assert final.rounds[0].keys() >= {"a", "x"}  # the race's rounds score nobody here


def test_the_final_info_keeps_how_many_rounds_were_the_races():
    from clmodes.records.tune import FinalInfo
    info = FinalInfo(("a", "b"), 12, {"a": 0.99, "b": 1.01}, {}, from_race=7)
    assert FinalInfo.from_json(info.to_json()) == info
    hostile = dict(info.to_json(), from_race=99)
    assert FinalInfo.from_json(hostile).from_race == 12  # never more than the rounds
    for bad in (-1, "7", None, 7.5, True):
        assert FinalInfo.from_json(dict(info.to_json(), from_race=bad)).from_race == 0
    older = {k: v for k, v in info.to_json().items() if k != "from_race"}
    assert FinalInfo.from_json(older).from_race == 0
