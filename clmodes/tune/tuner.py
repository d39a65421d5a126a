"""A miss measured: generations gathered and built in one batch each, raced, persisted as
they are taken, the finalists raced against each other in a final, the decision recorded.
Under a time budget a generation is measured in slices (`Spending.next_slice`: one batch
and one race each, each slice's results told to the search as soon as it is raced), so
the first result comes after one config and the budget is not overshot by a generation.

What it reuses: measurements already in the store for the same key and the same
candidate *identity* (`identity.py`) — taken by a tune that was killed, by a smaller set
or space, or before an unrelated kernel was edited. They are told to the search, so it
proposes only what is missing. Measurements taken at different times are not compared
directly for the decision: the finalists (`finals.py`: the best few overall and each
race's best) meet in a final of paired rounds, and its order is the decision, so a moment
of load on a shared machine cannot pick a slower candidate.

Who measures which part of a generation, when the search stops and who decides is the
tune's `Measurer` (`measurer.py`): `Local` measures everything here; a spread fleet
warm's hook (`sharing.py`) makes it `Spreading` (`spreading.py`): this process gathers,
builds and races only its share and tells the search every share's results, and only
the leader re-races the finalists. The tuner itself knows nothing of the fleet.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable
from clmodes._version import __version__
from clmodes.errors import TuneError
from clmodes.measure import build_queued, gather, measurement_stream, scratch_copies
from clmodes.store.store import Store
from clmodes.stream import Stream
from clmodes.tune.search.budget import Budget
from clmodes.tune.decisions.cache import TuneKey
from clmodes.tune.checking.candidates import Candidate, CandidateSet
from clmodes.tune.measuring.finals import finalists, run_final
from clmodes.tune.checking.identity import current_identity, identity_of
from clmodes.tune.measuring.known import Known
from clmodes.tune.measuring.inputs import Replaced, log_replaced, replace_unwritten
from clmodes.records.measurement import CandidateMeasurement, Drop, Dropped
from clmodes.tune.measuring.policy import RacePolicy
from clmodes.tune.measuring.racing import Measurement, Round, race
from clmodes.records.tune import HOST, FinalInfo, TuneRecord
from clmodes.tune.checking.reference import Checker
from clmodes.tune.checking.rule import Checking
from clmodes.tune.fleet.sharing import Entry, Sharing
from clmodes.tune.search.spending import Spending
from clmodes.tune.fleet.spreading import measurer_for
from clmodes.tune.search.strategies.running import Tell, drive

log = logging.getLogger("clmodes")

NOT_MEASURED = Dropped(Drop.OTHER, "not measured")  # raced, yet neither kept nor dropped
MeasureArgs = Callable[..., tuple[object, ...]]


@dataclasses.dataclass
class Tuner:
    """One tune of one key, on one caller's stream (see the module's doc)."""

    key: TuneKey
    candidates: CandidateSet
    caller: Stream
    args: tuple[object, ...]
    store: Store
    policy: RacePolicy
    measure_args: MeasureArgs | None = None
    describe: str = ""
    budget: Budget | None = None  # the tuner keeps it; strategies only propose
    sharing: dataclasses.InitVar[Sharing | None] = None  # a spread tune's hook: its measurer
    checking: Checking | None = None  # outputs checked against a reference (`reference.py`)

    def __post_init__(self, sharing: Sharing | None) -> None:
        self.stream = measurement_stream(self.caller)
        self.measurer = measurer_for(sharing, json.dumps(list(self.key)))
        self.spending = Spending(self.budget)  # generations' names: not the re-races
        self.races = 0
        self.race_rounds: list[Round] = []  # the long races' paired rounds (`_final`)
        self.gather_failures: dict[str, str] = {}
        self.replaced: list[Replaced] = []  # arguments measured on uniform values
        self.final: FinalInfo | None = None  # what the record keeps of the final, if one ran
        self.checker = Checker(self.checking, self.stream, self.describe)
        self.known = Known(self.store, self.key[:3], self.measurer.node, self.checker.note)
        self.results = self.known.results

    # -- gathering only (COMPILE_ONLY) -----------------------------------------------------

    def gather_first(self) -> list[str]:
        """Queue the kernels of this process's share (the measurer's) of the first
        generation the search would measure; the names queued."""
        names = self.measurer.share(self.candidates.start(self.caller.device).ask())
        for name in names + self.checker.extra(names):
            self._gather(name, self.args)
        return names

    # -- measuring -------------------------------------------------------------------------

    def run(self) -> TuneRecord:
        self.caller.finish()  # the caller's pending work may still be writing the inputs
        inputs = (tuple(self.measure_args(self.stream, *self.args)) if self.measure_args
                  else self._scratch_inputs())
        self.checker.start(inputs)  # a snapshot, before any candidate writes them
        search = self.candidates.start(self.caller.device)
        search.tell(self._reuse(inputs))
        drive(search, lambda generation, tell: self._measure(generation, inputs, tell),
              self._limit, lambda: self.measurer.exhausted(self.spending))
        return self.measurer.decide(lambda: self._decide(inputs))

    def _scratch_inputs(self) -> tuple[object, ...]:
        """Copies of the caller's arguments, unwritten memory replaced (`tune.measuring.inputs`:
        the trap of measuring on memory a dropped launch would have written)."""
        inputs = scratch_copies(self.args, self.stream)
        self.replaced = replace_unwritten(inputs)
        log_replaced(self.describe, self.replaced)
        return inputs

    def _decide(self, inputs: tuple[object, ...]) -> TuneRecord:
        self._final(inputs)
        return self._record()

    def _reuse(self, inputs: tuple[object, ...]) -> dict[str, float | None]:
        """Stored measurements of this key whose candidate still launches the same code."""
        stored = self.store.measurement_records(*self.key[:3])
        told: dict[str, float | None] = {}
        for name in sorted({name for name, _ in stored}):
            candidate = self.candidates.get(name)
            identity = candidate and current_identity(candidate, self.stream, inputs)
            record = stored.get((name, identity)) if identity else None
            if record is not None and self.checker.reusable(record):
                self.known.keep(name, identity, record, -1, node="", persist=False)
                told[name] = self.known.median(name)
        if told:
            log.info("%s: reusing %d stored measurements", self.describe, len(told))
        return told

    def _limit(self, generation: list[str]) -> list[str]:
        return self.spending.trim([name for name in generation if name not in self.results])

    def _gather(self, name: str, inputs: tuple[object, ...]) -> str | None:
        """Queue one candidate's kernels; its identity, or None (a warning, and the
        reason kept for the record) if it raised."""
        candidate = self.candidates.get(name)
        try:
            if candidate is None:
                raise LookupError(f"{name!r} is not a candidate")
            return identity_of(gather(self.stream, lambda: candidate(self.stream, *inputs)))
        except Exception as error:  # noqa: BLE001 - dropped with a warning
            log.warning("%s: candidate %r dropped: %s", self.describe, name, error)
            self.gather_failures[name] = f"failed while gathering its kernels: {error}"
            return None

    def _measure(self, generation: list[str], inputs: tuple[object, ...],
                 tell: Tell) -> dict[str, float | None]:
        """Gather, build in one batch, race (each part the measurer measures here, its
        results told as soon as it is raced); keep every result as it is known, others'
        too; what to tell the search. A name no part measured (the time budget ran out
        first) is neither told nor counted as measured."""
        self.spending.measured.update(generation)
        foreign = self.measurer.measure(
            generation, lambda part: self._measure_here(part, inputs, tell), self.spending)
        for name, (entry, node) in foreign.items():
            self._keep_shared(name, entry, node)
        self.spending.measured.difference_update(
            name for name in generation if name not in self.results)
        return {name: self.known.median(name) for name in generation if name in self.results}

    def _measure_here(self, names: list[str], inputs: tuple[object, ...],
                      tell: Tell) -> dict[str, Entry]:
        identities = {name: self._gather(name, inputs) for name in names}
        for name in self.checker.extra(names):  # the reference, when it has not run
            self._gather(name, inputs)
        build_queued(self.stream)
        wrong = self.checker.check([name for name, identity in identities.items() if identity],
                                   self.candidates.get)
        runnable: dict[str, Candidate] = {
            name: found for name, identity in identities.items()
            if identity and name not in wrong and (found := self.candidates.get(name)) is not None}
        rounds: list[Round] = []
        measured, dropped = race(runnable, self.stream, inputs, self.policy, self.describe,
                                 rounds, self.checker.timings)
        if len(rounds) >= self.policy.final_rounds:  # a final may start from it (finals.py)
            self.race_rounds += rounds
        dropped.update(wrong)
        race_index, self.races = self.races, self.races + 1
        for name, identity in identities.items():
            if identity is None:
                self.known.keep(name, None, CandidateMeasurement.dropped(Dropped(
                    Drop.FAILED, self.gather_failures.get(name, "failed while gathering its kernels"))),
                    race_index)
            elif name in measured:
                self.known.keep(name, identity, self._measurement(measured[name]), race_index)
            else:
                self.known.keep(name, identity, self.checker.marked(
                    name, CandidateMeasurement.dropped(dropped.get(name, NOT_MEASURED))),
                    race_index)
        tell({name: self.known.median(name) for name in names})
        return {name: self.results[name].measurement.with_identity(
            self.results[name].identity).to_entry() for name in names}

    def _measurement(self, measurement: Measurement) -> CandidateMeasurement:
        record = dataclasses.replace(
            measurement.as_measurement(), device=self.caller.device.fingerprint.exact,
            host=HOST, measured_at=time.time(), clmodes=__version__)
        return self.checker.marked(measurement.name, record)

    def _keep_shared(self, name: str, entry: Entry, node: str) -> None:
        """Another node's result of a shared generation (kept as any is)."""
        found = CandidateMeasurement.from_entry(entry) or CandidateMeasurement.dropped(
            Dropped(Drop.FAILED, "failed: an unreadable shared result"))
        self.known.keep(name, found.identity, found.with_identity(None), -1, node=node)

    # -- deciding --------------------------------------------------------------------------

    def _final(self, inputs: tuple[object, ...]) -> None:
        """Race the finalists against each other (`finals.py`); keep what it measured
        (its samples replace theirs) and its order as the decision."""
        contenders = self.known.contenders()
        names = finalists(contenders, self.policy)
        if len(names) < 2:
            return
        runnable = {name: found for name in names
                    if (found := self.candidates.get(name)) is not None}
        for name in names:
            self._gather(name, inputs)
        build_queued(self.stream)
        final = run_final(runnable, self.stream, inputs, self.policy,
                          self.describe + " (final)", self.spending.out_of_time,
                          self.race_rounds,
                          {name: contenders[name].fastest for name in names
                           if self.results[name].race >= 0})
        log.debug("%s: final between %s: %s on %d rounds (the race's: %d read)",
                  self.describe, names, final.order, len(final.rounds), len(final.race_rounds))
        race_index, self.races = self.races, self.races + 1
        for name, measurement in final.measurements.items():
            self.known.keep(name, self.results[name].identity,
                            self._measurement(measurement), race_index, node=self.measurer.node)
        self.known.decided = final.order
        self.final = final.info()

    def _record(self) -> TuneRecord:
        ranked = self.known.ranked()
        if not ranked:
            reasons = "; ".join(f"{n}: {r.measurement.reason}"
                                for n, r in self.results.items()) or "no candidate to measure"
            raise TuneError(f"{self.describe} on {self.caller.device.label}: every candidate "
                            f"failed ({reasons})")
        return TuneRecord(
            winner=ranked[0],
            measurements={name: self.results[name].measurement.with_identity(
                self.results[name].identity) for name in ranked},
            dropped={name: r.measurement for name, r in self.results.items()
                     if r.median is None},
            identities={name: r.identity for name, r in self.results.items()
                        if r.identity is not None},
            device=self.caller.device.fingerprint.exact,
            host=HOST,
            space_size=self.candidates.size(),
            measured_here=len(self.spending.measured),
            inputs_replaced=tuple(r.describe() for r in self.replaced),
            check=self.checker.as_info(),
            tune_seconds=self.spending.elapsed(),
            measured_at=time.time(),
            clmodes=__version__,
            spread=self.measurer.spread(),
            final=self.final if self.final and self.final.order[0] == ranked[0] else None,
        )
