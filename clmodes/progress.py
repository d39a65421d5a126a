"""Progress of a long pass (warm), drawn on a terminal and silent everywhere else.

Library code logs and never prints; progress is the one exception the contract asks for,
and it only ever writes to a stream that is a TTY (a person watching), never into a log
file or a CI transcript. It redraws one line from a background thread, reading the
statistics through a `StatisticsReader`, which opens nothing and can be read any time.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from clmodes.execution import StatisticsReader


class TerminalProgress:
    """`with TerminalProgress(reader, "warm"):` redraws a status line every `interval`."""

    def __init__(
        self, reader: StatisticsReader, title: str, stream: TextIO | None = None,
        interval: float = 0.25,
    ) -> None:
        self._reader = reader
        self._title = title
        self._out = stream if stream is not None else sys.stderr
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self.phase = ""

    @property
    def enabled(self) -> bool:
        isatty = getattr(self._out, "isatty", None)
        return bool(isatty and isatty())

    def line(self) -> str:
        stats = self._reader.statistics()
        c = stats.compilation
        return (
            f"clmodes {self._title}{f' [{self.phase}]' if self.phase else ''}: "
            f"{c.compiled} kernels compiled, {c.loaded} loaded, {c.builds} builds, "
            f"{stats.autotune.keys} keys tuned, {time.perf_counter() - self._started:.1f} s"
        )

    def __enter__(self) -> "TerminalProgress":
        self._started = time.perf_counter()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="clmodes-progress", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._draw()

    def _draw(self, end: str = "") -> None:
        self._out.write("\r\x1b[K" + self.line() + end)
        self._out.flush()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._draw(end="\n")
