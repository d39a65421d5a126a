"""`clmodes.warm(workload)`: compile, tune and persist everything a workload needs.

Two passes over the workload's own code, so that what gets warmed is exactly what the
workload launches (no separate list of kernels to keep in sync):

1. `COMPILE_ONLY`: every launch queues its kernel, every untuned key queues all its
   candidates' kernels; nothing builds, nothing runs.
2. `COMPILE_AND_AUTOTUNE`: the queues are flushed first (one batch build per device and
   set of options), then the workload runs again: tunes measure, launches are dropped.

Then every program holding a kernel the workload launched is captured into the store
(only those: a long-lived process holds many programs, and capturing a binary costs
seconds per program on PoCL). All store writes of the warm are
held and committed at the end in one transaction: a workload that raises leaves the store
exactly as it was, and its exception propagates with its own traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TextIO


from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
)
from clmodes.progress import TerminalProgress
from clmodes.execution import usage
from clmodes.runtime import all_clients, default_runtime, default_store

log = logging.getLogger("clmodes")


def warm(workload: Callable[[], object], *, progress: TextIO | None = None) -> ExecutionStatistics:
    """Warm `workload` (a zero-argument callable); return what it compiled and tuned.

    Progress is drawn on `progress` (default: standard error) only if it is a terminal.
    """
    collector = StatisticsCollector()
    reader = StatisticsReader(collector)
    store = default_store()
    started = time.perf_counter()
    with TerminalProgress(reader, "warm", progress) as shown, store.deferred(), \
            usage.recording() as used:
        shown.phase = "gathering"
        with ProcessModeOverride(ProcessMode.COMPILE_ONLY, collector):
            workload()
        shown.phase = "compiling and tuning"
        with ProcessModeOverride(ProcessMode.COMPILE_AND_AUTOTUNE, collector):
            for client in all_clients():
                client.server.flush()
            workload()
        shown.phase = "persisting"
        for client in all_clients():
            client.server.persist(store, used)
    # Another process may have committed a different winner for a key first (the first
    # recorded wins): forget what memory holds so every later call reads the store's.
    default_runtime().tunes.forget()
    statistics = reader.statistics()
    log.info("warmed %r in %.2f s: %s", workload, time.perf_counter() - started, statistics)
    return statistics
