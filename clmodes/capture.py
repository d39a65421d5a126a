"""Persisting the binaries a compile-mode run used, when its outermost override closes.

A process that ran its workload under `ProcessModeOverride(COMPILE_AND_AUTOTUNE)` itself
(instead of through `warm()`) used to persist its tune results but none of its binaries,
so the next process compiled everything again. While any compile-mode override is open
(`COMPILE_ONLY`, `COMPILE_AND_AUTOTUNE`) the kernels launched are recorded; when the last
one closes, the programs holding them are captured into the store, exactly as `warm()`
does (used kernels only: a tune's losing candidates are not persisted).

When binaries are persisted: at the end of `warm()`, and when the outermost compile-mode
override closes, in one transaction per store (all of them, or none: a process killed
during the capture leaves the store as it was). Not: for kernels only ever run under
`EXECUTE` (a plain run compiles what it launches and keeps it in memory: capturing costs
seconds per program on PoCL, which a production process should not pay on its first
launch), and never into a store in memory.
`warm()` suspends this capture (`suspended()`): it persists inside its own deferred
transaction.
"""

from __future__ import annotations

import logging
import threading
from contextlib import ExitStack, contextmanager
from collections.abc import Iterator

from clmodes.execution import overrides, usage
from clmodes.pyopencl_hooks import inflight
from clmodes.runtime import Runtime, live_runtimes

log = logging.getLogger("clmodes")


class OverrideCapture:
    """The `CompileListener` that records usage and persists at the outermost close."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recording: ExitStack | None = None
        self._used: set[str] | None = None
        self._suspended = 0  # a depth, not a flag: nested warm() calls compose

    def compile_started(self) -> None:
        with self._lock:
            if self._recording is None:
                self._recording = ExitStack()
                self._used = self._recording.enter_context(usage.recording())

    def compile_ended(self) -> None:
        with self._lock:
            recording, used = self._recording, self._used
            self._recording = self._used = None
            suspended = self._suspended > 0
        if recording is None:
            return
        recording.close()
        if suspended or not used:
            return
        try:
            persist(used)
        except Exception as error:  # noqa: BLE001 - a failed capture never fails the caller
            log.warning("could not persist the binaries this run used: %s", error)

    @contextmanager
    def suspended(self) -> Iterator[None]:
        with self._lock:
            self._suspended += 1
        try:
            yield
        finally:
            with self._lock:
                self._suspended -= 1


def persist(used: set[str], runtimes: list[Runtime] | None = None) -> int:
    """Capture the programs holding `used` kernels on every device of each runtime (all
    live ones by default) into that runtime's store (nothing into one in memory), and the
    pyopencl programs `used` names (see `pyopencl_hooks.held`); binaries written.
    `warm()` calls it with its own runtime.

    The launches of pyopencl programs still running are waited for first: reading a
    program's binary while one of its kernels runs makes PoCL abort the process
    (`pyopencl_hooks.inflight`); a program still running after the wait is not read."""
    running = inflight.settle() & used
    if running:
        log.warning("not persisting %d pyopencl program(s) whose launches were still running "
                    "after %.0f s", len(running), inflight.SETTLE_SECONDS)
        used = used - running
    written = 0
    for runtime in live_runtimes() if runtimes is None else runtimes:
        store = runtime.store
        if store.in_memory:
            continue
        # One transaction per store: every binary of the run and its kernel index, or
        # none (a process killed meanwhile leaves the store as it was). `warm()` already
        # defers, into its own transaction.
        with ExitStack() as held:
            if not store.deferring:
                held.enter_context(store.deferred("the programs this run used"))
            for client in runtime.clients():
                client.finish()  # no launch of clmodes' kernels running into a BINARIES read
                if store.failures:  # a capture's commit refused before: capture again
                    client.server.forget_captures()
            # A device's clmodes batches, then the pyopencl programs built on its context.
            written += sum(client.server.persist(store, used)
                           + client.server.pyopencl.persist(store, used)
                           for client in runtime.clients())
    if written:
        log.info("persisted %d program binaries of the kernels used", written)
    return written


CAPTURE = OverrideCapture()
overrides.listen(CAPTURE)
suspended = CAPTURE.suspended
