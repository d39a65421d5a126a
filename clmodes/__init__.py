"""clmodes: process-wide execution modes for OpenCL code.

Run real workload code so that its launches only gather and batch-compile their kernels
(`COMPILE_ONLY`) or compile and autotune without doing the work (`COMPILE_AND_AUTOTUNE`).
The contract is docs/contract.md; its Public API lists every name exported here.
"""

from clmodes.clients import Client
from clmodes.runtime import client, usability
from clmodes.device_check import Usability
from clmodes.device import Device, DeviceDescription, Fingerprint
from clmodes.discovery import devices
from clmodes.errors import (
    ClmodesError,
    DeviceUnusableError,
    KernelBuildError,
    KernelLaunchError,
    NoDeviceError,
    NothingWarmedError,
    StoreWriteError,
    TuneError,
)
from clmodes.execution import (
    LaunchMode,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StreamMode,
    StreamModeOverride,
    process_mode,
)
from clmodes.kernel import Kernel
from clmodes.store import Store
from clmodes.runtime import default_store, set_cache_dir
from clmodes.stream import Stream
from clmodes.execution.misses import Miss, StrictMissError
from clmodes import capture  # noqa: F401 - registers the override capture (capture.py)
from clmodes import reads  # noqa: F401 - registers the read watch under compile modes (reads.py)

from clmodes._version import __version__  # noqa: E402
from clmodes.store import tiers as _tiers
from clmodes import lazy as _lazy

from typing import TYPE_CHECKING  # noqa: E402

if TYPE_CHECKING:
    from clmodes.execution.statistics import (
        AutotuneStatistics, CompilationStatistics, ExecutionStatistics, ReadStatistics,
        StatisticsReader, WarmPass, WorkloadFailure,
    )
    from clmodes.cache_size import prune
    from clmodes.checking import CheckReport, check
    from clmodes.store.pruning import PruneReport
    from clmodes.probing import ProbePolicy, ProbeResult, probe
    from clmodes.roofline import roofline_fraction
    from clmodes.tune import (
        Budget, Exhaustive, Genetic, LocalSearch, ModelGuided, RacePolicy, RandomSample, RunsAs,
        Tolerance, Tunable, TuningSpace, Variant, kernel_variants,
    )
    from clmodes.warming import warm

# Loaded at first use (PEP 562): tuning (36 modules), probing and warming are what a
# tunable, a probe or a warm needs, and none of them what a process running a pyopencl
# program or loading warmed kernels needs (`clmodes run`, ci/bench/bench_warm_start.py).
_LAZY = {
    # Statistics snapshots: a reader's, not every process's (`execution/statistics.py`).
    **dict.fromkeys(("AutotuneStatistics", "CompilationStatistics", "ExecutionStatistics",
                     "ReadStatistics", "StatisticsReader", "WarmPass", "WorkloadFailure"),
                    "clmodes.execution.statistics"),
    **dict.fromkeys(("Budget", "Exhaustive", "Genetic", "LocalSearch", "ModelGuided", "RacePolicy",
                     "RandomSample", "RunsAs", "Tolerance", "Tunable", "TuningSpace", "Variant",
                     "kernel_variants"), "clmodes.tune"),
    **dict.fromkeys(("ProbePolicy", "ProbeResult", "probe"), "clmodes.probing"),
    "roofline_fraction": "clmodes.roofline",
    "warm": "clmodes.warming",
    # Maintenance and `clmodes check`: a command's, never a running workload's.
    "prune": "clmodes.cache_size",
    "PruneReport": "clmodes.store.pruning",
    **dict.fromkeys(("CheckReport", "check"), "clmodes.checking"),
}


__getattr__, __dir__ = _lazy.on_first_use(globals(), _LAZY)


def _remote_from_environment() -> "_tiers.ReadThrough | None":
    """`$CLMODES_REMOTE`'s tier, made at the first local miss (`clmodes.store.tiers`):
    imported only then, and only when the variable is set, so that `import clmodes` opens
    no connection and a process without a remote never loads its modules."""
    from clmodes import settings

    if not settings.REMOTE.get():
        return None
    from clmodes.remote import from_environment

    return from_environment()


_tiers.set_factory(_remote_from_environment)

__all__ = [
    "AutotuneStatistics",
    "CheckReport",
    "Miss",
    "StrictMissError",
    "Client",
    "ClmodesError",
    "CompilationStatistics",
    "Device",
    "DeviceDescription",
    "DeviceUnusableError",
    "ExecutionStatistics",
    "ReadStatistics",
    "WarmPass",
    "WorkloadFailure",
    "Fingerprint",
    "Kernel",
    "KernelBuildError",
    "KernelLaunchError",
    "LaunchMode",
    "NoDeviceError",
    "NothingWarmedError",
    "StoreWriteError",
    "ProbePolicy",
    "ProbeResult",
    "PruneReport",
    "ProcessMode",
    "ProcessModeOverride",
    "StatisticsCollector",
    "StatisticsReader",
    "RacePolicy",
    "RunsAs",
    "Store",
    "Stream",
    "StreamMode",
    "StreamModeOverride",
    "TuneError",
    "Tolerance",
    "Budget",
    "Exhaustive",
    "Genetic",
    "LocalSearch",
    "ModelGuided",
    "RandomSample",
    "Tunable",
    "TuningSpace",
    "Usability",
    "Variant",
    "__version__",
    "check",
    "client",
    "default_store",
    "kernel_variants",
    "probe",
    "prune",
    "roofline_fraction",
    "set_cache_dir",
    "usability",
    "warm",
    "devices",
    "process_mode",
]
