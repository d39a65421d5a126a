"""What was tuned: the store's tune entries as typed records, for people and scripts.

`clmodes tune list|show|plot|forget` read tune entries through this module only. A tune
record is JSON written by `Tunable` (and, through bundles, by other machines and other
versions of clmodes), so it is decoded by `TuneRecord.from_json` (`clmodes.records.tune`), the one
boundary: a field that is missing or of the wrong type becomes None (or is left out), a
row whose record does not parse at all is skipped with a warning. The verbs then work on
the dataclasses here and never index JSON themselves.

Where an entry came from is the record's `host` (the node name it was measured on):
measured *here*, *imported* (measured on another host: a bundle brought it), *remote*
(read through a team's remote, `clmodes.remote`: the store notes it, whatever the host),
or *unknown* (a record from before clmodes wrote the host).
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import statistics
from typing import Any

from clmodes.errors import ClmodesError
from clmodes.store import FORMAT_VERSION, Store, TuneRow
from clmodes.records.measurement import CandidateMeasurement, Drop, legacy_drop
from clmodes.records.tune import HOST, Cost, FinalInfo, parsed

log = logging.getLogger("clmodes")

UNIT = "s"  # every timing in a record, and in the JSON the verbs print: device seconds


class NoTuneEntryError(ClmodesError):
    """A tunable or key that the store holds no entry for (the message lists what it has)."""


@dataclasses.dataclass(frozen=True)
class MeasuredCandidate:
    """One candidate that was timed: its samples (device seconds) and their median."""

    name: str
    median_s: float
    samples_s: tuple[float, ...]
    discarded_samples: int = 0
    roofline: float | None = None
    runs_per_sample: int = 1  # a sample is the median of this many runs (short kernels)

    @property
    def min_s(self) -> float:
        return min(self.samples_s, default=self.median_s)

    @property
    def max_s(self) -> float:
        return max(self.samples_s, default=self.median_s)

    @property
    def quartiles_s(self) -> tuple[float, float]:
        """(Q1, Q3) of the samples: the spread a few noisy samples do not stretch."""
        if len(self.samples_s) < 2:
            return self.min_s, self.max_s
        q1, _, q3 = statistics.quantiles(self.samples_s, n=4, method="inclusive")
        return q1, q3

    @property
    def parameters(self) -> dict[str, str]:
        return parameters(self.name)

    def as_dict(self, winner: str) -> dict[str, Any]:
        q1, q3 = self.quartiles_s
        return {"name": self.name, "winner": self.name == winner, "median_s": self.median_s,
                "min_s": self.min_s, "max_s": self.max_s, "q1_s": q1, "q3_s": q3,
                "samples": len(self.samples_s), "samples_s": list(self.samples_s),
                "discarded_samples": self.discarded_samples, "roofline": self.roofline,
                "runs_per_sample": self.runs_per_sample, "parameters": self.parameters}


@dataclasses.dataclass(frozen=True)
class DroppedCandidate:
    """A candidate that was not timed to the end, and why (the racer's reason)."""

    name: str
    reason: str
    drop: Drop | None = None  # None: as its reason says (`legacy_drop`)

    @property
    def kind(self) -> str:
        """screened | slower | failed | untimed | wrong (its output differs from the
        reference's) | other (`Drop`)."""
        return (self.drop or legacy_drop(self.reason)).value

    @property
    def summary(self) -> str:
        """The reason's first line and, for a build failure, the log's first error line
        (its first line if none says "error": logs open with "Compilation started" and
        the like): what a person needs in a table. The whole log is in the JSON."""
        lines = [line.strip() for line in self.reason.splitlines() if line.strip()]
        if not lines:
            return "(no reason recorded)"
        log_lines = lines[1:]
        errors = [line for line in log_lines if "error" in line.lower()]
        detail = (errors or log_lines)[:1]
        return " — ".join([lines[0], *detail])

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "reason": self.reason,
                "summary": self.summary}


class NotChosen(enum.Enum):
    """Why a runner-up whose median is below the winner's did not win, as the record
    shows it. The winner is the final's (`tune.measuring.finals`: the lowest median of paired
    ratios), so a lower median is not a lower score:"""

    LOST_FINAL = "lost-final"  # it met the winner in the final and scored worse there
    NOT_IN_FINAL = "not-in-final"  # its median is of its own, earlier race
    UNRECORDED = "unrecorded"  # a record without the final (older, or none ran)


