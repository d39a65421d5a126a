"""Keeping the store under a size: evict what is cheap to recompute first, least recently
used first within that.

`prune(db, max_size)` reads every entry's bytes, creation and last use (`footprint`), and
evicts until the entries' bytes are at most `max_size`, in one write transaction: a
concurrent warm commits wholly before it or wholly after it (its writes are one
transaction too, and wait for this one like any second writer, `recovery.patiently`), so no reader
ever sees a binary without its kernel rows, or the reverse.

The decision: order by what an eviction costs to undo per byte it frees, then by recency.
A program binary is megabytes and seconds of building; a tune decision is a kilobyte and
minutes of measuring (every candidate, on a quiet device); a key's measurements are what
that measuring produced. So the tiers (`TIERS`), each least recently used first:

1. binaries, with their kernel index rows and recorded identities (a kernel row pointing
   at a missing binary would be a lookup that always misses);
2. measurements of a key that has a decision (they only serve a re-tune or a resumed
   tune; the decision already holds what they decided);
3. decisions, and measurements of a key with no decision (a tune stopped before it
   decided: minutes of measuring that the next tune resumes from).

A decision goes only when evicting every binary and every decided key's measurements
(but what is kept below) cannot meet the cap. The trap this replaces: plain LRU over all
kinds. A warm writes its decisions while tuning and its binaries at the end (`capture`),
so a workload's decisions are older than its binaries, and at the edge of what fit LRU
evicted the decisions and kept the binaries: under a cap of about three workloads a
user's store held 2 binaries and 0 decisions, and every later run tuned again (minutes)
to save a few kilobytes, where rebuilding a binary would have cost seconds.

What is never evicted:

- the entries of a key some live process is tuning now, by its lease (`tuning.live_keys`:
  a heartbeat within `STALE_S` and, on this host, a running owner): the key's decisions
  (any candidate set) and its measurements, which that tune resumes from and records
  into (`in_use` counts those met). A binary a live process has loaded, or a winner it
  holds, it already has in memory (it reads each once), so evicting the row never affects
  that process, only the next one, which builds or tunes it again; its use was noted
  (`footprint.UseNotes`), so it sorts as recent;
- at the end of a warm (`warm_began`, where `$CLMODES_CACHE_MAX_SIZE` applies), what that
  warm made or used (`Warmed`): entries created since it began, and entries this process
  first read since then (`UseNotes.noted_since`). A warm that evicted its own work would
  leave the next run to build and tune everything again, the opposite of warming. When the
  cap is smaller than that, they are kept over the cap and the report says so
  (`warmed_bytes`, `over_cap`; `cache_size` logs it in one line). Created-since is by the
  clock, so an entry another process's concurrent warm wrote meanwhile is kept too: it was
  just made as well, and that warm's own prune would keep it anyway.

Then the file is compacted with `VACUUM`, so that it actually shrinks (SQLite otherwise
keeps freed pages for reuse and the file never gets smaller): by `clmodes cache prune`
whenever it evicted something; by the cap applied after every warm only once at least
`AUTO_COMPACT_AT` of the file is free pages, since a `VACUUM` rewrites all that is kept and
doing it after every warm would cost each warm time in proportion to the cap. Not
`incremental_vacuum`: it needs `auto_vacuum` set before the first table is created, which
no existing store has, and turning it on is itself a full `VACUUM`. `VACUUM` holds the
write lock while it rewrites what is kept (at most the cap), so it waits at most
`COMPACT_WAIT_S` for the lock and is skipped (said in the report) when a warm holds it:
the freed pages are then reused by later writes, and the next prune compacts. The
write-ahead log is then checkpointed and truncated (`size_on_disk` counts it), as far as
readers allow.

## Info and clear

What the store holds (`clmodes cache info`, `info`) and clearing it (`clmodes cache
clear`, `clear`) live here too: they read and delete the same entries a prune does.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from pathlib import Path
from typing import Any

from clmodes.device import model_of
from clmodes.store import footprint, tiers, tuning
from clmodes.store.footprint import BINARY, MEASUREMENT, TUNE, Entry, UseNotes, entry_text
from clmodes.store.recovery import patiently
from clmodes.store.schema import exact_filter, model_filter
from clmodes.store.transactions import Database


COMPACT_WAIT_S = 2.0
AUTO_COMPACT_AT = 0.25  # the cap after a warm compacts once a quarter of the file is free

ORPHAN_KERNELS = ("DELETE FROM kernels WHERE NOT EXISTS (SELECT 1 FROM binaries b "
                  "WHERE b.exact = kernels.exact AND b.batch = kernels.batch)")


@dataclasses.dataclass(frozen=True)
class PruneReport:
    """What a prune did. Bytes are entry bytes (`footprint`) except `file_bytes_*` (the
    SQLite file and its log on disk)."""

    location: str
    max_size: int
    bytes_before: int
    bytes_after: int
    file_bytes_before: int
    file_bytes_after: int
    evicted: dict[str, int]  # binaries, kernels, tune_results, measurements: rows deleted
    evicted_bytes: int
    in_use: int  # entries kept because a live tune lease holds their key
    compacted: str  # "vacuum", or why the file was not compacted
    warmed: int = 0  # entries kept because the warm this prune ends made or used them
    warmed_bytes: int = 0  # their bytes: what that warm's workload needs

    @property
    def over_cap(self) -> bool:
        """Is the store still above the cap (what is left is in use)?"""
        return self.bytes_after > self.max_size

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "over_cap": self.over_cap}


@dataclasses.dataclass(frozen=True)
class Warmed:
    """What the running warm made or used, which the prune at its end never evicts:
    entries created at or after `since` (its start, a POSIX time), and those this process
    first read since then (`noted`: kind and entry as `last_use` names them)."""

    since: float
    noted: frozenset[tuple[str, str]] = frozenset()

    def holds(self, e: Entry) -> bool:
        return e.created >= self.since or (e.kind, entry_text(e.key)) in self.noted


@dataclasses.dataclass
class Plan:
    """The entries chosen for eviction, and what it leaves."""

    evict: list[Entry]
    bytes_before: int
    bytes_after: int
    in_use: int
    warmed: int = 0
    warmed_bytes: int = 0


# What an eviction costs to undo per byte it frees, cheapest first (see the module's doc).
BINARIES, DECIDED_MEASUREMENTS, DECISIONS = 0, 1, 2
TIERS = {BINARIES: "binaries (seconds of building, megabytes)",
         DECIDED_MEASUREMENTS: "measurements of a decided key (only a re-tune reads them)",
         DECISIONS: "decisions and an undecided key's measurements (minutes of measuring)"}


def tier(e: Entry, decided: set[tuple[Any, ...]]) -> int:
    """Which tier `e` is evicted in: binaries first, decisions last."""
    if e.kind == BINARY:
        return BINARIES
    if e.kind == MEASUREMENT and e.group in decided:
        return DECIDED_MEASUREMENTS
    return DECISIONS


def choose(found: list[Entry], live: set[tuning.LeaseKey], max_size: int,
           warmed: Warmed | None = None) -> Plan:
    """Cheapest to recompute first (`tier`), least recently used first within a tier,
    skipping what a live lease holds and what `warmed` holds, until the total is at most
    `max_size`."""
    total = sum(e.bytes for e in found)
    leased_groups = {key[:3] for key in live}
    decided = {e.group for e in found if e.kind == TUNE}
    own = [e for e in found if warmed is not None and warmed.holds(e)]
    kept = {id(e) for e in own}

    def held(e: Entry) -> bool:
        if e.kind == BINARY:
            return False
        return e.key[1:4] in leased_groups  # the key's entries, any candidate set

    kinds = {BINARY: 0, MEASUREMENT: 1, TUNE: 2}
    candidates = sorted((e for e in found if id(e) not in kept),
                        key=lambda e: (tier(e, decided), e.used, kinds[e.kind]))
    evict: list[Entry] = []
    left, in_use = total, 0
    for e in candidates:
        if left <= max_size:
            break
        if held(e):
            in_use += 1
            continue
        evict.append(e)
        left -= e.bytes
    return Plan(evict, total, left, in_use, len(own), sum(e.bytes for e in own))


def delete(connection: sqlite3.Connection, e: Entry) -> None:
    """Delete one entry (and what goes with it) inside the caller's transaction."""
    if e.kind == BINARY:
        connection.execute("DELETE FROM kernel_identity WHERE exact=? AND kernel_key IN "
                           "(SELECT kernel_key FROM kernels WHERE exact=? AND batch=?)",
                           (e.key[0], *e.key))
        connection.execute("DELETE FROM kernels WHERE exact=? AND batch=?", e.key)
        connection.execute("DELETE FROM binaries WHERE exact=? AND batch=?", e.key)
        forget_origin(connection, tiers.BINARY, e.key[0], e.key[1])
    elif e.kind == TUNE:
        connection.execute("DELETE FROM tune WHERE format=? AND model=? AND tunable=? AND "
                           "tune_key=? AND candidates=?", e.key)
        forget_origin(connection, tiers.TUNE, e.key[1], tiers.tune_entry(*e.key[2:]))
        connection.execute(f"DELETE FROM tune_lease WHERE {tuning.LEASE_WHERE}", e.key[1:])  # dead
    else:
        connection.execute("DELETE FROM measurement WHERE format=? AND model=? AND tunable=? "
                           "AND tune_key=?", e.key)
    connection.execute("DELETE FROM last_use WHERE kind=? AND entry=?", (e.kind, entry_text(e.key)))


