"""`warm --target intel-gpu:FAMILY[,FAMILY...]`: a warm here, and its batches built by
`ocloc` for Intel GPU families this machine does not have.

How, and why this way:
1. `ocloc` is found and asked its version before the workload runs (a missing `ocloc`
   costs the user no warm: one line naming the Debian packages).
2. The workload is warmed on the local device as `clmodes.warm` does, into a scratch
   store in memory: every batch is then built here from source (a batch the store
   already held would be loaded, and a loaded binary has no source to build offline),
   and captured exactly as a local warm captures it, so each batch the offline build
   compiles is one a local build stored: the same prepared text, build options and
   batching, and the same kernel index (names, argument info). What it stored is added
   to the user's store, local entries winning, as a warm would have.
3. Each captured batch is compiled by `ocloc` for each family (in parallel, one process
   per core), every kernel of the batch checked present in the binary
   (`clmodes.offline.binary`), and stored under the family's offline identity
   (`clmodes.offline.identity`) with the batch's kernel index. Tune results are not
   made for an offline target: nothing can be measured without the device.
   A batch `ocloc` refuses for a family is split as the server splits a failed build
   (`clmodes.server`): the units its log blames (by their `#line` tags; every unit
   where it blames none) are built alone, the rest together, each part stored under its
   own batch hash with its kernels' rows (a run finds a kernel's binary through its
   row, whatever the batch). A unit refused alone (the family lacks what its code
   needs: a double constant under -Werror on a GPU without fp64) is left out for that
   family with one warning naming the compiler's error: its kernels build from source on
   that GPU, as they would without a bundle. The report lists it (`refused`).

What it does not know: a unit whose text reads one of the compiler's predefined names
(`compiler_probe`) is prepared with the local device's answer. For the kernels of
`kernels_cl` that is none; any other such batch may differ on the GPU, where the
driver's own build from source is what runs if the binary is refused.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any, TextIO

from clmodes.batch import Batch, failing_units
from clmodes.building import BUILD_OPTIONS
from clmodes.errors import ClmodesError, StoreNotPersistentError
from clmodes.execution import ExecutionStatistics
from clmodes.kernel import unit_suffix
from clmodes.offline import ocloc
from clmodes.offline.binary import device_binary
from clmodes.offline.families import Family, family_named
from clmodes.offline.identity import TARGET_KIND, OfflineIdentity
from clmodes.runtime import Runtime, default_runtime
from clmodes.store import BinaryRow, KernelRow, StoreEntries
from clmodes.warming import warm

log = logging.getLogger("clmodes")


class TargetError(ClmodesError):
    """A `--target` that names no known offline target."""


def parse_targets(texts: list[str]) -> list[Family]:
    """`["intel-gpu:tgllp,acm-g10"]` -> the families, in order, each once."""
    families: dict[str, Family] = {}
    for text in texts:
        kind, _, names = text.partition(":")
        if kind.strip() != TARGET_KIND or not names.strip():
            raise TargetError(f"--target {text!r}: expected {TARGET_KIND}:FAMILY[,FAMILY...] "
                              "(Intel GPUs, built offline by ocloc)")
        for name in names.split(","):
            try:
                family = family_named(name)
            except KeyError as error:
                raise TargetError(f"--target {text!r}: {error.args[0]}") from None
            families.setdefault(family.name, family)
    return list(families.values())


@dataclasses.dataclass
class OfflineBuild:
    """What the offline part of a warm built, and what it cost."""

    compiler_version: str
    families: list[str]
    batches: int
    binaries: int
    kernels: int
    local_warm_s: float  # the workload's warm here, in a store that held nothing
    offline_s: float  # every batch compiled by ocloc for every family
    identities: list[str]
    refused: list[str]  # per batch and family ocloc refused: why, in one line

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def warm_for_targets(workload: Callable[[], object], families: list[Family], *,
                     progress: TextIO | None = None, allow_memory: bool = True,
                     jobs: int | None = None) -> tuple[ExecutionStatistics, OfflineBuild]:
    """Warm `workload` here, then build its batches offline for `families` (see the
    module's docstring); both go to the process's store."""
    tool = ocloc.find()
    version = ocloc.version(tool)
    runtime = default_runtime()
    if runtime.store.fell_back and not allow_memory:
        raise StoreNotPersistentError(
            f"the store could not be opened at {runtime.store.requested} and is in memory: "
            "nothing a warm for targets builds will be kept")
    started = time.perf_counter()
    scratch, statistics, sources = _scratch_warm(runtime, workload, progress)
    local_s = time.perf_counter() - started
    home = runtime.store  # the runtime's store, reopened where it was
    home.add_entries(scratch)
    started = time.perf_counter()
    rows, refused = build_offline(tool, version, sources, families, jobs)
    offline_s = time.perf_counter() - started
    home.add_entries(rows)
    identities = sorted({row.exact for row in rows.binaries})
    report = OfflineBuild(version, [f.name for f in families], len(sources),
                          len(rows.binaries), len(rows.kernels), round(local_s, 3),
                          round(offline_s, 3), identities, refused)
    log.info("built %d batches offline for %s in %.2f s (local warm %.2f s)", len(sources),
             ", ".join(report.families), offline_s, local_s)
    return statistics, report


@dataclasses.dataclass(frozen=True)
class Source:
    """A batch the local warm stored: its text and options, its kernel index rows, and
    each indexed kernel's unit (kernel key -> unit key), to split it by unit."""

    batch: Batch
    rows: tuple[KernelRow, ...]
    units: dict[str, str]

    def part(self, batch: Batch) -> "Source":
        keys = set(batch.keys)
        rows = tuple(r for r in self.rows if self.units.get(r.kernel_key) in keys)
        return Source(batch, rows, {k: u for k, u in self.units.items() if u in keys})


Sources = list[Source]


def _scratch_warm(runtime: Runtime, workload: Callable[[], object], progress: TextIO | None
                  ) -> tuple[StoreEntries, ExecutionStatistics, Sources]:
    """The local warm into a scratch store (a private temporary folder: a warm captures
    nothing into a store in memory); the runtime's own store back afterwards. Returns
    what the warm stored, its statistics and each captured batch with its kernel rows."""
    home = runtime.store
    back = (home.requested, home.read_only_reason if home.read_only else None)
    runtime.tunes.forget()
    with tempfile.TemporaryDirectory(prefix="clmodes-offline-") as folder:
        scratch = runtime.relocate(folder)
        try:
            statistics = warm(workload, progress=progress, runtime=runtime, allow_memory=False)
            sources: dict[str, Source] = {}
            for client in runtime.clients():
                exact = client.device.fingerprint.exact
                for batch, units in client.server.stored_sources():
                    rows = scratch.batch_kernel_rows(exact, batch.content_hash)
                    if rows:
                        sources.setdefault(batch.content_hash, Source(batch, tuple(rows), units))
            stored = scratch.entries()
        finally:
            runtime.tunes.forget()
            runtime.relocate(*back)
    return stored, statistics, [sources[h] for h in sorted(sources)]


def build_offline(tool: str, version: str, sources: Sources, families: list[Family],
                  jobs: int | None = None) -> tuple[StoreEntries, list[str]]:
    """Every batch compiled for every family, as store rows under the offline
    identities; and per unit and family `ocloc` refused, why (one warning each)."""
    work = [(source, family) for source in sources for family in families]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(work) or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        built = list(pool.map(lambda item: _built(tool, version, *item), work))
    entries, refused = StoreEntries.empty(), []
    for rows, refusals in built:
        for binary, kernels in rows:
            entries.binaries.append(binary)
            entries.kernels.extend(kernels)
        for line in refusals:
            log.warning("warm --target: %s; those kernels build from source on that GPU", line)
            refused.append(line)
    return entries, refused


Built = tuple[list[tuple[BinaryRow, list[KernelRow]]], list[str]]


def _built(tool: str, version: str, source: Source, family: Family) -> Built:
    """The source's binary for `family` with its kernel rows; where `ocloc` refuses a
    batch of several units, its parts (see the module's docstring); and the refusals."""
    if not source.rows:
        return [], []
    try:
        binary = ocloc.compile_source(tool, source.batch.source,
                                      [*BUILD_OPTIONS, *source.batch.options], family)
    except ocloc.OclocMissingError:
        raise
    except ocloc.OfflineBuildError as error:
        if not source.batch.renamed or len(source.batch.units) == 1:
            names = ", ".join(sorted({r.name for r in source.rows})[:4])
            return [], [f"ocloc refused batch {source.batch.content_hash[:12]} ({names}) "
                        f"for {family.name}: {error}"]
        return _split(tool, version, source, family, error.log)
    check_kernels(binary, source.batch, list(source.rows), family)
    exact = OfflineIdentity(family, version).exact
    row = BinaryRow(exact, source.batch.content_hash, json.dumps(source.batch.keys), binary,
                    hashlib.sha256(binary).hexdigest())
    return [(row, [dataclasses.replace(k, exact=exact) for k in source.rows])], []


def _split(tool: str, version: str, source: Source, family: Family, build_log: str) -> Built:
    """A refused batch's blamed units alone (all of them when its log blames none), the
    rest together."""
    batch = source.batch
    parts = batch.isolating(failing_units(build_log, batch.keys) or batch.keys)
    rows: list[tuple[BinaryRow, list[KernelRow]]] = []
    refusals: list[str] = []
    for part in parts:
        more, why = _built(tool, version, source.part(part), family)
        rows.extend(more)
        refusals.extend(why)
    return rows, refusals


def check_kernels(binary: bytes, batch: Batch, rows: list[KernelRow], family: Family) -> None:
    """Every kernel the batch's index names is in the binary; else `OfflineBuildError`.
    Inside a renamed batch a kernel's entry point carries its unit's suffix
    (`unit_suffix`); a row names the kernel, not its unit, so any unit of the batch may
    be its; a batch built alone keeps the plain name."""
    try:
        held = set(device_binary(binary).kernels)
    except ValueError as error:
        raise ocloc.OfflineBuildError(f"ocloc's binary for {family.name} does not parse: {error}") from None
    for name in sorted({row.name for row in rows}):
        candidates = {name} if not batch.renamed else {name + unit_suffix(k) for k in batch.keys}
        if not candidates & held:
            raise ocloc.OfflineBuildError(
                f"ocloc's binary for {family.name} lacks kernel {name!r} of batch {batch.content_hash[:12]}")
