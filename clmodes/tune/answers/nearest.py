"""Nearest-device answers: a tune decision for a device model nobody tuned on.

When the store (or a bundle imported into it) has no decision for this device model but
has one for the same tunable, key and candidates on others, the nearest answers, graded:

- "family": the same vendor and architecture: the same AMD ISA target (the `gfxNNNN` in
  the name), else the same name once memory and form-factor words are set aside ("NVIDIA
  H100 80GB HBM3" and "NVIDIA H100 PCIe"), with other compute units or memory;
- "vendor": the same vendor and the same kind (a CPU device, whose memory is "host
  memory", never answers for a GPU, nor a GPU for a CPU);
- "across": the candidate best across the recorded devices (of this kind when any is):
  the lowest geometric mean of its slowdown against each device's winner, among those
  measured on the most devices.

A graded answer only chooses which *correct* candidate runs (every candidate was checked
on the device it was measured on; kernels are built here as always: binaries stay
exact-device only). `tune.answers.verify` times it once here at the next warm.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import re
from collections.abc import Mapping

from clmodes.device import fingerprint_fields
from clmodes.records.tune import TuneRecord


class Grade(enum.Enum):
    EXACT = "exact"  # measured on this device model
    FAMILY = "family"
    VENDOR = "vendor"
    ACROSS = "across"


_GFX = re.compile(r"\b(gfx[0-9a-f]+)\b", re.IGNORECASE)
_QUALIFIERS = re.compile(r"\b(\d+\s*[GMT]i?B|HBM\w*|GDDR\w*|PCIe|SXM\d*|NVL|Laptop GPU|Max-Q)\b",
                         re.IGNORECASE)


def family_of(model: str) -> tuple[str, str]:
    """(vendor, architecture) of a model fingerprint: the AMD ISA target where the name
    carries one, else the name without memory and form-factor words."""
    fields = fingerprint_fields(model)
    name = fields.get("name", "")
    target = _GFX.search(name)
    if target:
        return fields.get("vendor", ""), target.group(1).lower()
    stem = " ".join(_QUALIFIERS.sub(" ", re.sub(r"\([^)]*\)", " ", name)).split())
    return fields.get("vendor", ""), stem


def is_cpu(model: str) -> bool:
    """A CPU device's memory field is "host memory" (`Fingerprint`)."""
    return fingerprint_fields(model).get("memory") == "host memory"


def grade_of(here: str, there: str) -> Grade | None:
    """How near a decision for model `there` is for model `here` (None: only across)."""
    if here == there:
        return Grade.EXACT
    if family_of(here) == family_of(there):
        return Grade.FAMILY
    if family_of(here)[0] == family_of(there)[0] and is_cpu(here) == is_cpu(there):
        return Grade.VENDOR
    return None


@dataclasses.dataclass(frozen=True)
class Answer:
    """A graded decision: the record to follow and where it came from."""

    grade: Grade
    record: TuneRecord
    sources: tuple[str, ...]  # the models it was taken from

    def as_record(self) -> TuneRecord:
        """The record stored for this model: the source's, marked with its grade."""
        return dataclasses.replace(self.record, grade=self.grade.value, graded_from=self.sources,
                                   measured_here=0)


def nearest(here: str, stored: Mapping[str, TuneRecord]) -> list[Answer]:
    """The answers for model `here` from decisions on other models, nearest first (the
    caller takes the first that still holds for the code as it is now)."""
    graded: dict[Grade, list[str]] = {}
    for model in stored:
        grade = grade_of(here, model)
        if grade is not None and grade is not Grade.EXACT:
            graded.setdefault(grade, []).append(model)
    answers = [Answer(grade, stored[model], (model,))
               for grade in (Grade.FAMILY, Grade.VENDOR)
               for model in sorted(graded.get(grade, []), key=lambda m: _distance(here, m))]
    pool = [m for m in stored if m != here and is_cpu(m) == is_cpu(here)] or \
        [m for m in stored if m != here]
    across = best_across({m: stored[m] for m in pool})
    if across is not None:
        answers.append(across)
    return answers


def best_across(stored: Mapping[str, TuneRecord]) -> Answer | None:
    """The candidate with the lowest geometric-mean slowdown against each device's
    winner, among those measured on the most devices; its record ranks the candidates so
    (winner first, runner-up second)."""
    slowdowns: dict[str, list[float]] = {}
    for record in stored.values():
        medians = _medians(record)
        if not medians:
            continue
        best = min(medians.values())
        for name, median in medians.items():
            slowdowns.setdefault(name, []).append(median / best)
    if not slowdowns:
        return None
    most = max(len(v) for v in slowdowns.values())
    score = {name: math.exp(sum(map(math.log, v)) / len(v))
             for name, v in slowdowns.items() if len(v) == most}
    ranked = sorted(score, key=lambda n: (score[n], n))
    models = tuple(sorted(stored))
    base = next(stored[m] for m in models if ranked[0] in _medians(stored[m]))
    measured = base.measurements
    order = ranked + [n for n in measured if n not in score]
    record = dataclasses.replace(
        base, winner=ranked[0], measurements={n: measured[n] for n in order if n in measured},
        across={"models": len(models), "slowdown": {n: round(score[n], 4) for n in ranked[:3]}})
    return Answer(Grade.ACROSS, record, models)


def _medians(record: TuneRecord) -> dict[str, float]:
    return {name: m.median_s for name, m in record.measurements.items()
            if m.median_s is not None and m.median_s > 0}


def _distance(here: str, there: str) -> tuple[float, str]:
    """Nearest compute units first (then the model's text, for a stable order)."""
    def units(model: str) -> float:
        text = fingerprint_fields(model).get("compute_units", "").removesuffix("CU")
        return float(text) if text.isdigit() else math.inf
    return abs(units(here) - units(there)), there
