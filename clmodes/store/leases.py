"""Tune leases: which process is measuring a key now, so that no other measures it too.

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
the measurements already stored (`measurements`).

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
import os
import platform
import sqlite3
import time
import uuid
from typing import Any

from clmodes.store.contention import patiently
from clmodes.store.schema import FORMAT_VERSION
from clmodes.store.transactions import Database

STALE_S = 30.0  # no heartbeat for this long: the owner is gone (it beats every HEARTBEAT_S)
ORPHAN_S = 3600.0  # a decided lease of another host's process, untouched this long: orphaned
HEARTBEAT_S = 2.0
HOST = platform.node()

LeaseKey = tuple[str, str, str, str]  # model, tunable, tune key, candidates checksum
WHERE = "model=? AND tunable=? AND tune_key=? AND candidates=?"


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
                f"SELECT value FROM tune WHERE format=? AND {WHERE}", (FORMAT_VERSION, *key)
            ).fetchone()
            if decided:
                return Claim(decision=decided[0])
            row = connection.execute(
                f"SELECT owner, heartbeat, decision FROM tune_lease WHERE {WHERE}", key).fetchone()
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
    db.write_now(f"UPDATE tune_lease SET heartbeat=? WHERE {WHERE} AND owner=?",
                 (time.time(), *key, owner))


def decide(db: Database, key: LeaseKey, owner: str, decision: str) -> None:
    """Publish the decision to waiters now (a deferred warm commits its tune row later)."""
    db.write_now(f"UPDATE tune_lease SET decision=?, heartbeat=? WHERE {WHERE} AND owner=?",
                 (decision, time.time(), *key, owner))


def release(db: Database, key: LeaseKey, owner: str) -> None:
    """Give up an undecided lease (the tune failed): a waiter takes over at once."""
    db.write_now(f"DELETE FROM tune_lease WHERE {WHERE} AND owner=? AND decision IS NULL",
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
    return f"DELETE FROM tune_lease WHERE {WHERE}", key


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
