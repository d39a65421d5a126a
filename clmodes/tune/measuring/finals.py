"""The final of a tune: who reaches it (`finalists`), the finalists raced against each
other in paired rounds (`run_final` on a device, `play` on any timing), and the decision on the median of paired ratios
(`scores`, `settled`).

Why a final at all, and why this one: a tune measures its generations in separate races,
at separate moments of a shared machine's load, and each race may stop after three
samples. What made an exhaustive tune choose 1.4x or 1.8x of the best:

- *finalists taken from non-comparable races*: the best few by median over every race.
  A race measured during a burst of load has every median inflated, so its best
  candidate never reached the re-race. Now each race's best `race_finalists` go too,
  and every candidate whose fastest sample beat the best median (within noise of it).
- *a winner ranked outside the final*: after the re-race the winner was the lowest
  median over every result, so a candidate left out of the re-race, measured in a quieter
  moment, outranked finalists re-raced under load. Now the winner is the final's.
- *a re-race skipped on three samples*: finalists of one race whose quartiles looked
  apart were not raced again; three samples under load make quartiles look apart that
  are not. Now two finalists or more always meet in a final.
- *a decision on pooled medians*: load that drifts between rounds moves a candidate's
  median with the load of whichever round is its middle one. In a paired round every
  finalist is sampled once, back to back (in rotating order, so no one always goes
  first); a candidate's score is the median over rounds of its sample over the round's
  median sample, so what a round's load does to all of them cancels.

(Screening on one noisy warm-up timing was a fourth cause; `racing.screen` re-times.)

The final runs in blocks of `RacePolicy.final_rounds` rounds, up to `rerace_limit`
blocks: after each, a finalist `drop_ratio` slower than the leader (paired), or already
decided against it, leaves, and the final stops once `settled`: the leader faster than
each other finalist in at least `settle_fraction` of their rounds, or, after two blocks,
within `tie_ratio` of it (either choice is then as good as the measurement can tell).

*Measuring only where the race left doubt.* A race's rounds are paired rounds too (one
sample of each candidate, back to back, rotating order). Finalists that met in one race of
at least `final_rounds` rounds start the final from those rounds (`prior`), as its first
block: a leader the race already settled is the decision without timing anything again,
and only the finalists still in doubt against it are timed (the others leave first, so
neither their warm-ups nor their samples are paid). Finalists from different races share
no round, so nothing between them is decided until the final times them together. Why:
the final had timed every finalist for up to three blocks of three-run samples, 2.3 s of
a 4.8 s tune of 16 configs on Intel's CPU runtime (docs/decisions/final-from-the-race.md).
A race of three rounds (a costly round, `sample_budget_s`) is not enough to start from:
three rounds under load once made quartiles look apart that were not (above).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import statistics
from collections.abc import Callable, Mapping, Sequence

from clmodes.measure import executing
from clmodes.records.tune import FinalInfo, Rivalry
from clmodes.stream import Stream
from clmodes.tune.measuring.policy import RacePolicy, real_timing
from clmodes.tune.measuring.racing import (Candidate, Measurement, Round, sample,
                                           warm_up_timing)

log = logging.getLogger("clmodes")


@dataclasses.dataclass(frozen=True)
class Contender:
    """What the choice of finalists reads of a measured candidate."""

    median: float
    fastest: float
    race: tuple[int, str]  # the race that measured it: (index, node)


def finalists(contenders: Mapping[str, Contender], policy: RacePolicy) -> list[str]:
    """Who meets in the final, fastest median first: the best `finalists` overall, then
    each race's best (its first, then its second, up to `race_finalists`), then anyone
    whose fastest sample beat the best median; at most `finalists_max`, in that order of
    priority (so a loaded race's best is not the one cut)."""
    ranked = sorted(contenders, key=lambda name: (contenders[name].median, name))
    if not ranked:
        return []
    by_race: dict[tuple[int, str], list[str]] = {}
    for name in ranked:
        by_race.setdefault(contenders[name].race, []).append(name)
    best = contenders[ranked[0]].median
    priority = ranked[:policy.finalists]
    for place in range(policy.race_finalists):
        priority += [names[place] for names in by_race.values() if place < len(names)]
    priority += [name for name in ranked if contenders[name].fastest < best]
    chosen = set(list(dict.fromkeys(priority))[:max(policy.finalists_max, 1)])
    return [name for name in ranked if name in chosen]


def scores(rounds: list[Round], names: list[str]) -> dict[str, float]:
    """Each of `names`' median, over the rounds that timed it, of its sample over that
    round's median sample (of `names` only): lower is faster, the round's load cancelled."""
    ratios: dict[str, list[float]] = {name: [] for name in names}
    for row in rounds:
        timed = {name: row[name] for name in names if name in row}
        if len(timed) < 2:
            continue
        level = statistics.median(timed.values())
        for name, seconds in timed.items():
            ratios[name].append(seconds / level)
    return {name: statistics.median(found) for name, found in ratios.items() if found}


def paired(rounds: list[Round], name: str, leader: str) -> list[float]:
    """`name`'s sample over `leader`'s, in each round that timed both."""
    return [row[name] / row[leader] for row in rounds if name in row and leader in row]


def settled(rounds: list[Round], order: list[str], policy: RacePolicy, blocks: int) -> bool:
    """Is the leader (`order[0]`) decided against every other finalist: faster than it in
    at least `settle_fraction` of their rounds, or, after two blocks, within `tie_ratio`
    of it? (Against the runner-up only is not enough: a burst that hit the best twice in
    one block ranks it third, behind a pair the leader clearly beats.)"""
    return all(_decided(paired(rounds, name, order[0]), policy, blocks) for name in order[1:])


def _decided(ratios: list[float], policy: RacePolicy, blocks: int) -> bool:
    return _beaten(ratios, policy) or (
        bool(ratios) and blocks >= 2 and statistics.median(ratios) < policy.tie_ratio)


@dataclasses.dataclass
class Final:
    """The final's outcome: `order`, fastest first (finalists dropped in it last, still
    by score; those that failed are not in it), every finalist's samples from the final's
    own blocks (none for a finalist the race's rounds decided), the rounds its order
    was scored on (`rounds`: the race's that timed every finalist left in doubt, then
    its own), and every race round it read (`race_rounds`, which decided who left)."""

    order: list[str]
    measurements: dict[str, Measurement]
    rounds: list[Round]
    race_rounds: list[Round] = dataclasses.field(default_factory=list)
    field: int = 0  # the first this many of `order` were still in it at the end (0: all)
    own_from: int = 0  # `rounds[own_from:]` are the final's own

    def info(self) -> FinalInfo | None:
        """What the record keeps of it (None when no finalist was timed): the order, the
        rounds, the scores the decision ranked (of those still in the final at its end:
        a score is relative to the finalists timed beside it, so one that left earlier
        has none comparable) and every finalist's rounds against the winner (the race's
        included), so that a reader can say why a finalist with the lower median did
        not win."""
        if not self.order:
            return None
        leader = self.order[0]
        found = scores(self.rounds, self.order[:self.field or len(self.order)])
        read = self.race_rounds + self.rounds[self.own_from:]
        rivals = {name: Rivalry(sum(ratio > 1.0 for ratio in ratios), len(ratios))
                  for name in self.order[1:]
                  if (ratios := paired(read, name, leader))}
        return FinalInfo(tuple(self.order), len(read), found, rivals, len(self.race_rounds))


def run_final(candidates: Mapping[str, Candidate], stream: Stream, args: tuple[object, ...],
              policy: RacePolicy, describe: str,
              out_of_time: Callable[[], bool] = lambda: False,
              prior: Sequence[Round] = (), fastest: Mapping[str, float] | None = None) -> Final:
    """Race `candidates` (built) in paired rounds under EXECUTE (`play`), from the race's
    rounds `prior`. Each finalist is warmed up before its first sample (its caches
    refilled after the other races): one run where its race's `fastest` sample tells
    its runs per sample (`RacePolicy.final_repeats`), else timed for them
    (`warm_up_timing`, up to three runs). A finalist the race's rounds decided is never
    run again."""
    repeats: dict[str, int] = {}
    known = fastest or {}

    def warm_up(name: str) -> int:
        if real_timing(known.get(name, math.nan)):
            candidates[name](stream, *args)
            return policy.final_repeats(known[name])
        return policy.final_repeats(warm_up_timing(candidates[name], stream, args, policy, name))

    def timing(name: str) -> float:
        if name not in repeats:
            repeats[name] = warm_up(name)
        return sample(candidates[name], stream, args, repeats[name], policy.final_runs_as, name)

    with executing(stream):
        final = play(list(candidates), timing, policy, describe, out_of_time, prior)
    for name, measurement in final.measurements.items():
        measurement.repeats = repeats.get(name, 1)
    return final


def play(names: list[str], timing: Callable[[str], float], policy: RacePolicy,
         describe: str = "", out_of_time: Callable[[], bool] = lambda: False,
         prior: Sequence[Round] = ()) -> Final:
    """The final between `names`, `timing(name)` one sample (or raising: that finalist
    leaves with a warning), until settled, the blocks run out or `out_of_time()`. The
    race's rounds `prior` (of at least `final_rounds` rounds that timed two finalists
    or more) are its first block."""
    alive = list(names)
    measurements = {name: Measurement(name) for name in names}
    race = shared_rounds(prior, alive)
    if len(race) < policy.final_rounds:
        race = []
    rounds: list[Round] = []
    left: list[str] = []  # dropped in the final as clearly slower, last first
    if race:
        order = _ordered(race, alive)
        if settled(race, order, policy, 1):
            return Final(order, {}, race, race, len(order), len(race))
        left = _leave_decided(race, order, alive, policy)
        # A score is relative to the finalists timed beside it: only the race's rounds
        # that timed every finalist still in doubt rank them with the final's own.
        rounds = [row for row in race if all(name in row for name in alive)]
        if len(rounds) < policy.final_rounds:
            rounds = []
    blocks = 1 if rounds else 0
    own_from = len(rounds)
    for _ in range(max(policy.rerace_limit, 1)):
        if len(alive) < 2 and (blocks or race):
            break
        blocks += 1
        costly = _block(alive, timing, measurements, rounds, policy, describe, own_from)
        order = _ordered(rounds, alive)
        if settled(rounds, order, policy, blocks) or costly or out_of_time():
            break
        left = _drop_slower(rounds, order, alive, policy) + left
    order = _ordered(rounds if len(alive) > 1 else race + rounds, alive)
    return Final(order + [name for name in left if name not in order],
                 {name: m for name, m in measurements.items() if m.samples}, rounds, race,
                 len(order), own_from)


def shared_rounds(prior: Sequence[Round], names: list[str]) -> list[Round]:
    """The rounds of `prior` that timed two or more of `names`, cut to them."""
    rows = ({name: row[name] for name in names if name in row} for row in prior)
    return [row for row in rows if len(row) >= 2]


def _block(alive: list[str], timing: Callable[[str], float],
           measurements: dict[str, Measurement], rounds: list[Round], policy: RacePolicy,
           describe: str, own_from: int) -> bool:
    """Up to `final_rounds` paired rounds (fewer, once the final has timed
    `first_samples` rounds of its own, when a round costs over `sample_budget_s`);
    whether it was that costly."""
    for _ in range(policy.final_rounds):
        shift = len(rounds) % max(len(alive), 1)
        row: Round = {}
        for name in alive[shift:] + alive[:shift]:
            try:
                seconds = timing(name)
            except Exception as error:  # noqa: BLE001 - any failure drops the candidate
                log.warning("%s: finalist %r dropped: %s", describe, name, error)
                alive.remove(name)
                continue
            if real_timing(seconds):
                row[name] = seconds
                measurements[name].samples.append(seconds)
            else:
                measurements[name].discarded += 1
        rounds.append(row)
        own = len(rounds) - own_from
        if sum(row.values()) > policy.sample_budget_s and own >= policy.first_samples:
            return True
    return False


def _ordered(rounds: list[Round], names: list[str]) -> list[str]:
    """`names` by score; a lone finalist (the others left) leads if it was ever timed:
    a score is relative to a round's others, and without this the finalist that left
    last would head the order."""
    if len(names) == 1:
        return [name for name in names if any(name in row for row in rounds)]
    found = scores(rounds, names)
    return sorted(found, key=lambda name: (found[name], name))


def _drop_slower(rounds: list[Round], order: list[str], alive: list[str],
                 policy: RacePolicy) -> list[str]:
    """Finalists `drop_ratio` slower than the leader, paired: they leave the final."""
    return _leave(alive, [name for name in order[1:] if statistics.median(
        paired(rounds, name, order[0]) or [1.0]) > policy.drop_ratio])


def _leave_decided(rounds: list[Round], order: list[str], alive: list[str],
                   policy: RacePolicy) -> list[str]:
    """After the race's rounds only: finalists decided against the leader there (slower
    in `settle_fraction` of their rounds), or `drop_ratio` slower, leave before anything
    is timed again. Why not after a final's block too: a round's level is the median of
    the finalists timed in it, and three finalists' median shrugs off a burst that two
    cannot; leaving after each block chose the 8%-slower of three in 15, 17 and 13 of
    200 noisy finals (three seeds) against 9, 12 and 10 (tests/unit/test_tune_finals.py)."""
    beaten = [name for name in order[1:] if _beaten(paired(rounds, name, order[0]), policy)]
    return _leave(alive, beaten) + _drop_slower(rounds, order, alive, policy)


def _leave(alive: list[str], leaving: list[str]) -> list[str]:
    """`leaving` out of `alive`; those that were in it."""
    gone = [name for name in leaving if name in alive]
    for name in gone:
        alive.remove(name)
    return gone


def _beaten(ratios: list[float], policy: RacePolicy) -> bool:
    return bool(ratios) and sum(ratio > 1.0 for ratio in ratios) / len(ratios) >= policy.settle_fraction
