"""One candidate's measurement, typed: what the store keeps per (candidate, identity) and
what a tune record keeps per candidate.

Why a type: the outcome of a candidate (timed, failed, dropped by the racer, dropped for
a wrong output) used to be told apart by the prefix of a reason string wherever a
record was read, so a log message was part of the data format. Now whoever drops a
candidate says why as a `Drop` (`Dropped`: the kind and the words), the measurement
keeps it, and the JSON carries it as `"kind"` beside the reason (`{"dropped": reason,
"kind": "slower"}`). Records written before the kind was kept have none: for them alone
the kind is read from the reason's first words (`legacy_drop`), the one place a prefix is
read. The JSON is otherwise what clmodes has always written, so stores and bundles read
both ways.
"""

from __future__ import annotations

import dataclasses
import enum
import statistics
from typing import Any

from clmodes.records.fields import count, number, text

WRONG = "differs from the reference"  # how a wrong candidate's reason starts
UNKNOWN_IDENTITY = "unknown"  # how older records and fleet entries wrote "no identity"


class Outcome(enum.Enum):
    """What became of a candidate: timed to the end, or why not."""

    MEASURED = "measured"
    FAILED = "failed"  # it raised: gathering, building, launching, or its check run
    DROPPED = "dropped"  # the racer stopped it: screened, slower, no real timing
    WRONG = "wrong"  # its output differs from the reference's


class Drop(enum.Enum):
    """Why a candidate has no timing. The values are what `tune list` and the report's
    JSON call the kinds."""

    FAILED = "failed"  # it raised: gathering, building, launching, or its check run
    WRONG = "wrong"  # its output differs from the reference's
    SCREENED = "screened"  # its warm-up was far slower than the fastest's
    SLOWER = "slower"  # the race dropped it as clearly slower
    UNTIMED = "untimed"  # no timing of it could be real
    OTHER = "other"  # not measured: the time budget ran out, or a record says no more

    @property
    def outcome(self) -> Outcome:
        if self is Drop.FAILED:
            return Outcome.FAILED
        return Outcome.WRONG if self is Drop.WRONG else Outcome.DROPPED


@dataclasses.dataclass(frozen=True)
class Dropped:
    """A candidate dropped: the kind, decided where it is dropped, and the words a user
    reads (`tune list`, warnings)."""

    kind: Drop
    reason: str


# The first words of each kind's reason as clmodes wrote them before the kind was kept.
_LEGACY_PREFIXES = (("failed", Drop.FAILED), (WRONG, Drop.WRONG), ("screened", Drop.SCREENED),
                    ("slower", Drop.SLOWER), ("no real timing", Drop.UNTIMED))


def legacy_drop(reason: str) -> Drop:
    """The kind of a drop recorded without one (written before clmodes kept it), from the
    first words of its reason; the one place a prefix is read."""
    return next((kind for prefix, kind in _LEGACY_PREFIXES if reason.startswith(prefix)),
                Drop.OTHER)


def drop_from_json(kind: object, reason: str) -> Drop:
    """The recorded kind when it is one, else as an older record's reason says."""
    try:
        return Drop(kind)
    except ValueError:
        return legacy_drop(reason)


def identity_from_json(value: object) -> str | None:
    """A candidate identity, or None where none is known (older code wrote "unknown")."""
    found = text(value)
    return None if found in (None, UNKNOWN_IDENTITY) else found


