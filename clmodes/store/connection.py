"""Opening the store's database, and recovering when it cannot be opened as it is.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (see `clmodes.store.contention`);
a database file that is still not a database a moment later is moved aside (with a
warning) and a fresh one started; a location that cannot be written falls back to an
in-memory database (with a warning).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path

from clmodes.store.contention import BUSY_TIMEOUT_MS, is_corruption, patiently
from clmodes.store.schema import SCHEMA, SCHEMA_VERSION

log = logging.getLogger("clmodes")

FILENAME = "store.sqlite3"
MEMORY = ":memory:"


def open_store(directory: Path | str | None) -> tuple[sqlite3.Connection, Path | None]:
    """The store in `directory` (None: in memory) and the file it lives in (None: memory)."""
    if directory:
        path = Path(directory) / FILENAME
        connection = open_file(path)
        if connection is not None:
            return connection, path
    return connect(MEMORY), None


def open_file(path: Path) -> sqlite3.Connection | None:
    """Connect to the store file, or None (the caller falls back to memory).

    The trap: a process that opens the store while another is creating or converting
    it can see a lock, or even a header that is not there yet. Giving up there (memory
    fallback) or moving the file aside detaches this process from the shared store:
    it silently tunes alone and disagrees with every other process. So locks are
    waited out and corruption must be seen twice before the file is moved aside."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return patiently(lambda: connect(str(path)))
    except sqlite3.DatabaseError as error:
        if not is_corruption(error):
            return fallback(path, error)
        move_aside(path, error)
        try:
            return patiently(lambda: connect(str(path)))
        except (sqlite3.Error, OSError) as again:
            return fallback(path, again)
    except OSError as error:
        return fallback(path, error)


def fallback(path: Path, error: Exception) -> None:
    """Warn that this process keeps its results in memory; None, for the caller to return."""
    log.warning(
        "clmodes store %s cannot be used (%s); keeping results in memory for this process",
        path, error,
    )


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


def move_aside(path: Path, error: Exception) -> None:
    """Rename a corrupt store (and its WAL and shared-memory files) out of the way, kept
    for inspection, so that a fresh store can start at the same path."""
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}-{os.getpid()}")
    log.warning("clmodes store %s is corrupt (%s); moved aside to %s", path, error, aside)
    for suffix in ("", "-wal", "-shm"):
        source = Path(str(path) + suffix)
        if source.exists():
            os.replace(source, str(aside) + suffix)
