"""The binaries table: a batch's program binary per exact device and driver.

A binary is checked against its sha256 on every read: one that fails (a damaged file,
a partial write) is dropped with its kernel index and rebuilt from source."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time

from clmodes.store.kernels import KernelSpec, drop_kernels, index_kernels
from clmodes.store.schema import BinaryRow, exact_filter
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")

INSERT = "INSERT OR {conflict} INTO binaries VALUES (?, ?, ?, ?, ?, ?)"


def put_binary(
    db: Database, exact: str, batch: str, units: list[str], binary: bytes, kernels: list[KernelSpec]
) -> None:
    """A batch's program binary and the index from each of its kernels to it."""
    row = BinaryRow(exact, batch, json.dumps(units), binary, hashlib.sha256(binary).hexdigest())
    db.write(INSERT.format(conflict="REPLACE"), parameters(row, time.time()))
    index_kernels(db, exact, batch, kernels)


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
    insert = INSERT.format(conflict="IGNORE")
    return [row for row in rows if connection.execute(insert, parameters(row, now)).rowcount]


def parameters(row: BinaryRow, created: float) -> tuple[object, ...]:
    """A row as SQLite parameters: the binary as a BLOB, not text."""
    return (row.exact, row.batch, row.units, sqlite3.Binary(row.binary), row.sha256, created)
