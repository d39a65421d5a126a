"""The bundle's payload: an SQLite database of store rows, each binary stored once, and
how it is read as the hostile data it may be.

**The tables are derived, never written out twice.** Each field of `StoreEntries` is a
table; its columns are its `Row` dataclass's fields, their SQL types those of the same
table in the store's `SCHEMA`, its key `Row.KEY`. A `BLOB` column is carried in `blobs`
(deduplicated by the row's `sha256`: the same program built for two drivers, or merged
in from two bundles, is carried once). A table added to the store's schema is exported,
and expected on import, without a change here. A payload may lack a table that a later
clmodes added (it was written before): it reads as no rows.

**Reading** (`decode`): the bytes go to a private copy (a fresh 0700 temporary folder),
opened read-only and immutable, with `trusted_schema=OFF`, no memory map, a small page
cache, SQLite's own limits lowered (`Connection.setlimit`, Python 3.11+: string and blob
length, SQL length, expression depth, no attached databases, no trigger recursion) and
a progress handler that interrupts anything running past a deadline. Then, in order: an
integrity check; the schema compared *exactly* with the expected one (every object in
`sqlite_master`: a view, a trigger, an index, an extra table, a changed column is
refused by name, before any query touches it: a recursive view hung an import); row
counts bounded before reading; each row's every value checked against its column's
type (and floats for being finite) as it is read. What the rows *mean* is checked by
`clmodes.bundle.validation`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import sqlite3
import sys
import tempfile
import time
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from clmodes.bundle.errors import BundleError
from clmodes.store.schema import SCHEMA as STORE_SCHEMA
from clmodes.store.schema import Row, StoreEntries

MAX_ROWS = 200_000  # per table; a large application's bundle holds a few thousand
MAX_TEXT = 4 << 20  # characters of one text value (a tune record is a few KB)
MAX_BLOB = 512 << 20  # bytes of one program binary
READ_SECONDS = 60.0  # for the whole read; a real payload takes well under a second
PROGRESS_STEPS = 10_000  # SQLite VM steps between deadline checks
BLOBS = "blobs"
BLOBS_SQL = f"CREATE TABLE {BLOBS} (sha256 TEXT PRIMARY KEY, data BLOB)"

# SQLite's own limits for a payload connection (Python 3.11+); SQLite's defaults are
# far above anything a payload needs.
LIMITS = {
    "SQLITE_LIMIT_LENGTH": MAX_BLOB + 1,
    "SQLITE_LIMIT_SQL_LENGTH": 100_000,
    "SQLITE_LIMIT_COLUMN": 64,
    "SQLITE_LIMIT_EXPR_DEPTH": 64,
    "SQLITE_LIMIT_COMPOUND_SELECT": 4,
    "SQLITE_LIMIT_FUNCTION_ARG": 8,
    "SQLITE_LIMIT_ATTACHED": 0,
    "SQLITE_LIMIT_LIKE_PATTERN_LENGTH": 100,
    "SQLITE_LIMIT_VARIABLE_NUMBER": 64,
    "SQLITE_LIMIT_TRIGGER_DEPTH": 1,
}


@dataclasses.dataclass(frozen=True)
class PayloadTable:
    """One store table as a payload carries it."""

    name: str
    row: type[Row]
    types: tuple[tuple[str, str], ...]  # (column, SQL type) of every Row field, in order
    nullable: frozenset[str] = frozenset()  # columns the store's table lets be NULL

    @property
    def blob(self) -> str | None:
        """The column carried in `blobs` (by the row's sha256), if any."""
        return next((c for c, t in self.types if t == "BLOB"), None)

    @property
    def stored(self) -> tuple[tuple[str, str], ...]:
        """The columns of the payload's table (the blob column replaced by its sha256)."""
        return tuple((c, t) for c, t in self.types if c != self.blob)

    def create_sql(self) -> str:
        columns = ", ".join(f"{c} {t}" for c, t in self.stored)
        return f"CREATE TABLE {self.name} ({columns}, PRIMARY KEY ({', '.join(self.row.KEY)}))"


@functools.lru_cache(maxsize=1)
def payload_tables() -> tuple[PayloadTable, ...]:
    """The tables, from `StoreEntries`' fields, their `Row` types and the store's SCHEMA."""
    store = sqlite3.connect(":memory:")
    try:
        store.executescript(STORE_SCHEMA)
        tables = []
        hints = typing.get_type_hints(StoreEntries)
        for field in dataclasses.fields(StoreEntries):
            (row,) = typing.get_args(hints[field.name])
            info = store.execute(f"PRAGMA table_info({field.name})").fetchall()
            sql_types = {name: kind.upper() for _, name, kind, *_ in info}
            nullable = frozenset(name for _, name, _, notnull, _, key in info if not notnull and not key)
            columns = [f.name for f in dataclasses.fields(row)]
            missing = [c for c in columns if c not in sql_types]
            if missing:
                raise RuntimeError(f"store table {field.name} lacks the row's columns {missing}")
            tables.append(PayloadTable(field.name, row, tuple((c, sql_types[c]) for c in columns),
                                       nullable & set(columns)))
    finally:
        store.close()
    for table in tables:
        if table.blob and "sha256" not in dict(table.types):
            raise RuntimeError(f"store table {table.name} has a blob but no sha256 column")
    return tuple(tables)


def expected_schema() -> dict[str, str | None]:
    """Object name -> its normalized SQL (None for an automatic key index), exactly."""
    expected: dict[str, str | None] = {BLOBS: normalized(BLOBS_SQL)}
    for table in payload_tables():
        expected[table.name] = normalized(table.create_sql())
    return expected


def normalized(sql: str | None) -> str | None:
    return re.sub(r"\s+", " ", sql).strip() if isinstance(sql, str) else None


# -- writing ---------------------------------------------------------------------------


@contextmanager
def scratch_file() -> Iterator[Path]:
    """A path for the payload database in a private folder (0700), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="clmodes-bundle-") as directory:
        yield Path(directory) / "payload.sqlite3"


def encode(entries: StoreEntries) -> bytes:
    """The payload database's bytes (vacuumed: no free pages, no stale data)."""
    with scratch_file() as file:
        connection = sqlite3.connect(file)
        with connection:
            connection.execute(BLOBS_SQL)
            for table in payload_tables():
                connection.execute(table.create_sql())
                insert = (f"INSERT INTO {table.name} VALUES "
                          f"({', '.join('?' for _ in table.stored)})")
                for row in getattr(entries, table.name):
                    if table.blob:
                        connection.execute(f"INSERT OR IGNORE INTO {BLOBS} VALUES (?, ?)",
                                           (row.sha256, sqlite3.Binary(getattr(row, table.blob))))
                    connection.execute(insert, tuple(getattr(row, c) for c, _ in table.stored))
        connection.execute("VACUUM")
        connection.close()
        return file.read_bytes()


# -- reading ---------------------------------------------------------------------------


def decode(path: Path, payload: bytes | Callable[[BinaryIO], None],
           counts: dict[str, Any] | None = None, seconds: float = READ_SECONDS) -> StoreEntries:
    """The rows of a hostile payload (its bytes, or a function that writes them into the
    file it is given: a large bundle's payload is copied, never held), or a one-line
    `BundleError` naming what is wrong. `counts`: the manifest's row counts, checked
    before a row is read."""
    with scratch_file() as file:
        if isinstance(payload, bytes):
            file.write_bytes(payload)
        else:
            with open(file, "wb") as out:
                payload(out)
        connection = None
        try:
            connection = open_hostile(file, seconds)
            return read_rows(path, connection, counts or {})
        except sqlite3.OperationalError as error:
            if "interrupted" in str(error):
                raise BundleError(f"{path}: bundle payload takes more than {seconds:g} s to "
                                  "read; refused") from error
            raise BundleError(f"{path}: bundle payload is not readable ({error})") from error
        except (sqlite3.Error, UnicodeDecodeError, OverflowError, MemoryError) as error:
            raise BundleError(f"{path}: bundle payload is not readable ({error})") from error
        finally:
            if connection is not None:
                connection.close()


def open_hostile(file: Path, seconds: float) -> sqlite3.Connection:
    connection = sqlite3.connect(f"file:{file}?mode=ro&immutable=1", uri=True)
    deadline = time.monotonic() + seconds
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_STEPS)
    if sys.version_info >= (3, 11):
        for name, value in LIMITS.items():
            connection.setlimit(getattr(sqlite3, name), value)
    for pragma in ("trusted_schema = OFF", "mmap_size = 0", "cache_size = -8192",
                   "cell_size_check = ON", "query_only = ON"):
        connection.execute(f"PRAGMA {pragma}")
    return connection


