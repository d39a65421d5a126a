"""A bundle ships code: each stored `SourceRecord` built into its binary at export.

Why: a record is worth keeping only beside the kernel cache that holds its code (PoCL's,
on the machine that built it: `clmodes.source_records`); the machine installing a bundle
has no such cache, and a bundle's load check runs each binary's code. So export builds
each record on the device it was stored for and ships the binary, as the store would have
held it with PoCL's kernel cache off. A record whose device is not on this machine, or
which no longer builds, is left out with its kernel index and a warning (a bundle of the
rest is still worth writing).

The trap: on PoCL that build reads `BINARIES`, which generates code for every kernel of
the batch, a tune's losers included: the MLP's one record took 10.3 s to export alone and
17.8-18.5 s two at once (load ~1; 104-115 s beside a loaded test run), and every export
and every `warm --sign` publish paid it again. So the binary built is kept in the store
in the record's place (`store.binaries.keep_built`, when a store is given): the next
export or publish of that store reads it as it is (0.5 s). A binary in the store loads
like any other, on PoCL too (faster than the record's build from PoCL's cache).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging

import pyopencl as cl

from clmodes import programs
from clmodes.device import Device
from clmodes.discovery import devices
from clmodes.errors import DeviceUnusableError
from clmodes.runtime import client
from clmodes.source_records import MalformedRecord, SourceRecord
from clmodes.store import binaries as stored
from clmodes.store.schema import BinaryRow, StoreEntries
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")


def compiled(entries: StoreEntries, store: Database | None = None) -> StoreEntries:
    """`entries` with every record replaced by its binary (or left out: module doc);
    `store`, the one they were read from, keeps each binary built in its record's place."""
    binaries: list[BinaryRow] = []
    left_out: set[tuple[str, str]] = set()
    for row in entries.binaries:
        shipped = shipped_row(row, store)
        if shipped is None:
            left_out.add((row.exact, row.batch))
        else:
            binaries.append(shipped)
    kernels = [k for k in entries.kernels if (k.exact, k.batch) not in left_out]
    return StoreEntries(entries.tune, binaries, kernels)


def shipped_row(row: BinaryRow, store: Database | None = None) -> BinaryRow | None:
    """The row as a bundle ships it: a binary as it is, a record built (and kept in
    `store` in the record's place); None: left out."""
    try:
        record = SourceRecord.decode(row.binary)
    except MalformedRecord as error:
        log.warning("batch %s: its stored source record is malformed (%s); not exported",
                    row.batch[:12], error)
        return None
    if record is None:
        return row
    device = _device(row.exact)
    if device is None:
        log.warning("batch %s is stored as its source for %s, which this machine does not "
                    "have; not exported", row.batch[:12], row.exact)
        return None
    try:
        binary = programs.binary_of(record, device, client(device).context)
    except (cl.Error, DeviceUnusableError) as error:
        log.warning("batch %s: its stored source no longer builds on %s (%s); not exported",
                    row.batch[:12], device.label, str(error).splitlines()[0])
        return None
    if store is not None and stored.keep_built(store, row, binary):
        log.debug("batch %s: its source record built on %s; the binary kept in its place",
                  row.batch[:12], device.label)
    return dataclasses.replace(row, binary=binary, sha256=hashlib.sha256(binary).hexdigest())


def _device(exact: str) -> Device | None:
    return next((d for d in devices() if d.fingerprint.exact == exact), None)
