"""What tuning keeps: decisions (`tune`), the measurements they were made from
(`measurement`), and the leases that let one process measure a key while others wait
(`tune_lease`).

## Decisions

The tune table: one measured winner per (format, device model, tunable, key, candidates).

The first winner recorded is the one every process uses: a second process that measured
the same key concurrently gets the stored entry back instead of its own, so that all
processes agree. An entry that does not parse is a miss (with a warning) and is replaced
by the next measurement. Whether it parses is `TuneRecord.from_json`'s to say (`parsed`),
the one reader of records from anywhere, so the store and its readers cannot disagree on
what a record is; an entry read keeps its JSON as the record's `source`.

## Measurements

The measurement table: every candidate measured for a key, kept as it is taken.

A measurement is a fact about one candidate's code (its `identity`: the kernels it
launched) on one device model, not a decision, so it is written at once even inside a
deferred warm: a tune killed halfway then resumes where it stopped, a grown space or one
added candidate measures only what is new, and an edited kernel invalidates exactly the
measurements of the candidates that launch it (their identity changes; the old rows are
simply never asked for again).

## Leases

Tune leases: which process is measuring a key now, so that no other measures it too.

Two processes warming one workload into one store used to tune every key twice and keep
different winners. Measuring a key a second time, concurrently, is worse than waiting:
both processes compete for the same device, so both measurements are noisy, and the
second one's work is thrown away (the first winner recorded wins). So the first process
to *claim* a key measures it; the others wait for its decision and adopt it.

A lease is one row: the owner (`host:pid:nonce`), a heartbeat the owner refreshes from a
thread while it measures, and the decision once made. The decision is written into the
lease at once, even inside a deferred warm whose tune row is only committed at its end:
a waiter then adopts it without waiting for the other process's whole warm, and the
committed tune row deletes the lease. A lease whose heartbeat is older than `STALE_S`, or
whose owner on this host is no longer running, is taken over: the new owner resumes from
the measurements already stored (`measurements`, above).

The trap of the published decision: it is in the lease before the owner's tune row is
committed, and a warm interrupted between the two (Ctrl-C, SIGTERM, SIGKILL, an
exception while persisting) left a lease holding a decision that no tune row would ever
back. Every later claim adopted it, so every later warm said "0 keys tuned", stored no
decision, and `clmodes check` failed for good. So a decided lease is adopted only while
its owner may still commit: an owner that is gone (`_gone`) left an orphan, which the
next claim takes over like an abandoned lease (its measurements are reused, the decision
is made again and stored), and an owner whose warm failed withdraws its uncommitted
decisions at once (`withdraw`). A decided lease's heartbeat is not a sign of life (the
owner stops beating once it decided and may tune other keys for minutes before its
commit), so only a dead process on this host, or an hour's silence from another host,
orphans one. And a process that adopts a decision only published in a lease records it
as its own tune row too (the first row wins, so both agree): a warm that returns has
every key it uses decided in the store, whatever becomes of the process it adopted from.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import platform
import sqlite3
import time
import uuid
from typing import Any

from clmodes.records.measurement import CandidateMeasurement, Outcome
from clmodes.records.tune import TuneRecord, parsed
from clmodes.store.recovery import patiently
from clmodes.store.schema import FORMAT_VERSION, MeasurementRow, TuneRow, model_filter
from clmodes.store.transactions import Database

log = logging.getLogger("clmodes")


TUNE_INSERT = "INSERT OR IGNORE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)"
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
        db.stage(TUNE_INSERT, (*parameters, text, time.time()))
        db.stage(*delete_statement((model, tunable, key, candidates)))
        return None
    try:
        return patiently(lambda: insert_once(db, parameters, text))
    except sqlite3.Error as error:
        db.note_failure(f"the tune result of {tunable} key {key}", error)
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
    with db.saving(f"the deletion of {len(keys)} tune results"), db.transaction() as connection:
        for key in keys:
            connection.execute(measured, tuple(key)[:4])
        return sum(connection.execute(DELETE_ONE, tuple(key)).rowcount
                   for key in keys)


def add_tune_rows(connection: sqlite3.Connection, rows: list[TuneRow], now: float) -> list[TuneRow]:
    """Insert inside the caller's transaction; an entry already here wins. Returns the
    rows that were added."""
    return [row for row in rows if connection.execute(TUNE_INSERT, (*row.values(), now)).rowcount]


def tunes_on_models(db: Database, tunable: str, key: str, candidates: str) -> dict[str, TuneRecord]:
    """Every device model's decision for one key (`clmodes.tune.answers.nearest` grades them)."""
    rows = db.query("SELECT model, value FROM tune WHERE format=? AND tunable=? AND tune_key=? "
                    "AND candidates=?", (FORMAT_VERSION, tunable, key, candidates))
    return {model: record for model, text in rows if (record := parsed(text)) is not None}


