"""Held programs: what a server built or loaded, and how its binaries reach the store.

Capture is lazy, never at build time: reading a built program's BINARIES makes PoCL
generate code for every kernel in it (several times the build itself: the capture part
of ci/bench/bench_warm.py's breakdown measures it), so eager capture would erase the
batching gain. `warm()` captures once, at the end, and
only what the workload used. Where the runtime caches its own builds (PoCL with its kernel
cache on), the capture reads no binary at all: it stores the batch's `SourceRecord`, and a
later load builds that text again, from PoCL's cache (`clmodes.source_records`).

Loading verifies the binary's checksum *before* handing it to the driver (the store does:
PoCL crashes the process on a truncated binary instead of returning an error). A binary
the driver still refuses (a driver changed under an unchanged version string) is dropped
from the store with a warning, and its kernels are rebuilt from source; so is one whose
persisted argument info is malformed (`clmodes.arginfo`: a wrong shape, or a count that
is not its kernel's), since a launch would index it past its end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import dataclasses
import json
import logging
from collections.abc import Callable

import pyopencl as cl

from clmodes import compiler_output
from clmodes.device import Device
from clmodes.arginfo import ArgInfo, MalformedArgInfo, count_problem
from clmodes.kernel import unit_suffix
from clmodes import building
from clmodes.source_records import MalformedRecord, SourceRecord, kept_as_source
from clmodes.store import Store
from clmodes.store.binaries import KernelSpec
from clmodes.pyopencl_hooks import registry

if TYPE_CHECKING:
    from clmodes.batch.program import Batch  # a source build's batch: imported where one is made

log = logging.getLogger("clmodes")


@dataclasses.dataclass(frozen=True)
class ObtainedKernel:
    """A kernel obtained from a held program, as persisting needs it."""

    name: str
    args: list[ArgInfo] | None
    unit: str  # unit key


@dataclasses.dataclass
class HeldProgram:
    """A program a server holds: built here from source, or loaded from the store."""

    batch: str  # content hash
    program: cl.Program
    source: Batch | None  # the batch, when built here (and so capturable)
    kernels: dict[str, ObtainedKernel] = dataclasses.field(default_factory=dict)
    # Unit key -> the batch whose binary in the store holds it (all units of a loaded
    # program; the captured ones of a program built here).
    captured: dict[str, str] = dataclasses.field(default_factory=dict)
    # Argument info persisted with a loaded binary, per kernel key: some drivers (Intel's)
    # drop it from programs created from binaries.
    stored_args: dict[str, list[ArgInfo] | None] = dataclasses.field(default_factory=dict)
    # Batch hash -> the batch (source and options) whose binary capture stored: what an
    # offline build for another device compiles (`clmodes.offline`).
    stored_sources: dict[str, Batch] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        # Its launches come through `Stream.launch`, already decided: the pyopencl launch
        # hook lets them through (any other program on a managed context gets a verdict).
        registry.add_own(self.program)


def load(store: Store, device: Device, context: cl.Context, batch: str,
         options: tuple[str, ...]) -> HeldProgram | None:
    """The program of a stored batch, built from its binary (or its `SourceRecord`); None
    if absent or refused."""
    exact = device.fingerprint.exact
    found = store.get_binary(exact, batch)
    if found is None:
        return None
    payload, units = found
    try:
        record = SourceRecord.decode(payload)
    except MalformedRecord as error:
        log.warning("the stored source record of batch %s is malformed (%s); dropping it "
                    "and building from source", batch[:12], error)
        store.drop_binary(exact, batch)
        return None
    try:
        program = _program(device, context, batch, record or payload, options)
    except cl.Error as error:
        what = "source record" if record else "binary"
        log.warning("%s refused the stored %s of batch %s (%s); rebuilding from source",
                    device.label, what, batch[:12], str(error).splitlines()[0])
        store.drop_binary(exact, batch)
        return None
    try:
        stored_args = stored_arg_infos(store, exact, batch, program, units)
    except MalformedArgInfo as error:
        log.warning("%s: the stored argument info of batch %s is malformed (%s); dropping "
                    "its binary and building from source", device.label, batch[:12], error)
        store.drop_binary(exact, batch)
        return None
    return HeldProgram(batch, program, None, stored_args=stored_args,
                       captured=dict.fromkeys(units, batch))


def _program(device: Device, context: cl.Context, batch: str, stored: SourceRecord | bytes,
             options: tuple[str, ...]) -> cl.Program:
    """A stored program, built: a record again from its own text and options (PoCL's
    cache finds it: `source_records`), a binary with `options`."""
    if isinstance(stored, SourceRecord):
        return building.build_source(context, device, stored.source, stored.options,
                                     f"the stored source of batch {batch[:12]}", stored=True)
    program = cl.Program(context, [device.cl_device], [stored])
    with compiler_output.logged(f"the stored binary of batch {batch[:12]}"):
        program.build(options=list(options), devices=[device.cl_device])
    return program


def binary_of(record: SourceRecord, device: Device, context: cl.Context) -> bytes:
    """The binary `record` builds to on `device`: what a bundle ships in its place (a
    machine installing it has no kernel cache holding the record's code yet)."""
    program = (building.build_exact(context, device, record.source, " ".join(record.options),
                                    "a stored pyopencl program's source record", stored=True)
               if record.exact else
               building.build_source(context, device, record.source, record.options,
                                     "a stored source record", stored=True))
    with compiler_output.stderr_logged("the binary of a stored source record"):
        return bytes(program.get_info(cl.program_info.BINARIES)[0])


def drop(store: Store, device: Device, held: HeldProgram, lacking: str) -> None:
    """A loaded binary without the entry point of a kernel indexed to it (a binary of
    another program under this batch's hash): dropped like a refused one, with one
    warning; kernels already created from it keep running here, but it is never indexed
    again (`captured` empty), so the next process builds them all from source."""
    log.warning(
        "the stored binary of batch %s has no kernel %r, which the store says it holds on %s; "
        "rebuilding from source", held.batch[:12], lacking, device.label,
    )
    store.drop_binary(device.fingerprint.exact, held.batch)
    held.captured.clear()


def stored_arg_infos(store: Store, exact: str, batch: str, program: cl.Program,
                     units: list[str]) -> dict[str, list[ArgInfo] | None]:
    """Kernel key -> its persisted argument info, each checked for its shape and against
    the number of arguments its kernel in `program` takes (a launch indexes it by
    position; a name shared by units of the batch may be any of theirs):
    `MalformedArgInfo` if any is wrong."""
    try:
        taken = {k.function_name: int(k.num_args) for k in program.all_kernels()}
    except cl.Error:  # each kernel is still created by name, and refused there
        taken = {}
    found: dict[str, list[ArgInfo] | None] = {}
    for row in store.batch_kernel_rows(exact, batch):
        try:
            infos = ArgInfo.from_rows(json.loads(row.args))
        except (ValueError, TypeError) as error:  # MalformedArgInfo, or not JSON text
            raise MalformedArgInfo(f"kernel {row.name[:60]!r}: {error}") from error
        entries = [row.name, *(row.name + unit_suffix(u) for u in units)]
        problem = count_problem(infos, {taken[e] for e in entries if e in taken})
        if problem is not None:
            raise MalformedArgInfo(f"kernel {row.name[:60]!r}: {problem}")
        found[row.kernel_key] = infos
    return found


Builder = Callable[["Batch"], cl.Program]


def persist(store: Store, device: Device, held: HeldProgram, used: set[str] | None,
            build: Builder) -> int:
    """Capture the kernels of `held` in `used` (all, if None) that were built here, and
    index each to the binary holding it. Returns the number of binaries written."""
    wanted = {k: o for k, o in held.kernels.items() if used is None or k in used}
    new_units = {o.unit for o in wanted.values()} - held.captured.keys()
    written = 0
    if new_units and held.source is not None:
        written += capture(store, device, held, new_units, build)
    _index(store, device, held, wanted)
    return written


def capture(store: Store, device: Device, held: HeldProgram, units: set[str],
            build: Builder) -> bool:
    """Persist a binary holding `units` of a program built here: its `SourceRecord` where
    the runtime caches its builds itself (`source_records.kept_as_source`), else its
    binary. Only `units`' kernels are indexed to it."""
    assert held.source is not None
    if kept_as_source(device):
        # The whole batch, as built: PoCL's cache holds this program, not a subset's.
        batch, payload = held.source, SourceRecord(held.source.source, held.source.options).encode()
    else:
        found = _binary(device, held, units, build)
        if found is None:
            return False
        batch, payload = found
    holds = set(batch.keys)
    rows = [(key, o.name, _arg_rows(o.args)) for key, o in held.kernels.items()
            if o.unit in units and o.unit in holds]
    store.put_binary(device.fingerprint.exact, batch.content_hash, batch.keys, payload, rows)
    held.captured.update(dict.fromkeys(holds, batch.content_hash))
    held.stored_sources[batch.content_hash] = batch
    return True


def _binary(device: Device, held: HeldProgram, units: set[str],
            build: Builder) -> tuple[Batch, bytes] | None:
    """The binary of a program of just `units` and its batch; None if the driver gives none.

    When the program also holds units nobody used (a tune's losing candidates), a program
    of just these units is built for the capture (`build`, not counted in `builds`: it
    obtains nothing). Reading BINARIES makes PoCL generate code for every kernel of a
    program, far longer for the MLP's whole tune batch than for its few used units
    (ci/bench/bench_warm.py measures the capture), and a store or a bundle has no use
    for losers."""
    assert held.source is not None
    batch, program = held.source, held.program
    if units != set(batch.keys):
        subset = batch.subset(units)
        try:
            batch, program = subset, build(subset)
        except cl.Error as error:  # it built inside the bigger batch; keep that one
            log.info("capture build of %d units failed on %s (%s); capturing the whole batch",
                     len(units), device.label, str(error).splitlines()[0])
    with compiler_output.stderr_logged(f"the binary of batch {batch.content_hash[:12]}"):
        binary = program.get_info(cl.program_info.BINARIES)[0]
    if not binary:
        log.info("%s returned no binary for batch %s; not persisted", device.label,
                 batch.content_hash[:12])
        return None
    return batch, bytes(binary)


def _index(store: Store, device: Device, held: HeldProgram,
           kernels: dict[str, ObtainedKernel]) -> None:
    """Point each kernel's row at the stored binary holding its unit."""
    by_batch: dict[str, list[KernelSpec]] = {}
    for key, obtained in kernels.items():
        batch = held.captured.get(obtained.unit)
        if batch is not None:
            by_batch.setdefault(batch, []).append((key, obtained.name, _arg_rows(obtained.args)))
    for batch, rows in by_batch.items():
        store.index_kernels(device.fingerprint.exact, batch, rows)


def _arg_rows(args: list[ArgInfo] | None) -> list[list[object]] | None:
    return [a.as_row() for a in args] if args else None
