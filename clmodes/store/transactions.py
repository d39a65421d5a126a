"""One connection shared by the threads of a process: its reads, its transactions, and
deferral (holding writes back until a block of work has succeeded).

Every write is a transaction (`BEGIN IMMEDIATE`), so a reader in another process never
sees half an entry and a second writer waits for the first instead of failing. A write or
read that still fails is logged and does not reach the caller: a failed write is a result
not recorded, a failed read is a miss. Corruption met by a read or a write is the
exception: the store is moved aside and the read or write done again in a fresh one
(`clmodes.store.recovery`).

A store file is whole on its own whenever no command is running: `close()`, and every
process at exit, copy the WAL into the file (`checkpoint`). The trap: in WAL mode a
commit lands in `store.sqlite3-wal`, and only a checkpoint moves it into `store.sqlite3`.
SQLite checkpoints when its last connection closes, but the command ends through
`os._exit` (`clmodes.cli.exiting`) and a library process may never close its store, so
the WAL stayed; a user who copied the one file docs/store.md names (a Docker layer, a
CI cache) copied a 4 KB store with nothing in it. The checkpoint never waits for
another process (busy timeout 0: SQLite then copies what it can and leaves the rest to
the next one), and at exit it is registered here, before `footprint` registers its own
handler, so that it runs after the last uses are written (handlers run last-in first).
"""

from __future__ import annotations

import atexit
import logging
import sqlite3
import threading
import weakref
from contextvars import ContextVar
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from clmodes.errors import StoreWriteError
from clmodes.store.connection import MEMORY, Opened, connect, open_store
from clmodes.store.schema import SCHEMA
from clmodes.store.recovery import (BUSY_TIMEOUT_MS, confirmed, file_damaged, header_damaged,
                                    identity, is_corruption, move_aside, patiently, salvage)

log = logging.getLogger("clmodes")

Statement = tuple[str, tuple[Any, ...]]
EXIT_LOCK_WAIT_S = 1.0  # at exit, a daemon thread may hold the lock: never wait for ever


