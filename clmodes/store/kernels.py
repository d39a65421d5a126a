"""The kernel index: which batch binary holds each kernel, per exact device and driver,
with the kernel's argument info, so that a process can load a kernel without building
or introspecting the program."""

from __future__ import annotations

import json
import sqlite3

from clmodes.store.schema import KernelRow, exact_filter
from clmodes.store.transactions import Database

INSERT = "INSERT OR {conflict} INTO kernels VALUES (?, ?, ?, ?, ?)"
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
    found: dict[str, str] = {}
    for start in range(0, len(kernel_keys), CHUNK):
        chunk = kernel_keys[start : start + CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(db.query(
            f"SELECT kernel_key, batch FROM kernels WHERE exact=? AND kernel_key IN ({marks})",  # noqa: S608
            (exact, *chunk),
        ))
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
    insert = INSERT.format(conflict="IGNORE")
    return [row for row in rows if connection.execute(insert, row.values()).rowcount]
