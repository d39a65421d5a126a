"""The fleet's progress line: drawn on a terminal while tasks run, silent elsewhere.

Like `clmodes.progress` (library code never prints; a line on a TTY is the one
exception), but drawn from the driver's own wait loop, which wakes at least every
`TICK` seconds anyway: no thread is needed.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from clmodes.fleet.report import Status, TargetReport

TICK = 0.5


class FleetProgress:
    """`progress.draw(targets)` redraws one line; `progress.close()` ends it."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._out = stream if stream is not None else sys.stderr
        isatty = getattr(self._out, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._started = time.perf_counter()
        self._drawn = False

    @staticmethod
    def line(targets: list[TargetReport], seconds: float) -> str:
        counts = {status: sum(t.status is status for t in targets) for status in Status}
        running = ", ".join(t.device for t in targets if t.status is Status.PENDING)
        return (f"clmodes fleet warm: {counts[Status.OK]}/{len(targets)} targets ok, "
                f"{counts[Status.FAILED]} failed, {counts[Status.LOST]} lost, "
                f"{seconds:.1f} s" + (f"; running: {running}" if running else ""))

    def draw(self, targets: list[TargetReport]) -> None:
        if not self.enabled:
            return
        self._out.write("\r\x1b[K" + self.line(targets, time.perf_counter() - self._started))
        self._out.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self._out.write("\n")
            self._out.flush()
