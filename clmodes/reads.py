"""A workload's reads of device memory while launches are dropped.

Under COMPILE_ONLY and COMPILE_AND_AUTOTUNE launches are dropped, so what a workload reads
back meanwhile is whatever the buffers held: a self-check fails, a loop that stops on a
computed value runs to its cap. clmodes cannot make those values right, but it can say
so: while a discarding mode is active (and only then: the hook costs nothing otherwise),
`pyopencl.enqueue_copy` is wrapped, and each copy from device memory to the host that the
workload makes (`Array.get()` goes through it) is counted into the live overrides'
collectors (`Counter.READS`, in warm's report); the first one is logged once, with its
caller's file and line. Reads made by clmodes itself (a tune checking a candidate's
output, on a stream it runs for real) are not the workload's and are not counted.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pyopencl as cl

from clmodes.execution import overrides
from clmodes.execution.modes import ProcessMode
from clmodes.execution.counters import Counter

log = logging.getLogger("clmodes")

_PYOPENCL = os.path.dirname(cl.__file__) + os.sep
_CLMODES = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _ReadWatch:
    """The wrap of `pyopencl.enqueue_copy`, installed while a compile mode is active."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._original: Callable[..., Any] | None = None
        self._warned = False
        self._held = 0  # `one_warning()` blocks open: a warm's two passes warn once

    def compile_started(self) -> None:
        with self._lock:
            if self._original is None:
                self._original = cl.enqueue_copy
                cl.enqueue_copy = self._wrap(self._original)
            if not self._held:
                self._warned = False

    def compile_ended(self) -> None:
        with self._lock:
            if self._original is not None:
                cl.enqueue_copy = self._original
                self._original = None

    @contextmanager
    def one_warning(self) -> Iterator[None]:
        """Warn at most once for the reads of this block, whatever modes it opens."""
        with self._lock:
            self._held += 1
            if self._held == 1:
                self._warned = False
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1

    def _wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def enqueue_copy(queue: Any, dest: Any, src: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(src, cl.MemoryObjectHolder) and not isinstance(dest, cl.MemoryObjectHolder):
                self._seen(sys._getframe(1))
            return original(queue, dest, src, *args, **kwargs)

        enqueue_copy.__doc__ = original.__doc__
        enqueue_copy.__wrapped__ = original  # type: ignore[attr-defined]
        return enqueue_copy

    def _seen(self, frame: Any) -> None:
        if overrides.process_mode() is ProcessMode.EXECUTE:
            return
        while frame is not None and frame.f_code.co_filename.startswith(_PYOPENCL):
            frame = frame.f_back
        if frame is None or frame.f_code.co_filename.startswith(_CLMODES):
            return  # clmodes' own read (a tune checking outputs), not the workload's
        overrides.tally(Counter.READS)
        with self._lock:
            first, self._warned = not self._warned, True
        if first:
            log.warning(
                "the workload read device memory at %s:%d under %s, where launches "
                "are dropped: the values read are meaningless (count: reads in the report; "
                "a warmable workload is driven by shapes and never branches on a computed "
                "value)", frame.f_code.co_filename, frame.f_lineno,
                overrides.process_mode().name)


WATCH = _ReadWatch()
overrides.listen(WATCH)
