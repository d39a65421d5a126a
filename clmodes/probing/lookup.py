"""The default runtime's probe cache, as `clmodes.probing.cached()` and friends."""

from __future__ import annotations

from clmodes.clients import Client
from clmodes.device import Device
from clmodes.probing.result import ProbeResult
from clmodes.runtime import client, default_runtime


def resolve_client(device: object) -> Client:
    """A `Client` as given, else `clmodes.client(device)`."""
    return device if isinstance(device, Client) else client(device)


def cached(device: object = None) -> ProbeResult | None:
    """The cached probe result of a device (a `Client`, a `Device`, or what
    `clmodes.client()` takes), from memory or the store; None if none. Measures nothing."""
    model = device.fingerprint.model if isinstance(device, Device) else \
        resolve_client(device).device.fingerprint.model
    return default_runtime().probes.cached(model)


def forget() -> None:
    """Drop what the default runtime's memory holds (the store keeps its entries)."""
    default_runtime().probes.forget()
