"""Opening a store that cannot be written: a warmed store shipped in a container image, a
shared folder, an immutable file, a read-only bind mount.

Such a store is opened read-only and *used*: its binaries and tune winners are what the
process reads. Its writes go to an in-memory copy made on the first write
(`Database.transaction`), so that the process keeps, for itself, what it compiles and
tunes, exactly as a store that fell back to memory does; the file is never changed.

The trap: the store is in WAL mode, and a reader of a WAL database needs its `-shm`
(the shared-memory index of the log). `mode=ro` can read a WAL database only if the
`-shm` and `-wal` files exist or can be created; in a read-only folder holding just the
database file (a cleanly closed store: its last connection removed both) even `mode=ro`
fails with "unable to open database file". There the file is opened `immutable=1`: no
`-shm`, no locks, no log. That is only right because nothing on this side can write the
file; a writer outside (the host writing a folder bind-mounted read-only here) is not
seen, and a `-wal` left beside the file (a store copied while a process had it open) is
ignored: its entries are missing, which the warning says.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from typing import Any
from pathlib import Path
from urllib.parse import quote

from clmodes.store.contention import BUSY_TIMEOUT_MS

log = logging.getLogger("clmodes")

TABLES = frozenset({"meta", "tune", "binaries", "kernels", "probe"})
_READ_ONLY_CODE = 8  # SQLITE_READONLY (its extended codes share the low byte)
_CANT_OPEN_CODE = 14  # SQLITE_CANTOPEN: a WAL file's -shm that cannot be created
_warned: set[str] = set()  # paths warned about in this process: one warning each


def is_read_only_error(error: sqlite3.Error) -> bool:
    """Did a write (or opening for writing) fail because the file cannot be written?"""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_READ_ONLY_CODE, _CANT_OPEN_CODE)
    text = str(error).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def open_read_only(path: Path, why: Exception | str) -> tuple[sqlite3.Connection, str]:
    """A read-only connection to the store file and why it is read-only; raises the last
    `sqlite3.Error` when neither way opens a usable store (the caller falls back). `why`:
    the error writing met, or (a string) why the caller chose not to write."""
    uri = "file:" + quote(str(path.absolute()))
    what = "its folder" if os.access(path, os.W_OK) else "the file"
    why_text = why if isinstance(why, str) else f"{what} cannot be written: {why}"
    try:
        return _checked(sqlite3.connect(f"{uri}?mode=ro", uri=True, **_OPTIONS)), why_text
    except sqlite3.Error as error:
        if not is_read_only_error(error):  # corrupt, or not a store: nothing to read
            raise
    connection = _checked(sqlite3.connect(f"{uri}?immutable=1", uri=True, **_OPTIONS))
    reason = f"{why_text}; opened immutable, as its -shm cannot be created"
    log_size = _size(Path(f"{path}-wal"))
    if log_size:
        reason += f", and the {log_size} bytes of its -wal are not read"
    return connection, reason


def warn_once(path: Path, reason: str) -> None:
    """The one warning a process gets about a read-only store."""
    if str(path) in _warned:
        return
    _warned.add(str(path))
    log.warning("clmodes store %s is read-only (%s); reading it, and keeping what this "
                "process compiles and tunes in memory", path, reason)


_OPTIONS: dict[str, Any] = {"timeout": BUSY_TIMEOUT_MS / 1000, "isolation_level": None,
            "check_same_thread": False}


def _checked(connection: sqlite3.Connection) -> sqlite3.Connection:
    """The connection, if it reads as a store (every table there); SQLite opens lazily,
    so this first read is where a missing -shm or a corrupt file shows."""
    try:
        names = {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not TABLES <= names:
            raise sqlite3.DatabaseError(f"not a clmodes store (tables {sorted(TABLES - names)} "
                                        "missing, and this file cannot be written)")
    except BaseException:
        connection.close()
        raise
    return connection


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
