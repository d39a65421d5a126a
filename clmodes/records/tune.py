"""The tune record, typed and versioned: the decision of one key and what it was made of.

Why one type: the record is written by the tuner and read by the tune cache, the
staleness check, the report, bundles and the fleet; as a dict literal each of them read
it by hand. A record is also JSON from anywhere (a bundle from another machine, another
version of clmodes, a hostile file), so `TuneRecord.from_json` is the single boundary:
a field of the wrong type becomes None (or its default), a record without a winner
raises `MalformedRecord`, and records from before `RECORD_VERSION` (no version, no
identities, no host) still decode. `to_json` writes what clmodes has always written,
plus "record_version": an older clmodes ignores fields it does not know, so stores and
bundles stay readable both ways.
"""

from __future__ import annotations

import dataclasses
import json
import platform
from collections.abc import Mapping
from typing import Any

from clmodes.errors import ClmodesError
from clmodes.records.fields import count, number, text, texts
from clmodes.records.measurement import CandidateMeasurement, Drop, Dropped, Outcome, drop_from_json

RECORD_VERSION = 1  # records without "record_version" are version 0
# This machine's node name: the `host` of a decision measured here, and what tells a
# decision imported from another machine (`TuneRecord.untimed_on`).
HOST = platform.node()


class MalformedRecord(ClmodesError, ValueError):
    """JSON that is not a tune record (no winner, a winner it did not measure)."""


@dataclasses.dataclass(frozen=True)
class Cost:
    """What one call of the tunable moves and computes, and the probe's ceilings then."""

    bytes_moved: float
    flops: float
    bandwidth_gbps: float
    compute_gflops: float

    @property
    def roofline_s(self) -> float:
        """The least time the roofline allows (`clmodes.roofline.roofline_seconds`)."""
        return max(self.bytes_moved / (self.bandwidth_gbps * 1e9),
                   self.flops / (self.compute_gflops * 1e9))

    @classmethod
    def from_json(cls, value: object) -> Cost | None:
        """A cost that can be used (non-negative, ceilings positive, something moved)."""
        if not isinstance(value, dict):
            return None
        found = [number(value.get(f.name)) for f in dataclasses.fields(cls)]
        if any(f is None or f < 0 for f in found) or not found[2] or not found[3]:
            return None
        if not (found[0] or found[1]):
            return None
        return cls(*found)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class CheckInfo:
    """The output check of a tune (`tune.checking.reference`): the reference and its cost."""

    reference: str | None = None
    candidates: int | None = None
    seconds: float | None = None
    bytes_copied: int | None = None

    @classmethod
    def from_json(cls, value: object) -> CheckInfo | None:
        if not isinstance(value, dict):
            return None
        return cls(text(value.get("reference")), count(value.get("candidates")),
                   number(value.get("seconds")), count(value.get("bytes_copied")))

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class SpreadInfo:
    """A tune spread over a fleet's identical devices (`tune.fleet.sharing`): how many nodes,
    configs measured on each, where the finalists were re-raced, where it was adopted."""

    nodes: int | None = None
    measured_on: Mapping[str, int] = dataclasses.field(default_factory=dict)
    reraced_on: str | None = None
    adopted_on: str | None = None

    @classmethod
    def from_json(cls, value: object) -> SpreadInfo | None:
        if not isinstance(value, dict):
            return None
        measured_on = value.get("measured_on")
        counts = {str(node): found for node, n in measured_on.items()
                  if (found := count(n)) is not None} if isinstance(measured_on, dict) else {}
        return cls(count(value.get("nodes")), counts, text(value.get("reraced_on")),
                   text(value.get("adopted_on")))

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"measured_on": dict(self.measured_on)}
        for name in ("nodes", "reraced_on", "adopted_on"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        return found

    def as_dict(self) -> dict[str, Any]:
        """Every field, None where unknown (what `tune list --json` prints)."""
        return {"nodes": self.nodes, "measured_on": dict(self.measured_on),
                "reraced_on": self.reraced_on, "adopted_on": self.adopted_on}


@dataclasses.dataclass(frozen=True)
class Rivalry:
    """One finalist against the winner over the final's rounds that timed both."""

    slower: int  # rounds in which its sample was slower than the winner's
    rounds: int  # rounds that timed both

    @classmethod
    def from_json(cls, value: object) -> Rivalry | None:
        if not isinstance(value, dict):
            return None
        slower, rounds = count(value.get("slower")), count(value.get("rounds"))
        if slower is None or rounds is None or slower > rounds:
            return None
        return cls(slower, rounds)


@dataclasses.dataclass(frozen=True)
class FinalInfo:
    """The final that decided the winner (`tune.measuring.finals`), as the record keeps it.

    Why kept: the winner is the final's (the lowest median of paired ratios), and the
    finalists' medians are of the final's samples while every other candidate's is of
    its own earlier race; without this, a runner-up whose median is lower than the
    winner's reads as a wrong decision, and nothing in the record said why it is not."""

    order: tuple[str, ...]  # the finalists, the winner first (by score)
    rounds: int  # paired rounds the final decided on (the race's included)
    scores: Mapping[str, float] = dataclasses.field(default_factory=dict)  # median ratio
    against_winner: Mapping[str, Rivalry] = dataclasses.field(default_factory=dict)
    from_race: int = 0  # of `rounds`, the race's that the final started from

    @classmethod
    def from_json(cls, value: object) -> FinalInfo | None:
        if not isinstance(value, dict):
            return None
        order, rounds = texts(value.get("order")), count(value.get("rounds"))
        if not order or rounds is None:
            return None
        scores = value.get("scores")
        rivals = value.get("against_winner")
        return cls(order, rounds,
                   {str(k): found for k, v in scores.items() if (found := number(v)) is not None}
                   if isinstance(scores, dict) else {},
                   {str(k): rival for k, v in rivals.items()
                    if (rival := Rivalry.from_json(v)) is not None}
                   if isinstance(rivals, dict) else {},
                   min(count(value.get("from_race")) or 0, rounds))

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order), "rounds": self.rounds, "scores": dict(self.scores),
                "against_winner": {name: dataclasses.asdict(r)
                                   for name, r in self.against_winner.items()},
                "from_race": self.from_race}


