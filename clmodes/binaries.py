"""Program binaries: loading batches from the store, and capturing built ones into it.

Capture is lazy, never at build time: reading a built program's BINARIES makes PoCL
generate code for every kernel in it (5.3 s for a 32-kernel program that built in 0.96 s),
so eager capture would erase the batching gain. `warm()` captures once, at the end.

Loading verifies the binary's checksum *before* handing it to the driver: PoCL crashes the
process on a truncated binary instead of returning an error. A binary the driver still
refuses (a driver changed under an unchanged version string) is dropped from the store
with a warning, and its kernels are rebuilt from source.
"""

from __future__ import annotations

import logging

import pyopencl as cl

from clmodes.batch import Batch
from clmodes.device import Device
from clmodes.launchable import ArgInfo
from clmodes.store import Store

log = logging.getLogger("clmodes")


def load_program(
    store: Store, device: Device, context: cl.Context, batch: str, options: tuple[str, ...]
) -> tuple[cl.Program, list[str]] | None:
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
    return program, units


def capture(
    store: Store,
    device: Device,
    batch: Batch,
    program: cl.Program,
    kernels: list[tuple[str, str, list[ArgInfo] | None]],
) -> bool:
    """Persist a built batch's binary and index its obtained kernels to it; False if the
    driver gave no binary."""
    binary = program.get_info(cl.program_info.BINARIES)[0]
    if not binary:
        log.info("%s returned no binary for batch %s; not persisted", device.label,
                 batch.content_hash[:12])
        return False
    rows = [(key, name, [a.as_row() for a in args] if args else None) for key, name, args in kernels]
    store.put_binary(
        device.fingerprint.exact, batch.content_hash, [u.unit_key for u in batch.units],
        bytes(binary), rows,
    )
    return True
