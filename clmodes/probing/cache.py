"""Probe results cached per device **model** fingerprint: in memory, and in the store.

Why per model (like tune results): peaks are the hardware's, a driver update rarely moves
them. Memory answers repeated lookups (a tune's roofline scoring asks once per key)
without reading the store; a per-model lock makes two threads probing one model measure
it once. One `ProbeCache` per runtime (`clmodes.runtime`); `lookup` is how the rest of
clmodes reaches the default one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from clmodes.probing.result import ProbeResult
from clmodes.store.store import Store

log = logging.getLogger("clmodes")


class ProbeCache:
    """A runtime's probe results, in memory and in its store."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store
        self._results: dict[str, ProbeResult] = {}  # model -> result
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def model_lock(self, model: str) -> threading.Lock:
        """The lock a measurement of `model` holds, so one model is measured once at a time."""
        with self._lock:
            return self._locks.setdefault(model, threading.Lock())

    def in_memory(self, model: str) -> ProbeResult | None:
        """The result memory holds for a model (the store is not read)."""
        return self._results.get(model)

    def remember(self, model: str, result: ProbeResult) -> None:
        """Cache a fresh result in memory and in the store, replacing any earlier one."""
        with self._lock:
            self._results[model] = result
        self._store().put_probe(model, result.as_dict())

    def cached(self, model: str) -> ProbeResult | None:
        """The cached result of a device model, from memory or the store; None if none."""
        found = self._results.get(model)
        if found is not None:
            return found
        stored = self._store().get_probe(model)
        if stored is None:
            return None
        try:
            found = ProbeResult.from_dict(stored)
        except ValueError as error:
            log.warning("clmodes store: unusable probe result for %s (%s); it will be re-measured",
                        model, error)
            return None
        with self._lock:
            return self._results.setdefault(model, found)

    def forget(self) -> None:
        """Drop what memory holds (the store keeps its entries)."""
        with self._lock:
            self._results.clear()
