"""What a probe returns and how it is asked to measure: `ProbeResult` (a device's peaks,
as `Figure`s), `ProbePolicy`, and their stored (JSON) form.

Results are cached per device model in the store as `as_dict()`; `from_dict` refuses a
result of another `PROBE_VERSION`, so a change of method re-measures instead of mixing
figures measured two ways.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from clmodes.errors import ClmodesError

PROBE_VERSION = 1  # bump when the method changes: older cached results are re-measured


class ProbeError(ClmodesError):
    """A probe that could not measure (a launch dropped, a timer that reads nothing)."""


@dataclasses.dataclass(frozen=True)
class ProbePolicy:
    """How long and how hard a probe measures."""

    samples: int = 5  # launches per round
    tolerance: float = 0.05  # two consecutive round medians this close: stable
    max_rounds: int = 8
    budget_s: float = 1.0  # wall time of rounds per figure (two rounds at least)
    target_launch_s: float = 0.002  # compute launches are calibrated to about this
    max_launch_s: float = 0.1  # a slower bandwidth launch shrinks the range it covers
    widths: tuple[int, ...] = (1, 4, 8)
    local_size: int = 256  # or the device's maximum work-group size, if smaller


@dataclasses.dataclass(frozen=True)
class Figure:
    """One measured figure and how it was measured."""

    name: str  # read | write | copy | float | float4 | float8 ...
    unit: str  # "GB/s" or "GFLOP/s"
    value: float  # work / seconds / 1e9
    seconds: float  # the statistic: device time of one launch (see `ProbeResult.statistic`)
    work: int  # bytes moved (bandwidth) or FLOPs (compute) by one launch
    global_size: int
    local_size: int
    per_item: int  # float4 elements (bandwidth) or loop iterations (compute) per work-item
    samples: int  # launches the statistic is over (the last two rounds)
    rounds: int
    stable: bool  # two consecutive round medians agreed within the tolerance
    spread: float  # relative difference of the last two round medians


@dataclasses.dataclass(frozen=True)
class ProbeResult:
    """A device's measured peaks. Bandwidth figures in GB/s, compute in GFLOP/s."""

    device: str  # the label of the device measured
    model: str  # its model fingerprint: what the result is cached under
    exact: str
    bandwidth: tuple[Figure, ...]  # read, write, copy
    compute: tuple[Figure, ...]  # one per vector width
    buffer_bytes: int  # size of each bandwidth buffer
    statistic: str
    tolerance: float
    seconds: float  # wall time of the whole probe
    measured_at: float  # time.time()
    clmodes: str
    version: int = PROBE_VERSION

    def figure(self, name: str) -> Figure:
        for figure in (*self.bandwidth, *self.compute):
            if figure.name == name:
                return figure
        raise KeyError(f"no probe figure named {name!r}")

    @property
    def read_gbps(self) -> float:
        return self.figure("read").value

    @property
    def write_gbps(self) -> float:
        return self.figure("write").value

    @property
    def copy_gbps(self) -> float:
        return self.figure("copy").value

    @property
    def bandwidth_gbps(self) -> float:
        """The roofline's bandwidth: the best of read, write and copy."""
        return max(f.value for f in self.bandwidth)

    @property
    def compute_gflops(self) -> float:
        """The roofline's compute ceiling: the best vector width."""
        return max(f.value for f in self.compute)

    @property
    def ridge_intensity(self) -> float:
        """FLOPs per byte above which a kernel is compute-bound on this device."""
        return self.compute_gflops / self.bandwidth_gbps

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, value: object) -> "ProbeResult":
        """Parse a stored result; ValueError if it is malformed or of another version."""
        if not isinstance(value, dict):
            raise ValueError("not an object")
        if value.get("version") != PROBE_VERSION:
            raise ValueError(f"probe format {value.get('version')!r}, not {PROBE_VERSION}")
        try:
            fields = {f.name for f in dataclasses.fields(cls)}
            parsed = {k: v for k, v in value.items() if k in fields}
            parsed["bandwidth"] = tuple(figure_from_dict(f) for f in value["bandwidth"])
            parsed["compute"] = tuple(figure_from_dict(f) for f in value["compute"])
            result = cls(**parsed)
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed probe result ({error})") from error
        if {f.name for f in result.bandwidth} != {"read", "write", "copy"} or not result.compute:
            raise ValueError("malformed probe result (figures missing)")
        if not all(f.value > 0 for f in (*result.bandwidth, *result.compute)):
            raise ValueError("malformed probe result (a figure is not positive)")
        return result


def figure_from_dict(value: object) -> Figure:
    """Parse one stored figure; TypeError if it is malformed."""
    if not isinstance(value, dict):
        raise TypeError("a figure is not an object")
    figure = Figure(**value)
    if not isinstance(figure.value, (int, float)) or not isinstance(figure.name, str):
        raise TypeError("a figure's name or value has the wrong type")
    return figure
