"""What lies behind the store: the slot for a read-through tier, and which entries were
read from one.

## The tier

A tier behind the store: where a local miss may read through before it is a miss.

The store is the lowest layer that knows about entries, and what lies behind it (a team's
shared Redis, `clmodes.remote`) needs the layers above: signatures and trust from
`clmodes.bundle`, records from `clmodes.tune`. So the store defines only this slot and
the two questions it asks; the tier is installed from above (`clmodes.remote.configure`,
or `$CLMODES_REMOTE` through the factory `clmodes/__init__.py` registers), resolved once,
on the first miss, so that importing clmodes opens no connection.

The contract a tier keeps (the store trusts it with nothing else): it writes what it
found into the store itself (`Store.add_entries`, local entries winning) and returns; it
never raises, never blocks past its own bounded timeout, and asks each key at most once
per process, so a miss costs one remote round trip at most, and a remote that is down
costs one timeout for the whole process.

## Remote origins

The remote_origin table: which entries of this store were read from a remote tier.

A table of its own rather than a column of `tune` or `binaries`: the schema has no
migrations (`CREATE TABLE IF NOT EXISTS`), and where an entry came from is local
bookkeeping that bundles must not carry. `clmodes tune list` shows such a tune result's
origin as "remote", `clmodes cache info` counts them, and publishing never re-signs
them: a machine republishing what it read would launder a signer it did not check into
its own signature.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Protocol

from clmodes.store.schema import StoreEntries
from clmodes.store.transactions import Database


class TierStore(Protocol):
    """What a tier uses of the store it reads into: `clmodes.store.store.Store`, which
    imports this module, so it is typed here by those three methods."""

    def get_binary(self, exact: str, batch: str) -> tuple[bytes, list[str]] | None:
        """A batch's binary and unit keys held locally, or None."""

    def add_entries(self, entries: StoreEntries) -> StoreEntries:
        """Insert entries, local ones winning; the entries added."""

    def note_remote(self, rows: list[tuple[str, str, str, str]]) -> None:
        """Record entries copied in from a remote: (kind, scope, entry, signer)."""


class ReadThrough(Protocol):
    def binaries(self, store: TierStore, exact: str, kernel_keys: list[str]) -> None:
        """Copy into `store` the binaries (and kernel index rows) of these kernel keys
        that the tier holds for this exact device."""

    def tunes(self, store: TierStore, tunable: str, key: str, candidates: str) -> None:
        """Copy into `store` every device model's decision the tier holds for this key."""


Factory = Callable[[], "ReadThrough | None"]

_lock = threading.Lock()
_factory: Factory | None = None
_tier: ReadThrough | None = None
_resolved = False


def set_factory(factory: Factory) -> None:
    """How the tier is made when first needed (`clmodes/__init__.py`: from the environment)."""
    global _factory
    with _lock:
        _factory = factory


def install(tier: ReadThrough | None) -> None:
    """Use `tier` from now on (None: no tier), whatever the factory would make."""
    global _tier, _resolved
    with _lock:
        _tier, _resolved = tier, True


def reset() -> None:
    """Forget the installed tier: the factory decides again at the next miss."""
    global _tier, _resolved
    with _lock:
        _tier, _resolved = None, False


def current() -> ReadThrough | None:
    """The tier, made by the factory on first use; None when there is none."""
    global _tier, _resolved
    if _resolved:
        return _tier
    with _lock:
        if not _resolved:
            _tier = _factory() if _factory is not None else None
            _resolved = True
        return _tier


TUNE = "tune"
BINARY = "binary"


def tune_entry(tunable: str, key: str, candidates: str) -> str:
    return json.dumps([tunable, key, candidates])


def note(db: Database, rows: list[tuple[str, str, str, str]]) -> None:
    """Record (kind, scope, entry, signer) rows: scope is the model (tune) or the exact
    device (binary); entry the tune key (`tune_entry`) or the batch."""
    now = time.time()
    with db.transaction() as connection:
        connection.executemany("INSERT OR IGNORE INTO remote_origin VALUES (?, ?, ?, ?, ?)",
                               [(*row, now) for row in rows])


def tune_keys(db: Database) -> set[tuple[str, str, str, str]]:
    """(model, tunable, key, candidates) of every tune result read from a remote."""
    found = set()
    for scope, entry in db.query("SELECT scope, entry FROM remote_origin WHERE kind=?", (TUNE,)):
        try:
            tunable, key, candidates = json.loads(entry)
        except (ValueError, TypeError):
            continue
        found.add((scope, str(tunable), str(key), str(candidates)))
    return found


def batches(db: Database) -> set[tuple[str, str]]:
    """(exact, batch) of every binary read from a remote."""
    return {(scope, entry) for scope, entry in
            db.query("SELECT scope, entry FROM remote_origin WHERE kind=?", (BINARY,))}


def counts(db: Database) -> dict[str, int]:
    """How many tune results and binaries the store holds that came from a remote (those
    since deleted or cleared are not counted)."""
    held_tunes = {tuple(row) for row in db.query(
        "SELECT model, tunable, tune_key, candidates FROM tune")}
    held_binaries = {tuple(row) for row in db.query("SELECT exact, batch FROM binaries")}
    return {"tune_results": len(tune_keys(db) & held_tunes),
            "binaries": len(batches(db) & held_binaries)}
