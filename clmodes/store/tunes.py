"""The tune table: one measured winner per (format, device model, tunable, key, candidates).

The first winner recorded is the one every process uses: a second process that measured
the same key concurrently gets the stored entry back instead of its own, so that all
processes agree. An entry that does not parse is a miss (with a warning) and is replaced
by the next measurement. Whether it parses is `TuneRecord.from_json`'s to say (`parsed`),
the one reader of records from anywhere, so the store and its readers cannot disagree on
what a record is; an entry read keeps its JSON as the record's `source`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from typing import Any

from clmodes.records.tune import TuneRecord, parsed
from clmodes.store.contention import patiently
from clmodes.store.leases import delete_statement, retire
from clmodes.store.schema import FORMAT_VERSION, TuneRow, model_filter
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")

INSERT = "INSERT OR IGNORE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)"
KEY_WHERE = "format=? AND model=? AND tunable=? AND tune_key=? AND candidates=?"
SELECT_VALUE = f"SELECT value FROM tune WHERE {KEY_WHERE}"
DELETE_ONE = f"DELETE FROM tune WHERE {KEY_WHERE}"


def get_tune(db: Database, model: str, tunable: str, key: str, candidates: str) -> TuneRecord | None:
    rows = db.query(SELECT_VALUE, (FORMAT_VERSION, model, tunable, key, candidates))
    if not rows:
        return None
    value = parsed(rows[0][0])
    if value is None:
        log.warning(
            "clmodes store %s: unreadable tune entry for %s key %s; re-tuning",
            db.location, tunable, key,
        )
    return value


def put_tune(db: Database, model: str, tunable: str, key: str, candidates: str,
             value: dict[str, Any]) -> TuneRecord | None:
    """Record a measured winner (its JSON) unless another process recorded one first;
    return the entry that was there first, or None where `value` is the entry now (or
    could not be written: this process goes on with it), so that every process agrees on
    one winner per key."""
    text = json.dumps(value, sort_keys=True)
    parameters = (FORMAT_VERSION, model, tunable, key, candidates)
    if db.deferring:  # held until the warm commits: still answer with a stored winner
        existing = get_tune(db, model, tunable, key, candidates)
        if existing is not None:
            return existing
        db.stage(INSERT, (*parameters, text, time.time()))
        db.stage(*delete_statement((model, tunable, key, candidates)))
        return None
    try:
        return patiently(lambda: insert_once(db, parameters, text))
    except sqlite3.Error as error:
        log.warning("clmodes store %s: could not record a tune result (%s)", db.location, error)
    return None


def insert_once(db: Database, parameters: tuple[Any, ...], text: str) -> TuneRecord | None:
    """Insert unless an entry exists; return the existing entry, or None if inserted.
    An existing entry that does not parse is replaced."""
    with db.transaction() as connection:
        row = connection.execute(SELECT_VALUE, parameters).fetchone()
        existing = parsed(row[0]) if row else None
        if existing is None:
            connection.execute(
                "INSERT OR REPLACE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*parameters, text, time.time()),
            )
        retire(connection, parameters[1:])  # the lease's decision is now the tune row
        return existing


def drop_stale(db: Database, model: str, tunable: str, key: str, candidates: str,
               stale: TuneRecord) -> bool:
    """Delete a decision found stale (its code changed), unless it has been replaced by
    another process meanwhile (the entry is no longer the JSON `stale` was read from): a
    stale entry must not win "first recorded wins"."""
    parameters = (FORMAT_VERSION, model, tunable, key, candidates)
    json_read = stale.stored_json()

    def attempt() -> bool:
        with db.transaction() as connection:
            row = connection.execute(SELECT_VALUE, parameters).fetchone()
            found = parsed(row[0]) if row else None
            if found is None or found.source != json_read:
                return False
            connection.execute(DELETE_ONE, parameters)
            return True
    try:
        return patiently(attempt)
    except sqlite3.Error as error:
        log.warning("clmodes store %s: could not drop a stale tune entry (%s)", db.location, error)
        return False


def tune_rows(db: Database, model: str | None) -> list[TuneRow]:
    """Every tune entry, or one device model's."""
    where, parameters = model_filter(model)
    return [TuneRow.of(row) for row in db.query(f"SELECT {TuneRow.columns()} FROM tune" + where, parameters)]


def delete_tunes(db: Database, keys: list[tuple[Any, ...]]) -> int:
    """Delete tune entries by primary key (`TuneRow.key`: format, model, tunable, key,
    candidates) in one transaction, so that they are tuned again; returns how many went.
    By key, not by pattern: `clmodes tune forget` shows what it selected, and exactly that
    is what goes."""
    measured = "DELETE FROM measurement WHERE format=? AND model=? AND tunable=? AND tune_key=?"
    with db.transaction() as connection:
        for key in keys:
            connection.execute(measured, tuple(key)[:4])
        return sum(connection.execute(DELETE_ONE, tuple(key)).rowcount
                   for key in keys)


def add_tune_rows(connection: sqlite3.Connection, rows: list[TuneRow], now: float) -> list[TuneRow]:
    """Insert inside the caller's transaction; an entry already here wins. Returns the
    rows that were added."""
    return [row for row in rows if connection.execute(INSERT, (*row.values(), now)).rowcount]


def tunes_on_models(db: Database, tunable: str, key: str, candidates: str) -> dict[str, TuneRecord]:
    """Every device model's decision for one key (`clmodes.tune.nearest` grades them)."""
    rows = db.query("SELECT model, value FROM tune WHERE format=? AND tunable=? AND tune_key=? "
                    "AND candidates=?", (FORMAT_VERSION, tunable, key, candidates))
    return {model: record for model, text in rows if (record := parsed(text)) is not None}


def replace_tune(db: Database, model: str, tunable: str, key: str, candidates: str,
                 record: TuneRecord) -> None:
    """Overwrite one decision (an answer verified or re-tuned here, `clmodes.tune.verify`),
    written as `record.stored_json()`; staged like any write while a warm defers them,
    after whatever it staged before."""
    try:
        db.write("INSERT OR REPLACE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (FORMAT_VERSION, model, tunable, key, candidates,
                  json.dumps(record.stored_json(), sort_keys=True), time.time()))
    except sqlite3.Error as error:
        log.warning("clmodes store %s: could not rewrite a tune result (%s)", db.location, error)
