"""Choosing the device a client works on: the selector's, passing over unusable devices.

`clmodes.discovery.candidates` says which devices a selector names; this module asks each
one's verdict (`clmodes.device_check`) and decides:
- no selector and no `$CLMODES_DEVICE`: the first *usable* device, in the device order
  (GPUs first); the ones passed over are logged once each, with their reason;
- a selector naming several devices ("pocl" with two PoCLs): the first usable of them;
- a selector naming only unusable devices: `DeviceUnusableError`, one line with the cause
  and the remedy (the CLI exits 2 on it);
- no usable device at all: the same error, listing each device's reason.
"""

from __future__ import annotations

from collections.abc import Callable

from clmodes.device import Device
from clmodes.discovery import candidates, explicit
from clmodes.errors import DeviceUnusableError
from clmodes.device_check import Usability

Verdict = Callable[[Device], Usability]


def choose(selector: object, verdict: Verdict) -> Device:
    """The device `selector` names (see `clmodes.discovery.select`) that can build."""
    named = candidates(selector)
    for device in named:
        if verdict(device).usable:
            return device
    raise DeviceUnusableError(_refusal(named, verdict, explicit(selector)))


def _refusal(named: list[Device], verdict: Verdict, was_named: bool) -> str:
    if len(named) == 1:
        return f"OpenCL device {named[0].label} is {verdict(named[0]).describe()}"
    reasons = "; ".join(f"{d.index}: {d.label}: {verdict(d).reason}" for d in named)
    remedy = verdict(named[0]).remedy
    what = "no device it names is usable" if was_named else "no usable OpenCL device"
    return f"{what} ({reasons}); {remedy}"
