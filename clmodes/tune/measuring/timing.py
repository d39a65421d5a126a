"""How a tune's candidates are timed: the `Timer` every race and final measures through.

One seam, `racing.sample`: every timing a tune takes (warm-ups, screening re-timings,
samples, the resample before a drop, a final's rounds) is one call of the process's timer
with the candidate's name, its measurement stream and the run. `DeviceTimer`, the
default, runs it and returns its device seconds (`clmodes.measure.device_seconds`:
profiling events). `ReplayTimer` runs nothing and answers from recorded measurements (a
config's recorded seconds, times seeded noise and load bursts): Kernel Tuner's
simulation mode. With it the search, racing, budgets, finals and decisions under noise
are tested on the recorded GEMM spaces (`tests/fixtures/spaces`) in seconds,
deterministically, while the builds, gathers and store of the tune stay real.

`timing_with(timer)` installs a timer for the whole process (every thread's tunes) until
its block ends; nesting restores the outer one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from clmodes.measure import device_seconds
from clmodes.stream import Stream

Run = Callable[[], object]


class Timer(Protocol):
    """Times one run of a candidate: seconds (not finite or not positive: discarded)."""

    def time(self, name: str, stream: Stream, run: Run) -> float:
        """The seconds of one run of candidate `name` (`run()` launches its work on
        `stream`); raising drops the candidate, as a failed launch does."""


class DeviceTimer:
    """The real timer: runs the candidate, returns the device time of its launches."""

    def time(self, name: str, stream: Stream, run: Run) -> float:
        return device_seconds(stream, run)


class UnrecordedConfig(KeyError):
    """A replayed candidate whose time was never recorded: it is dropped as failed."""


@dataclasses.dataclass
class ReplayTimer:
    """Recorded seconds per candidate name, replayed: nothing runs (unless `run_too`).

    `noise`: each timing is the recorded one times a factor uniform in [1 - noise,
    1 + noise]; `burst_every`/`burst_factor`: every that-many-th timing (counted over all
    candidates, so bursts land on whichever is timed then, as another process's work
    does) is `burst_factor` times slower. Seeded: one seed, one sequence of timings.
    `calls` counts the timings per name (what a search, a budget or a final cost)."""

    times: Mapping[str, float]
    noise: float = 0.0
    burst_every: int = 0
    burst_factor: float = 1.0
    seed: int = 0
    run_too: bool = False
    calls: Counter[str] = dataclasses.field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._count = 0
        self._lock = threading.Lock()

    @classmethod
    def from_recording(cls, path: str | Path, **options: object) -> "ReplayTimer":
        """A timer over a recorded space (`ci/bench/record_space.py`'s JSON: `times_s`,
        config name -> seconds; a config that failed is recorded as null and left out)."""
        recorded = json.loads(Path(path).read_text())["times_s"]
        times = {name: float(s) for name, s in recorded.items() if s is not None}
        return cls(times, **options)  # type: ignore[arg-type]

    def time(self, name: str, stream: Stream, run: Run) -> float:
        if name not in self.times:
            raise UnrecordedConfig(f"no recorded time for {name!r}")
        if self.run_too:
            run()
        with self._lock:
            self.calls[name] += 1
            self._count += 1
            factor = 1.0 + self.noise * (2 * self._random.random() - 1) if self.noise else 1.0
            if self.burst_every and self._count % self.burst_every == 0:
                factor *= self.burst_factor
        return self.times[name] * factor

    @property
    def timings(self) -> int:
        """Timings taken so far, over every candidate."""
        return sum(self.calls.values())

    def best(self, among: list[str] | None = None) -> str:
        """The recorded fastest (of `among`, else of all)."""
        names = [n for n in (among if among is not None else self.times) if n in self.times]
        return min(names, key=self.times.__getitem__)


_DEVICE = DeviceTimer()
_current: Timer = _DEVICE
_switch = threading.Lock()


def current() -> Timer:
    """The timer this process's races and finals measure through."""
    return _current


@contextlib.contextmanager
def timing_with(timer: Timer) -> Iterator[Timer]:
    """Every tune in this process times its candidates with `timer` inside the block."""
    global _current
    with _switch:
        outer, _current = _current, timer
    try:
        yield timer
    finally:
        with _switch:
            _current = outer
