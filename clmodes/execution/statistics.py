"""Frozen snapshots of what the process obtained and tuned (`ExecutionStatistics`), read
from a collector (`counters.StatisticsCollector`) from any thread; what a warm adds to
them (`WorkloadFailure`, `OutsideStatistics`).

Apart from the counters because every launch and build counts, while only a reader of
statistics needs these six dataclasses: a warmed process that reads none saves ~4 ms
of its start (ci/bench/bench_warm_start.py). Counts only grow: a snapshot taken later
never shows less than one taken earlier.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from clmodes.execution.counters import Counter, StatisticsCollector


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
