"""`inspect`: what a bundle holds, who signed it, and how it would apply here, without
writing anything."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from clmodes.bundle.files import read
from clmodes.bundle.matching import match_devices
from clmodes.bundle.trust import TrustedKey, assess, trusted_keys as trusted, verdict
from clmodes.device import Device
from clmodes.discovery import devices
from clmodes.offline.identity import parse
from clmodes.tune.answers.nearest import Grade, grade_of
from clmodes.store import StoreEntries, TuneRow
from clmodes.records.tune import parsed


def inspect(path: str | os.PathLike[str], local: list[Device] | None = None, *,
            trusted_keys: Iterable[TrustedKey] = ()) -> dict[str, Any]:
    """What a bundle holds, its signer and whether this machine trusts it (`trusted_keys`
    on top of the configured ones), and how it would apply here (writes nothing). A bad
    signature is refused here too."""
    bundle = read(path)
    local = devices() if local is None else local
    trust = assess(bundle.signature, trusted(trusted_keys))
    return {"file": str(bundle.path), "manifest": bundle.manifest,
            "trust": {**trust.as_dict(), "import": verdict(trust, len(bundle.entries.binaries))},
            "matches": [m.as_dict() for m in match_devices(bundle.manifest, local)],
            "offline": offline_builds(bundle.manifest),
            "roofline": rooflines(bundle.entries),
            "answers": answers_here(bundle.entries, local)}


def answers_here(entries: StoreEntries, local: list[Device]) -> list[dict[str, Any]]:
    """Per local device, how its tune results would be answered from the bundle's: the
    nearest grade (`clmodes.tune.answers.nearest`), from which models, and how many of the
    bundle's records are themselves graded answers."""
    models = sorted({row.model for row in entries.tune})
    if not models:
        return []
    order = list(Grade)
    found = []
    for device in local:
        here = device.fingerprint.model
        grades = {m: grade_of(here, m) or Grade.ACROSS for m in models}
        best = min(grades.values(), key=order.index)
        found.append({"local_device": device.label, "model": here, "grade": best.value,
                      "from": [m for m in models if grades[m] is best],
                      "graded_records": sum(1 for row in entries.tune
                                            if row.model in grades and grades[row.model] is best
                                            and _graded(row))})
    return found


def _graded(row: TuneRow) -> bool:
    """Is the row's record a graded answer (`tune.answers.nearest`), not a measured decision?"""
    record = parsed(row.value)
    return record is not None and record.grade != "exact"


def rooflines(entries: StoreEntries) -> list[dict[str, Any]]:
    """Per tuned key whose record has one: the winner's roofline fraction (`Tunable` cost)."""
    found = []
    for row in entries.tune:
        record = parsed(row.value)  # validated when the bundle was read
        if record is not None and record.roofline is not None:
            found.append({"model": row.model, "tunable": row.tunable, "key": row.tune_key,
                          "winner": record.winner, "roofline": record.roofline})
    return found


def offline_builds(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Per offline identity in the bundle (`clmodes.offline`): which compiler built its
    binaries for which family, said as it is: built offline, never loaded on a real
    device where it was made."""
    found = []
    for device in manifest.get("devices", []):
        for driver in device.get("drivers", []):
            identity = parse(driver["exact"])
            if identity is not None:
                found.append({"exact": driver["exact"], "family": identity.family.name,
                              "compiler": f"ocloc {identity.compiler_version}",
                              "binaries": driver["binaries"], "note": identity.describe()})
    return found