def replace_tune(db: Database, model: str, tunable: str, key: str, candidates: str,
                 record: TuneRecord) -> None:
    """Overwrite one decision (an answer verified or re-tuned here, `clmodes.tune.answers.verify`),
    written as `record.stored_json()`; staged like any write while a warm defers them,
    after whatever it staged before."""
    try:
        db.write("INSERT OR REPLACE INTO tune VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (FORMAT_VERSION, model, tunable, key, candidates,
                  json.dumps(record.stored_json(), sort_keys=True), time.time()))
    except sqlite3.Error as error:
        db.note_failure(f"the tune result of {tunable} key {key}", error)


MEASUREMENT_SELECT = ("SELECT candidate, identity, value FROM measurement WHERE format=? AND model=? "
          "AND tunable=? AND tune_key=?")


def measurements(db: Database, model: str, tunable: str, key: str
                 ) -> dict[tuple[str, str], CandidateMeasurement]:
    """(candidate, identity) -> its measurement; unreadable rows are skipped."""
    found: dict[tuple[str, str], CandidateMeasurement] = {}
    for candidate, identity, text in db.query(MEASUREMENT_SELECT, (FORMAT_VERSION, model, tunable, key)):
        record = parse_measurement(text)
        if record is None or not isinstance(candidate, str) or not isinstance(identity, str):
            log.warning("clmodes store %s: unreadable measurement of %s key %s; measuring again",
                        db.location, tunable, key)
            continue
        found[(candidate, identity)] = record
    return found


