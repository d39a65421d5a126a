"""The tune cache: winners in memory, backed by the store, tuned once per key.

Memory first (a hit costs a dict lookup), then the store (a hit is copied to memory and
counts nowhere), then a tune. Concurrent callers of one untuned key are coordinated: the
first becomes the tuner; the others *block* until it finishes and then use its winner, so
a key is measured and counted once. If the tuner fails, one waiter takes over.

A key's `key` is the tune key as canonical JSON (`canonical_key`): what the store keys a
decision by, so two calls with equal sizes share one decision whatever order their
mapping was built in.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import NamedTuple

from clmodes.execution.registry import LiveRegistry
from clmodes.store.store import Store
from clmodes.records.tune import TuneRecord


class TuneKey(NamedTuple):
    model: str  # device model fingerprint
    tunable: str
    key: str  # canonical JSON of the tune key
    candidates: str  # checksum of the candidate names


_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # one, not one per call


def canonical_key(value: object, owner: str = "a tunable") -> str:
    """The key as canonical JSON. Mapping keys must be strings: JSON turns `{1: n}` into
    `{"1": n}`, and two different keys would then share one tune entry."""
    _refuse_non_string_keys(value, owner)
    try:
        return _KEY_ENCODER.encode(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{owner}: a tune key must be JSON-able: {error}") from error


def _refuse_non_string_keys(value: object, owner: str) -> None:
    if isinstance(value, dict):
        for name, item in value.items():
            if not isinstance(name, str):
                raise TypeError(f"{owner}: tune key mappings need string keys, not {name!r} "
                                f"({type(name).__name__}): JSON would turn it into {str(name)!r}")
            _refuse_non_string_keys(item, owner)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _refuse_non_string_keys(item, owner)


class TuneCache:
    """A runtime's tune winners (`clmodes.runtime`), backed by its store."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store
        self._winners: dict[TuneKey, str] = {}
        self._inflight: dict[TuneKey, threading.Event] = {}
        self._lock = threading.Lock()
        self._noting: LiveRegistry[set[TuneKey]] = LiveRegistry()  # open `noting_misses` sets

    def winner(self, key: TuneKey,
               current: Callable[[TuneRecord], bool] | None = None) -> str | None:
        """The cached winner from memory or the store, else None. A stored record is
        used (and kept in memory) only if `current(record)` holds: it measured the code
        the tunable launches now."""
        found = self._winners.get(key)
        if found is None:
            record = self._store().tune_record(*key)
            if record is not None and (current is None or current(record)):
                found = self._winners[key] = record.winner
        if found is None and self._noting.live:
            with self._lock:
                for missed in self._noting.live:
                    missed.add(key)
        return found

    def noting_misses(self) -> AbstractContextManager[set[TuneKey]]:
        """The keys asked for meanwhile that had no winner: after a warm's gathering pass,
        the keys its tuning pass will tune (its progress line's total)."""
        return self._noting.holding(set())

    def tune_once(self, key: TuneKey, tune: Callable[[], str]) -> str:
        """Run `tune` unless another thread is tuning this key; then wait for its winner."""
        while True:
            with self._lock:
                found = self._winners.get(key)
                if found is not None:
                    return found
                running = self._inflight.get(key)
                if running is None:
                    running = self._inflight[key] = threading.Event()
                    break
            running.wait()
        try:
            winner = tune()
            self._winners[key] = winner
            return winner
        finally:
            with self._lock:
                self._inflight.pop(key, None)
            running.set()

    def replace(self, key: TuneKey, winner: str) -> None:
        """A key's winner changed (an answer re-tuned here, `tune.answers.verify`)."""
        with self._lock:
            self._winners[key] = winner

    def forget(self) -> None:
        """Drop what memory holds (the store keeps its entries)."""
        with self._lock:
            self._winners.clear()

