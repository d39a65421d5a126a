"""The embedded store: one SQLite database of tune results (and, later, program binaries).

Why SQLite: several processes (a CI matrix, a warm script beside a running service) share
one store. WAL lets readers proceed while one writer commits; a busy timeout makes a second
writer wait instead of failing; every write is a transaction (`BEGIN IMMEDIATE`), so a
reader never sees half an entry. Values are data (JSON text, raw binaries), never pickle.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (see `sqlite_contention`); a database
file that is still not a database a moment later is moved aside (with a warning) and a
fresh one started; a location that cannot be written
falls back to an in-memory database (with a warning); a row that does not parse is a
miss (with a warning).
"""

from __future__ import annotations

import dataclasses
import hashlib
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

from clmodes.device import model_of
from clmodes.sqlite_contention import BUSY_TIMEOUT_MS, is_corruption, patiently

log = logging.getLogger("clmodes")

FORMAT_VERSION = 1  # the clmodes format of persisted entries; part of every tune key
SCHEMA_VERSION = 1
FILENAME = "store.sqlite3"

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
CREATE TABLE IF NOT EXISTS binaries (
    exact TEXT NOT NULL,
    batch TEXT NOT NULL,
    units TEXT NOT NULL,
    binary BLOB NOT NULL,
    sha256 TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (exact, batch)
);
CREATE TABLE IF NOT EXISTS kernels (
    exact TEXT NOT NULL,
    kernel_key TEXT NOT NULL,
    batch TEXT NOT NULL,
    name TEXT NOT NULL,
    args TEXT NOT NULL,
    PRIMARY KEY (exact, kernel_key)
);
CREATE TABLE IF NOT EXISTS probe (
    format INTEGER NOT NULL,
    model TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (format, model)
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
        self._deferred: list[tuple[str, tuple[Any, ...]]] | None = None
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
        """Connect to the store file, or None (the caller falls back to memory).

        The trap: a process that opens the store while another is creating or converting
        it can see a lock, or even a header that is not there yet. Giving up there (memory
        fallback) or moving the file aside detaches this process from the shared store:
        it silently tunes alone and disagrees with every other process. So locks are
        waited out and corruption must be seen twice before the file is moved aside."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = patiently(lambda: self._connect(str(path)))
        except sqlite3.DatabaseError as error:
            if not is_corruption(error):
                return self._fallback(path, error)
            _move_aside(path, error)
            try:
                connection = patiently(lambda: self._connect(str(path)))
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
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:  # a failed COMMIT must not leave it open
                    connection.execute("ROLLBACK")
                raise

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Hold every write until the block ends, then commit them in one transaction;
        drop them all if the block raises. `warm()` uses this so that a workload that
        fails leaves nothing half-written in the store."""
        with self._lock:
            if self._deferred is not None:
                raise RuntimeError("store writes are already deferred")
            self._deferred = []
        try:
            yield
        except BaseException:
            with self._lock:
                self._deferred = None
            raise
        with self._lock:
            pending, self._deferred = self._deferred, None
        try:
            patiently(lambda: self._execute_in_transaction(pending))
        except sqlite3.Error as error:
            log.warning("clmodes store %s: could not record %d entries (%s)",
                        self.location, len(pending), error)

    def _write(self, sql: str, parameters: tuple[Any, ...]) -> bool:
        """One write in its own transaction, or staged when writes are deferred."""
        with self._lock:
            if self._deferred is not None:
                self._deferred.append((sql, parameters))
                return True
            try:
                patiently(lambda: self._execute_in_transaction([(sql, parameters)]))
                return True
            except sqlite3.Error as error:
                log.warning("clmodes store %s: write failed (%s)", self.location, error)
                return False

    def _execute_in_transaction(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """All of `statements` or none (re-runnable, so `patiently` can retry it)."""
        with self.transaction() as connection:
            for sql, parameters in statements:
                connection.execute(sql, parameters)

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read rows; a database error is logged and reads as nothing (a miss)."""
        with self._lock:
            try:
                return patiently(lambda: self._connection.execute(sql, parameters).fetchall())
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
        insert = "INSERT OR IGNORE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)"
        with self._lock:
            if self._deferred is not None:
                self._deferred.append((insert, (*parameters, text, time.time())))
                return value
        try:
            return patiently(lambda: self._insert_tune_once(parameters, text)) or value
        except sqlite3.Error as error:
            log.warning("clmodes store %s: could not record a tune result (%s)", self.location, error)
        return value

    def _insert_tune_once(self, parameters: tuple[Any, ...], text: str) -> dict[str, Any] | None:
        """Insert unless an entry exists; return the existing entry, or None if inserted."""
        with self.transaction() as connection:
            row = connection.execute(
                "SELECT value FROM tune WHERE format=? AND model=? AND tunable=? "
                "AND tune_key=? AND candidates=?",
                parameters,
            ).fetchone()
            existing = _parse_record(row[0]) if row else None
            if existing is None:
                connection.execute(
                    "INSERT OR REPLACE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (*parameters, text, time.time()),
                )
            return existing

    # -- throughput probes -------------------------------------------------------------

    def get_probe(self, model: str) -> dict[str, Any] | None:
        """A device model's probe result (`clmodes.probe`), as stored; None if absent or
        unreadable (with a warning)."""
        rows = self.query("SELECT value FROM probe WHERE format=? AND model=?",
                          (FORMAT_VERSION, model))
        if not rows:
            return None
        try:
            value = json.loads(rows[0][0]) if isinstance(rows[0][0], str) else None
        except ValueError:
            value = None
        if not isinstance(value, dict):
            log.warning("clmodes store %s: unreadable probe entry for %s; re-measuring",
                        self.location, model)
            return None
        return value

    def put_probe(self, model: str, value: dict[str, Any]) -> None:
        """Record (or replace: a refresh re-measures) a device model's probe result."""
        self._write("INSERT OR REPLACE INTO probe VALUES (?, ?, ?, ?)",
                    (FORMAT_VERSION, model, json.dumps(value, sort_keys=True), time.time()))

    # -- program binaries --------------------------------------------------------------

    def put_binary(
        self, exact: str, batch: str, units: list[str], binary: bytes,
        kernels: list[tuple[str, str, list[list[object]] | None]],
    ) -> None:
        """A batch's program binary and the index from each of its kernels to it.
        `kernels`: (kernel key, kernel name, argument info or None)."""
        digest = hashlib.sha256(binary).hexdigest()
        self._write(
            "INSERT OR REPLACE INTO binaries VALUES (?, ?, ?, ?, ?, ?)",
            (exact, batch, json.dumps(units), sqlite3.Binary(binary), digest, time.time()),
        )
        self.index_kernels(exact, batch, kernels)

    def index_kernels(
        self, exact: str, batch: str, kernels: list[tuple[str, str, list[list[object]] | None]]
    ) -> None:
        for key, name, args in kernels:
            self._write(
                "INSERT OR REPLACE INTO kernels VALUES (?, ?, ?, ?, ?)",
                (exact, key, batch, name, json.dumps(args)),
            )

    def kernel_batches(self, exact: str, kernel_keys: list[str]) -> dict[str, str]:
        """kernel key -> batch hash, for the kernels the store holds binaries of."""
        found: dict[str, str] = {}
        for start in range(0, len(kernel_keys), 500):
            chunk = kernel_keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self.query(
                f"SELECT kernel_key, batch FROM kernels WHERE exact=? AND kernel_key IN ({marks})",  # noqa: S608
                (exact, *chunk),
            ))
        return found

    def batch_kernels(self, exact: str, batch: str) -> dict[str, object]:
        """kernel key -> argument info (parsed JSON, None if unreadable) of one batch."""
        found: dict[str, object] = {}
        for key, args in self.query(
            "SELECT kernel_key, args FROM kernels WHERE exact=? AND batch=?", (exact, batch)
        ):
            try:
                found[key] = json.loads(args)
            except ValueError:
                found[key] = None
        return found

    def get_binary(self, exact: str, batch: str) -> tuple[bytes, list[str]] | None:
        """A batch's binary and unit keys, or None if absent or failing its checksum."""
        rows = self.query(
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
                self.location, batch[:12],
            )
            self.drop_binary(exact, batch)
            return None
        return binary, unit_list

    def drop_binary(self, exact: str, batch: str) -> None:
        self._write("DELETE FROM kernels WHERE exact=? AND batch=?", (exact, batch))
        self._write("DELETE FROM binaries WHERE exact=? AND batch=?", (exact, batch))

    # -- bundles -------------------------------------------------------------------------

    def entries(self, model: str | None = None) -> "StoreEntries":
        """Every entry (or one device model's), as plain rows, for a bundle."""
        tune_where, tune_parameters = ("", ()) if model is None else (" WHERE model=?", (model,))
        exact_where, exact_parameters = _exact_filter(model)
        return StoreEntries(
            tune=self.query(
                "SELECT format, model, tunable, tune_key, candidates, value FROM tune"
                + tune_where, tune_parameters),
            binaries=[
                (exact, batch, units, bytes(binary), digest)
                for exact, batch, units, binary, digest in self.query(
                    "SELECT exact, batch, units, binary, sha256 FROM binaries" + exact_where,
                    exact_parameters)
            ],
            kernels=self.query(
                "SELECT exact, kernel_key, batch, name, args FROM kernels" + exact_where,
                exact_parameters),
        )

    def add_entries(self, entries: "StoreEntries") -> "StoreEntries":
        """Insert entries in one transaction; an entry already here (measured or built
        locally) wins. Returns the entries that were added."""
        added = StoreEntries([], [], [])
        now = time.time()
        with self.transaction() as connection:
            for row in entries.tune:
                cursor = connection.execute(
                    "INSERT OR IGNORE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)", (*row, now))
                if cursor.rowcount:
                    added.tune.append(row)
            for exact, batch, units, binary, digest in entries.binaries:
                cursor = connection.execute(
                    "INSERT OR IGNORE INTO binaries VALUES (?, ?, ?, ?, ?, ?)",
                    (exact, batch, units, sqlite3.Binary(binary), digest, now))
                if cursor.rowcount:
                    added.binaries.append((exact, batch, units, binary, digest))
            for row in entries.kernels:
                if connection.execute("INSERT OR IGNORE INTO kernels VALUES (?, ?, ?, ?, ?)", row).rowcount:
                    added.kernels.append(row)
        return added

    # -- maintenance ---------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """Location, bytes, and entries per device model (tune results) and, under each
        model, per exact device + driver (program binaries and indexed kernels)."""
        devices: dict[str, dict[str, Any]] = {}

        def model_entry(model: str) -> dict[str, Any]:
            return devices.setdefault(model, {"tune_results": 0, "tune_bytes": 0,
                                              "probe_results": 0, "drivers": {}})

        for model, count, size in self.query(
            "SELECT model, COUNT(*), SUM(LENGTH(value)) FROM tune GROUP BY model"
        ):
            model_entry(model).update(tune_results=count, tune_bytes=size or 0)
        for model, count in self.query("SELECT model, COUNT(*) FROM probe GROUP BY model"):
            model_entry(model)["probe_results"] = count
        for exact, count, size in self.query(
            "SELECT exact, COUNT(*), SUM(LENGTH(binary)) FROM binaries GROUP BY exact"
        ):
            drivers = model_entry(model_of(exact))["drivers"]
            drivers.setdefault(exact, {"kernels": 0}).update(binaries=count, binary_bytes=size or 0)
        for exact, count in self.query("SELECT exact, COUNT(*) FROM kernels GROUP BY exact"):
            drivers = model_entry(model_of(exact))["drivers"]
            drivers.setdefault(exact, {"binaries": 0, "binary_bytes": 0})["kernels"] = count
        size = 0
        for suffix in ("", "-wal"):
            part = Path(f"{self.path}{suffix}") if self.path else None
            size += part.stat().st_size if part and part.exists() else 0
        return {"location": self.location, "bytes": size, "devices": devices}

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one device model (all its drivers). Returns the
        number of entries deleted."""
        where, parameters = ("", ()) if model is None else (" WHERE model=?", (model,))
        like, like_parameters = _exact_filter(model)
        deleted = 0
        with self.transaction() as connection:
            deleted += connection.execute("DELETE FROM tune" + where, parameters).rowcount
            deleted += connection.execute("DELETE FROM probe" + where, parameters).rowcount
            deleted += connection.execute("DELETE FROM binaries" + like, like_parameters).rowcount
            connection.execute("DELETE FROM kernels" + like, like_parameters)
        return deleted

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])  # noqa: S608 - fixed names


@dataclasses.dataclass
class StoreEntries:
    """Rows of the store as plain tuples: what a bundle carries."""

    tune: list[tuple[Any, ...]]  # (format, model, tunable, tune_key, candidates, value)
    binaries: list[tuple[Any, ...]]  # (exact, batch, units, binary, sha256)
    kernels: list[tuple[Any, ...]]  # (exact, kernel_key, batch, name, args)


def _exact_filter(model: str | None) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause selecting the exact fingerprints of one model (all its drivers)."""
    if model is None:
        return "", ()
    return " WHERE substr(exact, 1, ?) = ?", (len(model) + 3, model + " | ")


def _parse_record(text: object) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("winner"), str):
        return None
    return value


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
