"""How the probe times one figure: rounds of launches until two consecutive round
medians agree, and the median of the last two rounds.

Why the median and not the fastest sample, as STREAM reports: on PoCL the fastest of a
few dozen launches was seen 2x above the median and above the hardware's peak
(timestamps of a preempted worker thread), while medians of two probes agreed within
~10-20% on a busy 2-core machine. Each run is timed with `clmodes.measure.device_seconds`
(profiling events START..END: device time only, no host overhead).
"""

from __future__ import annotations

import dataclasses
import statistics
import time

from clmodes.measure import NothingLaunched, Run, device_seconds
from clmodes.probing.result import ProbeError, ProbePolicy
from clmodes.stream import Stream


@dataclasses.dataclass
class Timing:
    """The statistic of one figure and how it was reached."""

    seconds: float
    samples: int
    rounds: int
    stable: bool
    spread: float


def run_seconds(stream: Stream, run: Run) -> float:
    """Device seconds of one run; ProbeError if its launch was dropped (nothing timed)."""
    try:
        return device_seconds(stream, run)
    except NothingLaunched as error:
        raise ProbeError(
            "a probe launch was dropped; probes measure under an EXECUTE override"
        ) from error


def rounds(stream: Stream, run: Run, policy: ProbePolicy) -> Timing:
    """Rounds of `policy.samples` runs until two consecutive round medians agree within
    the tolerance (the device reached a steady state), or after `max_rounds`, or once
    `budget_s` is spent (two rounds at least)."""
    started = time.perf_counter()
    samples: list[list[float]] = []
    medians: list[float] = []
    stable, spread = False, float("inf")
    while True:
        samples.append([run_seconds(stream, run) for _ in range(max(1, policy.samples))])
        medians.append(statistics.median(samples[-1]))
        if len(medians) >= 2:
            stable, spread = agreement(medians[-2], medians[-1], policy.tolerance)
            if stable or len(medians) >= policy.max_rounds or \
                    time.perf_counter() - started >= policy.budget_s:
                break
    window = samples[-2] + samples[-1]
    seconds = statistics.median(window)
    if seconds <= 0:
        raise ProbeError("the device's profiling timer read zero for the probe's launches")
    return Timing(seconds, len(window), len(samples), stable, spread)


def agreement(a: float, b: float, tolerance: float) -> tuple[bool, float]:
    """(within the tolerance, relative difference) of two round medians."""
    spread = abs(a - b) / min(a, b) if min(a, b) > 0 else float("inf")
    return spread <= tolerance, spread
