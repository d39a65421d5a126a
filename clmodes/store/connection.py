"""Opening the store's database, and recovering when it cannot be opened as it is.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (see `clmodes.store.contention`);
a database file that is still not a database a moment later is moved aside (with a
warning, `clmodes.store.recovery`) and a fresh one started; a store file that cannot be
written is opened read-only and used (`clmodes.store.readonly`); a location that cannot
be written and holds no store falls back to an in-memory database (with a warning).
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from pathlib import Path

from clmodes.store.contention import BUSY_TIMEOUT_MS, is_corruption, patiently
from clmodes.store.readonly import is_read_only_error, open_read_only, warn_once
from clmodes.store.recovery import FileIdentity, identity, move_aside
from clmodes.store.schema import SCHEMA, SCHEMA_VERSION

log = logging.getLogger("clmodes")

FILENAME = "store.sqlite3"
MEMORY = ":memory:"


@dataclasses.dataclass
class Opened:
    """What opening gave: the connection, the file (None: memory), which file that was
    (`recovery.identity`, to tell it from a fresh store another process put there), and,
    for a store that cannot be written, why (None: writable or memory)."""

    connection: sqlite3.Connection
    path: Path | None = None
    identity: FileIdentity | None = None
    read_only: str | None = None


def open_store(directory: Path | str | None, read_only: str | None = None) -> Opened:
    """The store in `directory` (None: in memory). `read_only`: why to open the file
    read-only although it may be writable (`clmodes check` must not change what it
    checks); a missing file is then an empty store in memory."""
    if directory:
        path = Path(directory) / FILENAME
        opened = open_file(path) if read_only is None else chosen_read_only(path, read_only)
        if opened is not None:
            return opened
    return Opened(connect(MEMORY))


def chosen_read_only(path: Path, why: str) -> Opened | None:
    """The store file opened for reading on purpose (no warning: nothing is wrong with
    it), or None when there is none to read or it cannot be read (memory)."""
    if not path.is_file():
        log.debug("clmodes store %s: no store to read (%s)", path, why)
        return None
    try:
        connection, reason = open_read_only(path, why)
    except sqlite3.Error as error:
        return fallback(path, error)
    return Opened(connection, path, identity(path), reason)


def open_file(path: Path) -> Opened | None:
    """Connect to the store file, or None (the caller falls back to memory).

    The trap: a process that opens the store while another is creating or converting
    it can see a lock, or even a header that is not there yet. Giving up there (memory
    fallback) or moving the file aside detaches this process from the shared store:
    it silently tunes alone and disagrees with every other process. So locks are
    waited out and corruption must be seen twice before the file is moved aside (under
    `recovery`'s lock, and only if it is still the file found corrupt). A file that
    exists but cannot be written is opened read-only (`readonly`)."""
    found = identity(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return writable(path)
    except sqlite3.DatabaseError as error:
        if is_corruption(error):
            return recover_at_open(path, error, found)
        if is_read_only_error(error) and path.is_file():
            return read_only(path, error)
        return fallback(path, error)
    except OSError as error:
        return read_only(path, error) if path.is_file() else fallback(path, error)


def writable(path: Path) -> Opened:
    connection = patiently(lambda: connect(str(path)))
    return Opened(connection, path, identity(path))


def recover_at_open(path: Path, error: Exception, found: FileIdentity | None) -> Opened | None:
    """A file still not a database a moment later: move it aside (unless another process
    did) and start a fresh store; a corrupt file that cannot be moved is not used."""
    try:
        move_aside(path, error, found)
    except OSError as cannot:
        return fallback(path, f"{error}, and it cannot be moved aside: {cannot}")
    try:
        return writable(path)
    except sqlite3.DatabaseError as again:
        if is_read_only_error(again) and path.is_file():
            return read_only(path, again)
        return fallback(path, again)
    except OSError as again:
        return fallback(path, again)


def read_only(path: Path, why: Exception) -> Opened | None:
    """The store file opened for reading (one warning), or None if even that fails."""
    try:
        connection, reason = open_read_only(path, why)
    except sqlite3.Error as error:
        return fallback(path, error)
    warn_once(path, reason)
    return Opened(connection, path, identity(path), reason)


def fallback(path: Path, error: Exception | str) -> Opened | None:
    """Warn that this process keeps its results in memory; None, for the caller to return."""
    log.warning(
        "clmodes store %s cannot be used (%s); keeping results in memory for this process",
        path, error,
    )
    return None


def connect(target: str) -> sqlite3.Connection:
    """A connection with the schema in place. Autocommit (`isolation_level=None`): every
    write opens its own `BEGIN IMMEDIATE`, so transactions are explicit; WAL for files,
    so that readers proceed while one writer commits."""
    connection = sqlite3.connect(
        target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if target != MEMORY:
            connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript(SCHEMA)
        connection.execute(
            "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
        )
    except BaseException:
        connection.close()
        raise
    return connection
