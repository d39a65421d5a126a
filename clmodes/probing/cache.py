"""Probe results cached per device **model** fingerprint: in memory, and in the store.

Why per model (like tune results): peaks are the hardware's, a driver update rarely moves
them. Memory answers repeated lookups (a tune's roofline scoring asks once per key)
without reading the store; a per-model lock makes two threads probing one model measure
it once.
"""

from __future__ import annotations

import logging
import threading

from clmodes.client import Client
from clmodes.client import client as get_client
from clmodes.device import Device
from clmodes.probing.result import ProbeResult
from clmodes.store import default_store

log = logging.getLogger("clmodes")

_results: dict[str, ProbeResult] = {}  # model -> result
_locks: dict[str, threading.Lock] = {}
_lock = threading.Lock()


def resolve_client(device: object) -> Client:
    """A `Client` as given, else `clmodes.client(device)`."""
    if isinstance(device, Client):
        return device
    return get_client(device)


def model_lock(model: str) -> threading.Lock:
    """The lock a measurement of `model` holds, so one model is measured once at a time."""
    with _lock:
        return _locks.setdefault(model, threading.Lock())


def in_memory(model: str) -> ProbeResult | None:
    """The result memory holds for a model (the store is not read)."""
    return _results.get(model)


def remember(model: str, result: ProbeResult) -> None:
    """Cache a fresh result in memory and in the store, replacing any earlier one."""
    with _lock:
        _results[model] = result
    default_store().put_probe(model, result.as_dict())


def cached(device: object = None) -> ProbeResult | None:
    """The cached probe result of a device (a `Client`, a `Device`, or what
    `clmodes.client()` takes), from memory or the store; None if none. Measures nothing."""
    model = device.fingerprint.model if isinstance(device, Device) else \
        resolve_client(device).device.fingerprint.model
    found = _results.get(model)
    if found is not None:
        return found
    stored = default_store().get_probe(model)
    if stored is None:
        return None
    try:
        found = ProbeResult.from_dict(stored)
    except ValueError as error:
        log.warning("clmodes store: unusable probe result for %s (%s); it will be re-measured",
                    model, error)
        return None
    with _lock:
        return _results.setdefault(model, found)


def forget() -> None:
    """Drop what memory holds (the store keeps its entries)."""
    with _lock:
        _results.clear()