def forget_origin(connection: sqlite3.Connection, kind: str, scope: str, entry: str) -> None:
    """An evicted entry is no longer one that came from a remote: the same key built here
    later must not be shown (or withheld from publishing) as the remote's."""
    connection.execute("DELETE FROM remote_origin WHERE kind=? AND scope=? AND entry=?",
                       (kind, scope, entry))


def counts(evicted: list[Entry]) -> dict[str, int]:
    """Rows deleted per kind, as the report names them."""
    found = {"binaries": 0, "kernels": 0, "tune_results": 0, "measurements": 0}
    for e in evicted:
        if e.kind == BINARY:
            found["binaries"] += 1
            found["kernels"] += e.rows - 1
        elif e.kind == TUNE:
            found["tune_results"] += 1
        else:
            found["measurements"] += e.rows
    return found


def prune_once(db: Database, notes: UseNotes, max_size: int,
               warm_began: float | None = None) -> tuple[Plan, int]:
    """One transaction: this process's noted uses written, entries read, the plan
    carried out; returns the plan and the orphaned kernel rows removed."""
    warmed = None if warm_began is None else Warmed(warm_began, notes.noted_since(warm_began))
    with db.transaction() as connection:
        taken = notes.write_into(connection)

        def read(sql: str) -> list[tuple[Any, ...]]:
            return connection.execute(sql).fetchall()

        now = time.time()
        plan = choose(footprint.entries(read), tuning.live_keys(read(tuning.LIVE_SELECT), now),
                      max_size, warmed)
        for e in plan.evict:
            delete(connection, e)
        orphans = connection.execute(ORPHAN_KERNELS).rowcount
        existing = {(e.kind, entry_text(e.key)) for e in footprint.entries(read, with_uses=False)}
        stale = [row for row in read("SELECT kind, entry FROM last_use") if tuple(row) not in existing]
        connection.executemany("DELETE FROM last_use WHERE kind=? AND entry=?", stale)
    notes.written(taken)
    return plan, orphans


