"""`Store`: the store's public face, one method per thing callers do with it.

Each method delegates to the module of its table (`tunes`, `probes`, `binaries`,
`kernels`), to `entries` (bundles) or to `maintenance`; opening and recovery are
`connection`'s, transactions and deferral `transactions`'."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clmodes.store import binaries as binary_table
from clmodes.store import entries as bulk
from clmodes.store import kernels as kernel_index
from clmodes.store import compiler_macros, device_checks, leases, maintenance, measurements, misses, probes, tunes
from clmodes.store.connection import open_store
from clmodes.store.kernels import KernelSpec
from clmodes.store.schema import KernelRow, StoreEntries, TuneRow
from clmodes.store.transactions import Database


class Store(Database):
    """One SQLite database of tune results, probe results and program binaries.
    Thread-safe (one connection, one lock); process-safe (WAL). `directory` None: in
    memory; a store there that cannot be written is read, its writes kept in memory
    (`read_only`); a directory that cannot be used falls back to memory (with a
    warning)."""

    def __init__(self, directory: Path | str | None) -> None:
        super().__init__(open_store(directory))
        # Asked for a directory, given memory: what a warm must not report as success.
        self.requested = None if directory is None else Path(directory)

    @property
    def persistent(self) -> bool:
        """Do writes reach a file that later processes read?"""
        return not self.in_memory and not self.read_only

    @property
    def fell_back(self) -> bool:
        """Was a directory asked for and are writes not kept there (memory instead, or a
        store that is read-only)? What `warm` refuses unless memory is allowed."""
        return self.requested is not None and not self.persistent

    # -- tune results ------------------------------------------------------------------

    def get_tune(self, model: str, tunable: str, key: str, candidates: str) -> dict[str, Any] | None:
        return tunes.get_tune(self, model, tunable, key, candidates)

    def put_tune(
        self, model: str, tunable: str, key: str, candidates: str, value: dict[str, Any]
    ) -> dict[str, Any]:
        """Record a measured winner unless another process recorded one first; return the
        entry now in the store, so that every process agrees on one winner per key."""
        return tunes.put_tune(self, model, tunable, key, candidates, value)

    def replace_tune(self, model: str, tunable: str, key: str, candidates: str,
                     value: dict[str, Any]) -> None:
        """Overwrite one decision (verified or re-tuned here)."""
        tunes.replace_tune(self, model, tunable, key, candidates, value)

    def tunes_on_models(self, tunable: str, key: str, candidates: str) -> dict[str, dict[str, Any]]:
        """Every device model's decision for one key, by model (nearest-device answers)."""
        return tunes.tunes_on_models(self, tunable, key, candidates)

    def drop_stale_tune(self, model: str, tunable: str, key: str, candidates: str,
                        stale: dict[str, Any]) -> bool:
        """Delete a decision whose code changed (unless already replaced)."""
        return tunes.drop_stale(self, model, tunable, key, candidates, stale)

    # -- measurements and leases (`measurements`, `leases`: why they exist) ---------------

    def measurements(self, model: str, tunable: str, key: str) -> dict[tuple[str, str], dict[str, Any]]:
        """(candidate, identity) -> the measurement taken of it for this key."""
        return measurements.measurements(self, model, tunable, key)

    def put_measurement(self, model: str, tunable: str, key: str, candidate: str,
                        identity: str, value: dict[str, Any]) -> None:
        """Record one measurement now, even inside a deferred block."""
        measurements.put_measurement(self, model, tunable, key, candidate, identity, value)

    def claim_tune(self, key: leases.LeaseKey, owner: str) -> leases.Claim:
        return leases.claim(self, key, owner)

    def beat_tune(self, key: leases.LeaseKey, owner: str) -> None:
        leases.beat(self, key, owner)

    def decide_tune(self, key: leases.LeaseKey, owner: str, decision: str) -> None:
        leases.decide(self, key, owner, decision)

    def release_tune(self, key: leases.LeaseKey, owner: str) -> None:
        leases.release(self, key, owner)

    def tune_rows(self, model: str | None = None) -> list[TuneRow]:
        """Every tune entry (or one device model's) as typed rows, records unparsed."""
        return tunes.tune_rows(self, model)

    def forget_tunes(self, keys: list[tuple[Any, ...]]) -> int:
        """Delete tune entries by primary key (`TuneRow.key`), and their keys'
        measurements, so they are measured again; returns how many entries were deleted.
        Processes that hold a winner in memory keep it."""
        return tunes.delete_tunes(self, keys)

    # -- throughput probes -------------------------------------------------------------

    def get_probe(self, model: str) -> dict[str, Any] | None:
        """A device model's probe result (`clmodes.probe`), as stored; None if absent or
        unreadable (with a warning)."""
        return probes.get_probe(self, model)

    def put_probe(self, model: str, value: dict[str, Any]) -> None:
        """Record (or replace: a refresh re-measures) a device model's probe result."""
        probes.put_probe(self, model, value)

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
        return device_checks.get_check(self, exact, environment)

    def put_device_check(self, exact: str, environment: str, value: dict[str, Any]) -> None:
        """Record (or replace) an exact device's usability verdict."""
        device_checks.put_check(self, exact, environment, value)

    # -- compiler macro answers (`clmodes.compiler_probe`) -------------------------------

    def compiler_macros(self, exact: str, options: str) -> dict[str, Any]:
        """What an exact device's compiler answered, per name, under an options digest
        (unvalidated: `compiler_probe` reads each answer as hostile data)."""
        return compiler_macros.get_answers(self, exact, options)

    def put_compiler_macros(self, exact: str, options: str, queries: str,
                            answers: dict[str, Any]) -> None:
        """Record one probe's answers (`queries`: the digest of the names it asked)."""
        compiler_macros.put_answers(self, exact, options, queries, answers)

    # -- program binaries --------------------------------------------------------------

    def put_binary(
        self, exact: str, batch: str, units: list[str], binary: bytes, kernels: list[KernelSpec]
    ) -> None:
        """A batch's program binary and the index from each of its kernels to it.
        `kernels`: (kernel key, kernel name, argument info or None)."""
        binary_table.put_binary(self, exact, batch, units, binary, kernels)

    def index_kernels(self, exact: str, batch: str, kernels: list[KernelSpec]) -> None:
        kernel_index.index_kernels(self, exact, batch, kernels)

    def kernel_batches(self, exact: str, kernel_keys: list[str]) -> dict[str, str]:
        """kernel key -> batch hash, for the kernels the store holds binaries of."""
        return kernel_index.kernel_batches(self, exact, kernel_keys)

    def batch_kernels(self, exact: str, batch: str) -> dict[str, object]:
        """kernel key -> argument info (parsed JSON, None if unreadable) of one batch."""
        return kernel_index.batch_kernels(self, exact, batch)

    def batch_kernel_rows(self, exact: str, batch: str) -> list[KernelRow]:
        """The kernel index rows of one batch (names, argument info as stored)."""
        return kernel_index.batch_kernel_rows(self, exact, batch)

    def get_binary(self, exact: str, batch: str) -> tuple[bytes, list[str]] | None:
        """A batch's binary and unit keys, or None if absent or failing its checksum."""
        return binary_table.get_binary(self, exact, batch)

    def drop_binary(self, exact: str, batch: str) -> None:
        binary_table.drop_binary(self, exact, batch)

    # -- bundles -------------------------------------------------------------------------

    def entries(self, model: str | None = None) -> StoreEntries:
        """Every entry (or one device model's), as typed rows, for a bundle."""
        return bulk.read_entries(self, model)

    def add_entries(self, entries: StoreEntries) -> StoreEntries:
        """Insert entries in one transaction; an entry already here (measured or built
        locally) wins. Returns the entries that were added."""
        return bulk.add_entries(self, entries)

    # -- maintenance ---------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """Location, bytes, and entries per device model (tune results) and, under each
        model, per exact device + driver (program binaries and indexed kernels)."""
        return maintenance.info(self)

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one device model (all its drivers). Returns the
        number of entries deleted."""
        return maintenance.clear(self, model)
