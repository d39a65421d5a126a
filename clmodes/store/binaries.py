"""Program binaries and the kernel index that points into them.

## The binaries table

The binaries table: a batch's program binary per exact device and driver.

A binary is checked against its sha256 on every read: one that fails (a damaged file,
a partial write) is dropped with its kernel index and rebuilt from source.

## The kernel index

The kernel index: which batch binary holds each kernel, per exact device and driver,
with the kernel's argument info, so that a process can load a kernel without building
or introspecting the program.

## Absent kernels

The absent_kernel table: kernels a build from source on this exact device showed its
source does not define (a name a scan of the text finds inside an `#if` branch the
options leave out, or a caller probing for an optional kernel). Without it a later
process builds the unit again only to learn the same thing: two units of John the
Ripper, 30 s on Intel's runtime. The kernel key covers the source, options and included
files, and `exact` the compiler, so the fact holds as long as the key does. Not carried
in bundles (a target builds and learns it), and not pruned by size (a row is a name).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from typing import Any

from clmodes.store.schema import BinaryRow, KernelRow, exact_filter
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")


BINARY_INSERT = "INSERT OR {conflict} INTO binaries VALUES (?, ?, ?, ?, ?, ?)"


def put_binary(
    db: Database, exact: str, batch: str, units: list[str], binary: bytes, kernels: list[KernelSpec]
) -> None:
    """A batch's program binary and the index from each of its kernels to it."""
    row = BinaryRow(exact, batch, json.dumps(units), binary, hashlib.sha256(binary).hexdigest())
    db.write(BINARY_INSERT.format(conflict="REPLACE"), binary_parameters(row, time.time()))
    index_kernels(db, exact, batch, kernels)


def keep_built(db: Database, row: BinaryRow, binary: bytes) -> bool:
    """Put the binary a stored source record built (`bundle.compiling`) in the record's
    place, so that the next export or publish of the store builds nothing: on PoCL that
    build reads `BINARIES`, seconds of code generation each time. Only while the row
    still holds that record (its sha256: a row rewritten meanwhile is kept), and never on
    a read-only store (it would be copied into memory for a write nobody keeps). Whether
    it was written."""
    if db.read_only:
        return False
    return db.write("UPDATE binaries SET binary=?, sha256=? WHERE exact=? AND batch=? AND sha256=?",
                    (sqlite3.Binary(binary), hashlib.sha256(binary).hexdigest(), row.exact,
                     row.batch, row.sha256))


def get_binary(db: Database, exact: str, batch: str) -> tuple[bytes, list[str]] | None:
    """A batch's binary and unit keys, or None if absent or failing its checksum."""
    rows = db.query(
        "SELECT binary, sha256, units FROM binaries WHERE exact=? AND batch=?", (exact, batch)
    )
    if not rows:
        return None
    binary, digest, units = rows[0]
    binary = bytes(binary) if isinstance(binary, (bytes, memoryview)) else b""
    try:
        unit_list = json.loads(units)
    except ValueError:
        unit_list = None
    if hashlib.sha256(binary).hexdigest() != digest or not isinstance(unit_list, list):
        log.warning(
            "clmodes store %s: program binary %s fails its checksum; rebuilding from source",
            db.location, batch[:12],
        )
        drop_binary(db, exact, batch)
        return None
    return binary, unit_list


def drop_binary(db: Database, exact: str, batch: str) -> None:
    drop_kernels(db, exact, batch)
    db.write("DELETE FROM binaries WHERE exact=? AND batch=?", (exact, batch))


def binary_rows(db: Database, model: str | None) -> list[BinaryRow]:
    """Every binary, or those of one device model (all its drivers)."""
    where, filter_parameters = exact_filter(model)
    return [
        BinaryRow(exact, batch, units, bytes(binary), digest)
        for exact, batch, units, binary, digest in db.query(
            f"SELECT {BinaryRow.columns()} FROM binaries" + where, filter_parameters)
    ]


def add_binary_rows(connection: sqlite3.Connection, rows: list[BinaryRow], now: float) -> list[BinaryRow]:
    """Insert inside the caller's transaction; a binary already here wins. Returns the
    rows that were added."""
    insert = BINARY_INSERT.format(conflict="IGNORE")
    return [row for row in rows if connection.execute(insert, binary_parameters(row, now)).rowcount]


