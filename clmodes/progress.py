"""Progress of a long pass (warm), drawn on a terminal and silent everywhere else.

Library code logs and never prints; progress is the one exception the contract asks for,
and it only ever writes to a stream that is a TTY (a person watching), never into a log
file or a CI transcript. It redraws one line from a background thread, reading the
statistics through a `StatisticsReader`, which opens nothing and can be read any time.

Totals are known only once the gathering pass has run (which keys have no winner, which
kernels wait to be built), so the line shows counts first and "done of found" after
`found(...)`, with the elapsed time throughout. The kernel total grows while tuning: a
tune queues the kernels of the candidates it chooses to measure only then (a searched
space's), so it is what has been obtained plus what waits in the compile queues now.

While the line is shown, whatever else the process writes to that terminal (a
compiler's "1 warning generated." from C, log records) goes on lines of its own above
it (`clmodes.shared_terminal`), never into it.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from collections.abc import Callable
from typing import TextIO

from clmodes.execution import StatisticsReader
from clmodes.shared_terminal import SharedTerminal


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
        self._keys: int | None = None
        self._kernels: int | None = None
        self._pending: Callable[[], int] | None = None
        self._terminal = SharedTerminal(self._out)

    def found(self, keys: int, kernels: int, pending: Callable[[], int] | None = None) -> None:
        """The totals the gathering pass found: untuned keys, kernels to obtain; `pending`:
        how many kernels wait to be obtained now (the total grows by those queued later)."""
        self._keys, self._kernels, self._pending = keys, kernels, pending

    @property
    def enabled(self) -> bool:
        isatty = getattr(self._out, "isatty", None)
        return bool(isatty and isatty())

    def line(self) -> str:
        stats = self._reader.statistics()
        c = stats.compilation
        keys = f"{stats.autotune.keys}" + (f" of {self._keys}" if self._keys is not None else "")
        counts = f"{c.compiled} compiled, {c.loaded} loaded, {c.builds} builds"
        if self._kernels is None:
            kernels = f"kernels {counts}"
        else:
            total = max(self._kernels, c.kernels + (self._pending() if self._pending else 0))
            kernels = f"{c.kernels} of {total} kernels obtained ({counts})"
        return (f"clmodes {self._title}{f' [{self.phase}]' if self.phase else ''}: "
                f"{keys} keys tuned, {kernels}, {time.perf_counter() - self._started:.1f} s")

    def __enter__(self) -> "TerminalProgress":
        self._started = time.perf_counter()
        if self.enabled:
            self._terminal.share()
            self._thread = threading.Thread(target=self._run, name="clmodes-progress", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._terminal.draw(self.line())

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._terminal.close(last=self.line())
