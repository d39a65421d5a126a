"""The embedded store: one SQLite database of tune results (and, later, program binaries).

Why SQLite: several processes (a CI matrix, a warm script beside a running service) share
one store. WAL lets readers proceed while one writer commits; a busy timeout makes a second
writer wait instead of failing; every write is a transaction (`BEGIN IMMEDIATE`), so a
reader never sees half an entry. Values are data (JSON text, raw binaries), never pickle.

Failure is never fatal to the caller's work: a database file that is not a database is
moved aside (with a warning) and a fresh one started; a location that cannot be written
falls back to an in-memory database (with a warning); a row that does not parse is a
miss (with a warning).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs

log = logging.getLogger("clmodes")

FORMAT_VERSION = 1  # the clmodes format of persisted entries; part of every tune key
SCHEMA_VERSION = 1
FILENAME = "store.sqlite3"
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tune (
    format INTEGER NOT NULL,
    model TEXT NOT NULL,
    tunable TEXT NOT NULL,
    tune_key TEXT NOT NULL,
    candidates TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (format, model, tunable, tune_key, candidates)
);
"""


def default_location() -> Path:
    """`$CLMODES_CACHE_DIR`, else the user cache dir (`platformdirs`)."""
    configured = os.environ.get("CLMODES_CACHE_DIR")
    return Path(configured) if configured else Path(platformdirs.user_cache_dir("clmodes"))


class Store:
    """One SQLite database. Thread-safe (one connection, one lock); process-safe (WAL)."""

    def __init__(self, directory: Path | str | None) -> None:
        self._lock = threading.RLock()
        self.path: Path | None = None
        self._connection = self._open(Path(directory) / FILENAME) if directory else None
        if self._connection is None:
            self._connection = self._connect(":memory:")

    # -- opening -----------------------------------------------------------------------

    @property
    def location(self) -> str:
        return str(self.path) if self.path else ":memory:"

    @property
    def in_memory(self) -> bool:
        return self.path is None

    def _open(self, path: Path) -> sqlite3.Connection | None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = self._connect(str(path))
        except sqlite3.DatabaseError as error:
            if not _is_corruption(error):
                return self._fallback(path, error)
            _move_aside(path, error)
            try:
                connection = self._connect(str(path))
            except (sqlite3.Error, OSError) as again:
                return self._fallback(path, again)
        except OSError as error:
            return self._fallback(path, error)
        self.path = path
        return connection

    def _fallback(self, path: Path, error: Exception) -> None:
        log.warning(
            "clmodes store %s cannot be used (%s); keeping results in memory for this process",
            path, error,
        )
        return None

    def _connect(self, target: str) -> sqlite3.Connection:
        connection = sqlite3.connect(
            target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if target != ":memory:":
                connection.execute("PRAGMA journal_mode = WAL")
            connection.executescript(_SCHEMA)
            connection.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
            )
        except BaseException:
            connection.close()
            raise
        return connection

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all or nothing, one writer at a time across processes."""
        with self._lock:
            connection = self._connection
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read rows; a database error is logged and reads as nothing (a miss)."""
        with self._lock:
            try:
                return self._connection.execute(sql, parameters).fetchall()
            except sqlite3.DatabaseError as error:
                log.warning("clmodes store %s: read failed (%s); treating as a miss", self.location, error)
                return []

    # -- tune results ------------------------------------------------------------------

    def get_tune(self, model: str, tunable: str, key: str, candidates: str) -> dict[str, Any] | None:
        rows = self.query(
            "SELECT value FROM tune WHERE format=? AND model=? AND tunable=? AND tune_key=? "
            "AND candidates=?",
            (FORMAT_VERSION, model, tunable, key, candidates),
        )
        if not rows:
            return None
        value = _parse_record(rows[0][0])
        if value is None:
            log.warning(
                "clmodes store %s: unreadable tune entry for %s key %s; re-tuning",
                self.location, tunable, key,
            )
        return value

    def put_tune(
        self, model: str, tunable: str, key: str, candidates: str, value: dict[str, Any]
    ) -> dict[str, Any]:
        """Record a measured winner unless another process recorded one first; return the
        entry now in the store, so that every process agrees on one winner per key."""
        text = json.dumps(value, sort_keys=True)
        parameters = (FORMAT_VERSION, model, tunable, key, candidates)
        try:
            with self.transaction() as connection:
                row = connection.execute(
                    "SELECT value FROM tune WHERE format=? AND model=? AND tunable=? "
                    "AND tune_key=? AND candidates=?",
                    parameters,
                ).fetchone()
                existing = _parse_record(row[0]) if row else None
                if existing is not None:
                    return existing
                connection.execute(
                    "INSERT OR REPLACE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (*parameters, text, time.time()),
                )
        except sqlite3.Error as error:
            log.warning("clmodes store %s: could not record a tune result (%s)", self.location, error)
        return value

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])  # noqa: S608 - fixed names


def _parse_record(text: object) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("winner"), str):
        return None
    return value


def _is_corruption(error: sqlite3.DatabaseError) -> bool:
    text = str(error).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def _move_aside(path: Path, error: Exception) -> None:
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}-{os.getpid()}")
    log.warning("clmodes store %s is corrupt (%s); moved aside to %s", path, error, aside)
    for suffix in ("", "-wal", "-shm"):
        source = Path(str(path) + suffix)
        if source.exists():
            os.replace(source, str(aside) + suffix)


_default: Store | None = None
_default_lock = threading.Lock()


def default_store() -> Store:
    """The process's store, opened on first use at `default_location()`."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Store(default_location())
        return _default


def set_cache_dir(directory: Path | str | None) -> Store:
    """Relocate the process's store (None: in memory). Returns the new store."""
    global _default
    with _default_lock:
        if _default is not None:
            _default.close()
        _default = Store(directory)
        return _default