@dataclasses.dataclass(frozen=True)
class CandidateMeasurement:
    """One candidate's measurement (device seconds) or the reason it has none."""

    outcome: Outcome
    median_s: float | None = None
    samples_s: tuple[float, ...] = ()
    discarded_samples: int = 0  # timings that could not be real
    runs_per_sample: int = 1  # a sample is the median of this many runs (short kernels)
    reason: str | None = None  # why it is not measured (FAILED, DROPPED, WRONG)
    identity: str | None = None  # the kernels it launched (`tune.checking.identity`); None: unknown
    reference: str | None = None  # the candidate its output was checked against
    roofline: float | None = None  # its fraction of the device's roofline (`tune.reporting.scoring`)
    device: str | None = None  # exact fingerprint of the device that measured it
    host: str | None = None
    measured_at: float | None = None
    clmodes: str | None = None  # the version that measured it
    drop: Drop | None = None  # why it is not measured (None when it is)

    @classmethod
    def dropped(cls, dropped: Dropped) -> CandidateMeasurement:
        """A candidate that was not timed to the end, and why."""
        return cls(dropped.kind.outcome, reason=dropped.reason, drop=dropped.kind)

    @property
    def timed(self) -> bool:
        return self.outcome is Outcome.MEASURED and self.median_s is not None

    @property
    def median(self) -> float | None:
        return self.median_s if self.timed else None

    def with_identity(self, identity: str | None) -> CandidateMeasurement:
        return dataclasses.replace(self, identity=identity)

    @classmethod
    def from_json(cls, obj: object) -> CandidateMeasurement | None:
        """A measurement from JSON from anywhere; None if it is none (no reason, no
        timing). Fields of the wrong type are left at their defaults."""
        if not isinstance(obj, dict):
            return None
        common = _common(obj)
        if isinstance(obj.get("failed"), str):
            return cls(Outcome.FAILED, reason=obj["failed"], drop=Drop.FAILED, **common)
        if isinstance(obj.get("dropped"), str):
            reason = obj["dropped"]
            kind = drop_from_json(obj.get("kind"), reason)
            if kind is Drop.FAILED:  # only "failed" says that
                kind = Drop.OTHER
            return cls(kind.outcome, reason=reason, drop=kind, **common)
        samples = obj.get("samples_s")
        kept = tuple(s for s in map(number, samples) if s is not None) \
            if isinstance(samples, list) else ()
        median = number(obj.get("median_s"))
        if median is None:
            if not kept:
                return None
            median = statistics.median(kept)
        return cls(Outcome.MEASURED, median, kept, count(obj.get("discarded_samples")) or 0,
                   count(obj.get("runs_per_sample")) or 1, **common)

    def to_json(self) -> dict[str, Any]:
        """The JSON clmodes writes for it (fields at their defaults left out)."""
        if self.outcome is Outcome.MEASURED:
            found: dict[str, Any] = {"median_s": self.median_s, "samples_s": list(self.samples_s)}
            if self.discarded_samples:
                found["discarded_samples"] = self.discarded_samples
            if self.runs_per_sample > 1:
                found["runs_per_sample"] = self.runs_per_sample
        else:
            key = "failed" if self.outcome is Outcome.FAILED else "dropped"
            found = {key: self.reason or ""}
            if self.drop is not None:
                found["kind"] = self.drop.value
        for name in ("device", "host", "measured_at", "clmodes", "reference", "identity",
                     "roofline"):
            value = getattr(self, name)
            if value is not None:
                found[name] = value
        return found

    def to_entry(self) -> dict[str, Any]:
        """Its form on a fleet's ledger (`tune.fleet.sharing`): {"identity", "record"}, the
        record as the store keeps it (no identity in it). Kept as 0.x posted it."""
        return {"identity": self.identity,
                "record": dataclasses.replace(self, identity=None).to_json()}

    @classmethod
    def from_entry(cls, entry: object) -> CandidateMeasurement | None:
        """A ledger entry's measurement, its identity in it; None if it is none."""
        if not isinstance(entry, dict):
            return None
        found = cls.from_json(entry.get("record"))
        return found and found.with_identity(identity_from_json(entry.get("identity")))


def _common(obj: dict[str, Any]) -> dict[str, Any]:
    """The fields every outcome may carry, typed."""
    return {"identity": identity_from_json(obj.get("identity")),
            "reference": text(obj.get("reference")), "roofline": number(obj.get("roofline")),
            "device": text(obj.get("device")), "host": text(obj.get("host")),
            "measured_at": number(obj.get("measured_at")), "clmodes": text(obj.get("clmodes"))}
