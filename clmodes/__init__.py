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
    TuneError,
)
from clmodes.execution import (
    AutotuneStatistics,
    CompilationStatistics,
    ExecutionStatistics,
    LaunchMode,
    ProcessMode,
    ProcessModeOverride,
    ReadStatistics,
    StatisticsCollector,
    StatisticsReader,
    StreamMode,
    StreamModeOverride,
    process_mode,
)
from clmodes.kernel import Kernel
from clmodes.store import Store
from clmodes.runtime import default_store, set_cache_dir
from clmodes.stream import Stream
from clmodes.tune import (
    Budget,
    Exhaustive,
    Genetic,
    LocalSearch,
    ModelGuided,
    RacePolicy,
    RandomSample,
    Tolerance,
    Tunable,
    TuningSpace,
    Variant,
    kernel_variants,
)
from clmodes.warming import warm
from clmodes.checking import CheckReport, check
from clmodes.execution.misses import Miss, StrictMissError
from clmodes import capture  # noqa: F401 - registers the override capture (capture.py)
from clmodes import reads  # noqa: F401 - registers the read watch under compile modes (reads.py)
from clmodes.probing import ProbePolicy, ProbeResult, probe
from clmodes.roofline import roofline_fraction

from clmodes._version import __version__  # noqa: E402

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
    "Fingerprint",
    "Kernel",
    "KernelBuildError",
    "KernelLaunchError",
    "LaunchMode",
    "NoDeviceError",
    "NothingWarmedError",
    "ProbePolicy",
    "ProbeResult",
    "ProcessMode",
    "ProcessModeOverride",
    "StatisticsCollector",
    "StatisticsReader",
    "RacePolicy",
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
    "roofline_fraction",
    "set_cache_dir",
    "usability",
    "warm",
    "devices",
    "process_mode",
]
