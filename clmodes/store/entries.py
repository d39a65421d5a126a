"""All of the store's entries at once, as typed rows: what a bundle exports and imports.

An import is one transaction and never overwrites: an entry already here (measured or
built on this machine) wins over one from elsewhere."""

from __future__ import annotations

import time

from clmodes.store import footprint, uses
from clmodes.store.binaries import add_binary_rows, binary_rows
from clmodes.store.contention import patiently
from clmodes.store.kernels import add_kernel_rows, kernel_rows
from clmodes.store.schema import StoreEntries
from clmodes.store.transactions import Database
from clmodes.store.tunes import add_tune_rows, tune_rows


def read_entries(db: Database, model: str | None = None, since: float | None = None) -> StoreEntries:
    """Every entry (or one device model's: tune results of the model, binaries and
    kernels of all its drivers); `since`: only those last used (or created) at or after
    that POSIX time, a binary's kernel rows with it."""
    found = StoreEntries(
        tune=tune_rows(db, model), binaries=binary_rows(db, model), kernels=kernel_rows(db, model)
    )
    if since is None:
        return found
    recent = {(e.kind, e.key) for e in footprint.entries(lambda sql: db.query(sql))
              if e.used >= since}
    binaries = [row for row in found.binaries if (uses.BINARY, row.key) in recent]
    kept = {row.key for row in binaries}
    return StoreEntries(
        tune=[row for row in found.tune if (uses.TUNE, row.key) in recent],
        binaries=binaries,
        kernels=[row for row in found.kernels if (row.exact, row.batch) in kept],
    )


def add_entries(db: Database, entries: StoreEntries) -> StoreEntries:
    """Insert entries in one transaction; an entry already here wins. Returns the entries
    that were added. Re-run once (`patiently`) if it met corruption: the store was
    moved aside and a fresh one opened, which then takes the entries."""
    return patiently(lambda: add_once(db, entries, time.time()))


def add_once(db: Database, entries: StoreEntries, now: float) -> StoreEntries:
    with db.transaction() as connection:
        return StoreEntries(
            tune=add_tune_rows(connection, entries.tune, now),
            binaries=add_binary_rows(connection, entries.binaries, now),
            kernels=add_kernel_rows(connection, entries.kernels),
        )
