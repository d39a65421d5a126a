"""Telling a moment's contention between processes from damage, and recovering from damage.

Two halves of one question, asked by every open, read and write: is this error another
process passing by (wait it out: `patiently`), or a damaged file (confirm it, move it
aside, start fresh: `move_aside`, `salvage`)?

## Contention

Telling a moment's contention between processes from a real failure, in SQLite.

The trap this avoids: SQLite's busy timeout makes a second writer wait, but not always.
Where waiting could deadlock, SQLite answers "database is locked" at once, busy timeout or
not: a second connection that wants to write (or to switch the file to WAL) while another
holds the write lock on a file still in rollback mode, as when two processes create the
store at the same moment. A store that took that answer as final fell back to memory, and
its process tuned alone, silently disagreeing with every other process (a CI failure:
one of four processes kept its own winners). So such errors are retried here with
backoff, and "file is not a database" must persist for a moment before anyone treats the
file as corrupt and moves it aside.

## Recovery

Moving a corrupt store aside, whether the corruption is met at open or later, by one
process while others have the same file open.

Corruption shows wherever SQLite first reads a damaged page: at open ("file is not a
database") or on any later query or write ("database disk image is malformed"), long
after the store opened fine. Either way it is confirmed (`confirmed`: `PRAGMA
quick_check`, so that a transient error never costs a store its entries), the file and
its `-wal` and `-shm` are renamed to `<name>.corrupt-<time>-<pid>` (kept for
inspection) and a fresh store starts at the same path, with one warning naming both.

The trap: several processes meet the same corruption. Each must not move a file: the
second to rename would move aside the *fresh* store the first just created (and the
first would then write into a file nobody opens). So a process moves the file only
while it holds an exclusive lock (`<name>.lock`, `flock`) and only if the file at the
path is still the one it found corrupt (same device and inode: `identity`); a process
that finds another file there (or none) moves nothing and opens what is there.
Renaming keeps every open handle on the old file, so `Database` also compares the
path's identity before each write and follows a store replaced under it.

What a running process wrote after the damage lives in the damaged file (SQLite finds
damage only on the pages it reads: a process that never reads the broken page writes on
without an error). So the process that moves a store aside copies into the fresh store
every row its own connection can still read (`salvage`), and a process whose writes find
the file's header overwritten (SQLite keeps page 1 cached and would not notice) treats
that as corruption too (`header_damaged`).

The second trap, met in production: *nothing here may open and close the database file
(or its `-wal`, `-shm`) with anything but SQLite.* SQLite's locks are POSIX advisory
locks, and closing *any* descriptor of a file drops *all* of the process's locks on it
(SQLite's "How To Corrupt An SQLite Database File", section 2.2). `header_damaged` once
read the header with Python's `open()` before every write: each `close()` dropped the
process's shared lock on the WAL, so another process closing its connection believed
itself the last one, checkpointed and deleted the `-wal` this process went on writing
into, and every write after that was lost (and a plain `sqlite3` reader met "disk I/O
error"). SQLite's own connections in one process share their locks per file and defer
closing a descriptor while any of them holds a lock, so the header is read through a
second, short-lived SQLite connection instead (about 0.1 ms). The lock file
`<name>.lock` (`exclusive`) is a separate file and safe to open and close.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

try:
    import fcntl
except ImportError:  # Windows: renames there fail on open files anyway
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("clmodes")


T = TypeVar("T")

BUSY_TIMEOUT_MS = 30_000  # SQLite's own wait, and the longest `patiently` retries
CORRUPT_RECHECK_S = 0.25  # a file still being created by another process is whole by then


def patiently(attempt: Callable[[], T]) -> T:
    """Run `attempt`, retrying what another process causes only for a moment.

    SQLite's busy timeout does not cover every case: a lock met while opening or
    converting a database to WAL, and a stale WAL snapshot, come back as "locked" at
    once. Those are retried with backoff for up to the busy timeout. A "not a database"
    error is retried once after a pause, so that only corruption that persists is
    treated as such."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay, seen_corrupt = 0.005, False
    while True:
        try:
            return attempt()
        except sqlite3.DatabaseError as error:
            corrupt = is_corruption(error)
            if not (corrupt or _is_busy(error)) or (corrupt and seen_corrupt):
                raise
            if time.monotonic() + delay > deadline:
                raise
            seen_corrupt |= corrupt
            log.debug("clmodes store: %s; retrying in %.3f s", error, CORRUPT_RECHECK_S if corrupt else delay)
            time.sleep(CORRUPT_RECHECK_S if corrupt else delay)
            delay = min(delay * 2, 0.25)


_TRANSIENT_CODES = (5, 6, 15)  # SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL (WAL contention)


