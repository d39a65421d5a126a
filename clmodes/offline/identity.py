"""The offline device identity: what a binary `ocloc` built is stored and shipped under.

A binary built on a device is keyed by that device's exact fingerprint
(`clmodes.device.Fingerprint`: `vendor | name | NCU | memory | OpenCL X.Y | driver D |
platform`). A binary built offline has no device: it is keyed by a string of the same
seven fields, so that every table, filter, merge and bundle that carries exact
fingerprints carries it unchanged, but one that no real device can produce:

    Intel | offline intel-gpu:tgllp | offline | offline | offline | driver ocloc 22.43.24595 | ocloc 22.43.24595

A real fingerprint's third field is always `<integer>CU` (`Fingerprint.of` writes it
from the device's compute units); here it is `offline`. So a real fingerprint never
parses as an offline identity, an offline identity never equals (nor shares a model
with) any real fingerprint, and the existing exact and model matching can never hand
an offline binary to a device: only `clmodes.offline.fit` does, by family and driver.
"""

from __future__ import annotations

import dataclasses
import re

from clmodes.offline.families import Family, family_named

OFFLINE = "offline"
TARGET_KIND = "intel-gpu"  # `--target intel-gpu:FAMILY`
_VERSION = r"\d+(?:\.\d+)+"
_PATTERN = re.compile(
    rf"Intel \| {OFFLINE} {TARGET_KIND}:(?P<family>[a-z0-9-]+) \| {OFFLINE} \| {OFFLINE} \| "
    rf"{OFFLINE} \| driver ocloc (?P<version>{_VERSION}) \| ocloc (?P=version)")


@dataclasses.dataclass(frozen=True)
class OfflineIdentity:
    """A family and the `ocloc` (Intel compiler) version that built for it."""

    family: Family
    compiler_version: str  # `ocloc query OCL_DRIVER_VERSION`: the driver release it is part of

    @property
    def model(self) -> str:
        return (f"Intel | {OFFLINE} {TARGET_KIND}:{self.family.name} | {OFFLINE} | "
                f"{OFFLINE} | {OFFLINE}")

    @property
    def exact(self) -> str:
        return f"{self.model} | driver ocloc {self.compiler_version} | ocloc {self.compiler_version}"

    def describe(self) -> str:
        """What `bundle inspect` says of it, honestly."""
        return (f"built offline by ocloc {self.compiler_version} for {self.family.name} "
                f"({self.family.title}); not loaded on a real device here")


def parse(exact: str) -> OfflineIdentity | None:
    """The offline identity an exact string is, or None (a real device's fingerprint,
    or an offline one naming a family this clmodes does not know)."""
    match = _PATTERN.fullmatch(exact)
    if match is None:
        return None
    try:
        return OfflineIdentity(family_named(match["family"]), match["version"])
    except KeyError:
        return None


def is_offline(exact_or_model: str) -> bool:
    """Is this an offline identity's exact or model string (known family or not)? The
    third field decides: a real device's is `<integer>CU`."""
    fields = exact_or_model.split(" | ")
    return len(fields) >= 3 and fields[2] == OFFLINE and fields[1].startswith(f"{OFFLINE} ")


def version_tuple(text: str) -> tuple[int, ...] | None:
    """`22.43.24595.41` -> (22, 43, 24595, 41): the numeric prefix of a driver version
    (NEO reports `major.minor.build[.hotfix]`); None if it does not start with one."""
    match = re.match(rf"\s*({_VERSION})", text)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None
