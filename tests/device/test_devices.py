import os
import subprocess
import sys

import pytest

import clmodes
from support.devices import usable_runtime
from clmodes import NoDeviceError
from clmodes import discovery as device_module


def test_devices_are_listed_in_a_stable_order():
    found = clmodes.devices()
    assert found, "the test machine needs an OpenCL runtime (pip install '.[pocl]')"
    assert [d.index for d in found] == list(range(len(found)))
    assert [d.label for d in found] == [d.label for d in clmodes.devices()]


def _first_usable() -> clmodes.Device:
    return next(d for d in clmodes.devices() if clmodes.usability(d).usable)


def test_client_is_one_per_device():
    first = _first_usable()
    assert clmodes.client() is clmodes.client(first.index)
    assert clmodes.client(first) is clmodes.client()
    assert clmodes.client().context.devices == [first.cl_device]


def test_selection_by_substring():
    first = _first_usable()
    named = clmodes.client(first.name[:5].lower()).device
    assert clmodes.usability(named).usable and first.name[:5].lower() in named.label.lower()


def test_no_matching_device_lists_what_was_found():
    with pytest.raises(NoDeviceError, match=r"no OpenCL device matches 'nonexistent-gpu'.*found 0:"):
        clmodes.client("nonexistent-gpu")
    with pytest.raises(NoDeviceError, match="index 99"):
        clmodes.client(99)


def test_no_platform_says_how_to_install(monkeypatch):
    monkeypatch.setattr(device_module, "_devices", [])
    with pytest.raises(NoDeviceError, match=r"no OpenCL platform.*clmodes\[cpu\]"):
        clmodes.client()


@pytest.mark.parametrize("selector", ["0", "PORTABLE"])
def test_env_selects_device(selector):
    code = "import clmodes; print(clmodes.client().device.index)"
    env = {**os.environ, "CLMODES_DEVICE": selector}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if selector == "PORTABLE":
        usable_runtime("PoCL")  # a skip with the reason when no PoCL here can build
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().isdigit()


def test_env_with_no_match_fails_clearly():
    env = {**os.environ, "CLMODES_DEVICE": "no-such-device"}
    code = "import clmodes; clmodes.client()"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "no OpenCL device matches 'no-such-device'" in out.stderr


def test_fingerprint_strings_are_stable():
    device = clmodes.devices()[0]
    fp = device.fingerprint
    assert fp.exact.startswith(fp.model)
    assert fp == clmodes.Fingerprint.of(clmodes.DeviceDescription.of(device.cl_device))
