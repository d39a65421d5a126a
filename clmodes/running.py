"""`clmodes run`: an existing pyopencl program, unchanged, through the store.

A pyopencl program makes its own contexts (`cl.create_some_context()`, `cl.Context(...)`)
and never hands them to clmodes, so its programs never reach the store: every process
compiles them again, and a warm finds nothing to warm. Under `running()` every
one-device context a source program is built on is adopted at that build, however the
program made it (`cl.Context`, `create_some_context`, or pyopencl's array, elementwise,
reduction and scan machinery building on the program's context): the build hook asks
`registry.owner_or_adopted`, so the program is loaded from the store or built, counted,
and persisted when the run ends, exactly like a program on a context handed over with
`clmodes.client(context=ctx)`.

The program runs for real (`EXECUTE`): its checks hold, its output is its own. A context
of several devices cannot be filed under one device; it is left to pyopencl with one
warning (its programs count as outside clmodes).

The program sees every platform clmodes can use: Intel's CPU runtime from PyPI is
registered with the ICD loader (`clmodes.icd`) when the block starts, before the program's
first OpenCL call. Registering only when clmodes first listed devices (at the program's
first build) came after the loader had read `OCL_ICD_VENDORS`, at the program's own first
call: `PYOPENCL_CTX=Intel` matched no platform though `clmodes devices` listed Intel.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyopencl as cl

from clmodes.capture import persist
from clmodes.execution import (
    ExecutionStatistics,
    ProcessMode,
    ProcessModeOverride,
    StatisticsCollector,
    StatisticsReader,
)
from clmodes.execution import misses, usage
from clmodes.execution.misses import Miss, MissKind
from clmodes.icd import register_pypi_runtimes
from clmodes.pyopencl_hooks import install as install_hooks
from clmodes.pyopencl_hooks import registry
from clmodes.runtime import default_runtime

log = logging.getLogger("clmodes")


@dataclasses.dataclass(frozen=True)
class RunReport:
    """What a run compiled from source (each with why the store could not serve it),
    its statistics, the binaries it persisted, and how long it took."""

    built: tuple[Miss, ...]
    statistics: ExecutionStatistics
    persisted: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {"built": [m.as_dict() for m in self.built], **self.statistics.as_dict(),
                "persisted": self.persisted, "seconds": round(self.seconds, 3)}


class RunSession:
    """Filled when `running()` ends: the run's report."""

    report: RunReport | None = None


class _Adopter:
    """Adopts a one-device context at the first source build on it; warns once for a
    context it cannot adopt."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: set[int] = set()

    def __call__(self, context: cl.Context) -> "registry.SourcePrograms | None":
        try:
            default_runtime().client(context=context)
        except (TypeError, ValueError) as error:
            with self._lock:
                first = context.int_ptr not in self._refused
                self._refused.add(context.int_ptr)
            if first:
                log.warning("clmodes run: a context left to pyopencl: %s", error)
            return None
        return registry.owner_of(context)


@contextmanager
def adopting() -> Iterator[None]:
    """Every context a source program is built on meanwhile is adopted (`clmodes.run`).
    The runtimes clmodes registers are registered first, so that the code in the block
    sees every platform `clmodes devices` lists (the loader reads its folder once, at the
    process's first OpenCL call, which may be the block's)."""
    register_pypi_runtimes()
    install_hooks()
    registry.set_adopter(_Adopter())
    try:
        yield
    finally:
        registry.set_adopter(None)


@contextmanager
def running(collector: StatisticsCollector | None = None) -> Iterator[RunSession]:
    """Run what the block runs for real, with every context adopted; when it ends (by
    an exception too: what was built is still good), persist the programs it built and
    launched, and fill the session's report.

    `collector`: count into this one (`warm(..., execute=True)` draws its progress from
    it while the block runs); by default a collector of the run's own."""
    session = RunSession()
    collector = StatisticsCollector() if collector is None else collector
    started = time.perf_counter()
    found: list[Miss] = []
    used: set[str] = set()
    try:
        with adopting(), misses.noting() as found, usage.recording() as used, \
                ProcessModeOverride(ProcessMode.EXECUTE, collector):
            yield session
    finally:
        written = _persisted(used)
        built = tuple(m for m in found if m.kind is MissKind.KERNEL)
        session.report = RunReport(built, StatisticsReader(collector).statistics(), written,
                                   time.perf_counter() - started)


def _persisted(used: set[str]) -> int:
    try:
        return persist(used, [default_runtime()])
    except Exception as error:  # noqa: BLE001 - a failed capture never fails the program
        log.warning("clmodes run: could not persist the programs this run built: %s", error)
        return 0
