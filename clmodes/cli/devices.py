"""`clmodes devices`, and `--device`: which OpenCL device a command works on."""

from __future__ import annotations

import argparse

from clmodes import settings
from clmodes.runtime import client, default_runtime
from clmodes.device import Device
from clmodes.discovery import INSTALL_HINT, devices, pyopencl_ctx
from clmodes.icd import unregistered_intel_hint
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
    settings.DEVICE.export(str(device.index))
    return device


def run_devices(args: argparse.Namespace) -> int:
    """List every device with the fingerprints the store keys its entries by, whether it
    can build (each device is checked once per machine and driver: `clmodes.device_check`),
    and the `PYOPENCL_CTX` that picks it in a program under `clmodes run`
    (`discovery.pyopencl_ctx` says why that is not clmodes' own index)."""
    rows = [_row(d) for d in devices()]
    hint = unregistered_intel_hint()
    if not rows:
        raise NoDeviceError(f"no OpenCL platform found; {hint or INSTALL_HINT}")
    emit(args.json, rows, devices_text)
    if hint and not args.json:
        print(f"note: {hint}")
    return 0


def _row(device: Device) -> dict[str, object]:
    verdict = default_runtime().usability(device)
    return {"index": device.index, "label": device.label, "vendor": device.fingerprint.vendor,
            "model": device.fingerprint.model, "exact": device.fingerprint.exact,
            "pyopencl_ctx": pyopencl_ctx(device), **verdict.as_dict()}
