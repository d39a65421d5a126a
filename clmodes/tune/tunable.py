"""`Tunable`: an operation with a key function and named candidates, autotuned per device.

The rules (docs/contract.md, Autotune):
- a hit runs the winner on the caller's stream, so its launches get the caller's verdict
  (under COMPILE_AND_AUTOTUNE the real call is dropped);
- one candidate is answered: not tuned, not counted, not persisted;
- a miss under COMPILE_ONLY runs every candidate with queue-only launches, so all their
  kernels join the compile queue; nothing is measured or cached;
- any other miss gathers every candidate's kernels, builds them in one batch, measures
  each on a measurement stream (scratch copies of buffer arguments, so the caller's
  buffers are never written), records the winner in memory and in the store, counts the
  key, then runs the winner on the caller's stream (`tuner.py`: what is reused, how
  finalists are re-raced).

A stored decision is used only while it is current (`identity.py`): its winner is still
a candidate and every candidate it measured still launches the kernels it launched
then. Otherwise it is a miss (with one warning), and only what changed is measured.
Another process measuring the same key is waited for, and its decision adopted
(`coordination.py`).

With `cost=fn(*args) -> (bytes_moved, flops)` and a throughput probe cached for the device
(`clmodes.probe`), each measured candidate's record gets "roofline": the fraction of the
device's roofline it achieved (`clmodes.roofline_fraction`). A tune never triggers a
probe: a probe costs seconds, and measuring it as a side effect of whichever call missed
a key would make tune times unpredictable; run `clmodes probe` (or `clmodes.probe()`
in a warm workload) first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from clmodes.execution import Counter, ProcessMode, misses, process_mode, tally
from clmodes.execution.misses import Miss, MissKind
from clmodes.execution.usage import unrecorded
from clmodes.measure import measurement_stream
from clmodes.runtime import runtime_of
from clmodes.stream import Stream
from clmodes.tune.decisions.cache import TuneKey, canonical_key
from clmodes.tune.search.budget import Budget
from clmodes.tune.bucket import RuleSpec, bucketed, rules_of
from clmodes.tune.checking.candidates import Candidate, CandidateSet, Listed, Searched
from clmodes.tune.checking.identity import decision_problem
from clmodes.records.tune import TuneRecord
from clmodes.tune.measuring.policy import RacePolicy
from clmodes.tune.checking.rule import checking_of
from clmodes.tune.search.space import TuningSpace
from clmodes.tune.search.starts import Start, StartSpec
from clmodes.tune.search.strategies import DEFAULT_STRATEGY, Strategy

# The Tuner, the fleet hook, the coordination between processes, the roofline scoring,
# the nearest-device answers and their verification (which races) are imported at the
# first key measured or answered: a process whose every key is stored (a warmed start,
# ci/bench/bench_warm_start.py) measures nothing, and they were 5 of clmodes.tune's 22 ms
# of import, then the verification's race and inputs ~5 ms more.
if TYPE_CHECKING:
    from clmodes.tune.checking.comparison import Tolerance
    from clmodes.tune.reporting.scoring import Cost
    from clmodes.tune.tuner import Tuner

log = logging.getLogger("clmodes")

MeasureArgs = Callable[..., tuple[object, ...]]


class Tunable:
    """`Tunable(name, key=fn(*args), candidates={"name": fn(stream, *args)})`, or
    `Tunable(name, key=..., space=TuningSpace(...), launch=fn(stream, config, *args),
    strategy=LocalSearch(), budget=Budget(configs=64))`: a space searched by a strategy,
    each generation built in one batch, stopped by the budget (the best measured wins).
    `start=[configs]` or `start=fn(device) -> configs`: measured first, as the first
    generation, and told to the strategy (`tune.search.starts`).

    `measure_args(stream, *args) -> args` may supply the inputs to measure on (generated
    data); by default buffer arguments are copied onto the measurement stream.

    `cost(*args) -> (bytes_moved, flops)`: what one call moves and computes (all its
    launches, as a sample times them), for the roofline fraction in the tune record.

    Before a candidate is raced its output is checked (`tune.checking.reference`) against
    `reference=` (a candidate's name, or a space's config), else the first that ran;
    one that disagrees is dropped. `tolerance=clmodes.Tolerance(rtol, atol)` for floats
    (default by dtype, `tune.checking.comparison`); `check=False` turns it off, `check=(2,)`
    compares only those argument positions (a workspace argument may differ).

    `bucket={"M": "pow2", "n": clmodes.tune.bucket.edges([4096])}`: one tune answers
    every size of a range (`tune.bucket`); for candidates correct at every size.

    Thread-safe: two threads calling one untuned key tune it once; the second blocks until
    the first has a winner, then runs that winner (see `tune.decisions.cache`). Process-safe: two
    processes sharing a store measure a key once (see `tune.decisions.coordination`).
    """

    def __init__(
        self,
        name: str,
        key: Callable[..., object],
        candidates: Mapping[str, Candidate] | None = None,
        *,
        measure_args: MeasureArgs | None = None,
        policy: RacePolicy = RacePolicy(),
        cost: "Cost | None" = None,
        space: TuningSpace | None = None,
        launch: Callable[..., object] | None = None,
        strategy: Strategy | None = None,
        budget: Budget | None = None,
        start: StartSpec | None = None,
        reference: str | dict | None = None,
        tolerance: Tolerance | None = None,
        check: bool | tuple[int, ...] = True,
        bucket: Mapping[str, RuleSpec] | None = None,
    ) -> None:
        if (candidates is None) == (space is None):
            raise ValueError(f"tunable {name!r}: give exactly one of candidates= and space=")
        if candidates is not None and not candidates:
            raise ValueError(f"tunable {name!r} needs at least one candidate")
        if space is not None and (launch is None or not space):  # any config: never len()
            raise ValueError(f"tunable {name!r}: a space needs launch=fn(stream, config, *args) "
                             "and at least one valid config")
        if space is None and (launch or strategy or budget or start is not None):
            raise ValueError(f"tunable {name!r}: launch=, strategy=, budget= and start= go "
                             "with space=")
        candidate_set: CandidateSet | None = None
        if space is not None:
            owner = f"tunable {name!r}"
            assert launch is not None  # refused above
            candidate_set = Searched(space, launch, strategy or DEFAULT_STRATEGY(), budget,
                                     Start.of(start, space, owner), owner)
        self.name = name
        self.key = key
        self.bucket = rules_of(bucket, f"tunable {name!r}")
        self.measure_args = measure_args
        self.policy = policy
        self.cost = cost
        self.choices: CandidateSet = candidate_set or Listed(candidates or {})
        self._checksum = self.choices.checksum()
        self._stale: dict[TuneKey, str] = {}  # keys whose stored decision was dropped, and why
        self._unverified: dict[TuneKey, TuneRecord] = {}  # answers not timed here
        if isinstance(reference, dict) and self.space is not None:
            reference = self.space.name(reference)
        self.checking = checking_of(f"tunable {name!r}", check, reference, tolerance,
                                    self.choices.get)

    @property
    def space(self) -> TuningSpace | None:
        """The tuning space searched (None for hand-written candidates)."""
        return self.choices.space if isinstance(self.choices, Searched) else None

    @property
    def budget(self) -> Budget | None:
        """What stops the space's search (None: hand-written candidates, or no limit)."""
        return self.choices.budget if isinstance(self.choices, Searched) else None

    @property
    def candidates(self) -> dict[str, Candidate]:
        """The hand-written candidates by name (empty for a space: its configs are
        `space`'s)."""
        return self.choices.candidates if isinstance(self.choices, Listed) else {}

    def __repr__(self) -> str:
        return f"<clmodes.Tunable {self.name!r}: {self.choices.size()} candidates>"

    def tune_key(self, stream: Stream, args: tuple[object, ...]) -> TuneKey:
        owner = f"tunable {self.name!r}"
        try:
            value = self.key(*args)
        except Exception as error:
            if hasattr(error, "add_note"):  # the caller's own exception, with who called it
                error.add_note(f"raised by the key function of {owner}")
            raise
        return TuneKey(stream.device.fingerprint.model, self.name,
                       canonical_key(bucketed(value, self.bucket, owner), owner), self._checksum)

    def __call__(self, stream: Stream, *args: object) -> object:
        only = self.choices.only()
        if only is not None:
            return self._run(only, stream, args)
        key = self.tune_key(stream, args)
        winner = self._cached(stream, args, key) or self._graded(stream, args, key)
        if winner is None:
            if process_mode() is ProcessMode.COMPILE_ONLY:
                # Which candidate the workload uses is not known until the tune.
                with unrecorded():
                    gathered = self._tuner(stream, args, key).gather_first()
                    first = gathered[0] if gathered else self.choices.start(stream.device).ask()[0]
                    return self._run(first, stream, args)
            misses.report(lambda: Miss(MissKind.TUNE, self.name, stream.device.label,
                                       self._why_missed(stream, key), key.key))
            winner = runtime_of(stream).tunes.tune_once(key, lambda: self._tune(stream, args, key))
        elif key in self._unverified:
            winner = self._verified(stream, args, key, winner)
        return self._run(winner, stream, args)

    def _graded(self, stream: Stream, args: tuple[object, ...], key: TuneKey) -> str | None:
        """Another device model's decision, graded (`tune.answers.answering`), kept in memory."""
        from clmodes.tune.answers.answering import graded_answer  # a miss's: see the imports

        with unrecorded():
            record = graded_answer(runtime_of(stream), key,
                                   lambda r: self._holds(r, stream, args, key), self._describe(key))
        if record is None:
            return None
        self._note_unverified(key, record)
        return runtime_of(stream).tunes.tune_once(key, lambda: record.winner)

    def _holds(self, record: TuneRecord, stream: Stream, args: tuple[object, ...],
               key: TuneKey) -> bool:
        """Does a stored record (another model's, `tune.answers.answering`) hold here?"""
        return self._current(record, stream, args, key)

    def _note_unverified(self, key: TuneKey, record: TuneRecord) -> None:
        """Remember an answer not measured here (`tune.answers.verify` times it)."""
        if record.untimed_on():
            self._unverified[key] = record

    def _verified(self, stream: Stream, args: tuple[object, ...], key: TuneKey,
                  winner: str) -> str:
        """An answer not measured here, timed once (`tune.answers.verify`) when the mode says so."""
        from clmodes.tune.answers import verify  # an answer's: see the imports

        record, mode = self._unverified.get(key), process_mode()
        if record is not None and mode is ProcessMode.COMPILE_ONLY:
            with unrecorded():
                verify.queue_runner_up(record, self.choices.get, stream, args)
        if record is None or not verify.due(mode) or self._unverified.pop(key, None) is None:
            return winner
        from clmodes.tune.answers.answering import settle

        with unrecorded():
            verdict = verify.time_answer(record, self.choices.get, stream, args,
                                         self.measure_args, self._describe(key))
            return settle(runtime_of(stream), key, record, verdict,
                          lambda: self._measured(stream, args, key), self._describe(key))

    def _why_missed(self, stream: Stream, key: TuneKey) -> str:
        """Why no decision served (`clmodes check`): a stale one's problem, else the store's."""
        stale = self._stale.get(key)
        if stale:
            return f"the stored decision no longer holds: {stale}"
        return runtime_of(stream).store.why_tune_missed(*key, bucketed=tuple(self.bucket))

    def winner(self, stream: Stream, *args: object) -> str | None:
        """The cached winner for these arguments, if any (tunes nothing)."""
        only = self.choices.only()
        if only is not None:
            return only
        return self._cached(stream, args, self.tune_key(stream, args))

    def _run(self, name: str, stream: Stream, args: tuple[object, ...]) -> object:
        candidate = self.choices.get(name)
        assert candidate is not None, name  # only current records and proposals get here
        return candidate(stream, *args)

    # -- a stored decision -------------------------------------------------------------

    def _describe(self, key: TuneKey) -> str:
        return f"tunable {self.name!r} key {key.key}"

    def _cached(self, stream: Stream, args: tuple[object, ...], key: TuneKey) -> str | None:
        return runtime_of(stream).tunes.winner(
            key, lambda record: self._current_or_dropped(record, stream, args, key))

    def _current_or_dropped(self, record: TuneRecord, stream: Stream,
                            args: tuple[object, ...], key: TuneKey) -> bool:
        """A stale decision is deleted, so that the next tune's decision replaces it (the
        first recorded wins) and processes coordinate on measuring it again."""
        problem = self._problem(record, stream, args, key, warn=True)
        if problem is None:
            self._note_unverified(key, record)
            return True
        self._stale[key] = problem
        runtime_of(stream).store.drop_stale_tune(*key, record)
        return False

    def _current(self, record: TuneRecord, stream: Stream, args: tuple[object, ...],
                 key: TuneKey, warn: bool = False) -> bool:
        """Does a stored decision hold for the code as it is now?"""
        return self._problem(record, stream, args, key, warn) is None

    def _problem(self, record: TuneRecord, stream: Stream, args: tuple[object, ...],
                 key: TuneKey, warn: bool = False) -> str | None:
        """Why a stored decision does not hold for the code as it is now (None: it holds)."""
        with unrecorded():
            problem = decision_problem(record.winner, record.identities, self.choices.get,
                                       measurement_stream(stream), args)
        if problem and warn:
            log.warning("%s: stored tune result not used: %s; measuring again",
                        self._describe(key), problem)
        return problem

    # -- a miss ------------------------------------------------------------------------

    def _tuner(self, stream: Stream, args: tuple[object, ...], key: TuneKey) -> "Tuner":
        from clmodes.tune.fleet import sharing
        from clmodes.tune.tuner import Tuner

        return Tuner(key, self.choices, stream, args, runtime_of(stream).store, self.policy,
                     self.measure_args, self._describe(key), self.budget, sharing.current(),
                     self.checking)

    def _tune(self, caller: Stream, args: tuple[object, ...], key: TuneKey) -> str:
        from clmodes.tune.decisions.coordination import measure_or_adopt

        with unrecorded():
            record = measure_or_adopt(
                runtime_of(caller).store, (key.model, key.tunable, key.key, key.candidates),
                lambda: self._measure_and_record(caller, args, key),
                lambda found: self._current(found, caller, args, key), self._describe(key))
        return record.winner

    def _measured(self, caller: Stream, args: tuple[object, ...], key: TuneKey) -> TuneRecord:
        """A decision measured here (counted as a key tuned), not yet stored."""
        entry = self._tuner(caller, args, key).run()
        if self.cost is not None:
            from clmodes.tune.reporting.scoring import score

            entry = score(entry, caller.device, self.cost, args, self._describe(key))
        tally(Counter.KEYS)
        self._log_decision(caller, key, entry)
        return entry

    def _measure_and_record(self, caller: Stream, args: tuple[object, ...],
                            key: TuneKey) -> TuneRecord:
        entry = self._measured(caller, args, key)
        kept = runtime_of(caller).store.put_tune_record(*key, entry)
        if kept is entry or not self._current(kept, caller, args, key):
            return entry  # ours, or another process's decision for other code: ours holds here
        return kept

    def _log_decision(self, caller: Stream, key: TuneKey, entry: TuneRecord) -> None:
        log.info("%s tuned on %s: %s", self._describe(key), caller.device.label, entry.summary())
