"""The embedded store: one SQLite database of tune results, probe results and program
binaries, shared by every process on the machine.

Why SQLite: several processes (a CI matrix, a warm script beside a running service) share
one store. WAL lets readers proceed while one writer commits; a busy timeout makes a second
writer wait instead of failing; every write is a transaction (`BEGIN IMMEDIATE`), so a
reader never sees half an entry. Values are data (JSON text, raw binaries), never pickle.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (see `recovery`); a database
file that is still not a database a moment later, or found damaged by any later read or
write, is moved aside (with one warning, by one process) and a fresh one started
(`recovery`); a store file that cannot be written is read, its writes kept in memory
(`connection`); a location that cannot be written and holds no store falls back to an
in-memory database (with a warning); a row that does not parse is a miss (with a
warning).

Modules, lowest first: `recovery` (waiting out other processes; moving a corrupt store
aside, process-safely), `schema` (tables and typed rows), `connection` (where the store
lives, opening it, a store that cannot be written), `transactions` (one connection,
transactions, deferral); then the tables by concept: `binaries` (program binaries and
the kernel index), `tuning` (decisions, measurements, leases), `device_facts` (probes,
device checks, compiler macros), `misses` (why a lookup missed), `footprint` (last uses
and entry sizes), `tiers` (the read-through tier and remote origins), `pruning` (prune,
info, clear); and `store` (the `Store` class that puts them together, and bundles' entries).
"""

from clmodes.store.connection import FILENAME
from clmodes.store.connection import default_location
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
