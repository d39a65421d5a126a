"""When each entry was last used: what `clmodes cache prune` evicts by, least recent first.

A use is a read that found the entry: a program binary loaded (`binary`: exact device,
batch), a tune decision read (`tune`: its five-part key), a key's measurements read for a
tune (`measurement`: format, model, tunable, key). Kernel index rows are never noted apart:
they are used exactly when their binary is, and go with it. Uses live in their own table
(`last_use`), not in a column of the entries' tables: the store has no migrations, so a
store made by an older clmodes still opens, and an entry without a `last_use` row counts as
used when it was created.

The trap is the launch path. A use is noticed where a launch obtains a kernel (loading a
binary, reading a winner), and one SQLite write there would cost a transaction (a lock,
a sync) on a launch, or block it for up to the busy timeout behind another process's warm.
So a use is only *noted*, in memory (`UseNotes.note`: a set lookup, and a dict entry
under a lock once per entry per process, since a process reads each entry once and then
holds it), and the notes are written later, batched, in one transaction that never waits:
every `FLUSH_S` while some are unwritten (one thread per process, for every store), before
a prune or an export reads them, when the store is closed, and at exit (when every entry
the process noted is written as used *now*: a long-running process used its winners and
programs until it stopped, not only when it read them). A store another process holds the
write lock of is skipped (`write_if_free`) and tried at the next of those; a read-only or
in-memory store is never written for this.
"""

from __future__ import annotations

import atexit
import json
import logging
import threading
import time
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from clmodes.store.transactions import Database, Statement

if TYPE_CHECKING:
    import sqlite3

log = logging.getLogger("clmodes")

BINARY, TUNE, MEASUREMENT = "binary", "tune", "measurement"
FLUSH_S = 30.0  # the longest an unwritten use waits while the process runs
FLUSH_WAIT_S = 0.05  # how long a flush waits for another process's write lock
EXIT_WAIT_S = 1.0  # at exit there is no later: wait a little longer, still bounded
UPSERT = ("INSERT INTO last_use VALUES (?, ?, ?) ON CONFLICT (kind, entry) "
          "DO UPDATE SET used = max(used, excluded.used)")

Noted = tuple[str, str]  # kind, the entry's key as JSON


def entry_text(key: Sequence[Any]) -> str:
    """An entry's primary key as the `entry` column holds it (a JSON array)."""
    return json.dumps(list(key), separators=(",", ":"))


class UseNotes:
    """One store's uses noted in this process and not yet written."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._lock = threading.Lock()
        self._pending: dict[Noted, float] = {}
        # Every entry this process used (written at exit), with when it was first noted:
        # what a warm used since it began (`noted_since`), which its own prune keeps.
        self._noted: dict[Noted, float] = {}
        self._seen: set[tuple[str, tuple[Any, ...]]] = set()  # the same, as keys were given
        self.enabled = True  # off: nothing is noted (what the benchmark compares against)
        _open.add(self)

    def note(self, kind: str, key: Sequence[Any]) -> None:
        """Note one use now; the first use of an entry in this process starts the timer
        that writes it. Cheap, and never touches SQLite."""
        if not self.enabled or self._db.read_only or self._db.in_memory:
            return
        seen = (kind, tuple(key))
        if seen in self._seen:  # read without the lock: a set only grows
            return
        with self._lock:
            if seen in self._seen:
                return
            self._seen.add(seen)
            noted, now = (kind, entry_text(key)), time.time()
            self._noted.setdefault(noted, now)
            self._pending[noted] = now
        _start_flusher()

    def statements(self, everything_now: bool = False) -> tuple[list[Statement], dict[Noted, float]]:
        """The writes for what is pending (every noted entry, used now, with
        `everything_now`) and what they cover, for `written` once committed."""
        with self._lock:
            taken = dict(self._pending)
            if everything_now:
                now = time.time()
                taken.update(dict.fromkeys(self._noted, now))
        return [(UPSERT, (kind, entry, used)) for (kind, entry), used in taken.items()], taken

    def written(self, taken: dict[Noted, float]) -> None:
        """Forget what a committed transaction wrote (a use noted again since stays)."""
        with self._lock:
            for noted, used in taken.items():
                if self._pending.get(noted) == used:
                    del self._pending[noted]

    def flush(self, wait_s: float = FLUSH_WAIT_S, everything_now: bool = False) -> bool:
        """Write the pending uses in one transaction that waits at most `wait_s`; True if
        nothing is left pending."""
        statements, taken = self.statements(everything_now)
        if not statements:
            return True
        if not self._db.write_if_free(statements, wait_s):
            return False
        self.written(taken)
        return True

    def write_into(self, connection: sqlite3.Connection) -> dict[Noted, float]:
        """Write the pending uses inside the caller's transaction (a prune reads them in
        the same one); call `written` with the result once it commits."""
        statements, taken = self.statements()
        for sql, parameters in statements:
            connection.execute(sql, parameters)
        return taken

    def noted_since(self, moment: float) -> frozenset[Noted]:
        """The entries this process first used at or after `moment` (a POSIX time): what
        a warm that began then read from the store (`pruning.Warmed`). An entry it had
        read before holds in memory and is not read again, so it is not among them."""
        with self._lock:
            return frozenset(noted for noted, first in self._noted.items() if first >= moment)

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def close(self) -> None:
        """The store is closing: write what is pending (bounded, never blocking)."""
        _open.discard(self)
        self.flush(FLUSH_WAIT_S)


FUTURE_S = 3600.0  # a use later than this past now is not one (a clock far ahead, or junk)


def last_uses(rows: list[tuple[Any, ...]], now: float | None = None) -> dict[Noted, float]:
    """(kind, entry) -> used, from `last_use` rows; a row whose time is not a number, or is
    more than `FUTURE_S` ahead of `now`, is skipped (a hostile or damaged row never makes
    an entry look recent for ever, nor fails a prune)."""
    latest = (time.time() if now is None else now) + FUTURE_S
    found: dict[Noted, float] = {}
    for row in rows:
        if len(row) != 3:
            continue
        kind, entry, used = row
        if isinstance(kind, str) and isinstance(entry, str) and isinstance(used, (int, float)) \
                and not isinstance(used, bool) and used == used and used <= latest:  # not NaN
            found[(kind, entry)] = float(used)
    return found


_open: weakref.WeakSet[UseNotes] = weakref.WeakSet()


_flusher_lock = threading.Lock()
_flusher: threading.Thread | None = None


def _start_flusher() -> None:
    """One daemon thread per process writes every open store's pending uses each
    `FLUSH_S` (a busy store is skipped until the next round), started on the first use."""
    global _flusher
    if _flusher is not None:
        return
    with _flusher_lock:
        if _flusher is None:
            _flusher = threading.Thread(target=_flush_periodically, name="clmodes-last-use",
                                        daemon=True)
            _flusher.start()


def _flush_periodically() -> None:
    while True:
        time.sleep(FLUSH_S)
        try:
            for notes in [n for n in list(_open) if n.pending]:
                notes.flush(FLUSH_WAIT_S)
        except Exception as error:  # noqa: BLE001 - bookkeeping never kills the thread
            log.debug("clmodes store: last uses not written (%s)", error)


def _flush_all_at_exit() -> None:
    """Every open store's uses, each entry this process used written as used now."""
    for notes in list(_open):
        try:
            notes.flush(EXIT_WAIT_S, everything_now=True)
        except Exception as error:  # noqa: BLE001 - exit must never fail for bookkeeping
            log.debug("clmodes store: last uses not written at exit (%s)", error)


atexit.register(_flush_all_at_exit)
