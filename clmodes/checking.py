"""`clmodes.check(workload)`: does a workload start warm here? The strict check for CI.

It runs the workload once in EXECUTE on the store, as production would, and records every
miss (`clmodes.execution.misses`): a kernel built from source, a key tuned, each with why
the store could not serve it. Passing means the store served everything: `compiled == 0`
and no key tuned. The workload really runs (its results are real): a check is a run, not
a dry run, because a miss is only known when the launch that needs it happens.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
    misses,
)
from clmodes.execution.misses import Miss


@dataclasses.dataclass(frozen=True)
class CheckReport:
    """What a check found: the misses, in order, and the run's statistics."""

    misses: tuple[Miss, ...]
    statistics: ExecutionStatistics
    seconds: float

    @property
    def passed(self) -> bool:
        return (self.statistics.compilation.compiled == 0
                and self.statistics.autotune.keys == 0 and not self.misses)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "misses": [m.as_dict() for m in self.misses],
                **self.statistics.as_dict(), "seconds": round(self.seconds, 3)}


def check(workload: Callable[[], object]) -> CheckReport:
    """Run `workload` in EXECUTE, noting every miss; the caller decides what fails."""
    collector = StatisticsCollector()
    started = time.perf_counter()
    with misses.noting() as found, ProcessModeOverride(ProcessMode.EXECUTE, collector):
        workload()
    return CheckReport(tuple(found), StatisticsReader(collector).statistics(),
                       time.perf_counter() - started)
