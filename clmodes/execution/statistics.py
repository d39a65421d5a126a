"""Counters of what the process obtained and tuned, and frozen snapshots of them.

A collector is written from whatever thread triggers the work (a launch on a worker
thread, a tune on another) and read from any thread, so every access holds its lock.
Counts only grow: a snapshot taken later never shows less than one taken earlier.
"""

from __future__ import annotations

import dataclasses
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


@dataclasses.dataclass(frozen=True)
class CompilationStatistics:
    kernels: int = 0
    compiled: int = 0
    loaded: int = 0
    builds: int = 0


@dataclasses.dataclass(frozen=True)
class AutotuneStatistics:
    keys: int = 0


@dataclasses.dataclass(frozen=True)
class ReadStatistics:
    """Copies from device memory to the host the workload made while launches were
    dropped (`clmodes.reads`): each one read a meaningless value."""

    discarded: int = 0


@dataclasses.dataclass(frozen=True)
class OutsideStatistics:
    """Kernels built or run outside clmodes during a warm or a check (pyopencl programs
    on a context clmodes does not manage): not gathered, not persisted, not served by
    the store. Set by `warm()` and `check()` only; `launches` counts runs (a kernel only
    built counts none)."""

    kernels: int = 0
    launches: int = 0
    names: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ExecutionStatistics:
    compilation: CompilationStatistics = CompilationStatistics()
    autotune: AutotuneStatistics = AutotuneStatistics()
    reads: ReadStatistics = ReadStatistics()
    outside: OutsideStatistics = OutsideStatistics()

    def as_dict(self) -> dict[str, dict[str, object]]:
        return dataclasses.asdict(self)


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


class StatisticsReader:
    """Reads a collector from any thread; opens no override and triggers nothing."""

    def __init__(self, collector: StatisticsCollector) -> None:
        self._collector = collector

    def statistics(self) -> ExecutionStatistics:
        counts = self._collector.snapshot()
        return ExecutionStatistics(
            compilation=CompilationStatistics(
                kernels=counts[Counter.KERNELS],
                compiled=counts[Counter.COMPILED],
                loaded=counts[Counter.LOADED],
                builds=counts[Counter.BUILDS],
            ),
            autotune=AutotuneStatistics(keys=counts[Counter.KEYS]),
            reads=ReadStatistics(discarded=counts[Counter.READS]),
        )
