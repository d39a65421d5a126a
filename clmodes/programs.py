"""Held programs: what a server built or loaded, and how its binaries reach the store.

Capture is lazy, never at build time: reading a built program's BINARIES makes PoCL
generate code for every kernel in it (5.3 s for a 32-kernel program that built in 0.96 s),
so eager capture would erase the batching gain. `warm()` captures once, at the end, and
only what the workload used.

Loading verifies the binary's checksum *before* handing it to the driver (the store does:
PoCL crashes the process on a truncated binary instead of returning an error). A binary
the driver still refuses (a driver changed under an unchanged version string) is dropped
from the store with a warning, and its kernels are rebuilt from source.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

import pyopencl as cl

from clmodes.batch import Batch
from clmodes.device import Device
from clmodes.launchable import ArgInfo
from clmodes.store import Store
from clmodes.pyopencl_hooks import registry

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

    def __post_init__(self) -> None:
        # Its launches come through `Stream.launch`, already decided: the pyopencl launch
        # hook lets them through (any other program on a managed context gets a verdict).
        registry.add_own(self.program)


def load(store: Store, device: Device, context: cl.Context, batch: str,
         options: tuple[str, ...]) -> HeldProgram | None:
    """The program of a stored batch, built from its binary; None if absent or refused."""
    exact = device.fingerprint.exact
    found = store.get_binary(exact, batch)
    if found is None:
        return None
    binary, units = found
    try:
        program = cl.Program(context, [device.cl_device], [binary])
        program.build(options=list(options), devices=[device.cl_device])
    except cl.Error as error:
        log.warning(
            "%s refused the stored binary of batch %s (%s); rebuilding from source",
            device.label, batch[:12], str(error).splitlines()[0],
        )
        store.drop_binary(exact, batch)
        return None
    stored_args = {key: ArgInfo.from_rows(args)
                   for key, args in store.batch_kernels(exact, batch).items()}
    return HeldProgram(batch, program, None, stored_args=stored_args,
                       captured=dict.fromkeys(units, batch))


Builder = Callable[[Batch], cl.Program]


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
    """Persist a binary holding `units` of a program built here.

    When the program also holds units nobody used (a tune's losing candidates), a program
    of just these units is built for the capture (`build`, not counted in `builds`: it
    obtains nothing). Reading BINARIES makes PoCL generate code for every kernel of a
    program, 42 s for the MLP's 26-kernel batch where its 4 used units take a few, and a
    store or a bundle has no use for losers."""
    assert held.source is not None
    batch, program = held.source, held.program
    if units != set(batch.keys):
        subset = batch.subset(units)
        try:
            batch, program = subset, build(subset)
        except cl.Error as error:  # it built inside the bigger batch; keep that one
            log.info("capture build of %d units failed on %s (%s); capturing the whole batch",
                     len(units), device.label, str(error).splitlines()[0])
            units = set(batch.keys)
    binary = program.get_info(cl.program_info.BINARIES)[0]
    if not binary:
        log.info("%s returned no binary for batch %s; not persisted", device.label,
                 batch.content_hash[:12])
        return False
    rows = [(key, o.name, _arg_rows(o.args)) for key, o in held.kernels.items() if o.unit in units]
    store.put_binary(device.fingerprint.exact, batch.content_hash, batch.keys, bytes(binary), rows)
    held.captured.update(dict.fromkeys(units, batch.content_hash))
    return True


def _index(store: Store, device: Device, held: HeldProgram,
           kernels: dict[str, ObtainedKernel]) -> None:
    """Point each kernel's row at the stored binary holding its unit."""
    by_batch: dict[str, list[tuple[str, str, object]]] = {}
    for key, obtained in kernels.items():
        batch = held.captured.get(obtained.unit)
        if batch is not None:
            by_batch.setdefault(batch, []).append((key, obtained.name, _arg_rows(obtained.args)))
    for batch, rows in by_batch.items():
        store.index_kernels(device.fingerprint.exact, batch, rows)


def _arg_rows(args: list[ArgInfo] | None) -> list[list[object]] | None:
    return [a.as_row() for a in args] if args else None
