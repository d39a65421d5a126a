"""The pyopencl programs of one device: obtained once, from the store or from source.

What `Program.build` on a managed context turns into (`builds`). A program is obtained
like a clmodes kernel: from memory if this process already holds it, else from the
store (counted `loaded`), else built from source (counted `compiled`, one `builds`),
and its binary is persisted only if the workload asked for it (built it or launched one of
its kernels) while a warm or a compile-mode override recorded, at the
same points as clmodes kernels (`warm()`'s end, the outermost compile override closing;
`capture.persist` calls `persist` here, beside each server's own).

Why each program is built on its own, even under `COMPILE_ONLY`: pyopencl needs the
built program's kernels the moment `build()` returns (`ElementwiseKernel`,
`ReductionKernel` and the scans call `getattr(program, name)` and `set_arg_types` on them
at once, and memoize them per context for the rest of the process), so a build cannot
wait for a batch. What a warm buys instead is that no later process builds it again: it
loads the binary, and a bundle ships it.

Counts: a program counts its kernels (`NUM_KERNELS`) as obtained, the same number when it
is built (warm) and when it is loaded (later), so `compiled` of a warm is `loaded` of the
process after it.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections.abc import Callable
from typing import Any

import pyopencl as cl
import pyopencl._cl as _cl

from clmodes import compiler_output
from clmodes.device import Device
from clmodes.execution import Counter, misses, tally, usage
from clmodes.execution.misses import Miss, MissKind
from clmodes.pyopencl_hooks import registry
from clmodes.pyopencl_hooks.identity import program_key
from clmodes.store import Store

log = logging.getLogger("clmodes")

_KERNEL_NAME = re.compile(r"__kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+)", re.S)


@dataclasses.dataclass
class HeldSource:
    """One pyopencl program this device holds."""

    key: str
    program: _cl._Program
    name: str  # its first kernel's name: what the store and the logs call it
    built_here: bool  # built from source in this process: its binary can be captured
    captured: bool = False


class SourcePrograms:
    """The pyopencl programs of one device's server (`DeviceServer.pyopencl`)."""

    def __init__(self, device: Device, context: cl.Context, store: Callable[[], Store]) -> None:
        self.device = device
        self.context = context
        self._store = store
        self._lock = threading.RLock()  # one obtain at a time per device
        self._held: dict[str, HeldSource] = {}

    def obtain(self, source: str | bytes, options: bytes) -> _cl._Program:
        """The built program of `source` under the compiler `options` pyopencl chose."""
        key = program_key(source, options)
        with self._lock:
            held = self._held.get(key)
            if held is None:
                held = self._load(key, options)
                if held is None:
                    self._report_miss(key, source, options)  # may raise StrictMissError
                    held = self._build(key, source, options)
                self._held[key] = held
                registry.add_program(held.program.int_ptr, held)
            # Building is a use: pyopencl builds programs it never launches (a scan's
            # candidate kernels, to choose its work-group size), and builds them again
            # in the next process, so "used only" persists every program asked for
            # while a warm records, not only the launched ones.
            usage.note(key)
            return held.program

    def held(self) -> int:
        """How many pyopencl programs this device holds (introspection)."""
        with self._lock:
            return len(self._held)

    def _load(self, key: str, options: bytes) -> HeldSource | None:
        store, exact = self._store(), self.device.fingerprint.exact
        batch = store.kernel_batches(exact, [key]).get(key)
        found = None if batch is None else store.get_binary(exact, batch)
        if batch is None or found is None:
            return None
        try:
            program = _cl._Program(self.context, [self.device.cl_device], [found[0]])
            with compiler_output.stderr_logged(f"stored pyopencl program {key[:12]}"):
                program.build(options, [self.device.cl_device])
        except cl.Error as error:
            log.warning("%s refused the stored binary of pyopencl program %s (%s); "
                        "rebuilding it from source", self.device.label, key[:12],
                        str(error).splitlines()[0])
            store.drop_binary(exact, batch)
            return None
        return self._count(HeldSource(key, program, _first_name(program), False, True),
                           Counter.LOADED)

    def _report_miss(self, key: str, source: str | bytes, options: bytes) -> None:
        """A pyopencl program about to be built from source is a miss (`clmodes check`),
        named by its first `__kernel` (known only once built, so read from the text)."""
        text = source.decode(errors="replace") if isinstance(source, bytes) else source
        found = _KERNEL_NAME.search(text)
        name = found.group(1) if found else "pyopencl_program"
        descriptor: dict[str, object] = {"name": name, "source": key[:16], "defines": {},
                      "options": options.decode(errors="replace").split(), "includes": None}
        misses.report(lambda: Miss(
            MissKind.KERNEL, name, self.device.label,
            self._store().why_kernel_missed(self.device.fingerprint.exact, key, name, descriptor)))

    def _build(self, key: str, source: str | bytes, options: bytes) -> HeldSource:
        program = _cl._Program(self.context, source)
        tally(Counter.BUILDS)
        with compiler_output.stderr_logged(f"pyopencl program {key[:12]} on {self.device.label}"):
            program.build(options, [self.device.cl_device])  # raises the compiler's error
        return self._count(HeldSource(key, program, _first_name(program), True), Counter.COMPILED)

    @staticmethod
    def _count(held: HeldSource, counter: Counter) -> HeldSource:
        info: Any = held.program.get_info(cl.program_info.NUM_KERNELS)
        kernels = int(info)
        tally(counter, kernels)
        tally(Counter.KERNELS, kernels)
        return held

    def persist(self, store: Store, used: set[str] | None) -> int:
        """Capture the programs built here whose kernels ran (all, if `used` is None).
        Returns the number of binaries written."""
        with self._lock:
            wanted = [h for h in self._held.values() if h.built_here and not h.captured
                      and (used is None or h.key in used)]
            return sum(self._capture(store, held) for held in wanted)

    def _capture(self, store: Store, held: HeldSource) -> int:
        binaries: Any = held.program.get_info(cl.program_info.BINARIES)
        binary = binaries[0]
        if not binary:
            log.info("%s returned no binary for pyopencl program %r; not persisted",
                     self.device.label, held.name)
            return 0
        store.put_binary(self.device.fingerprint.exact, held.key, [held.key], bytes(binary),
                         [(held.key, held.name, None)])
        held.captured = True
        return 1


def _first_name(program: _cl._Program) -> str:
    names = str(program.get_info(cl.program_info.KERNEL_NAMES))
    return names.split(";")[0] or "pyopencl_program"
