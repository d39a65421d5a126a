"""The execution contract: modes, overrides and statistics (docs/contract.md)."""

from clmodes.execution.modes import (
    LaunchMode,
    ProcessMode,
    StreamMode,
    default_stream_mode,
    resolve_launch_mode,
)
from clmodes.execution.overrides import (
    ProcessModeOverride,
    StreamModeOverride,
    process_mode,
    tally,
)
from clmodes.execution.counters import Counter, StatisticsCollector
from clmodes import lazy as _lazy

from typing import TYPE_CHECKING  # noqa: E402

if TYPE_CHECKING:
    from clmodes.execution.statistics import (
        AutotuneStatistics, CompilationStatistics, ExecutionStatistics, ReadStatistics,
        StatisticsReader, WarmPass, WorkloadFailure,
    )

# The snapshots load when first read (`clmodes.lazy`): every launch counts, but a process
# that never reads its statistics (a warmed start) need not make their dataclasses.
__getattr__, __dir__ = _lazy.on_first_use(globals(), dict.fromkeys(
    ("AutotuneStatistics", "CompilationStatistics", "ExecutionStatistics", "ReadStatistics",
     "StatisticsReader", "WarmPass", "WorkloadFailure"), "clmodes.execution.statistics"))

__all__ = [
    "AutotuneStatistics",
    "CompilationStatistics",
    "Counter",
    "ExecutionStatistics",
    "LaunchMode",
    "ReadStatistics",
    "ProcessMode",
    "ProcessModeOverride",
    "StatisticsCollector",
    "StatisticsReader",
    "StreamMode",
    "StreamModeOverride",
    "default_stream_mode",
    "process_mode",
    "tally",
    "WarmPass",
    "WorkloadFailure",
    "resolve_launch_mode",
]
