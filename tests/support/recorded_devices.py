"""Recorded devices (tests/fixtures/devices/*.json): each one device as `clinfo` shows it,
the fields of `DeviceDescription` plus a "source" (keys that are not fields are ignored)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from clmodes import DeviceDescription

FIXTURES = Path(__file__).parents[1] / "fixtures" / "devices"
FIELDS = {f.name for f in dataclasses.fields(DeviceDescription)}


def load(path: Path) -> DeviceDescription:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return DeviceDescription(**{k: v for k, v in raw.items() if k in FIELDS})


def fixtures() -> dict[str, DeviceDescription]:
    return {path.stem: load(path) for path in sorted(FIXTURES.glob("*.json"))}


ALL = fixtures()


FIELD_NAMES = ["vendor", "name", "compute_units", "memory", "opencl", "driver", "platform"]


def fp(name: str):  # -> clmodes.Fingerprint
    """The fingerprint of a recorded device."""
    from clmodes import Fingerprint

    return Fingerprint.of(ALL[name])
