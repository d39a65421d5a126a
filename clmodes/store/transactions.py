"""One connection shared by the threads of a process: its reads, its transactions, and
deferral (holding writes back until a block of work has succeeded).

Every write is a transaction (`BEGIN IMMEDIATE`), so a reader in another process never
sees half an entry and a second writer waits for the first instead of failing. A write or
read that still fails is logged and does not reach the caller: a failed write is a result
not recorded, a failed read is a miss.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextvars import ContextVar
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from clmodes.store.connection import MEMORY
from clmodes.store.contention import patiently

log = logging.getLogger("clmodes")

Statement = tuple[str, tuple[Any, ...]]


class Database:
    """One SQLite connection. Thread-safe (one connection, one lock); process-safe (WAL)."""

    def __init__(self, connection: sqlite3.Connection, path: Path | None) -> None:
        self._lock = threading.RLock()
        self._pending: ContextVar[list[Statement] | None] = ContextVar(
            f"clmodes_store_pending_{id(self)}", default=None)
        self._connection = connection
        self.path = path

    @property
    def location(self) -> str:
        return str(self.path) if self.path else MEMORY

    @property
    def in_memory(self) -> bool:
        return self.path is None

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
        """Hold this context's writes until the block ends, then commit them in one
        transaction; drop them all if the block raises. `warm()` uses this so that a
        workload that fails leaves nothing half-written in the store.

        Only writes issued in the calling context are held (a `ContextVar`: the calling
        thread, and what it runs): another thread's tune in the same process is written
        at once, as it would be without a warm, instead of waiting on someone else's
        transaction."""
        if self._pending.get() is not None:
            raise RuntimeError("store writes are already deferred")
        pending: list[Statement] = []
        token = self._pending.set(pending)
        try:
            yield
        finally:
            self._pending.reset(token)
        if not pending:
            return
        try:
            patiently(lambda: self.execute_in_transaction(pending))
        except sqlite3.Error as error:
            log.warning("clmodes store %s: could not record %d entries (%s)",
                        self.location, len(pending), error)

    @property
    def deferring(self) -> bool:
        """Are this context's writes being held (`deferred`)?"""
        return self._pending.get() is not None

    def stage(self, sql: str, parameters: tuple[Any, ...]) -> bool:
        """Hold a write back if this context defers writes (True); False: write it now."""
        pending = self._pending.get()
        if pending is None:
            return False
        pending.append((sql, parameters))
        return True

    def write(self, sql: str, parameters: tuple[Any, ...]) -> bool:
        """One write in its own transaction, or staged when writes are deferred."""
        with self._lock:
            if self.stage(sql, parameters):
                return True
            try:
                patiently(lambda: self.execute_in_transaction([(sql, parameters)]))
                return True
            except sqlite3.Error as error:
                log.warning("clmodes store %s: write failed (%s)", self.location, error)
                return False

    def write_now(self, sql: str, parameters: tuple[Any, ...]) -> bool:
        """One write in its own transaction even while this context defers writes: for
        facts that must survive the deferred block failing or being killed (measurements,
        tune leases)."""
        with self._lock:
            try:
                patiently(lambda: self.execute_in_transaction([(sql, parameters)]))
                return True
            except sqlite3.Error as error:
                log.warning("clmodes store %s: write failed (%s)", self.location, error)
                return False

    def delete(self, sql: str, parameters: tuple[Any, ...]) -> int:
        """Run one DELETE now; the number of rows deleted (0 if it failed, logged)."""
        def run() -> int:
            with self.transaction() as connection:
                return connection.execute(sql, parameters).rowcount
        with self._lock:
            try:
                return patiently(run)
            except sqlite3.Error as error:
                log.warning("clmodes store %s: delete failed (%s)", self.location, error)
                return 0

    def execute_in_transaction(self, statements: list[Statement]) -> None:
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

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])  # noqa: S608 - fixed names
