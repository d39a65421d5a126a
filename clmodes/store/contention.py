"""Telling a moment's contention between processes from a real failure, in SQLite.

The trap this avoids: SQLite's busy timeout makes a second writer wait, but not always.
Where waiting could deadlock, SQLite answers "database is locked" at once, busy timeout or
not: a second connection that wants to write (or to switch the file to WAL) while another
holds the write lock on a file still in rollback mode, as when two processes create the
store at the same moment. A store that took that answer as final fell back to memory, and
its process tuned alone, silently disagreeing with every other process (a CI failure:
one of four processes kept its own winners). So such errors are retried here with
backoff, and "file is not a database" must persist for a moment before anyone treats the
file as corrupt and moves it aside.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

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
