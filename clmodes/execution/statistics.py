"""Counters of what the process obtained and tuned, and frozen snapshots of them.

A collector is written from whatever thread triggers the work (a launch on a worker
thread, a tune on another) and read from any thread, so every access holds its lock.
Counts only grow: a snapshot taken later never shows less than one taken earlier.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from typing import Any


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


class WarmPass(str, enum.Enum):
    """The pass of a warm a workload ran in. A `str` so that a report's JSON shows the
    value (`"gathering"`) with no encoder of its own."""

    GATHERING = "gathering"  # COMPILE_ONLY: launches queue their kernels and are dropped
    TUNING = "tuning"  # COMPILE_AND_AUTOTUNE: tunes measure, other launches are dropped
    EXECUTING = "executing"  # `warm(..., execute=True)`: every launch runs


@dataclasses.dataclass(frozen=True)
class WorkloadFailure:
    """An ordinary exception the workload raised during a warm, as plain data: its type's
    name, the first line of its message, where the workload raised it (`file:line`, the
    innermost frame outside clmodes, pyopencl, numpy and the standard library) and the
    pass it ran in.

    Data rather than the exception itself: a discarding pass drops launches, so a
    workload that checks its results (`assert np.allclose(...)`) raises there by design,
    and `warm()` keeps what it gathered and reports the error instead of losing it all
    with the exception (`ExecutionStatistics.workload_error`, the CLI's `--json`)."""

    type: str
    message: str
    where: str
    phase: WarmPass

    def describe(self) -> str:
        """`AssertionError ("values differ") at demo.py:41`: the error and its place."""
        said = f" ({self.message!r})" if self.message else ""
        return f"{self.type}{said} at {self.where}"


@dataclasses.dataclass(frozen=True)
class ExecutionStatistics:
    compilation: CompilationStatistics = CompilationStatistics()
    autotune: AutotuneStatistics = AutotuneStatistics()
    reads: ReadStatistics = ReadStatistics()
    outside: OutsideStatistics = OutsideStatistics()
    # Set by `warm()` only: the workload's own exception in a discarding pass, which the
    # warm survived (what it gathered before is compiled, tuned and persisted).
    workload_error: WorkloadFailure | None = None

    def as_dict(self) -> dict[str, Any]:
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