@dataclasses.dataclass(frozen=True)
class TuneRecord:
    """One key's decision. `measurements` holds the timed candidates, fastest first;
    `dropped` the others' reasons; `identities` is None in a record that has none
    (made before clmodes recorded them: it cannot be checked against the code)."""

    winner: str
    measurements: Mapping[str, CandidateMeasurement] = dataclasses.field(default_factory=dict)
    dropped: Mapping[str, CandidateMeasurement] = dataclasses.field(default_factory=dict)
    identities: Mapping[str, str] | None = None
    statistic: str = "median"
    device: str | None = None  # exact fingerprint of the device that decided
    host: str | None = None  # node name it was measured on (None: an older record)
    space_size: int | None = None
    measured_here: int | None = None
    inputs_replaced: tuple[str, ...] = ()  # arguments measured on uniform values
    check: CheckInfo | None = None
    tune_seconds: float | None = None
    measured_at: float | None = None
    clmodes: str | None = None  # the version that made it
    spread: SpreadInfo | None = None
    final: FinalInfo | None = None  # None: no final (one contender) or an older record
    roofline: float | None = None  # the winner's fraction of the roofline
    cost: Cost | None = None
    version: int = RECORD_VERSION
    # An answer taken from another device model (`tune.answers.nearest`): how near, from which
    # models, and what timing it here found (`tune.answers.verify`). "exact": measured for this one.
    grade: str = "exact"
    graded_from: tuple[str, ...] = ()
    verified: Mapping[str, Any] | None = None
    across: Mapping[str, Any] | None = None
    # The JSON it was decoded from (None: made here), so that a stale entry is deleted
    # exactly as stored. Not compared: two records are equal by what they say.
    source: Mapping[str, Any] | None = dataclasses.field(default=None, compare=False,
                                                         repr=False)

    def summary(self) -> str:
        """"'a' (1.2e-05 s median); runner-up 'b' 1.31x; 8 measured of 16 in 0.42 s"."""
        measured = list(self.measurements.values())
        best = (measured[0].median_s or 0.0) if measured else 0.0
        runner_up = (f"; runner-up {list(self.measurements)[1]!r} "
                     f"{(measured[1].median_s or 0.0) / best:.2f}x"
                     if len(measured) > 1 and best else "")
        return (f"{self.winner!r} ({best:.3g} s median){runner_up}; {self.measured_here or 0} "
                f"measured of {self.space_size or 0} in {self.tune_seconds or 0.0:.2f} s")

    @property
    def winner_measurement(self) -> CandidateMeasurement | None:
        return self.measurements.get(self.winner)

    def adopted_on(self, node: str) -> TuneRecord:
        """This record as a node that adopted it (did not re-race it) records it: written
        again here, so in this version's layout."""
        spread = dataclasses.replace(self.spread or SpreadInfo(), adopted_on=node)
        return dataclasses.replace(self, spread=spread, version=RECORD_VERSION, source=None)

    def untimed_on(self, host: str = HOST) -> bool:
        """Was this decision never timed on `host`: graded from another model, or measured
        on another host, and not verified there since (`tune.answers.verify`)? A record
        without a host predates the field: it is left alone."""
        if self.verified is not None:
            return False
        if self.grade != "exact":
            return True
        return self.host is not None and self.host != host

    @classmethod
    def from_json(cls, obj: object, strict: bool = False) -> TuneRecord:
        """The record `obj` says, or `MalformedRecord` with a one-line reason. `strict`
        (a bundle's rows) also refuses a winner that is not among its measurements and
        a roofline that is not a number, as bundles always have: an older clmodes
        importing the record reads those fields unchecked. (A store's record with such a
        winner decodes, and the staleness check says why it is not used.)"""
        if not isinstance(obj, dict) or not isinstance(obj.get("winner"), str):
            raise MalformedRecord("the record has no winner")
        winner = obj["winner"]
        measured = obj.get("measurements")
        if strict:
            _strict_problems(winner, measured, obj.get("roofline"))
        identities = obj.get("identities")
        return cls(
            winner=winner, measurements=_measurements(measured), dropped=_dropped(obj.get("dropped"), obj.get("drop_kinds")),
            identities={str(k): v for k, v in identities.items() if isinstance(v, str)}
            if isinstance(identities, dict) else None,
            statistic=text(obj.get("statistic")) or "median",
            device=text(obj.get("device")), host=text(obj.get("host")),
            space_size=count(obj.get("space_size")), measured_here=count(obj.get("measured_here")),
            inputs_replaced=texts(obj.get("inputs_replaced")), check=CheckInfo.from_json(obj.get("check")),
            tune_seconds=number(obj.get("tune_seconds")), measured_at=number(obj.get("measured_at")),
            clmodes=text(obj.get("clmodes")), spread=SpreadInfo.from_json(obj.get("spread")),
            final=FinalInfo.from_json(obj.get("final")),
            roofline=number(obj.get("roofline")), cost=Cost.from_json(obj.get("cost")),
            version=count(obj.get("record_version")) or 0,
            grade=text(obj.get("grade")) or "exact", graded_from=texts(obj.get("graded_from")),
            verified=_mapping(obj.get("verified")), across=_mapping(obj.get("across")),
            source=obj)

    def to_json(self) -> dict[str, Any]:
        """The JSON clmodes writes for it (optional fields that are None left out)."""
        found: dict[str, Any] = {
            "winner": self.winner, "statistic": self.statistic,
            "measurements": {name: m.to_json() for name, m in self.measurements.items()},
            "dropped": {name: m.reason or "" for name, m in self.dropped.items()},
            "drop_kinds": {name: m.drop.value for name, m in self.dropped.items() if m.drop},
            "record_version": RECORD_VERSION}
        if self.identities is not None:
            found["identities"] = dict(self.identities)
        if self.inputs_replaced:
            found["inputs_replaced"] = list(self.inputs_replaced)
        for name in ("device", "host", "space_size", "measured_here", "tune_seconds",
                     "measured_at", "clmodes", "roofline"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        for name in ("check", "spread", "final"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name).to_json()
        if self.cost is not None:
            found["cost"] = dataclasses.asdict(self.cost)
        if self.grade != "exact":
            found["grade"] = self.grade
        if self.graded_from:
            found["graded_from"] = list(self.graded_from)
        for name in ("verified", "across"):
            if getattr(self, name) is not None:
                found[name] = dict(getattr(self, name))
        return found

    def stored_json(self) -> dict[str, Any]:
        """The JSON a store keeps for it: `to_json` for a record made here; for one
        decoded from JSON (`source`), that JSON with only the fields that changed since
        rewritten. Why: a record passed through (adopted, graded, verified) keeps the
        fields a newer clmodes wrote and this one does not know, and an older record
        keeps its layout, exactly as when records were handled as dicts."""
        if self.source is None:
            return self.to_json()
        before, now = TuneRecord.from_json(self.source), self.to_json()
        found = dict(self.source)
        for field in dataclasses.fields(self):
            if field.name == "source" or getattr(self, field.name) == getattr(before, field.name):
                continue
            for name in _JSON_NAMES.get(field.name, (field.name,)):
                if name in now:
                    found[name] = now[name]
                else:
                    found.pop(name, None)
        return found


# The JSON fields of a record field, where they are not its own name.
_JSON_NAMES = {"dropped": ("dropped", "drop_kinds"), "version": ("record_version",)}


def _strict_problems(winner: str, measured: object, roofline: object) -> None:
    if measured is not None and (not isinstance(measured, dict) or winner not in measured):
        raise MalformedRecord(f"its winner {winner[:60]!r} is not among its measured "
                              "candidates")
    if roofline is not None and number(roofline) is None:
        raise MalformedRecord("roofline is not a number")


def _mapping(value: object) -> dict[str, Any] | None:
    """A JSON object with string keys, else None."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return None
    return dict(value)


def decoded(obj: object) -> TuneRecord | None:
    """`TuneRecord.from_json(obj)`, or None where it is not a record."""
    try:
        return TuneRecord.from_json(obj)
    except MalformedRecord:
        return None


def parsed(text: object) -> TuneRecord | None:
    """The record a JSON text says (a store's row, a lease's decision, its JSON kept as
    `source`); None where it is not JSON or no record."""
    try:
        return TuneRecord.from_json(json.loads(text)) if isinstance(text, str) else None
    except ValueError:  # not JSON, or JSON that is no record (MalformedRecord)
        return None


def _measurements(value: object) -> dict[str, CandidateMeasurement]:
    """The record's timed candidates that decode, in the order the record gives them."""
    if not isinstance(value, dict):
        return {}
    found = {str(name): m for name, raw in value.items()
             if (m := CandidateMeasurement.from_json(raw)) is not None and m.timed}
    return found


def _dropped(value: object, kinds: object) -> dict[str, CandidateMeasurement]:
    """name -> reason in the JSON, and name -> kind in "drop_kinds" (a record written
    before kinds were kept has none: its reasons say them, `drop_from_json`)."""
    if not isinstance(value, dict):
        return {}
    known = kinds if isinstance(kinds, dict) else {}
    return {str(name): CandidateMeasurement.dropped(
                Dropped(drop_from_json(known.get(name), str(reason)), str(reason)))
            for name, reason in value.items()}


__all__ = ["RECORD_VERSION", "CandidateMeasurement", "CheckInfo", "Cost", "Drop", "Dropped",
           "MalformedRecord", "FinalInfo", "Outcome", "Rivalry", "SpreadInfo", "TuneRecord", "decoded",
           "parsed"]
