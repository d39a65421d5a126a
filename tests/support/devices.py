"""The devices the tests run on, and fresh kernel sources."""

from __future__ import annotations

import itertools
import os
import re
import uuid

import clmodes

_salt = itertools.count()
OCLGRIND_ERRORS = re.compile(r"Invalid (read|write) of size|data race at|Uninitialized value")


def fresh(source: str) -> str:
    """A source no earlier test has obtained: kernels are identified by their source text."""
    return f"/* test {uuid.uuid4().hex} {next(_salt)} */\n{source}"


def is_oclgrind(device: clmodes.Device) -> bool:
    return "oclgrind" in device.platform_name.lower()


def test_devices() -> list[clmodes.Device]:
    """The usable devices the tests run on (`$CLMODES_TEST_DEVICES` narrows them). A device
    whose compiler cannot build (PyPI's PoCL on a CPU its LLVM does not know) is passed
    over: `unusable_devices()` names it, and the session's header says why."""
    return [d for d in wanted_devices() if usable(d)]


def wanted_devices() -> list[clmodes.Device]:
    wanted = [w.strip().lower() for w in os.environ.get("CLMODES_TEST_DEVICES", "").split(",")
              if w.strip()]
    found = clmodes.devices()
    if wanted:
        found = [d for d in found if any(_selects(w, d) for w in wanted)]
    return found


def usable(device: clmodes.Device) -> bool:
    return clmodes.usability(device).usable


def unusable_devices() -> list[tuple[clmodes.Device, str]]:
    """The wanted devices passed over, each with its verdict's line."""
    return [(d, clmodes.usability(d).describe()) for d in wanted_devices() if not usable(d)]


def usable_runtime(vendor: str) -> clmodes.Device:
    """The first usable device of a runtime ("PoCL", "Intel"), else a skip naming why."""
    import pytest

    found = [d for d in clmodes.devices() if d.fingerprint.vendor == vendor]
    for device in found:
        if usable(device):
            return device
    if not found:
        pytest.skip(f"no {vendor} device here")
    reasons = "; ".join(clmodes.usability(d).describe() for d in found)
    pytest.skip(f"no usable {vendor} device here ({reasons})")


def _selects(wanted: str, device: clmodes.Device) -> bool:
    """A runtime's name ("pocl", "intel", "oclgrind", "nvidia") selects its devices only
    (PoCL's device is "pthread-Intel(R) Xeon"); anything else is a label substring."""
    vendors = {d.fingerprint.vendor.lower() for d in clmodes.devices()}
    if wanted in vendors:
        return device.fingerprint.vendor.lower() == wanted
    return wanted in device.label.lower()


test_devices.__test__ = False  # a helper, not a test


def device_id(device: clmodes.Device) -> str:
    """"intel", "portable", "oclgrind"; with the runtime's version where two platforms share
    a name ("portable-3.0", "portable-3.1": PyPI's and Debian's PoCL side by side)."""
    base = re.sub(r"[^A-Za-z0-9]+", "-", device.platform_name.split()[0]).strip("-").lower()
    namesakes = {d.description.platform_version for d in clmodes.devices()
                 if d.platform_name == device.platform_name}
    if len(namesakes) < 2:
        return base
    version = re.search(r"(\d+\.\d+)\S*\s+Linux|PoCL (\d+\.\d+)", device.description.platform_version)
    tag = next((g for g in version.groups() if g), None) if version else None
    return f"{base}-{tag or device.index}"