def read_rows(path: Path, connection: sqlite3.Connection, counts: dict[str, Any]) -> StoreEntries:
    check_integrity(path, connection)
    present = check_schema(path, connection)
    blobs = read_blobs(path, connection) if BLOBS in present else {}
    tables: dict[str, list[Any]] = {}
    for table in payload_tables():
        if table.name not in present:
            tables[table.name] = []
            continue
        tables[table.name] = list(read_table(path, connection, table, blobs, counts.get(table.name)))
    return StoreEntries(**tables)


def check_integrity(path: Path, connection: sqlite3.Connection) -> None:
    result = connection.execute("PRAGMA integrity_check(1)").fetchone()
    if not result or result[0] != "ok":
        raise BundleError(f"{path}: bundle payload fails its integrity check")


def check_schema(path: Path, connection: sqlite3.Connection) -> set[str]:
    """The tables present, if every object is one expected exactly (a table's key index
    included); else refuse, naming the first object that is not."""
    expected = expected_schema()
    present = set()
    objects = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    for kind, name, table, sql in objects:
        if kind == "table" and name in expected and normalized(sql) == expected[name]:
            present.add(name)
    for kind, name, table, sql in objects:
        key_index = (kind == "index" and sql is None and table in present
                     and name == f"sqlite_autoindex_{table}_1")
        if name in present or key_index:
            continue
        shown = str(name)[:60]
        if kind == "table" and name in expected:
            raise BundleError(f"{path}: bundle payload table {shown!r} has unexpected columns")
        raise BundleError(f"{path}: bundle payload holds an unexpected {str(kind)[:20]} {shown!r}")
    return present


