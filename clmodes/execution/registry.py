"""`LiveRegistry`: what is open right now, process-wide (recordings, watchers, listeners).

One rule for every such registry, written once: readers (a launch path) read `live`, a
tuple, without a lock — it is replaced wholesale, never mutated, so a reader sees the
registry before or after a change, never half of one; writers take the registry's lock.
Items are compared by identity, so two equal recordings (two empty sets) opened on two
threads stay two entries and each removes only itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class LiveRegistry(Generic[T]):
    """The items open now, in opening order."""

    def __init__(self) -> None:
        self.live: tuple[T, ...] = ()
        self._lock = threading.Lock()

    @contextmanager
    def holding(self, item: T) -> Iterator[T]:
        """`item` is live meanwhile (any thread)."""
        with self._lock:
            self.live = (*self.live, item)
        try:
            yield item
        finally:
            with self._lock:
                self.live = tuple(each for each in self.live if each is not item)
