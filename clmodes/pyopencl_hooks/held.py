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

from clmodes import building, compiler_output
from clmodes.device import Device
from clmodes.execution import Counter, misses, tally, usage
from clmodes.execution.misses import Miss, MissKind
from clmodes.pyopencl_hooks import registry
from clmodes.pyopencl_hooks.identity import program_key, source_digest
from clmodes.source_records import MalformedRecord, SourceRecord, kept_as_source
from clmodes.store import Store
from clmodes.store.misses import Descriptor

log = logging.getLogger("clmodes")
UNNAMED = "pyopencl_program"  # a program whose text names no kernel

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_ATTRIBUTE = re.compile(r"\b__attribute__\s*\(")
_KERNEL_NAME = re.compile(r"\b(?:__)?kernel\s+void\s+(\w+)\s*\(")


@dataclasses.dataclass
class HeldSource:
    """One pyopencl program this device holds."""

    key: str
    program: _cl._Program
    name: str  # its first kernel's name: what the store and the logs call it
    built_here: bool  # built from source in this process: its binary can be captured
    captured: bool = False
    descriptor: Descriptor | None = None  # built here: its identity, recorded with its binary
    # What pyopencl built it from (built here): its `SourceRecord` where PoCL caches its
    # own builds (`_capture`).
    source: str | bytes | None = None
    options: bytes = b""


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
                    descriptor = _descriptor(source, options)
                    self._report_miss(key, descriptor)  # may raise StrictMissError
                    held = self._build(key, source, options, descriptor)
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
            program = self._stored_program(key, found[0], options)
        except (cl.Error, MalformedRecord) as error:
            log.warning("%s refused the stored binary of pyopencl program %s (%s); "
                        "rebuilding it from source", self.device.label, key[:12],
                        str(error).splitlines()[0])
            store.drop_binary(exact, batch)
            return None
        return self._count(HeldSource(key, program, _first_name(program), False, True),
                           Counter.LOADED)

    def _stored_program(self, key: str, payload: bytes, options: bytes) -> _cl._Program:
        """A stored program built: its binary, or its source record built again exactly
        as pyopencl built it, which PoCL's kernel cache finds (`source_records`)."""
        record = SourceRecord.decode(payload)
        if record is not None:
            return building.build_exact(self.context, self.device, record.source,
                                        " ".join(record.options),
                                        f"stored pyopencl program {key[:12]}", stored=True)
        program = _cl._Program(self.context, [self.device.cl_device], [payload])
        with compiler_output.logged(f"stored pyopencl program {key[:12]}"):
            program.build(options, [self.device.cl_device])
        return program

    def _report_miss(self, key: str, descriptor: Descriptor) -> None:
        """A pyopencl program about to be built from source is a miss (`clmodes check`),
        named by its first `__kernel` (known only once built, so read from the text)."""
        name = str(descriptor["name"])
        misses.report(lambda: Miss(
            MissKind.KERNEL, name, self.device.label,
            self._store().why_kernel_missed(self.device.fingerprint.exact, key, name, descriptor)))

    def _build(self, key: str, source: str | bytes, options: bytes,
               descriptor: Descriptor) -> HeldSource:
        tally(Counter.BUILDS)
        program = building.build_exact(self.context, self.device, source, options,
                                       f"pyopencl program {key[:12]}")  # raises its error
        # Stored under the name its miss reported, so that the next miss of another text
        # of it finds this one as a namesake and names the source as what differs.
        name = str(descriptor["name"]) if descriptor["name"] != UNNAMED else _first_name(program)
        return self._count(HeldSource(key, program, name, True, descriptor=descriptor,
                                      source=source, options=options), Counter.COMPILED)

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

    def forget_captures(self) -> None:
        """Take the programs built here as not yet captured (`DeviceServer.forget_captures`)."""
        with self._lock:
            for held in self._held.values():
                if held.built_here:
                    held.captured = False

    def _capture(self, store: Store, held: HeldSource) -> int:
        """Persist a program built here: its `SourceRecord` where PoCL caches its own
        builds, else its binary. Why: reading BINARIES on PoCL generates every kernel's
        code, which a plain run never pays (a first `clmodes run` of a silx script: 140 s
        against 15 s plain); PoCL's cache holds what pyopencl built, so building the
        record again in the next process finds it, as a plain second run does."""
        payload = _record(held) if kept_as_source(self.device) else None
        if payload is None:
            with compiler_output.stderr_logged(f"the binary of pyopencl program {held.name}"):
                binaries: Any = held.program.get_info(cl.program_info.BINARIES)
            payload = binaries[0]
        if not payload:
            log.info("%s returned no binary for pyopencl program %r; not persisted",
                     self.device.label, held.name)
            return 0
        exact = self.device.fingerprint.exact
        store.put_binary(exact, held.key, [held.key], bytes(payload), [(held.key, held.name, None)])
        if held.descriptor is not None:
            store.put_kernel_identities(exact, [(held.key, held.name, held.descriptor)])
        held.captured = True
        return 1


def _record(held: HeldSource) -> bytes | None:
    """A program's source record, or None where its text or options are not UTF-8 (a
    record is JSON text, and must build byte for byte what pyopencl built)."""
    try:
        source = held.source.decode() if isinstance(held.source, bytes) else held.source
        options = held.options.decode()
    except UnicodeDecodeError:
        return None
    if not source:
        return None
    return SourceRecord(source, (options,) if options else (), exact=True).encode()


def _first_name(program: _cl._Program) -> str:
    names = str(program.get_info(cl.program_info.KERNEL_NAMES))
    return names.split(";")[0] or UNNAMED


def _descriptor(source: str | bytes, options: bytes) -> Descriptor:
    """The parts of a program's identity a miss compares (`clmodes.store.misses`): its
    first kernel's name, its text's digest, its options."""
    text = source.decode(errors="replace") if isinstance(source, bytes) else source
    return {"name": first_kernel_name(text) or UNNAMED, "source": source_digest(text),
            "defines": {}, "options": options.decode(errors="replace").split(), "includes": None}


def first_kernel_name(text: str) -> str | None:
    """The name of the first kernel an OpenCL C text defines, or None.

    Attributes may stand anywhere in the declaration (`__kernel __attribute__((...)) void
    f(`, `__kernel void __attribute__((...)) f(`, loopy's way, or before `__kernel`), and
    hold nested parentheses (`reqd_work_group_size(16, 1, 1)`), so they are cut out, with
    comments, before the declaration is matched; `kernel` is `__kernel`'s other spelling."""
    found = _KERNEL_NAME.search(_without_attributes(_COMMENT.sub(" ", text)))
    return found.group(1) if found else None


def _without_attributes(text: str) -> str:
    parts, at = [], 0
    for found in _ATTRIBUTE.finditer(text):
        if found.start() < at:
            continue  # inside an attribute already cut
        parts.append(text[at:found.start()])
        at = _closing(text, found.end() - 1)
    parts.append(text[at:])
    return " ".join(parts)


def _closing(text: str, opening: int) -> int:
    """Just past the parenthesis that closes the one at `opening` (the text's end if none)."""
    depth = 0
    for i in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return len(text)
