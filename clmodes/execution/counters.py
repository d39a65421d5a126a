"""Counters of what the process obtained and tuned: what overrides count into.

A collector is written from whatever thread triggers the work (a launch on a worker
thread, a tune on another) and read from any thread, so every access holds its lock.
Counts only grow. Snapshots of them, typed, are `statistics.ExecutionStatistics`.
"""

from __future__ import annotations

import enum
import threading


class Counter(enum.Enum):
    """One thing a collector counts."""

    KERNELS = "kernels"  # obtained: compiled + loaded
    COMPILED = "compiled"  # obtained by building from source
    LOADED = "loaded"  # obtained from the binary store
    BUILDS = "builds"  # Program.build calls issued
    KEYS = "keys"  # autotune keys measured
    READS = "reads"  # the workload's reads of device memory while launches were dropped


class StatisticsCollector:
    """Thread-safe counters that overrides count into."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = {counter: 0 for counter in Counter}

    def add(self, counter: Counter, amount: int = 1) -> None:
        if amount < 0:
            raise ValueError("statistics only grow")
        with self._lock:
            self._counts[counter] += amount

    def snapshot(self) -> dict[Counter, int]:
        """Every counter's value now, read under the lock."""
        with self._lock:
            return dict(self._counts)
