"""`clmodes devices`, and `--device`: which OpenCL device a command works on."""

from __future__ import annotations

import argparse
import os

from clmodes.runtime import client
from clmodes.device import INSTALL_HINT, Device, devices
from clmodes.errors import NoDeviceError
from clmodes.cli.render import devices_text, emit


def select_device(args: argparse.Namespace) -> Device | None:
    """The device `--device` names, or None without the flag.

    The choice applies to everything the command does, the workload's own
    `clmodes.client()` calls included, so it is passed on as `$CLMODES_DEVICE` (by index:
    the workload's process sees the same device list). An unknown device is a user error
    (`NoDeviceError`), raised here before any work starts."""
    if getattr(args, "device", None) is None:
        return None
    device = client(args.device).device
    os.environ["CLMODES_DEVICE"] = str(device.index)
    return device


def run_devices(args: argparse.Namespace) -> int:
    """List every device with the fingerprints the store keys its entries by."""
    rows = [
        {"index": d.index, "label": d.label, "vendor": d.fingerprint.vendor,
         "model": d.fingerprint.model, "exact": d.fingerprint.exact}
        for d in devices()
    ]
    if not rows:
        raise NoDeviceError(f"no OpenCL platform found; {INSTALL_HINT}")
    emit(args.json, rows, devices_text)
    return 0
