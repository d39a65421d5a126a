"""Where the store lives and opening its database, also when it cannot be opened as it is.

Failure is never fatal to the caller's work: a lock another process holds for a moment
is waited out, even where SQLite itself would not wait (`recovery.patiently`); a
database file that is still not a database a moment later is moved aside (with a
warning, `recovery.move_aside`) and a fresh one started; a store file that cannot be
written is opened read-only and used (below); a location that cannot be written and
holds no store falls back to an in-memory database (with a warning).

## Where the store lives

The process's store: `$CLMODES_CACHE_DIR`, else the user cache dir
(`platformdirs`), unless `set_cache_dir()` moved it (`clmodes.runtime` holds the store
itself and opens it on first use, so importing clmodes touches no file).

## A store that cannot be written

A store that cannot be written: a warmed store shipped in a container image, a
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

import dataclasses
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import platformdirs

from clmodes import settings
from clmodes._version import __version__
from clmodes.store.recovery import (BUSY_TIMEOUT_MS, FileIdentity, identity, is_corruption,
                                    move_aside, patiently)
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
    exists but cannot be written is opened read-only (`open_read_only`)."""
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


def writable(path: Path) -> Opened | None:
    try:
        connection = patiently(lambda: connect(str(path)))
    except NewerStore as newer:
        return read_only(path, str(newer))  # None: not even readable (memory, said)
    return Opened(connection, path, identity(path))


class NewerStore(Exception):
    """A store whose schema is newer than this clmodes writes (a newer clmodes made it).
    Written to as today's schema, every write failed on its own ("table tune has 8
    columns but 7 values were supplied") while the command went on as if it had saved:
    such a store is opened read-only instead, with one warning naming both versions
    (what it holds stays readable where the columns this clmodes reads are there)."""

    def __init__(self, found: int) -> None:
        super().__init__(f"it was written by a newer clmodes: store schema {found}, and "
                         f"this clmodes ({__version__}) writes schema {SCHEMA_VERSION}")
        self.found = found


def schema_of(connection: sqlite3.Connection) -> int | None:
    """The schema version a store records (None: a new file, or not recorded)."""
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return None
        raise
    try:
        return int(row[0]) if row else None
    except (TypeError, ValueError):
        return None


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


def read_only(path: Path, why: Exception | str) -> Opened | None:
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
            found = schema_of(connection)
            if found is not None and found > SCHEMA_VERSION:
                raise NewerStore(found)
            connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript(SCHEMA)
        connection.execute(
            "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
        )
    except BaseException:
        connection.close()
        raise
    return connection


def default_location() -> Path:
    """`$CLMODES_CACHE_DIR`, else the user cache dir (`platformdirs`)."""
    return settings.CACHE_DIR.get() or Path(platformdirs.user_cache_dir("clmodes"))


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
