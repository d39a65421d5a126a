"""One candidate's measurement, typed: what the store keeps per (candidate, identity) and
what a tune record keeps per candidate.

Why a type: the outcome of a candidate (timed, failed, dropped by the racer, dropped for
a wrong output) used to be told apart by the prefix of a reason string wherever a
record was read. Here it is an `Outcome`, decided once: where a measurement is made
(`CandidateMeasurement.dropped`) and, for JSON from anywhere, in `from_json`. The JSON
written is exactly what clmodes has always written (`{"median_s", "samples_s", ...}`,
`{"failed": reason}`, `{"dropped": reason}`), so stores and bundles read both ways.
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


def outcome_of_reason(reason: str) -> Outcome:
    """The outcome a not-measured candidate's reason says (the racer's and the check's
    reasons start with "failed", or with `WRONG`); the one place a prefix is read."""
    if reason.startswith("failed"):
        return Outcome.FAILED
    return Outcome.WRONG if reason.startswith(WRONG) else Outcome.DROPPED


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
    identity: str | None = None  # the kernels it launched (`tune.identity`); None: unknown
    reference: str | None = None  # the candidate its output was checked against
    roofline: float | None = None  # its fraction of the device's roofline (`tune.scoring`)
    device: str | None = None  # exact fingerprint of the device that measured it
    host: str | None = None
    measured_at: float | None = None
    clmodes: str | None = None  # the version that measured it

    @classmethod
    def dropped(cls, reason: str) -> CandidateMeasurement:
        """A candidate that was not timed to the end, its outcome from its reason."""
        return cls(outcome_of_reason(reason), reason=reason)

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
            return cls(Outcome.FAILED, reason=obj["failed"], **common)
        if isinstance(obj.get("dropped"), str):
            dropped = obj["dropped"]
            kind = Outcome.WRONG if dropped.startswith(WRONG) else Outcome.DROPPED
            return cls(kind, reason=dropped, **common)
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
        for name in ("device", "host", "measured_at", "clmodes", "reference", "identity",
                     "roofline"):
            value = getattr(self, name)
            if value is not None:
                found[name] = value
        return found

    def to_entry(self) -> dict[str, Any]:
        """Its form on a fleet's ledger (`tune.sharing`): {"identity", "record"}, the
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
