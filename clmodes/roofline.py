"""Scoring a kernel against its device's roofline, from a cached throughput probe.

The roofline model: a kernel that moves `bytes_moved` bytes and does `flops` FLOPs cannot
take less than `max(bytes_moved / bandwidth, flops / compute)` seconds on a device; its
attainable rate at arithmetic intensity `I = flops / bytes_moved` is
`min(bandwidth * I, compute)`. The fraction of the roofline a kernel achieves is that
lower bound divided by its measured time, which is the same as achieved FLOP/s over
`min(bandwidth * I, compute)` and stays defined for pure copies (flops = 0) and pure
arithmetic (bytes = 0).

The device's figures are the probe's best bandwidth (of read, write, copy) and best
compute (of the vector widths): the most the device was seen to sustain. A fraction
above 1 is possible and means the kernel beat those figures (data served from a cache,
say, or bytes_moved overstated); it is reported, not clipped.
"""

from __future__ import annotations

from clmodes.probing.result import ProbeResult


def roofline_seconds(result: ProbeResult, bytes_moved: float, flops: float) -> float:
    """The least time the roofline allows for this much traffic and arithmetic."""
    if bytes_moved < 0 or flops < 0:
        raise ValueError("bytes_moved and flops must not be negative")
    if bytes_moved == 0 and flops == 0:
        raise ValueError("a kernel with no bytes moved and no FLOPs has no roofline")
    return max(bytes_moved / (result.bandwidth_gbps * 1e9), flops / (result.compute_gflops * 1e9))


def attainable_gflops(result: ProbeResult, intensity: float) -> float:
    """The roofline at an arithmetic intensity (FLOPs per byte): min(bandwidth * I, compute)."""
    if intensity < 0:
        raise ValueError("arithmetic intensity must not be negative")
    return min(result.bandwidth_gbps * intensity, result.compute_gflops)


def roofline_fraction(
    probe_result: ProbeResult, seconds: float, bytes_moved: float, flops: float
) -> float:
    """The fraction of the device's roofline `min(bandwidth * intensity, compute)` that a
    kernel taking `seconds` for `bytes_moved` bytes and `flops` FLOPs achieves."""
    if not seconds > 0:
        raise ValueError(f"seconds must be positive, not {seconds!r}")
    return roofline_seconds(probe_result, bytes_moved, flops) / seconds
