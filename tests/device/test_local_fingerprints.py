"""Fingerprints of the local devices, in this process and in another.

Each fixture is one device as `clinfo` shows it: the fields of `DeviceDescription`, plus a
"source" saying where the values come from (keys that are not fields are ignored).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path


import clmodes
from clmodes import DeviceDescription, Fingerprint
from clmodes.device import normalize_vendor
from support.recorded_devices import ALL, FIELD_NAMES, FIELDS, fp

_IN_A_FRESH_PROCESS = """
import json, sys
from pathlib import Path
import clmodes
sys.path.insert(0, sys.argv[1])
from support.recorded_devices import ALL
out = {"fixtures": {n: [f.vendor, f.model, f.exact] for n, d in ALL.items()
                    for f in [clmodes.Fingerprint.of(d)]},
       "local": [[d.fingerprint.vendor, d.fingerprint.model, d.fingerprint.exact]
                 for d in clmodes.devices()]}
print(json.dumps(out))
"""


def test_fingerprints_are_the_same_in_another_process():
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", _IN_A_FRESH_PROCESS, str(Path(__file__).parents[1])],
        env=env, capture_output=True, text=True, check=True,
    )
    there = json.loads(out.stdout.strip().splitlines()[-1])
    here = {n: [fp(n).vendor, fp(n).model, fp(n).exact] for n in ALL}
    assert there["fixtures"] == here
    local = [[d.fingerprint.vendor, d.fingerprint.model, d.fingerprint.exact]
             for d in clmodes.devices()]
    assert there["local"] == local


# ---- the devices of this machine ----------------------------------------------------------


def test_local_devices_have_sound_fingerprints():
    found = clmodes.devices()
    assert found, "the test machine needs an OpenCL runtime (pip install '.[pocl]')"
    for device in found:
        f = device.fingerprint
        assert f == Fingerprint.of(DeviceDescription.of(device.cl_device))
        assert f == Fingerprint.of(device.description)
        parts = f.fields()
        assert list(parts) == FIELD_NAMES
        assert " | ".join(parts.values()) == f.exact
        assert f.exact.startswith(f.model + " | ")
        for value in parts.values():
            assert value and value == " ".join(value.split())
        assert parts["compute_units"] == f"{device.cl_device.max_compute_units}CU"
        assert f.vendor == normalize_vendor(device.platform_name, device.cl_device.vendor)
        if "portable computing language" in device.platform_name.lower():
            assert f.vendor == "PoCL"


def test_local_descriptions_round_trip_through_json():
    """A local device recorded as a fixture fingerprints as the live device does."""
    for device in clmodes.devices():
        raw = json.loads(json.dumps({"source": "local", **dataclasses.asdict(device.description)}))
        recorded = DeviceDescription(**{k: v for k, v in raw.items() if k in FIELDS})
        assert recorded == device.description
        assert Fingerprint.of(recorded) == device.fingerprint
