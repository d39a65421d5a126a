"""`clmodes.check(workload)`: does a workload start warm here? The strict check for CI.

It runs the workload once in EXECUTE on the store, as production would, and records every
miss (`clmodes.execution.misses`): a kernel built from source, a key tuned, each with why
the store could not serve it. Passing means the store served everything: `compiled == 0`,
no key tuned, and nothing built or run outside clmodes. The workload really runs (its
results are real): a check is a run, not a dry run, because a miss is only known when the
launch that needs it happens.

The trap: a pyopencl program on a context clmodes does not manage never reaches the
store, so it cannot miss; counting only misses, a check passed code it never saw ("0
compiled", while pyopencl compiled 3 programs from source). So a check adopts every
one-device context a source program is built on, as `clmodes run` does
(`running.adopting`, which puts the pyopencl hooks in place before the workload runs: a
program that makes its own context may create no clmodes client at all): each such
program is served by the store or is a miss, by name, and a program `clmodes run` warmed
passes. What still cannot be adopted (a context of several devices) is built and run
outside clmodes and fails the check, by name (`pyopencl_hooks.outside`).
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
from clmodes.execution.statistics import OutsideStatistics
from clmodes.pyopencl_hooks import outside
from clmodes.running import adopting


@dataclasses.dataclass(frozen=True)
class CheckReport:
    """What a check found: the misses, in order, and the run's statistics."""

    misses: tuple[Miss, ...]
    statistics: ExecutionStatistics
    seconds: float

    @property
    def outside(self) -> OutsideStatistics:
        """Kernels built or run outside clmodes (the store cannot serve them)."""
        return self.statistics.outside

    @property
    def passed(self) -> bool:
        return (self.statistics.compilation.compiled == 0 and self.statistics.autotune.keys == 0
                and not self.misses and self.outside.kernels == 0)

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "misses": [m.as_dict() for m in self.misses],
                **self.statistics.as_dict(), "seconds": round(self.seconds, 3)}


def check(workload: Callable[[], object]) -> CheckReport:
    """Run `workload` in EXECUTE, noting every miss; the caller decides what fails."""
    collector = StatisticsCollector()
    started = time.perf_counter()
    with adopting(), misses.noting() as found, outside.watching() as elsewhere, \
            ProcessModeOverride(ProcessMode.EXECUTE, collector):
        workload()
    statistics = dataclasses.replace(StatisticsReader(collector).statistics(),
                                     outside=elsewhere.report())
    return CheckReport(tuple(found), statistics, time.perf_counter() - started)