def free_fraction(db: Database) -> float:
    """The share of the file's pages that are free (what `VACUUM` would give back)."""
    pages = db.query("PRAGMA page_count")
    free = db.query("PRAGMA freelist_count")
    if not pages or not free or not pages[0][0]:
        return 0.0
    return footprint.number(free[0][0]) / footprint.number(pages[0][0])


def prune(db: Database, notes: UseNotes, max_size: int, compact_at: float = 0.0,
          warm_began: float | None = None) -> PruneReport:
    """Evict the cheapest entries to recompute, least recently used first, until the
    store's entries take at most `max_size` bytes; then compact the file if anything went
    and at least `compact_at` of its pages are free (0: whenever anything went).
    `warm_began`: the prune ends the warm this process began then (a POSIX time), whose
    own entries are kept. See the module's doc."""
    if max_size < 0:
        raise ValueError(f"max_size {max_size} is negative")
    file_before = size_on_disk(db.path)
    if db.read_only:  # its writes would go to this process's copy in memory, and vanish
        size = footprint.total_bytes(lambda sql: db.query(sql))
        return PruneReport(db.location, max_size, size, size, file_before, file_before,
                           counts([]), 0, 0, "read-only store: nothing evicted")
    with db.saving("the prune's evictions"):
        plan, orphans = patiently(lambda: prune_once(db, notes, max_size, warm_began))
    evicted = counts(plan.evict)
    evicted["kernels"] += orphans
    compacted = "nothing evicted"
    if plan.evict or orphans:
        free = free_fraction(db)
        compacted = (db.compact(COMPACT_WAIT_S) if free > 0 and free >= compact_at
                     else f"not compacted: {free:.0%} of the file is free pages, reused by later writes")
    return PruneReport(db.location, max_size, plan.bytes_before, plan.bytes_after, file_before,
                       size_on_disk(db.path), evicted, plan.bytes_before - plan.bytes_after,
                       plan.in_use, compacted, plan.warmed, plan.warmed_bytes)


