"""`Store`: the store's public face, one method per thing callers do with it.

Tune decisions and measurements go in and come out as their record types (`TuneRecord`,
`CandidateMeasurement`), decoded and checked once, here; `get_tune_json` and
`put_tune_json` are their raw JSON form, for tests and tools that write records by hand.

Each method delegates to the module of its concept (`tuning`, `binaries`,
`device_facts`, `misses`, `tiers`, `footprint`, `pruning`); all entries at once, for
bundles, are read and inserted below (`read_entries`, `insert_entries`). Opening is
`connection`'s, recovering from damage `recovery`'s, transactions and deferral
`transactions`'.

Three reads read through the tier behind the store when one is installed (`tiers`: a
team's remote, `clmodes.remote`) and the store misses: `tune_record`,
`tune_records_on_models` and `kernel_batches`. The tier copies what it finds into this
store, and the read is asked again here: every later reader (this process, the next one)
finds it locally."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clmodes.records.measurement import CandidateMeasurement
from clmodes.records.tune import TuneRecord
from clmodes.store import binaries, device_facts, footprint, misses, tiers, tuning
from clmodes.store.binaries import KernelSpec
from clmodes.store.connection import open_store
from clmodes.store.footprint import UseNotes
from clmodes.store.recovery import patiently
from clmodes.store.schema import FORMAT_VERSION, KernelRow, StoreEntries, TuneRow
from clmodes.store.transactions import Database

if TYPE_CHECKING:
    from clmodes.store.pruning import PruneReport


class Store(Database):
    """One SQLite database of tune results, probe results and program binaries.
    Thread-safe (one connection, one lock); process-safe (WAL). `directory` None: in
    memory; a store there that cannot be written is read, its writes kept in memory
    (`read_only`); a directory that cannot be used falls back to memory (with a
    warning)."""

    def __init__(self, directory: Path | str | None, read_only: str | None = None) -> None:
        """`read_only`: why to read the file and never write it (`open_store`)."""
        super().__init__(open_store(directory, read_only))
        # Asked for a directory, given memory: what a warm must not report as success.
        self.requested = None if directory is None else Path(directory)
        self.uses = UseNotes(self)  # last uses, noted in memory, written batched

    def close(self) -> None:
        """Write the uses noted and not yet written (bounded: never blocks), then close."""
        self.uses.close()
        super().close()

    @property
    def persistent(self) -> bool:
        """Do writes reach a file that later processes read?"""
        return not self.in_memory and not self.read_only

    @property
    def fell_back(self) -> bool:
        """Was a directory asked for and are writes not kept there (memory instead, or a
        store that is read-only)? What `warm` refuses unless memory is allowed."""
        return self.requested is not None and not self.persistent

    # -- tune results (`TuneRecord`s; the raw JSON forms below them) ------------------

    def tune_record(self, model: str, tunable: str, key: str, candidates: str) -> TuneRecord | None:
        """The decision stored for one key (its JSON kept as the record's `source`), or
        None (absent, or unreadable: with a warning)."""
        found = tuning.get_tune(self, model, tunable, key, candidates)
        if found is None and (tier := tiers.current()) is not None:
            tier.tunes(self, tunable, key, candidates)
            found = tuning.get_tune(self, model, tunable, key, candidates)
        if found is not None:
            self.uses.note(footprint.TUNE, (FORMAT_VERSION, model, tunable, key, candidates))
        return found

    def put_tune_record(self, model: str, tunable: str, key: str, candidates: str,
                        record: TuneRecord) -> TuneRecord:
        """Record a decision unless another process recorded one first; return the
        decision now in the store (`record` itself where it is), so that every process
        agrees on one winner per key. Written as `record.stored_json()`."""
        return tuning.put_tune(self, model, tunable, key, candidates, record.stored_json()) or record

    def replace_tune_record(self, model: str, tunable: str, key: str, candidates: str,
                            record: TuneRecord) -> None:
        """Overwrite one decision (verified or re-tuned here)."""
        tuning.replace_tune(self, model, tunable, key, candidates, record)

    def tune_records_on_models(self, tunable: str, key: str, candidates: str) -> dict[str, TuneRecord]:
        """Every device model's decision for one key, by model (nearest-device answers)."""
        if (tier := tiers.current()) is not None:
            tier.tunes(self, tunable, key, candidates)  # asked once per key per process
        return tuning.tunes_on_models(self, tunable, key, candidates)

    def drop_stale_tune(self, model: str, tunable: str, key: str, candidates: str,
                        stale: TuneRecord) -> bool:
        """Delete a decision whose code changed, unless the entry stored is no longer the
        one `stale` was read from (replaced meanwhile)."""
        return tuning.drop_stale(self, model, tunable, key, candidates, stale)

    def get_tune_json(self, model: str, tunable: str, key: str, candidates: str) -> dict[str, Any] | None:
        """The raw form of `tune_record`: the stored JSON, as written. For tests and tools
        that write or read records by hand (old layouts, hostile values); no module of
        clmodes uses it."""
        found = self.tune_record(model, tunable, key, candidates)
        return None if found is None or found.source is None else dict(found.source)

    def put_tune_json(self, model: str, tunable: str, key: str, candidates: str,
                      value: dict[str, Any]) -> dict[str, Any]:
        """The raw form of `put_tune_record` (first writer wins): `value`, a record's JSON
        as it is to be stored, or the JSON stored first. For tests and tools."""
        found = tuning.put_tune(self, model, tunable, key, candidates, value)
        return value if found is None or found.source is None else dict(found.source)

    # -- measurements and leases (`tuning` says why they exist) -------------------------

    def measurement_records(self, model: str, tunable: str,
                            key: str) -> dict[tuple[str, str], CandidateMeasurement]:
        """(candidate, identity) -> the measurement taken of it for this key."""
        found = tuning.measurements(self, model, tunable, key)
        if found:
            self.uses.note(footprint.MEASUREMENT, (FORMAT_VERSION, model, tunable, key))
        return found

    def put_measurement_record(self, model: str, tunable: str, key: str, candidate: str,
                               identity: str, record: CandidateMeasurement) -> None:
        """Record one measurement now, even inside a deferred block."""
        tuning.put_measurement(self, model, tunable, key, candidate, identity, record)

    def claim_tune(self, key: tuning.LeaseKey, owner: str) -> tuning.Claim:
        return tuning.claim(self, key, owner)

    def beat_tune(self, key: tuning.LeaseKey, owner: str) -> None:
        tuning.beat(self, key, owner)

    def decide_tune(self, key: tuning.LeaseKey, owner: str, decision: str) -> None:
        tuning.decide(self, key, owner, decision)

    def release_tune(self, key: tuning.LeaseKey, owner: str) -> None:
        tuning.release(self, key, owner)

    def withdraw_decisions(self, owner: str) -> int:
        """Withdraw `owner`'s published decisions that were never committed (its warm
        failed); how many (`tuning.withdraw`)."""
        return tuning.withdraw(self, owner)

    def tune_rows(self, model: str | None = None) -> list[TuneRow]:
        """Every tune entry (or one device model's) as typed rows, records unparsed."""
        return tuning.tune_rows(self, model)

    def forget_tunes(self, keys: list[tuple[Any, ...]]) -> int:
        """Delete tune entries by primary key (`TuneRow.key`), and their keys'
        measurements, so they are measured again; returns how many entries were deleted.
        Processes that hold a winner in memory keep it."""
        return tuning.delete_tunes(self, keys)

    # -- throughput probes -------------------------------------------------------------

    def get_probe(self, model: str) -> dict[str, Any] | None:
        """A device model's probe result (`clmodes.probe`), as stored; None if absent or
        unreadable (with a warning)."""
        return device_facts.get_probe(self, model)

    def put_probe(self, model: str, value: dict[str, Any]) -> None:
        """Record (or replace: a refresh re-measures) a device model's probe result."""
        device_facts.put_probe(self, model, value)

    # -- why a miss missed (`clmodes check`, `CLMODES_STRICT`) ------------------------

    def put_kernel_identities(self, exact: str,
                              kernels: list[tuple[str, str, misses.Descriptor]]) -> None:
        """Record the parts of each persisted kernel's identity (key, name, descriptor)."""
        misses.put_identities(self, exact, kernels)

    def why_kernel_missed(self, exact: str, key: str, name: str,
                          descriptor: misses.Descriptor) -> str:
        return misses.why_kernel_missed(self, exact, key, name, descriptor)

    def why_tune_missed(self, model: str, tunable: str, key: str, candidates: str,
                        bucketed: tuple[str, ...] = ()) -> str:
        return misses.why_tune_missed(self, model, tunable, key, candidates, bucketed)

    # -- device checks (`clmodes.device_check`) -------------------------------------------

    def get_device_check(self, exact: str, environment: str) -> dict[str, Any] | None:
        """An exact device's usability verdict under one compiler environment, or None."""
        return device_facts.get_check(self, exact, environment)

    def put_device_check(self, exact: str, environment: str, value: dict[str, Any]) -> None:
        """Record (or replace) an exact device's usability verdict."""
        device_facts.put_check(self, exact, environment, value)

    # -- compiler macro answers (`clmodes.compiler_probe`) -------------------------------

    def compiler_macros(self, exact: str, options: str) -> dict[str, Any]:
        """What an exact device's compiler answered, per name, under an options digest
        (unvalidated: `compiler_probe` reads each answer as hostile data)."""
        return device_facts.get_answers(self, exact, options)

    def put_compiler_macros(self, exact: str, options: str, queries: str,
                            answers: dict[str, Any]) -> None:
        """Record one probe's answers (`queries`: the digest of the names it asked)."""
        device_facts.put_answers(self, exact, options, queries, answers)

    # -- program binaries --------------------------------------------------------------

    def put_binary(
        self, exact: str, batch: str, units: list[str], binary: bytes, kernels: list[KernelSpec]
    ) -> None:
        """A batch's program binary and the index from each of its kernels to it.
        `kernels`: (kernel key, kernel name, argument info or None)."""
        binaries.put_binary(self, exact, batch, units, binary, kernels)

    def index_kernels(self, exact: str, batch: str, kernels: list[KernelSpec]) -> None:
        binaries.index_kernels(self, exact, batch, kernels)

    def kernel_batches(self, exact: str, kernel_keys: list[str]) -> dict[str, str]:
        """kernel key -> batch hash, for the kernels the store holds binaries of."""
        found = binaries.kernel_batches(self, exact, kernel_keys)
        missing = [key for key in kernel_keys if key not in found]
        if missing and (tier := tiers.current()) is not None:
            tier.binaries(self, exact, missing)
            found.update(binaries.kernel_batches(self, exact, missing))
        return found

    def put_absent_kernels(self, exact: str, kernels: list[tuple[str, str]]) -> None:
        """Record (kernel key, name) pairs a build from source showed its source lacks."""
        binaries.put_absent(self, exact, kernels)

    def absent_kernels(self, exact: str, kernel_keys: list[str]) -> set[str]:
        """The kernel keys among these that a build from source showed absent."""
        return binaries.absent(self, exact, kernel_keys)

    def batch_kernels(self, exact: str, batch: str) -> dict[str, object]:
        """kernel key -> argument info (parsed JSON, None if unreadable) of one batch."""
        return binaries.batch_kernels(self, exact, batch)

    def batch_kernel_rows(self, exact: str, batch: str) -> list[KernelRow]:
        """The kernel index rows of one batch (names, argument info as stored)."""
        return binaries.batch_kernel_rows(self, exact, batch)

    def get_binary(self, exact: str, batch: str) -> tuple[bytes, list[str]] | None:
        """A batch's binary and unit keys, or None if absent or failing its checksum."""
        found = binaries.get_binary(self, exact, batch)
        if found is not None:
            self.uses.note(footprint.BINARY, (exact, batch))
        return found

    def drop_binary(self, exact: str, batch: str) -> None:
        binaries.drop_binary(self, exact, batch)

    # -- bundles -------------------------------------------------------------------------

    def entries(self, model: str | None = None, since: float | None = None) -> StoreEntries:
        """Every entry (or one device model's), as typed rows, for a bundle; `since` (a
        POSIX time): only those used or created at or after it (`footprint`)."""
        if since is not None:
            self.uses.flush()  # this process's own uses count too
        return read_entries(self, model, since)

    def add_entries(self, entries: StoreEntries) -> StoreEntries:
        """Insert entries in one transaction; an entry already here (measured or built
        locally) wins. Returns the entries that were added."""
        return insert_entries(self, entries)

    # -- what came from a remote tier (`tiers`) -----------------------------------------

    def note_remote(self, rows: list[tuple[str, str, str, str]]) -> None:
        """Record entries copied in from a remote: (kind, scope, entry, signer)."""
        tiers.note(self, rows)

    def remote_tune_keys(self) -> set[tuple[str, str, str, str]]:
        """(model, tunable, key, candidates) of the tune results read from a remote."""
        return tiers.tune_keys(self)

    def remote_batches(self) -> set[tuple[str, str]]:
        """(exact, batch) of the binaries read from a remote."""
        return tiers.batches(self)

    def remote_counts(self) -> dict[str, int]:
        return tiers.counts(self)

    # -- maintenance ---------------------------------------------------------------------
    # `pruning` is imported by the methods that use it: a process that only reads and
    # writes entries (every warmed start) never pays its import (about 4 ms: its report
    # dataclasses and SQL; docs/decisions/start-and-launch-floors.md).

    def info(self) -> dict[str, Any]:
        """Location, bytes, and entries per device model (tune results) and, under each
        model, per exact device + driver (program binaries and indexed kernels)."""
        from clmodes.store import pruning

        return pruning.info(self)

    def entry_bytes(self) -> int:
        """The size of the store as `prune` caps it: its entries' bytes (`footprint`)."""
        return footprint.total_bytes(lambda sql: self.query(sql))

    def prune(self, max_size: int, compact_at: float = 0.0) -> PruneReport:
        """Evict by cost until the entries take at most `max_size` bytes (binaries first,
        least recently used first, decisions last: `pruning` says why), never what a live
        tune lease holds, in one transaction; then
        compact the file if at least `compact_at` of it is free pages (0: whenever
        something was evicted). See `pruning`. A read-only store is left as it is."""
        from clmodes.store import pruning

        return pruning.prune(self, self.uses, max_size, compact_at)

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one device model (all its drivers). Returns the
        number of entries deleted."""
        from clmodes.store import pruning

        return pruning.clear(self, model)


# -- all entries at once, as typed rows: what a bundle exports and imports ----------------
# An import is one transaction and never overwrites: an entry already here (measured or
# built on this machine) wins over one from elsewhere.

def read_entries(db: Database, model: str | None = None, since: float | None = None) -> StoreEntries:
    """Every entry (or one device model's: tune results of the model, binaries and
    kernels of all its drivers); `since`: only those last used (or created) at or after
    that POSIX time, a binary's kernel rows with it."""
    found = StoreEntries(tune=tuning.tune_rows(db, model), binaries=binaries.binary_rows(db, model),
                         kernels=binaries.kernel_rows(db, model))
    if since is None:
        return found
    recent = {(e.kind, e.key) for e in footprint.entries(lambda sql: db.query(sql))
              if e.used >= since}
    kept_binaries = [row for row in found.binaries if (footprint.BINARY, row.key) in recent]
    kept = {row.key for row in kept_binaries}
    return StoreEntries(
        tune=[row for row in found.tune if (footprint.TUNE, row.key) in recent],
        binaries=kept_binaries,
        kernels=[row for row in found.kernels if (row.exact, row.batch) in kept],
    )


def insert_entries(db: Database, entries: StoreEntries) -> StoreEntries:
    """Insert entries in one transaction; an entry already here wins. Returns the entries
    that were added. Re-run once (`patiently`) if it met corruption: the store was
    moved aside and a fresh one opened, which then takes the entries."""
    with db.saving(f"{sum(map(len, entries.tables().values()))} imported entries"):
        return patiently(lambda: insert_once(db, entries, time.time()))


def insert_once(db: Database, entries: StoreEntries, now: float) -> StoreEntries:
    with db.transaction() as connection:
        return StoreEntries(
            tune=tuning.add_tune_rows(connection, entries.tune, now),
            binaries=binaries.add_binary_rows(connection, entries.binaries, now),
            kernels=binaries.add_kernel_rows(connection, entries.kernels),
        )
