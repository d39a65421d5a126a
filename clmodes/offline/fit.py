"""Does a binary built offline fit a real device? A pure function of the offline identity
and the device's description, so that it is tested with recorded Intel GPUs this project
cannot reach (tests/fixtures/devices).

A binary `ocloc` built for a family fits a device when:
- the device is an Intel GPU whose PCI device ID belongs to the family
  (`clmodes.offline.families`), and
- its driver is the compiler's release (`EXACT`: the driver's version starts with the
  compiler's `major.minor.build`; NEO may add a hotfix number), or a newer one
  (`NEWER`, graded: a newer driver usually takes an older release's binary, not always,
  so such a binary is only kept once the import's load check has loaded it on this
  device, `clmodes.bundle.installing`). An older driver never gets it.

Whatever fits is still handed to the driver: one that refuses it at load is a miss with
one warning and a build from source (`clmodes.programs.load`).
"""

from __future__ import annotations

import dataclasses
import enum
import re

from clmodes.device import DeviceDescription, normalize_vendor
from clmodes.offline.identity import OfflineIdentity, version_tuple


class Fit(enum.Enum):
    EXACT = "exact"  # the driver is the compiler's release
    NEWER = "newer"  # a newer driver: graded, kept only if the load check loads it


@dataclasses.dataclass(frozen=True)
class Verdict:
    fit: Fit | None
    reason: str  # why it fits, or why not: one line for `bundle inspect`


_ID_IN_NAME = re.compile(r"\[0x([0-9a-fA-F]{4})\]")


def device_id_of(description: DeviceDescription) -> int | None:
    """The PCI device ID: reported by the driver, else the `[0x9a49]` older Intel GPU
    drivers append to the name."""
    if description.device_id:
        return int(description.device_id)
    match = _ID_IN_NAME.search(description.name)
    return int(match.group(1), 16) if match else None


def fit(identity: OfflineIdentity, description: DeviceDescription) -> Verdict:
    """Whether `identity`'s binaries fit the device `description` describes, and why."""
    family = identity.family.name
    vendor = normalize_vendor(description.platform_name, description.vendor)
    if vendor != "Intel" or (description.device_type or "").upper() != "GPU":
        return Verdict(None, f"not an Intel GPU (built for {family})")
    device_id = device_id_of(description)
    if device_id is None:
        return Verdict(None, "its driver does not tell its device ID, so its family is unknown")
    if device_id not in identity.family:
        return Verdict(None, f"device 0x{device_id:04x} is not of family {family}")
    driver = version_tuple(description.driver_version)
    compiler = version_tuple(identity.compiler_version)
    if driver is None or compiler is None:
        return Verdict(None, f"driver version {description.driver_version!r} is not a release number")
    held = driver[: len(compiler)]
    if held == compiler:
        return Verdict(Fit.EXACT, f"device 0x{device_id:04x} of {family}, driver "
                                  f"{description.driver_version} is the compiler's release")
    if held > compiler:
        return Verdict(Fit.NEWER, f"device 0x{device_id:04x} of {family}, driver "
                                  f"{description.driver_version} is newer than ocloc "
                                  f"{identity.compiler_version} (kept if it loads here)")
    return Verdict(None, f"driver {description.driver_version} is older than ocloc "
                         f"{identity.compiler_version}")
