"""One server per OpenCL device: its context, compile queue, obtained kernels and streams.

The server acts on verdicts; it never derives them (see `execution.modes`).

Obtaining a kernel flushes the *whole* compile queue in one `Program.build`: a build's
fixed cost (front end start-up, code generation set-up) dominates small kernels, so one
build of N units is many times cheaper than N builds. Builds are serialized per device by
a build lock, while launches of already-obtained kernels read a dict without any lock,
so a long batch build never stalls work that is ready to run.

A batch that fails is split in halves and each half rebuilt, down to single units: a unit
that cannot batch or does not compile is isolated, the rest stay usable, and its error
(kernel, device, build log) is raised each time that kernel is obtained.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Sequence

import pyopencl as cl

from clmodes.batch import Batch, group_into_batches
from clmodes.device import Device
from clmodes.errors import KernelBuildError
from clmodes.execution import Counter, LaunchMode, record
from clmodes.kernel import Kernel
from clmodes.launchable import Launchable

log = logging.getLogger("clmodes")

# Always requested: argument info lets launches check and convert arguments by name.
BUILD_OPTIONS = ("-cl-kernel-arg-info",)


class DeviceServer:
    """The state of one device. Created once per device by `clmodes.client()`."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.context = cl.Context([device.cl_device])
        self._lock = threading.Lock()  # guards the queue and the streams
        self._build_lock = threading.RLock()  # one build at a time; obtain() re-enters via flush()
        self._queue: dict[str, Kernel] = {}
        self._obtained: dict[str, Launchable] = {}
        self._failed: dict[str, KernelBuildError] = {}
        self._programs: dict[str, tuple[Batch, cl.Program]] = {}
        # Every unit built so far -> its program: another entry point of an already built
        # unit (two kernels of one source) is obtained from it without a new build.
        self._unit_programs: dict[str, cl.Program] = {}

    # -- the compile queue -------------------------------------------------------------

    def enqueue(self, kernel: Kernel) -> None:
        """Queue a kernel for the next batch, unless it is already obtained or queued."""
        key = kernel.key
        if key in self._obtained or key in self._failed:
            return
        with self._lock:
            self._queue.setdefault(key, kernel)

    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    def is_obtained(self, kernel: Kernel) -> bool:
        return kernel.key in self._obtained

    def obtain(self, kernel: Kernel) -> Launchable:
        """The kernel ready to launch; builds it and everything queued with it if needed."""
        found = self._obtained.get(kernel.key)
        if found is not None:
            return found
        with self._build_lock:
            if kernel.key not in self._obtained and kernel.key not in self._failed:
                program = self._unit_programs.get(kernel.unit_key)
                if program is not None:
                    self._adopt(program, [kernel])
                else:
                    self.enqueue(kernel)
                    self.flush()
        found = self._obtained.get(kernel.key)
        if found is None:
            raise self._failed[kernel.key]
        return found

    def flush(self) -> None:
        """Build everything queued now. Callers hold no lock but may hold the build lock."""
        with self._build_lock:
            with self._lock:
                kernels, self._queue = list(self._queue.values()), {}
            for batch in group_into_batches(kernels):
                self._build_isolating(batch, kernels)

    # -- building ----------------------------------------------------------------------

    def _build_isolating(self, batch: Batch, kernels: list[Kernel]) -> None:
        try:
            program = self._build(batch)
        except cl.Error as error:
            if len(batch.units) > 1:
                log.info(
                    "batch of %d units failed on %s; splitting to isolate",
                    len(batch.units), self.device.label,
                )
                for half in batch.halves():
                    self._build_isolating(half, kernels)
                return
            self._fail(batch, kernels, _build_log(error, self.device.cl_device))
            return
        self._programs[batch.content_hash] = (batch, program)
        units = {u.unit_key for u in batch.units}
        for unit in units:
            self._unit_programs[unit] = program
        self._adopt(program, [k for k in kernels if k.unit_key in units])

    def _build(self, batch: Batch) -> cl.Program:
        """One real `Program.build`, bypassing pyopencl's own (pickle-based) cache."""
        program = cl.Program(cl._cl._Program(self.context, batch.source))
        record(Counter.BUILDS)
        started = time.perf_counter()
        program.build(options=[*BUILD_OPTIONS, *batch.options], devices=[self.device.cl_device])
        log.debug(
            "built %d units on %s in %.3f s",
            len(batch.units), self.device.label, time.perf_counter() - started,
        )
        return program

    def _adopt(self, program: cl.Program, kernels: list[Kernel]) -> None:
        """Create the kernels of a built program and count them as compiled."""
        adopted = 0
        for kernel in kernels:
            try:
                cl_kernel = cl.Kernel(program, kernel.entry_name)
            except cl.Error:
                self._failed[kernel.key] = KernelBuildError(
                    kernel.name, self.device.label,
                    f"its source has no __kernel function named {kernel.name!r}",
                )
                continue
            self._obtained[kernel.key] = Launchable.create(
                kernel.name, self.device.cl_device, self.device.label, cl_kernel
            )
            adopted += 1
        record(Counter.COMPILED, adopted)
        record(Counter.KERNELS, adopted)

    def _fail(self, batch: Batch, kernels: list[Kernel], build_log: str) -> None:
        unit = batch.units[0].unit_key
        for kernel in kernels:
            if kernel.unit_key == unit:
                log.warning("kernel %r failed to build on %s", kernel.name, self.device.label)
                self._failed[kernel.key] = KernelBuildError(kernel.name, self.device.label, build_log)

    # -- launching ---------------------------------------------------------------------

    def launch(
        self,
        queue: cl.CommandQueue,
        kernel: Kernel,
        verdict: LaunchMode,
        global_size: Sequence[int],
        local_size: Sequence[int] | None,
        args: tuple[object, ...],
    ) -> cl.Event | None:
        """Act on a verdict resolved by the caller's thread."""
        if verdict is LaunchMode.QUEUE:
            self.enqueue(kernel)
            return None
        launchable = self._obtained.get(kernel.key) or self.obtain(kernel)
        if verdict is LaunchMode.COMPILE:
            return None
        return launchable.enqueue(queue, global_size, local_size, args)


def _build_log(error: cl.Error, device: cl.Device) -> str:
    """The compiler's log, without pyopencl's repeated 'clBuildProgram failed' preamble."""
    text = str(error)
    match = re.search(r"Build on <[^>]*>:\s*", text)
    if match:
        text = text[match.end():]
    return text.split("\n(options:")[0].strip() or "(the compiler wrote no log)"