def count(path: Path, connection: sqlite3.Connection, table: str, stated: object) -> int:
    rows = connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608 - known names
    if rows > MAX_ROWS:
        raise BundleError(f"{path}: bundle payload has {rows} {table} rows (at most {MAX_ROWS})")
    if stated is not None and stated != rows:
        raise BundleError(f"{path}: manifest says {stated} {table} entries, the bundle holds {rows}")
    return rows


def read_blobs(path: Path, connection: sqlite3.Connection) -> dict[str, bytes]:
    count(path, connection, BLOBS, None)
    blobs = {}
    for digest, data in connection.execute(f"SELECT sha256, data FROM {BLOBS}"):
        if not isinstance(digest, str) or not isinstance(data, bytes) or len(data) > MAX_BLOB:
            raise BundleError(f"{path}: bundle payload has a malformed program binary")
        blobs[digest] = data
    return blobs


def read_table(path: Path, connection: sqlite3.Connection, table: PayloadTable,
               blobs: dict[str, bytes], stated: object) -> Iterator[Row]:
    count(path, connection, table.name, stated)
    columns = [c for c, _ in table.stored]
    order = ", ".join(table.row.KEY)
    for number, values in enumerate(connection.execute(
            f"SELECT {', '.join(columns)} FROM {table.name} ORDER BY {order}")):  # noqa: S608
        fields = dict(zip(columns, values))
        for column, kind in table.stored:
            if fields[column] is None and column in table.nullable:
                continue
            check_value(path, table.name, number, column, kind, fields[column])
        if table.blob:
            fields[table.blob] = blobs.get(fields["sha256"], b"")
        yield table.row(**fields)


def check_value(path: Path, table: str, number: int, column: str, kind: str, value: object) -> None:
    """A value of the column's type (SQLite's affinity is advisory: a TEXT column can
    hold a number, an INTEGER column a string): refuse anything else."""
    ok = {
        "INTEGER": lambda v: type(v) is int,
        "TEXT": lambda v: isinstance(v, str) and len(v) <= MAX_TEXT,
        "REAL": lambda v: isinstance(v, float) and math.isfinite(v),
        "BLOB": lambda v: isinstance(v, bytes) and len(v) <= MAX_BLOB,
    }.get(kind, lambda v: False)(value)
    if not ok:
        raise BundleError(f"{path}: bundle payload {table} row {number + 1}: {column} is not "
                          f"a valid {kind.lower()} ({type(value).__name__})")
