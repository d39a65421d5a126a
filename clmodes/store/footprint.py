"""What each evictable entry weighs and when it was last used: what `pruning` evicts by.

## Last uses

When each entry was last used: what `clmodes cache prune` evicts by, least recent first.

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

## Entry sizes

What each evictable entry of the store weighs and when it was last used.

The *size of the store* that `clmodes cache prune --max-size` caps is the sum of its
entries' bytes: for a program binary, the binary itself, its unit list and, for each of
its kernels, the name, argument info and recorded identity (they go with it); for a tune
decision, its record; for a key's measurements, their records. All of it is what the
store holds *for* the entries (binary blobs and JSON text, as bytes); the SQLite file is
larger (keys, indexes, free pages), and is reported beside it, not capped, because its
size depends on page reuse and on when it was last compacted, which no cap can promise.

An entry's last use is the latest of its `last_use` row (`UseNotes`) and its `created` time:
an entry that no process has read since it was written (or a store made before last uses
were recorded) counts as used when it was created. `created` is kept beside it: the prune
at the end of a warm keeps what that warm wrote (`pruning.Warmed`). Probe results and usability verdicts
are not entries here: they are a few hundred bytes per device, and re-measuring them
costs seconds.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
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


Reader = Callable[[str], list[tuple[Any, ...]]]
"""Runs one SELECT: a transaction's connection (`prune`) or the store's `query`."""

BINARIES = ("SELECT exact, batch, LENGTH(CAST(binary AS BLOB)) + LENGTH(CAST(units AS BLOB)), "
            "created FROM binaries")
KERNELS = ("SELECT exact, batch, SUM(LENGTH(CAST(name AS BLOB)) + LENGTH(CAST(args AS BLOB))), "
           "COUNT(*) FROM kernels GROUP BY exact, batch")
IDENTITIES = ("SELECT k.exact, k.batch, SUM(LENGTH(CAST(i.identity AS BLOB))) FROM "
              "kernel_identity i JOIN kernels k ON i.exact = k.exact AND "
              "i.kernel_key = k.kernel_key GROUP BY k.exact, k.batch")
TUNES = ("SELECT format, model, tunable, tune_key, candidates, LENGTH(CAST(value AS BLOB)), "
         "created FROM tune")
MEASUREMENTS = ("SELECT format, model, tunable, tune_key, SUM(LENGTH(CAST(value AS BLOB))), "
                "MAX(created), COUNT(*) FROM measurement GROUP BY format, model, tunable, tune_key")
LAST_USES = "SELECT kind, entry, used FROM last_use"
TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One evictable entry: a binary (with its kernel rows), a tune decision, or one
    key's measurements. `rows`: the table rows it stands for (kernel rows included)."""

    kind: str  # BINARY, TUNE or MEASUREMENT
    key: tuple[Any, ...]
    bytes: int
    used: float
    rows: int = 1
    created: float = 0.0  # when it was written (a key's measurements: the latest)

    @property
    def group(self) -> tuple[Any, ...]:
        """The key's measurements a tune or measurement entry belongs with."""
        return self.key[:4]


def number(value: object) -> float:
    """A column read as a number; a damaged or hostile value (text, NULL) is 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return 0.0
    return float(value)


def entries(read: Reader, with_uses: bool = True) -> list[Entry]:
    """Every evictable entry with its bytes and (`with_uses`) last use. A table the store
    lacks (a read-only store an older clmodes made, opened without the schema applied)
    holds no entries, and an entry without a last use counts as used when created."""
    tables = {name for (name,) in read(TABLES)}

    def rows(sql: str, *needed: str) -> list[tuple[Any, ...]]:
        return read(sql) if set(needed) <= tables else []

    last = last_uses(rows(LAST_USES, "last_use")) if with_uses else {}

    def used(kind: str, key: tuple[Any, ...], created: object) -> float:
        return max(number(created), last.get((kind, entry_text(key)), 0.0))

    kernel_bytes = {(e, b): (int(number(size)), int(number(n)))
                    for e, b, size, n in rows(KERNELS, "kernels")}
    identity_bytes = {(e, b): int(number(size))
                      for e, b, size in rows(IDENTITIES, "kernels", "kernel_identity")}
    found = []
    for exact, batch, size, created in rows(BINARIES, "binaries"):
        extra, kernels = kernel_bytes.get((exact, batch), (0, 0))
        found.append(Entry(BINARY, (exact, batch),
                           int(number(size)) + extra + identity_bytes.get((exact, batch), 0),
                           used(BINARY, (exact, batch), created), 1 + kernels, number(created)))
    for *key, size, created in rows(TUNES, "tune"):
        found.append(Entry(TUNE, tuple(key), int(number(size)), used(TUNE, tuple(key), created),
                           1, number(created)))
    for *key, size, created, count in rows(MEASUREMENTS, "measurement"):
        found.append(Entry(MEASUREMENT, tuple(key), int(number(size)),
                           used(MEASUREMENT, tuple(key), created), int(number(count)),
                           number(created)))
    return found


def total_bytes(read: Reader) -> int:
    """The size of the store, as a cap measures it (see the module's doc)."""
    return sum(entry.bytes for entry in entries(read, with_uses=False))
