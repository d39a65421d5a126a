"""How a bundle's devices match this machine's.

Per device model (and driver) in a bundle: "exact" (same exact fingerprint: device and
driver, so its program binaries apply), "model" (same model, another driver: its tune
results apply, its binaries do not), or "none", with the fingerprint fields that differ
from the closest local device, so that a user sees why nothing applied.

A binary built offline (`clmodes.offline`: an Intel GPU family, by `ocloc`) is under an
offline identity no real device has: it is "offline" for a local device it fits
(`clmodes.offline.fit`: the family holds the device's ID, the driver is the compiler's
release, `grade` "exact", or newer, `grade` "newer"), with `offline` saying how it was
built; else "none" with the reason. Its binaries apply to that device, its tune results
(an offline build has none) never."""

from __future__ import annotations

import dataclasses
from typing import Any

from clmodes.device import Device, differing_fields
from clmodes.discovery import devices
from clmodes.offline.fit import Fit, fit
from clmodes.offline.identity import is_offline, parse

FINGERPRINT_FIELDS = 5  # the most fields two model fingerprints can differ in


@dataclasses.dataclass
class DeviceMatch:
    """How one device of a bundle matches this machine."""

    model: str
    exact: str | None  # one driver of the model in the bundle (None: tune results only)
    match: str  # "exact" | "model" | "offline" | "none"
    local: Device | None
    differs: list[str]
    offline: str | None = None  # built offline: by what, for which family (`OfflineIdentity.describe`)
    grade: str | None = None  # "offline": "exact" (the compiler's driver) or "newer"

    def as_dict(self) -> dict[str, Any]:
        found = {"model": self.model, "exact": self.exact, "match": self.match,
                 "local_device": self.local.label if self.local else None, "differs": self.differs}
        if self.offline is not None:
            found.update(offline=self.offline, grade=self.grade)
        return found


def match_devices(manifest: dict[str, Any], local: list[Device] | None = None) -> list[DeviceMatch]:
    """Per device (and driver) in a bundle: exact, same model, or no match with the
    fields that differed from the closest local device."""
    local = devices() if local is None else local
    matches: list[DeviceMatch] = []
    for device in manifest.get("devices", []):
        model = device["model"]
        if is_offline(model):
            matches.extend(match_offline(model, d["exact"], local) for d in device.get("drivers", []))
            continue
        same_model = [d for d in local if d.fingerprint.model == model]
        drivers = [d["exact"] for d in device.get("drivers", [])] or [None]
        for exact in drivers:
            matches.append(match_one(model, exact, same_model, local))
    return matches


def match_one(model: str, exact: str | None, same_model: list[Device], local: list[Device]) -> DeviceMatch:
    if same_model:
        exact_hit = next((d for d in same_model if d.fingerprint.exact == exact), None)
        if exact_hit is not None:
            return DeviceMatch(model, exact, "exact", exact_hit, [])
        near = same_model[0]
        differs = differing_fields(exact, near.fingerprint.exact) if exact else []
        return DeviceMatch(model, exact, "model", near, differs)
    if not local:
        return DeviceMatch(model, exact, "none", None, ["no OpenCL device here"])
    closest = max(local, key=lambda d: FINGERPRINT_FIELDS - len(differing_fields(model, d.fingerprint.model)))
    return DeviceMatch(model, exact, "none", None, differing_fields(model, closest.fingerprint.model))


def match_offline(model: str, exact: str, local: list[Device]) -> DeviceMatch:
    """An offline identity against the local devices: the first it fits, a device of
    the compiler's own driver first; else none, with why (the first Intel GPU's reason)."""
    identity = parse(exact)
    if identity is None:
        return DeviceMatch(model, exact, "none", None,
                           ["built offline for a target this clmodes does not know"])
    verdicts = [(d, fit(identity, d.description)) for d in local]
    fitting = sorted(((d, v) for d, v in verdicts if v.fit is not None),
                     key=lambda pair: pair[1].fit is not Fit.EXACT)
    if fitting:
        device, verdict = fitting[0]
        assert verdict.fit is not None
        return DeviceMatch(model, exact, "offline", device, [], identity.describe(), verdict.fit.value)
    gpus = [v.reason for d, v in verdicts if d.description.device_type == "GPU"
            and "not an Intel GPU" not in v.reason]
    why = gpus[0] if gpus else f"no Intel GPU of family {identity.family.name} here"
    return DeviceMatch(model, exact, "none", None, [why], identity.describe())