def binary_parameters(row: BinaryRow, created: float) -> tuple[object, ...]:
    """A row as SQLite parameters: the binary as a BLOB, not text."""
    return (row.exact, row.batch, row.units, sqlite3.Binary(row.binary), row.sha256, created)


KERNEL_INSERT = "INSERT OR {conflict} INTO kernels VALUES (?, ?, ?, ?, ?)"
CHUNK = 500  # kernel keys per query: well under SQLite's limit on parameters

KernelSpec = tuple[str, str, list[list[object]] | None]
"""(kernel key, kernel name, argument info or None)."""


# Only while the batch's binary is there: a warm re-indexing a binary it loaded, committed
# after a prune evicted that binary, would otherwise leave rows pointing at nothing.
INDEX = ("INSERT OR REPLACE INTO kernels SELECT ?, ?, ?, ?, ? WHERE EXISTS "
         "(SELECT 1 FROM binaries WHERE exact=? AND batch=?)")


def index_kernels(db: Database, exact: str, batch: str, kernels: list[KernelSpec]) -> None:
    """Point each kernel at the batch binary holding it (written after the binary, in the
    same transaction or later)."""
    for key, name, args in kernels:
        db.write(INDEX, (*KernelRow(exact, key, batch, name, json.dumps(args)).values(), exact, batch))


def kernel_batches(db: Database, exact: str, kernel_keys: list[str]) -> dict[str, str]:
    """kernel key -> batch hash, for the kernels the store holds binaries of."""
    return dict(rows_of_keys(db, "SELECT kernel_key, batch FROM kernels", exact, kernel_keys))


def rows_of_keys(db: Database, select: str, exact: str, kernel_keys: list[str]) -> list[tuple[Any, ...]]:
    """`select`'s rows for this exact device and these kernel keys, asked in chunks."""
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(kernel_keys), CHUNK):
        chunk = kernel_keys[start : start + CHUNK]
        marks = ",".join("?" * len(chunk))
        found.extend(db.query(f"{select} WHERE exact=? AND kernel_key IN ({marks})", (exact, *chunk)))
    return found


def batch_kernels(db: Database, exact: str, batch: str) -> dict[str, object]:
    """kernel key -> argument info (parsed JSON, None if unreadable) of one batch."""
    found: dict[str, object] = {}
    for key, args in db.query(
        "SELECT kernel_key, args FROM kernels WHERE exact=? AND batch=?", (exact, batch)
    ):
        try:
            found[key] = json.loads(args)
        except ValueError:
            found[key] = None
    return found


def batch_kernel_rows(db: Database, exact: str, batch: str) -> list[KernelRow]:
    """The index rows of one batch, as stored (argument info as its JSON text)."""
    return [KernelRow.of(row) for row in db.query(
        f"SELECT {KernelRow.columns()} FROM kernels WHERE exact=? AND batch=?", (exact, batch))]  # noqa: S608


def drop_kernels(db: Database, exact: str, batch: str) -> None:
    db.write("DELETE FROM kernels WHERE exact=? AND batch=?", (exact, batch))


def kernel_rows(db: Database, model: str | None) -> list[KernelRow]:
    """Every indexed kernel, or those of one device model (all its drivers)."""
    where, parameters = exact_filter(model)
    return [KernelRow.of(row)
            for row in db.query(f"SELECT {KernelRow.columns()} FROM kernels" + where, parameters)]


def add_kernel_rows(connection: sqlite3.Connection, rows: list[KernelRow]) -> list[KernelRow]:
    """Insert inside the caller's transaction; an index entry already here wins. Returns
    the rows that were added."""
    insert = KERNEL_INSERT.format(conflict="IGNORE")
    return [row for row in rows if connection.execute(insert, row.values()).rowcount]


def put_absent(db: Database, exact: str, kernels: list[tuple[str, str]]) -> None:
    """Record (kernel key, name) pairs that a build from source showed absent."""
    now = time.time()
    for key, name in kernels:
        db.write("INSERT OR IGNORE INTO absent_kernel VALUES (?, ?, ?, ?)", (exact, key, name, now))


def absent(db: Database, exact: str, kernel_keys: list[str]) -> set[str]:
    """The kernel keys among these that a build from source showed absent."""
    return {key for (key,) in rows_of_keys(db, "SELECT kernel_key FROM absent_kernel", exact, kernel_keys)}
