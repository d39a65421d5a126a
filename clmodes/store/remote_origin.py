"""The remote_origin table: which entries of this store were read from a remote tier.

A table of its own rather than a column of `tune` or `binaries`: the schema has no
migrations (`CREATE TABLE IF NOT EXISTS`), and where an entry came from is local
bookkeeping that bundles must not carry. `clmodes tune list` shows such a tune result's
origin as "remote", `clmodes cache info` counts them, and publishing never re-signs
them: a machine republishing what it read would launder a signer it did not check into
its own signature.
"""

from __future__ import annotations

import json
import time

from clmodes.store.transactions import Database

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
