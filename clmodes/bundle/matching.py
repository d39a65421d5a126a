"""How a bundle's devices match this machine's.

Per device model (and driver) in a bundle: "exact" (same exact fingerprint: device and
driver, so its program binaries apply), "model" (same model, another driver: its tune
results apply, its binaries do not), or "none", with the fingerprint fields that differ
from the closest local device, so that a user sees why nothing applied."""

from __future__ import annotations

import dataclasses
from typing import Any

from clmodes.device import Device, differing_fields
from clmodes.discovery import devices

FINGERPRINT_FIELDS = 5  # the most fields two model fingerprints can differ in


@dataclasses.dataclass
class DeviceMatch:
    """How one device of a bundle matches this machine."""

    model: str
    exact: str | None  # one driver of the model in the bundle (None: tune results only)
    match: str  # "exact" | "model" | "none"
    local: Device | None
    differs: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "exact": self.exact, "match": self.match,
                "local_device": self.local.label if self.local else None, "differs": self.differs}


def match_devices(manifest: dict[str, Any], local: list[Device] | None = None) -> list[DeviceMatch]:
    """Per device (and driver) in a bundle: exact, same model, or no match with the
    fields that differed from the closest local device."""
    local = devices() if local is None else local
    matches = []
    for device in manifest.get("devices", []):
        model = device["model"]
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