def put_measurement(db: Database, model: str, tunable: str, key: str, candidate: str,
                    identity: str, value: CandidateMeasurement) -> None:
    """Record one measurement now (never deferred: see the module's doc)."""
    row = MeasurementRow(FORMAT_VERSION, model, tunable, key, candidate, identity,
                         json.dumps(value.to_json(), sort_keys=True))
    db.write_now("INSERT OR REPLACE INTO measurement VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (*row.values(), time.time()))


def parse_measurement(text: object) -> CandidateMeasurement | None:
    """A stored measurement: a positive median (a sample, or `median_s`), or a
    `failed` or `dropped` reason (a build that failed, a candidate screened out as far
    slower). Decided by `CandidateMeasurement.from_json`, the one reader of measurements
    from anywhere."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    found = CandidateMeasurement.from_json(value)
    if found is None or (found.outcome is Outcome.MEASURED
                         and not (found.median is not None and found.median > 0)):
        return None
    return found


STALE_S = 30.0  # no heartbeat for this long: the owner is gone (it beats every HEARTBEAT_S)
ORPHAN_S = 3600.0  # a decided lease of another host's process, untouched this long: orphaned
HEARTBEAT_S = 2.0
HOST = platform.node()

LeaseKey = tuple[str, str, str, str]  # model, tunable, tune key, candidates checksum
LEASE_WHERE = "model=? AND tunable=? AND tune_key=? AND candidates=?"


def new_owner() -> str:
    """This process's lease owner name (one per process, so its threads share it)."""
    return f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclasses.dataclass(frozen=True)
class Claim:
    """The answer to a claim: measure it (`mine`), adopt a decision, or wait for `owner`."""

    mine: bool = False
    decision: str | None = None  # a tune record's JSON, made by another process
    owner: str | None = None  # who is measuring it meanwhile
    committed: bool = True  # False: `decision` is only published in a lease (its owner
    # has not committed its tune row yet, and may never: the adopter records it too)


def claim(db: Database, key: LeaseKey, owner: str, now: float | None = None) -> Claim:
    """Claim a key for measuring, in one transaction with the checks, so that exactly one
    of several processes asking at once gets it."""
    now = time.time() if now is None else now

    def attempt() -> Claim:
        with db.transaction() as connection:
            decided = connection.execute(
                f"SELECT value FROM tune WHERE format=? AND {LEASE_WHERE}", (FORMAT_VERSION, *key)
            ).fetchone()
            if decided:
                return Claim(decision=decided[0])
            row = connection.execute(
                f"SELECT owner, heartbeat, decision FROM tune_lease WHERE {LEASE_WHERE}", key).fetchone()
            if row is not None and row[2] is not None and not _gone(row[0], row[1], now):
                return Claim(decision=row[2], committed=False)
            if row is not None and row[0] != owner and not _abandoned(row[0], row[1], now):
                return Claim(owner=row[0])
            connection.execute("INSERT OR REPLACE INTO tune_lease VALUES (?, ?, ?, ?, ?, ?, NULL)",
                               (*key, owner, now))
            return Claim(mine=True)
    return patiently(attempt)


def _abandoned(owner: str, heartbeat: Any, now: float) -> bool:
    """No heartbeat for STALE_S, or an owner on this host that is no longer running."""
    if not isinstance(heartbeat, (int, float)) or now - heartbeat > STALE_S:
        return True
    return _dead_here(owner)


def _gone(owner: str, heartbeat: Any, now: float) -> bool:
    """Can the owner of a decided lease no longer commit its tune row? (The module's doc:
    why its heartbeat does not count.)"""
    if not isinstance(heartbeat, (int, float)) or now - heartbeat > ORPHAN_S:
        return True
    return _dead_here(owner)


def _dead_here(owner: str) -> bool:
    """Is `owner` a process of this host that is no longer running?"""
    host, _, rest = str(owner).partition(":")
    pid = rest.partition(":")[0]
    if host != HOST or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, as another user's process
        return False
    return False


def beat(db: Database, key: LeaseKey, owner: str) -> None:
    db.write_now(f"UPDATE tune_lease SET heartbeat=? WHERE {LEASE_WHERE} AND owner=?",
                 (time.time(), *key, owner))


def decide(db: Database, key: LeaseKey, owner: str, decision: str) -> None:
    """Publish the decision to waiters now (a deferred warm commits its tune row later)."""
    db.write_now(f"UPDATE tune_lease SET decision=?, heartbeat=? WHERE {LEASE_WHERE} AND owner=?",
                 (decision, time.time(), *key, owner))


def release(db: Database, key: LeaseKey, owner: str) -> None:
    """Give up an undecided lease (the tune failed): a waiter takes over at once."""
    db.write_now(f"DELETE FROM tune_lease WHERE {LEASE_WHERE} AND owner=? AND decision IS NULL",
                 (*key, owner))


def withdraw(db: Database, owner: str) -> int:
    """Withdraw `owner`'s published decisions that no committed tune row backs (its warm
    failed: the module's doc); how many. Written now, even inside a deferred block."""
    def run() -> int:
        with db.transaction() as connection:
            return connection.execute(
                "DELETE FROM tune_lease WHERE owner=? AND decision IS NOT NULL AND NOT EXISTS "
                "(SELECT 1 FROM tune WHERE tune.format=? AND tune.model=tune_lease.model AND "
                "tune.tunable=tune_lease.tunable AND tune.tune_key=tune_lease.tune_key AND "
                "tune.candidates=tune_lease.candidates)", (owner, FORMAT_VERSION)).rowcount
    try:
        return patiently(run)
    except sqlite3.Error:
        return 0


def delete_statement(key: LeaseKey) -> tuple[str, tuple[Any, ...]]:
    """The statement that retires a key's lease once its tune row is committed."""
    return f"DELETE FROM tune_lease WHERE {LEASE_WHERE}", key


def retire(connection: sqlite3.Connection, key: LeaseKey) -> None:
    connection.execute(*delete_statement(key))


def live_keys(rows: list[tuple[Any, ...]], now: float) -> set[LeaseKey]:
    """The keys of `tune_lease` rows (model, tunable, tune key, candidates, owner,
    heartbeat) whose owner is alive, by the same rule a claim takes a lease over by: what
    `clmodes cache prune` must not evict (a tune in progress resumes from, and records
    into, its key's entries)."""
    return {(str(row[0]), str(row[1]), str(row[2]), str(row[3])) for row in rows
            if len(row) == 6 and not _abandoned(str(row[4]), row[5], now)}


LIVE_SELECT = "SELECT model, tunable, tune_key, candidates, owner, heartbeat FROM tune_lease"
