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
from clmodes.execution.statistics import (
    AutotuneStatistics,
    CompilationStatistics,
    Counter,
    ExecutionStatistics,
    ReadStatistics,
    StatisticsCollector,
    StatisticsReader,
    WarmPass,
    WorkloadFailure,
)

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