@dataclasses.dataclass(frozen=True)
class RunnerUpNote:
    """Why the runner-up, faster than the winner by median, was not chosen: the reason
    and the record's numbers behind it (`text` says it in words)."""

    reason: NotChosen
    faster: float  # 0.063: its median 6.3% below the winner's
    final_rounds: int | None = None  # paired rounds of the final
    slower_rounds: int | None = None  # of the rounds that timed both, those it was slower
    shared_rounds: int | None = None
    score: float | None = None  # its median paired ratio in the final (lower: faster)
    winner_score: float | None = None

    @property
    def text(self) -> str:
        """"6.3% faster by median; not chosen: lost the final, slower than the winner in
        3 of 5 paired rounds (paired score 1.02 against 0.99)"."""
        return f"{self.faster:.1%} faster by median; not chosen: {self._why()}"

    def _why(self) -> str:
        if self.reason is NotChosen.LOST_FINAL:
            rounds = (f", slower than the winner in {self.slower_rounds} of "
                      f"{self.shared_rounds} paired rounds" if self.shared_rounds else "")
            scores = (f" (paired score {self.score:.3g} against the winner's "
                      f"{self.winner_score:.3g})"
                      if self.score is not None and self.winner_score is not None else "")
            return f"lost the final{rounds}{scores}"
        if self.reason is NotChosen.NOT_IN_FINAL:
            return (f"it was not a finalist; its median is from its own earlier race, the "
                    f"winner's from the final's {self.final_rounds} paired rounds")
        return ("unknown: the record does not keep the final that chose the winner "
                "(made before clmodes kept it)")

    def as_dict(self) -> dict[str, Any]:
        return {"reason": self.reason.value, "text": self.text, "faster": self.faster,
                "final_rounds": self.final_rounds, "slower_rounds": self.slower_rounds,
                "shared_rounds": self.shared_rounds, "score": self.score,
                "winner_score": self.winner_score}


def runner_up_note(winner: str, runner_up: str, ratio: float | None,
                   final: FinalInfo | None) -> RunnerUpNote | None:
    """Why `runner_up` (median `ratio` times the winner's) is not the winner, when it is
    faster by median; None when it is not (nothing to explain)."""
    if ratio is None or ratio >= 1.0:
        return None
    faster = 1.0 - ratio
    if final is None or final.order[0] != winner:
        return RunnerUpNote(NotChosen.UNRECORDED, faster)
    if runner_up not in final.order:
        return RunnerUpNote(NotChosen.NOT_IN_FINAL, faster, final_rounds=final.rounds)
    rival = final.against_winner.get(runner_up)
    return RunnerUpNote(NotChosen.LOST_FINAL, faster, final_rounds=final.rounds,
                        slower_rounds=rival.slower if rival else None,
                        shared_rounds=rival.rounds if rival else None,
                        score=final.scores.get(runner_up), winner_score=final.scores.get(winner))


@dataclasses.dataclass(frozen=True)
class TunedKey:
    """One tune entry: a key of a tunable on a device model, its winner and candidates.
    `measured` is sorted fastest first."""

    model: str
    tunable: str
    key: str
    candidates_checksum: str
    winner: str
    statistic: str
    measured: tuple[MeasuredCandidate, ...]
    dropped: tuple[DroppedCandidate, ...]
    device: str | None = None
    host: str | None = None
    tune_seconds: float | None = None
    measured_at: float | None = None
    clmodes_version: str | None = None
    roofline: float | None = None
    cost: Cost | None = None
    space_size: int | None = None
    # A tune spread over a fleet's identical devices (`clmodes.tune.fleet.sharing`): nodes,
    # configs measured on each, where the finalists were re-raced, where it was adopted.
    spread: dict[str, Any] | None = None
    # Arguments measured on uniform values instead of unwritten memory (`tune.measuring.inputs`).
    inputs_replaced: tuple[str, ...] = ()
    # The output check (`tune.checking.reference`): reference, candidates run, seconds, bytes copied.
    check: dict[str, Any] | None = None
    # How near the device the decision was measured on is (`tune.answers.nearest`): exact,
    # family, vendor or across, with the models it was taken from; and its check here
    # (`tune.answers.verify`): kept or re-tuned, by how much.
    grade: str = "exact"
    graded_from: tuple[str, ...] = ()
    verified: dict[str, Any] | None = None
    final: FinalInfo | None = None  # the final that chose the winner (`tune.measuring.finals`)
    remote: bool = False  # read through a team's remote (`Store.remote_tune_keys`)

    @property
    def winner_measurement(self) -> MeasuredCandidate | None:
        return next((m for m in self.measured if m.name == self.winner), None)

    @property
    def runner_up(self) -> MeasuredCandidate | None:
        """The fastest measured candidate other than the winner."""
        return next((m for m in self.measured if m.name != self.winner), None)

    @property
    def runner_up_ratio(self) -> float | None:
        """Runner-up median / winner median: 1.25 means the runner-up is 25% slower."""
        best, second = self.winner_measurement, self.runner_up
        if best is None or second is None or best.median_s <= 0:
            return None
        return second.median_s / best.median_s

    @property
    def runner_up_note(self) -> RunnerUpNote | None:
        """Why the runner-up did not win although its median is lower; None otherwise."""
        second = self.runner_up
        if second is None:
            return None
        return runner_up_note(self.winner, second.name, self.runner_up_ratio, self.final)

    @property
    def configs(self) -> int:
        """How many candidates the tune had: the space's size when the record says so,
        else those measured plus those dropped."""
        return self.space_size or len(self.measured) + len(self.dropped)

    def origin(self, node: str | None = None) -> str:
        """here | imported | remote | unknown: measured on this host, on another, read
        from a remote, or not recorded."""
        if self.remote:
            return "remote"
        if self.host is None:
            return "unknown"
        return "here" if self.host == (node or HOST) else "imported"

    def summary(self) -> dict[str, Any]:
        """One row of `tune list --json`."""
        best, second = self.winner_measurement, self.runner_up
        return {
            "tunable": self.tunable, "key": self.key, "model": self.model,
            "device": self.device, "winner": self.winner,
            "winner_median_s": best.median_s if best else None,
            "runner_up": second.name if second else None,
            "runner_up_median_s": second.median_s if second else None,
            "runner_up_ratio": self.runner_up_ratio,
            "measured": len(self.measured), "dropped": len(self.dropped),
            "configs": self.configs, "space_size": self.space_size,
            "roofline": self.roofline, "origin": self.origin(), "host": self.host,
            "measured_at": self.measured_at, "tune_seconds": self.tune_seconds,
            "clmodes": self.clmodes_version, "spread": self.spread,
            "inputs_replaced": list(self.inputs_replaced), "check": self.check,
            "grade": self.grade, "graded_from": list(self.graded_from),
            "verified": self.verified,
            "runner_up_not_chosen": note.as_dict() if (note := self.runner_up_note) else None,
        }

    def details(self) -> dict[str, Any]:
        """One key of `tune show --json` (and what `tune plot` draws)."""
        return {
            **self.summary(), "statistic": self.statistic, "unit": UNIT,
            "candidates": [m.as_dict(self.winner) for m in self.measured],
            "dropped_candidates": [d.as_dict() for d in self.dropped],
            "cost": dataclasses.asdict(self.cost) if self.cost else None,
            "roofline_s": self.cost.roofline_s if self.cost else None,
            "final": self.final.to_json() if self.final else None,
        }


