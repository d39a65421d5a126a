"""A child process's work, run the two ways the tests compare: by `clmodes.warm` or once
under `EXECUTE`, and what clmodes counted of it."""

from __future__ import annotations

from collections.abc import Callable

import clmodes


def statistics_of(work: Callable[[], object], warm: bool) -> clmodes.ExecutionStatistics:
    """`work` by `clmodes.warm(work)` (warm) or once under `ProcessMode.EXECUTE`: its
    statistics."""
    if warm:
        return clmodes.warm(work)
    collector = clmodes.StatisticsCollector()
    with clmodes.ProcessModeOverride(clmodes.ProcessMode.EXECUTE, collector):
        work()
    return clmodes.StatisticsReader(collector).statistics()
