"""The terminal a progress line is drawn on, shared with everything else the process
writes there: that output goes on lines of its own above the progress line, never into it.

The trap: the progress line (`clmodes.progress`) is redrawn in place (`\\r`, erase to the
end of the line) and has no newline while it is shown. A compiler writes to the process's
file descriptor 2 from C, past Python's `sys.stderr` (PoCL's and Oclgrind's clang print
"1 warning generated."), so its text landed at the end of the progress line, and the
next redraw wiped or garbled it. Python-level redirection cannot see C's writes, and
clearing the line around each build would have to know every place that builds
(clmodes' batches, pyopencl's programs, a tune's candidates, another thread's work).

So, while the line is shown, the process's descriptors 1 and 2 that lead to that same
terminal point into a pipe instead. A relay thread reads the pipe and writes what
arrives, in whole lines, to the terminal itself (a duplicate of the descriptor kept
aside): it erases the progress line, writes the text, and draws the line again below it.
Everything written there meanwhile (the compiler's chatter, log records, the workload's
own prints) reaches the terminal in its order, only on its own lines; what a workload
asks meanwhile (`sys.stderr.isatty()`) answers for the pipe.

Only a stream that is a real terminal descriptor is shared this way: anything else (a
file, a pipe in CI, a test's fake terminal) gets the progress line written to it as
before, and no descriptor of the process is touched.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from typing import TextIO

ERASE = "\r\x1b[K"  # back to the line's start, erase to its end
_POLL_S = 0.1  # how often the relay looks whether it should stop
_DRAIN_S = 2.0  # the longest the relay may take to hand on what is left when it stops


class SharedTerminal:
    """Draws one line in place on `stream`; while it is open (`share()` ... `close()`),
    whatever else the process writes to the same terminal is put above that line."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._encoding = getattr(stream, "encoding", None) or "utf-8"
        self._lock = threading.Lock()
        self._line = ""  # the progress line shown now ("" once finished)
        self._terminal: int | None = None  # our duplicate of the terminal's descriptor
        self._saved: dict[int, int] = {}  # descriptor of the process -> its duplicate
        self._stop = threading.Event()
        self._relay: threading.Thread | None = None

    def share(self) -> None:
        """Point the process's descriptors that lead to this terminal into the relay."""
        shared = _same_terminal(self._stream)
        if not shared:
            return
        _flush_standard_streams()
        try:
            self._terminal = os.dup(self._stream.fileno())
            read, write = os.pipe()
        except OSError:  # out of descriptors: draw in place, as without sharing
            if self._terminal is not None:
                os.close(self._terminal)
                self._terminal = None
            return
        for fd in shared:
            self._saved[fd] = os.dup(fd)
            os.dup2(write, fd)
        os.close(write)
        self._relay = threading.Thread(target=self._pump, args=(read,),
                                       name="clmodes-terminal", daemon=True)
        self._relay.start()

    def draw(self, line: str) -> None:
        """Show `line` in place of the progress line."""
        with self._lock:
            self._line = line
            self._write(ERASE + line)

    def close(self, last: str | None = None) -> None:
        """Give the descriptors back, hand on what is left in the pipe, then end with
        `last` (if any) as the progress line's final form, followed by a newline."""
        if self._relay is not None:
            _flush_standard_streams()
            for fd, saved in self._saved.items():
                os.dup2(saved, fd)
                os.close(saved)
            self._saved.clear()
            self._stop.set()
            # A child process the workload started may still hold the pipe: never wait
            # on it for long (the relay is a daemon thread).
            self._relay.join(timeout=_DRAIN_S)
            self._relay = None
        with self._lock:
            if last is not None:
                self._write(ERASE + last + "\n")
            self._line = ""
            if self._terminal is not None:
                os.close(self._terminal)
                self._terminal = None

    def _pump(self, read: int) -> None:
        """The relay: whole lines from the pipe go above the progress line."""
        pending = b""
        try:
            while True:
                ready, _, _ = select.select([read], [], [], _POLL_S)
                if not ready:
                    if self._stop.is_set():
                        break
                    continue
                chunk = os.read(read, 65536)
                if not chunk:
                    break
                pending += chunk
                whole, newline, pending = pending.rpartition(b"\n")
                if newline:
                    self._above(whole + newline)
            if pending:
                self._above(pending + b"\n")
        finally:
            os.close(read)

    def _above(self, text: bytes) -> None:
        with self._lock:
            self._write(ERASE)
            self._write_bytes(text)
            if self._line:
                self._write(ERASE + self._line)

    def _write(self, text: str) -> None:
        if self._terminal is None:  # not shared: the stream as it is
            with contextlib.suppress(OSError, ValueError):
                self._stream.write(text)
                self._stream.flush()
            return
        self._write_bytes(text.encode(self._encoding, "replace"))

    def _write_bytes(self, data: bytes) -> None:
        if self._terminal is None:
            return
        view = memoryview(data)
        with contextlib.suppress(OSError):  # the terminal went away: nothing to show on
            while view:
                view = view[os.write(self._terminal, view):]


def _same_terminal(stream: TextIO) -> tuple[int, ...]:
    """The process's descriptors 1 and 2 that lead to the terminal `stream` writes to;
    none when `stream` is no terminal descriptor."""
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return ()
        own = os.fstat(fd)
    except (AttributeError, OSError, ValueError):  # no descriptor (io.UnsupportedOperation)
        return ()
    shared = []
    for each in (1, 2):
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(each), own):
                shared.append(each)
    return tuple(shared)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