def parameters(name: str) -> dict[str, str]:
    """A configuration's parameters from its name: "reg RM=4,WPT=8 local=8x8" ->
    {"family": "reg", "RM": "4", "WPT": "8", "local": "8x8"}; {} for a name that is not
    a configuration ("fast_path")."""
    found: dict[str, str] = {}
    for token in name.split():
        if "=" not in token:
            if "family" in found:
                return {}
            found["family"] = token
            continue
        for part in token.split(","):
            parameter, _, value = part.partition("=")
            if not parameter or not value:
                return {}
            found[parameter] = value
    return found if len(found) > ("family" in found) else {}


# -- reading the store -------------------------------------------------------------------


def tuned_keys(store: Store, model: str | None = None, tunable: str | None = None) -> list[TunedKey]:
    """Every readable tune entry of this clmodes format (of one device model, of one
    tunable), sorted by model, tunable and key. Unreadable entries are skipped with a
    warning (the tune that needs one re-tunes it)."""
    return entries_of(store, selected_rows(store, model, tunable))


def selected_rows(store: Store, model: str | None, tunable: str | None) -> list[TuneRow]:
    rows = [row for row in store.tune_rows(model)
            if row.format == FORMAT_VERSION and tunable in (None, row.tunable)]
    return sorted(rows, key=lambda row: (row.model, row.tunable, row.tune_key))


def entries_of(store: Store, rows: list[TuneRow]) -> list[TunedKey]:
    """The readable entries among `rows` (unreadable ones skipped with a warning)."""
    found = []
    from_remote = store.remote_tune_keys()
    for row in rows:
        entry = entry_of(row)
        if entry is None:
            log.warning("clmodes store %s: unreadable tune entry for %s key %s; skipped",
                        store.location, row.tunable, row.tune_key)
        else:
            remote = (row.model, row.tunable, row.tune_key, row.candidates) in from_remote
            found.append(dataclasses.replace(entry, remote=True) if remote else entry)
    return found


# -- one record ------------------------------------------------------------------------


def entry_of(row: TuneRow) -> TunedKey | None:
    """A row's record as a `TunedKey`; None if it is not a record (no JSON, no winner)."""
    record = parsed(row.value)
    if record is None:
        return None
    measured = [_measured(name, m) for name, m in record.measurements.items()]
    return TunedKey(
        model=row.model, tunable=row.tunable, key=row.tune_key,
        candidates_checksum=row.candidates, winner=record.winner, statistic=record.statistic,
        measured=tuple(sorted(measured, key=lambda m: (m.median_s, m.name))),
        dropped=tuple(DroppedCandidate(name, m.reason or "", m.drop)
                      for name, m in sorted(record.dropped.items())),
        device=record.device, host=record.host, tune_seconds=record.tune_seconds,
        measured_at=record.measured_at, clmodes_version=record.clmodes,
        roofline=record.roofline, cost=record.cost, space_size=record.space_size,
        spread=record.spread.as_dict() if record.spread else None,
        inputs_replaced=record.inputs_replaced,
        check=record.check.to_json() if record.check else None,
        grade=record.grade, graded_from=record.graded_from,
        verified=dict(record.verified) if record.verified is not None else None,
        final=record.final,
    )


def _measured(name: str, m: CandidateMeasurement) -> MeasuredCandidate:
    return MeasuredCandidate(name, m.median_s or 0.0, m.samples_s, m.discarded_samples,
                             m.roofline, m.runs_per_sample)
