"""Launches of hooked pyopencl programs that may still be running: waited for before any
program's binary is read (`capture.persist`).

Why: reading a program's `BINARIES` on PoCL generates the generic work-group function of
each of its kernels and enters its handle at the front of PoCL's process-wide list of
loaded kernels, with a count of 0. A launch of that kernel still running when it does so
releases its handle by the kernel's hash and local size alone; for a kernel with
`reqd_work_group_size` (every kernel loopy writes) the new entry has that local size, is
found first, and PoCL aborts the process (`pocl_release_dlhandle_cache: Assertion
'found->ref_count > 0' failed`, Debian's PoCL 3.1; PyPI's 3.0, built without assertions,
miscounts silently). pyopencl launches return at once, and `clmodes run` captures when
the program returns, with its last launches still queued (loopy's `hello-loopy.py`);
a plain run never reads `BINARIES` on PoCL, so it lives. Waiting for those launches
(the program asked for them: they were going to run anyway) removes the overlap on every
runtime, whatever the capture reads.

Noted on the launch hook's slow path (`launches`), which every launch takes while usage
is recorded: a warm, a compile-mode override, `clmodes run`, the only times a capture
reads binaries. Finished launches are dropped as the list grows, so a long run holds only
what may still be running. A launch still running after `SETTLE_SECONDS` (a command
waiting on a user event nobody sets) is reported, and its program is not read.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import pyopencl as cl

SETTLE_SECONDS = 120.0  # how long a capture waits for the launches still running
_FIRST_PRUNE = 256  # noted launches before the finished ones are first dropped
_POLL_FIRST, _POLL_MOST = 0.001, 0.05  # seconds between two looks while waiting


@dataclasses.dataclass(frozen=True)
class Launch:
    """One launch of a hooked program: the program's key and the launch's event."""

    key: str
    event: cl.Event

    def finished(self) -> bool:
        """Complete, or ended by an error (a negative status): nothing runs any more."""
        try:
            status = self.event.command_execution_status
        except cl.Error:  # the event cannot be asked: nothing left to wait for
            return True
        return int(status) <= cl.command_execution_status.COMPLETE


_lock = threading.Lock()
_running: list[Launch] = []
_prune_at = _FIRST_PRUNE


def note(key: str, event: cl.Event) -> None:
    """A launch of the hooked program `key` was enqueued; `event` is its event."""
    global _prune_at
    with _lock:
        _running.append(Launch(key, event))
        if len(_running) >= _prune_at:
            _running[:] = [launch for launch in _running if not launch.finished()]
            _prune_at = max(_FIRST_PRUNE, 2 * len(_running))  # never a scan per launch


def settle(seconds: float = SETTLE_SECONDS) -> set[str]:
    """Wait until every noted launch has finished, at most `seconds`; the keys of the
    programs with a launch still running then (their binaries must not be read yet)."""
    with _lock:
        waiting = list(_running)
        _running.clear()
    _flush(waiting)
    deadline, pause = time.monotonic() + seconds, _POLL_FIRST
    while True:
        waiting = [launch for launch in waiting if not launch.finished()]
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(2 * pause, _POLL_MOST)
    with _lock:
        _running.extend(waiting)  # a later capture waits for them again
    return {launch.key for launch in waiting}


def _flush(launches: list[Launch]) -> None:
    """Submit what each queue holds: a command never flushed may never start."""
    flushed: set[int] = set()
    for launch in launches:
        try:
            queue = launch.event.command_queue
            if queue.int_ptr not in flushed:
                flushed.add(queue.int_ptr)
                queue.flush()
        except cl.Error:
            continue
