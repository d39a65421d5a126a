"""The embedded store: one SQLite database of tune results, probe results and program
binaries, shared by every process on the machine.

Why SQLite: several processes (a CI matrix, a warm script beside a running service) share
one store. WAL lets readers proceed while one writer commits; a busy timeout makes a second
writer wait instead of failing; every write is a transaction (`BEGIN IMMEDIATE`), so a
reader never sees half an entry. Values are data (JSON text, raw binaries), never pickle.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (see `contention`); a database
file that is still not a database a moment later, or found damaged by any later read or
write, is moved aside (with one warning, by one process) and a fresh one started
(`recovery`); a store file that cannot be written is read, its writes kept in memory
(`readonly`); a location that cannot be written and holds no store falls back to an
in-memory database (with a warning); a row that does not parse is a miss (with a
warning).

Modules: `location` (where the store lives), `connection` (opening), `readonly` (a store
that cannot be written), `recovery` (moving a corrupt store aside, process-safely),
`contention` (waiting out other processes), `transactions` (transactions, deferral),
`schema` (tables and typed rows), one module per table (`tunes`, `probes`, `binaries`,
`kernels`), `entries` (all rows at once, for bundles), `maintenance` (info, clear), and
`store` (the `Store` class that puts them together).
"""

from clmodes.store.connection import FILENAME
from clmodes.store.location import default_location
from clmodes.store.schema import (
    FORMAT_VERSION,
    SCHEMA_VERSION,
    BinaryRow,
    KernelRow,
    ProbeRow,
    StoreEntries,
    TuneRow,
)
from clmodes.store.store import Store

__all__ = [
    "FILENAME",
    "FORMAT_VERSION",
    "SCHEMA_VERSION",
    "BinaryRow",
    "KernelRow",
    "ProbeRow",
    "Store",
    "StoreEntries",
    "TuneRow",
    "default_location",
]
