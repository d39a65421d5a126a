"""What each evictable entry of the store weighs and when it was last used.

The *size of the store* that `clmodes cache prune --max-size` caps is the sum of its
entries' bytes: for a program binary, the binary itself, its unit list and, for each of
its kernels, the name, argument info and recorded identity (they go with it); for a tune
decision, its record; for a key's measurements, their records. All of it is what the
store holds *for* the entries (binary blobs and JSON text, as bytes); the SQLite file is
larger (keys, indexes, free pages), and is reported beside it, not capped, because its
size depends on page reuse and on when it was last compacted, which no cap can promise.

An entry's last use is the latest of its `last_use` row (`uses`) and its `created` time:
an entry that no process has read since it was written (or a store made before last uses
were recorded) counts as used when it was created. `created` is kept beside it: the prune
at the end of a warm keeps what that warm wrote (`pruning.Warmed`). Probe results and usability verdicts
are not entries here: they are a few hundred bytes per device, and re-measuring them
costs seconds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from clmodes.store import uses
from clmodes.store.uses import BINARY, MEASUREMENT, TUNE, entry_text

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

    kind: str  # uses.BINARY, TUNE or MEASUREMENT
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

    last = uses.last_uses(rows(LAST_USES, "last_use")) if with_uses else {}

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