class Database:
    """One SQLite connection. Thread-safe (one connection, one lock); process-safe (WAL).

    The connection can change under the lock: a read-only store's first write copies it
    into memory (`connection`), corruption met by any query or write moves the file aside
    and opens a fresh one (`recovery`), and a file another process moved aside is left
    for the one now at its path."""

    def __init__(self, opened: Opened) -> None:
        self._lock = threading.RLock()
        self._pending: ContextVar[list[Statement] | None] = ContextVar(
            f"clmodes_store_pending_{id(self)}", default=None)
        self._adopt(opened)
        # What this process failed to write (one line each): a command that claims to
        # have persisted something asks (`failures`) before it says so (cli/errors.py).
        self._failures: list[str] = []
        _open.add(self)

    def _adopt(self, opened: Opened) -> None:
        self._connection = opened.connection
        self.path = opened.path
        self._identity = opened.identity
        self.read_only_reason = opened.read_only
        self._overlaid = False  # a read-only store's writes have their copy in memory

    @property
    def location(self) -> str:
        return str(self.path) if self.path else MEMORY

    @property
    def in_memory(self) -> bool:
        return self.path is None

    @property
    def read_only(self) -> bool:
        """Is the store a file this process reads but cannot write (its writes are kept
        in memory)?"""
        return self.read_only_reason is not None

    def close(self) -> None:
        """Copy the WAL into the file (`checkpoint`), then close the connection."""
        _open.discard(self)
        with self._lock:
            self.checkpoint()
            self._connection.close()

    def checkpoint(self, lock_wait_s: float = -1) -> bool:
        """Copy what the WAL holds into the database file without waiting for any other
        process (the module's doc says why); True if the file now holds every commit.
        `lock_wait_s`: how long to wait for this object's lock (-1: as long as it takes)."""
        if self.in_memory or self.read_only or not self._lock.acquire(timeout=lock_wait_s):
            return False
        connection = self._connection
        try:
            connection.execute("PRAGMA busy_timeout = 0")
            # TRUNCATE empties the WAL when nobody reads it; a busy one degrades to
            # PASSIVE (every frame no reader still needs), never waiting.
            busy, logged, copied = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            return not busy and logged == copied
        except sqlite3.Error as error:
            log.debug("clmodes store %s: not checkpointed (%s)", self.location, error)
            return False
        finally:
            try:
                connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            except sqlite3.Error:
                pass
            self._lock.release()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all or nothing, one writer at a time across processes.

        Corruption met inside it is recovered from (the store moved aside, a fresh one
        opened) before the error propagates, so that a caller retrying it (`patiently`
        retries corruption once) writes into the fresh store."""
        with self._lock:
            connection = self._writable()
            try:
                connection.execute("BEGIN IMMEDIATE")
                yield connection
                connection.execute("COMMIT")
            except BaseException as error:
                if connection.in_transaction:  # a failed COMMIT must not leave it open
                    roll_back(connection)
                if isinstance(error, sqlite3.DatabaseError) and is_corruption(error):
                    self.recover(error)
                raise

    def _writable(self) -> sqlite3.Connection:
        """The connection a write goes to: a read-only store's copy in memory (made now,
        on the first write: a process that only reads never copies the store), or the
        store now at the path if another process replaced the file this one has open."""
        if self.read_only and not self._overlaid:
            overlay = connect(MEMORY)
            self._connection.backup(overlay)
            # A store an older clmodes wrote lacks the tables added since: the copy gets them.
            overlay.executescript(SCHEMA)
            self._connection.close()
            self._connection, self._overlaid = overlay, True
            log.debug("clmodes store %s: read-only; writes go to a copy in memory", self.path)
        elif self.path is not None and not self.read_only and identity(self.path) != self._identity:
            log.info("clmodes store %s was replaced by another process; reopening it", self.path)
            self._reopen()
        elif self.path is not None and not self.read_only and header_damaged(self.path):
            self.recover(sqlite3.DatabaseError("file is not a database (its header was "
                                               "overwritten)"), seen=True)
        return self._connection

    def recover(self, error: sqlite3.DatabaseError, seen: bool = False) -> bool:
        """Corruption met after opening: if `PRAGMA quick_check` confirms it (or it was
        `seen` outside SQLite), move the file aside (unless another process did) and
        continue with a fresh store holding what could still be read of the old one. A
        read-only store cannot be moved: this process continues in memory. True if the
        store was replaced (the caller may retry what failed)."""
        with self._lock:
            if self.path is None or not (seen or confirmed(self._connection)):
                return False
            if self.read_only:
                log.warning("clmodes store %s is corrupt (%s) and read-only, so it cannot be "
                            "moved aside; keeping results in memory for this process",
                            self.path, error)
                self._connection.close()
                self._adopt(Opened(connect(MEMORY)))
                return True
            try:
                aside = move_aside(self.path, error, self._identity)
            except OSError as failure:
                log.warning("clmodes store %s is corrupt (%s) and cannot be moved aside "
                            "(%s); keeping results in memory for this process",
                            self.path, error, failure)
                self._connection.close()
                self._adopt(Opened(connect(MEMORY)))
                return True
            self._reopen(keep_rows=aside is not None)
            return True

    def _reopen(self, keep_rows: bool = False) -> None:
        """Open the store now at the path; `keep_rows`: this process moved the old one
        aside, so it copies over what its connection can still read of it."""
        assert self.path is not None
        old = self._connection
        self._adopt(open_store(self.path.parent))
        if keep_rows and not self.in_memory:
            kept = salvage(old, self._connection)
            log.info("clmodes store %s: %d rows of the damaged store kept", self.path, kept)
        old.close()

    @contextmanager
    def deferred(self, what: str = "this block") -> Iterator[None]:
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
        self._whole_before_commit()
        with self.saving(f"the {len(pending)} entries of {what}"):
            patiently(lambda: self.execute_in_transaction(pending))

    @property
    def failures(self) -> tuple[str, ...]:
        """Every write of results this process tried and the store refused, one line each
        (bookkeeping that is tried again later, `write_if_free`, is not counted)."""
        with self._lock:
            return tuple(self._failures)

    def note_failure(self, what: str, error: BaseException, raised: bool = False) -> str:
        """Record a write of `what` that failed; the line a person reads. Logged as a
        warning the first time only (a full disk refuses every write after it: one line
        says it), and never where it is `raised` (the error carries the line)."""
        hint = ("; free space where the store lives, or move it ($CLMODES_CACHE_DIR)"
                if is_full(error) else "")
        line = (f"the store at {self.location} could not record {what} ({error}); "
                f"nothing of it was written{hint}")
        with self._lock:
            first = not self._failures
            self._failures.append(line)
        level = logging.WARNING if first and not raised else logging.DEBUG
        log.log(level, "clmodes store %s: could not record %s (%s)", self.location, what, error)
        return line

    @contextmanager
    def saving(self, what: str) -> Iterator[None]:
        """A block whose writes a caller is about to report as kept: a database error in
        it becomes `StoreWriteError` (and a failure noted), never a silent warning. Why:
        a warm whose one commit failed on a full disk logged one warning and exited 0,
        and the CI step after it shipped an empty store."""
        try:
            yield
        except sqlite3.Error as error:
            raise StoreWriteError(self.note_failure(what, error, raised=True)) from error

    def _whole_before_commit(self) -> None:
        """Before a deferred block's one commit (a warm's), read the whole file once
        (`recovery.file_damaged`): damage in pages this process never reads is noticed
        here, by the process that is about to write, with one warning; the store is moved
        aside with what can still be read of it, and the commit goes to the fresh one."""
        if self.path is None or self.read_only:
            return
        with self._lock:
            damage = file_damaged(self.path)
            if damage is not None:
                self.recover(sqlite3.DatabaseError(damage), seen=True)

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
            return self.stage(sql, parameters) or self.write_now(sql, parameters)

    def write_now(self, sql: str, parameters: tuple[Any, ...]) -> bool:
        """One write in its own transaction even while this context defers writes: for
        facts that must survive the deferred block failing or being killed (measurements,
        tune leases)."""
        with self._lock:
            try:
                patiently(lambda: self.execute_in_transaction([(sql, parameters)]))
                return True
            except sqlite3.Error as error:
                self.note_failure(f"an entry ({sql.split()[0].lower()})", error)
                return False

    def write_if_free(self, statements: list[Statement], wait_s: float) -> bool:
        """All of `statements` in one transaction if the store can take them within
        `wait_s`; False (nothing written, nothing logged above DEBUG) if another process
        holds the write lock, the store cannot be written (read-only, or in memory) or
        the write fails. For bookkeeping that must never hold up its caller (last uses,
        `footprint`): it is tried again later, and a read-only store is never copied into
        memory for it."""
        if self.read_only or self.in_memory:
            return False
        with self._lock:
            connection = self._connection
            try:
                connection.execute(f"PRAGMA busy_timeout = {max(0, int(wait_s * 1000))}")
                try:
                    self.execute_in_transaction(statements)
                finally:
                    self._connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                return True
            except sqlite3.Error as error:
                log.debug("clmodes store %s: bookkeeping write skipped (%s)", self.location, error)
                return False

    def compact(self, wait_s: float) -> str:
        """`VACUUM` the file (freed pages back to the file system) and truncate its log,
        waiting at most `wait_s` for another process's write lock; "vacuum", or why not
        (`clmodes.store.pruning` says when this is worth it)."""
        if self.in_memory or self.read_only:
            return "not a writable file"
        with self._lock:
            connection = self._connection
            try:
                connection.execute(f"PRAGMA busy_timeout = {max(0, int(wait_s * 1000))}")
                connection.execute("VACUUM")
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                return "vacuum"
            except sqlite3.Error as error:
                log.info("clmodes store %s: not compacted (%s); its free pages are reused "
                         "by later writes", self.location, error)
                return f"skipped: {error}"
            finally:
                try:
                    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                except sqlite3.Error:
                    pass

    def delete(self, sql: str, parameters: tuple[Any, ...]) -> int:
        """Run one DELETE now; the number of rows deleted (0 if it failed, logged)."""
        def run() -> int:
            with self.transaction() as connection:
                return connection.execute(sql, parameters).rowcount
        with self._lock:
            try:
                return patiently(run)
            except sqlite3.Error as error:
                self.note_failure("a deletion", error)
                return 0

    def execute_in_transaction(self, statements: list[Statement]) -> None:
        """All of `statements` or none (re-runnable, so `patiently` can retry it)."""
        with self.transaction() as connection:
            for sql, parameters in statements:
                connection.execute(sql, parameters)

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read rows; a database error is logged and reads as nothing (a miss). A corrupt
        store is moved aside (`recover`) and the read asked again of the fresh one."""
        with self._lock:
            try:
                return self._read(sql, parameters)
            except sqlite3.DatabaseError as error:
                failure = error
                if is_corruption(error) and self.recover(error):
                    try:
                        return self._read(sql, parameters)
                    except sqlite3.DatabaseError as again:
                        failure = again
                if self.read_only and str(failure).startswith("no such table"):
                    # Written by an older clmodes, before that table: it holds none.
                    log.debug("clmodes store %s: %s (an older store, read-only)",
                              self.location, failure)
                    return []
                log.warning("clmodes store %s: read failed (%s); treating as a miss",
                            self.location, failure)
                return []

    def _read(self, sql: str, parameters: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return patiently(lambda: self._connection.execute(sql, parameters).fetchall())

    def count(self, table: str) -> int:
        return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])  # noqa: S608 - fixed names


_FULL_CODE = 13  # SQLITE_FULL


def is_full(error: BaseException) -> bool:
    """Did a write fail because the disk (or the database's size limit) is full?"""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == _FULL_CODE or "disk is full" in str(error)


def roll_back(connection: sqlite3.Connection) -> None:
    """End a failed transaction; on a corrupt file even ROLLBACK can fail, and the error
    that matters is the one already propagating."""
    try:
        connection.execute("ROLLBACK")
    except sqlite3.Error as error:
        log.debug("clmodes store: rollback failed (%s)", error)


_open: "weakref.WeakSet[Database]" = weakref.WeakSet()


def _checkpoint_all_at_exit() -> None:
    """Every store still open: its WAL into its file (bounded: see `checkpoint`)."""
    for database in list(_open):
        try:
            database.checkpoint(EXIT_LOCK_WAIT_S)
        except Exception as error:  # noqa: BLE001 - exit must never fail for this
            log.debug("clmodes store: not checkpointed at exit (%s)", error)


atexit.register(_checkpoint_all_at_exit)
