"""The bundle's payload: an SQLite database of store rows, each binary stored once.

Binaries are deduplicated by sha256 (`blobs`): the same program built for two drivers
of a device, or merged in from two bundles, is carried once. Reading goes through a
read-only connection to a temporary copy and an integrity check; what the rows *mean*
is checked by `clmodes.bundle.validation`."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from clmodes.store import BinaryRow, KernelRow, StoreEntries, TuneRow

PAYLOAD_SCHEMA = """
CREATE TABLE tune (format INTEGER, model TEXT, tunable TEXT, tune_key TEXT, candidates TEXT,
                   value TEXT, PRIMARY KEY (format, model, tunable, tune_key, candidates));
CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, data BLOB);
CREATE TABLE binaries (exact TEXT, batch TEXT, units TEXT, sha256 TEXT,
                       PRIMARY KEY (exact, batch));
CREATE TABLE kernels (exact TEXT, kernel_key TEXT, batch TEXT, name TEXT, args TEXT,
                      PRIMARY KEY (exact, kernel_key));
"""


@contextmanager
def scratch_file() -> Iterator[Path]:
    """A path for the payload database, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="clmodes-bundle-") as directory:
        yield Path(directory) / "payload.sqlite3"


def encode(entries: StoreEntries) -> bytes:
    """The payload database's bytes (vacuumed: no free pages, no stale data)."""
    with scratch_file() as file:
        connection = sqlite3.connect(file)
        with connection:
            connection.executescript(PAYLOAD_SCHEMA)
            connection.executemany(f"INSERT INTO tune VALUES ({TuneRow.placeholders()})",
                                   [row.values() for row in entries.tune])
            for row in entries.binaries:
                connection.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)",
                                   (row.sha256, sqlite3.Binary(row.binary)))
                connection.execute("INSERT INTO binaries VALUES (?, ?, ?, ?)",
                                   (row.exact, row.batch, row.units, row.sha256))
            connection.executemany(f"INSERT INTO kernels VALUES ({KernelRow.placeholders()})",
                                   [row.values() for row in entries.kernels])
        connection.execute("VACUUM")
        connection.close()
        return file.read_bytes()


def decode(payload: bytes) -> StoreEntries:
    """The rows of a payload; `sqlite3.Error` if it is not an intact database."""
    with scratch_file() as file:
        file.write_bytes(payload)
        connection = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            return read_rows(connection)
        finally:
            connection.close()


def read_rows(connection: sqlite3.Connection) -> StoreEntries:
    if connection.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        raise sqlite3.DatabaseError("integrity check failed")
    blobs = dict(connection.execute("SELECT sha256, data FROM blobs"))
    binaries = []
    for exact, batch, units, digest in connection.execute(
        "SELECT exact, batch, units, sha256 FROM binaries ORDER BY exact, batch"
    ):
        data = blobs.get(digest)
        binaries.append(BinaryRow(exact, batch, units, bytes(data) if data is not None else b"", digest))
    return StoreEntries(
        tune=connection.execute(
            f"SELECT {TuneRow.columns()} FROM tune ORDER BY model, tunable, tune_key").fetchall(),
        binaries=binaries,
        kernels=connection.execute(
            f"SELECT {KernelRow.columns()} FROM kernels ORDER BY exact, kernel_key").fetchall(),
    )