def _is_busy(error: sqlite3.DatabaseError) -> bool:
    """A lock or WAL contention that goes away when the other process is done."""
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in _TRANSIENT_CODES
    text = str(error).lower()
    return "locked" in text or "busy" in text or "locking protocol" in text


_CORRUPTION_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB


def is_corruption(error: sqlite3.DatabaseError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _CORRUPTION_CODES:
        return True
    text = str(error).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


FileIdentity = tuple[int, int]  # (st_dev, st_ino)
SUFFIXES = ("", "-wal", "-shm")
SALVAGED = ("tune", "measurement", "binaries", "kernels", "probe")  # not meta, not leases


def identity(path: Path) -> FileIdentity | None:
    """Which file is at `path` now (None: none)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def confirmed(connection: sqlite3.Connection) -> bool:
    """Is the database really damaged? `quick_check` reads every page (O(size), paid only
    here): a corruption error it does not reproduce is not acted on."""
    try:
        rows = connection.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as error:
        return is_corruption(error)
    return rows != [("ok",)]


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold `<path>.lock` exclusively: one process at a time moves a store aside."""
    with open(f"{path}.lock", "a+b") as handle:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield  # closing the file releases the lock (so does the process ending)


def move_aside(path: Path, error: Exception, found: FileIdentity | None) -> Path | None:
    """Rename the corrupt store `found` at `path` (and its -wal and -shm) aside; the new
    name, or None when another process already did (the file there is not `found`).
    Raises OSError when the folder cannot be written (the caller falls back)."""
    with exclusive(path):
        if found is None or identity(path) != found:
            log.warning("clmodes store %s was found corrupt (%s); another process already "
                        "moved it aside: continuing with the store now there", path, error)
            return None
        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}-{os.getpid()}")
        for suffix in SUFFIXES:
            source = Path(f"{path}{suffix}")
            if source.exists():
                os.replace(source, f"{aside}{suffix}")
    log.warning("clmodes store %s is corrupt (%s); moved aside to %s, starting a fresh store",
                path, error, aside)
    return aside


def header_damaged(path: Path) -> bool:
    """Is the store at `path` no longer readable as an SQLite database, for a connection
    opened now? Read through a second SQLite connection, never `open()` (the module's
    doc: the trap of POSIX locks). A page 1 still in the WAL is read from there: the
    next checkpoint writes it back over a damaged header, so that case is not damage.
    About 0.1 ms: checked before every write."""
    return _probed(path, "PRAGMA schema_version") is not None


def file_damaged(path: Path) -> str | None:
    """What `PRAGMA quick_check` finds wrong in the store at `path`, read through a second
    SQLite connection (None: nothing). It reads every page, so it finds damage in pages
    this process's own statements never read (the middle of a binary, a truncated
    file), at O(size): about 60 ms for a 100 MB store, paid once per warm, before its one
    commit (`Database.deferred`), never per write."""
    return _probed(path, "PRAGMA quick_check")


def _probed(path: Path, pragma: str) -> str | None:
    """Run `pragma` on a short-lived read-only connection; the damage it shows, or None
    (also when the file is gone, locked or unreadable: the identity check, the busy
    retry and the open handle deal with those)."""
    try:
        probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.1,
                                isolation_level=None, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        rows = probe.execute(pragma).fetchall()
    except sqlite3.DatabaseError as error:
        return str(error) if is_corruption(error) else None
    finally:
        probe.close()
    if pragma.endswith("quick_check") and rows != [("ok",)]:
        return "; ".join(str(row[0]) for row in rows[:3])
    return None


def salvage(source: sqlite3.Connection, fresh: sqlite3.Connection) -> int:
    """Copy every row of the store's tables that `source` (the damaged file, still open)
    can read into `fresh`, one row at a time so that a damaged row costs only itself;
    an entry already in `fresh` wins. Returns the number of rows copied."""
    copied = 0
    for table in SALVAGED:
        try:
            rowids = [r for (r,) in source.execute(f"SELECT rowid FROM {table}")]  # noqa: S608
        except sqlite3.DatabaseError as error:
            log.debug("clmodes store: table %s cannot be salvaged (%s)", table, error)
            continue
        rows: list[tuple[object, ...]] = []
        for rowid in rowids:
            try:
                rows.extend(source.execute(f"SELECT * FROM {table} WHERE rowid=?", (rowid,)))  # noqa: S608
            except sqlite3.DatabaseError:
                continue
        if not rows:
            continue
        marks = ", ".join("?" * len(rows[0]))
        try:
            fresh.execute("BEGIN IMMEDIATE")
            before = fresh.total_changes
            fresh.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", rows)  # noqa: S608
            fresh.execute("COMMIT")
            copied += fresh.total_changes - before
        except sqlite3.Error as error:
            if fresh.in_transaction:
                fresh.execute("ROLLBACK")
            log.debug("clmodes store: rows of %s not salvaged (%s)", table, error)
    return copied