def info(db: Database) -> dict[str, Any]:
    """Location, bytes (the file), entry bytes (what a cap measures, `footprint`), and
    entries per device model (tune results) and, under each model, per exact device +
    driver (program binaries and indexed kernels)."""
    devices: dict[str, dict[str, Any]] = {}

    def model_entry(model: str) -> dict[str, Any]:
        return devices.setdefault(model, {"tune_results": 0, "tune_bytes": 0,
                                          "measurements": 0, "probe_results": 0,
                                          "drivers": {}})

    for model, count, size in db.query(
        "SELECT model, COUNT(*), SUM(LENGTH(value)) FROM tune GROUP BY model"
    ):
        model_entry(model).update(tune_results=count, tune_bytes=size or 0)
    for model, count in db.query("SELECT model, COUNT(*) FROM measurement GROUP BY model"):
        model_entry(model)["measurements"] = count
    for model, count in db.query("SELECT model, COUNT(*) FROM probe GROUP BY model"):
        model_entry(model)["probe_results"] = count
    for exact, count, size in db.query(
        "SELECT exact, COUNT(*), SUM(LENGTH(binary)) FROM binaries GROUP BY exact"
    ):
        drivers = model_entry(model_of(exact))["drivers"]
        drivers.setdefault(exact, {"kernels": 0}).update(binaries=count, binary_bytes=size or 0)
    for exact, count in db.query("SELECT exact, COUNT(*) FROM kernels GROUP BY exact"):
        drivers = model_entry(model_of(exact))["drivers"]
        drivers.setdefault(exact, {"binaries": 0, "binary_bytes": 0})["kernels"] = count
    return {"location": db.location, "bytes": size_on_disk(db.path), "read_only": db.read_only,
            "entry_bytes": footprint.total_bytes(lambda sql: db.query(sql)), "devices": devices}


def size_on_disk(path: Path | None) -> int:
    """The database file and its write-ahead log, in bytes (0 in memory)."""
    if path is None:
        return 0
    parts = (Path(f"{path}{suffix}") for suffix in ("", "-wal"))
    return sum(part.stat().st_size for part in parts if part.exists())


def clear(db: Database, model: str | None = None) -> int:
    """Delete every entry, or those of one device model (all its drivers). Returns the
    number of entries deleted (tune results, probes and binaries; the kernel index
    goes with its binaries)."""
    with db.saving("the clearing of its entries"):
        return patiently(lambda: clear_once(db, model))  # re-runnable: one transaction


def clear_once(db: Database, model: str | None) -> int:
    where, parameters = model_filter(model)
    like, like_parameters = exact_filter(model)
    deleted = 0
    with db.transaction() as connection:
        deleted += connection.execute("DELETE FROM tune" + where, parameters).rowcount
        deleted += connection.execute("DELETE FROM probe" + where, parameters).rowcount
        deleted += connection.execute("DELETE FROM binaries" + like, like_parameters).rowcount
        connection.execute("DELETE FROM kernels" + like, like_parameters)
        connection.execute("DELETE FROM device_check" + like, like_parameters)  # re-checked
        connection.execute("DELETE FROM compiler_macro" + like, like_parameters)  # re-asked
        connection.execute("DELETE FROM kernel_identity" + like, like_parameters)
        connection.execute("DELETE FROM absent_kernel" + like, like_parameters)
        connection.execute("DELETE FROM measurement" + where, parameters)
        connection.execute("DELETE FROM tune_lease" + where, parameters)
    return deleted
