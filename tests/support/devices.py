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
    wanted = [w.strip().lower() for w in os.environ.get("CLMODES_TEST_DEVICES", "").split(",")
              if w.strip()]
    found = clmodes.devices()
    if wanted:
        found = [d for d in found if any(_selects(w, d) for w in wanted)]
    return found


def _selects(wanted: str, device: clmodes.Device) -> bool:
    """A runtime's name ("pocl", "intel", "oclgrind", "nvidia") selects its devices only
    (PoCL's device is "pthread-Intel(R) Xeon"); anything else is a label substring."""
    vendors = {d.fingerprint.vendor.lower() for d in clmodes.devices()}
    if wanted in vendors:
        return device.fingerprint.vendor.lower() == wanted
    return wanted in device.label.lower()


test_devices.__test__ = False  # a helper, not a test


def device_id(device: clmodes.Device) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", device.platform_name.split()[0]).strip("-").lower()
