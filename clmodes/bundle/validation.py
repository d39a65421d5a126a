"""Checking what a bundle's rows mean, before anything from it is used.

Everything is checked (magic, sizes, signature, checksum, schema, integrity, every value's
type: `clmodes.bundle.payload`) before the first write, and the import is one
transaction: a bad bundle leaves the store exactly as it was. Here: the manifest must be
exactly what its entries make (devices, drivers, counts: a manifest is derived data, so
it is recomputed and compared rather than trusted; a device without a "model" once
crashed matching with a KeyError), and every entry must parse and make sense (a tune
record's winner among its recorded candidates, finite numbers, a kernel name that is an
identifier, a binary matching its sha256 and, for PoCL, its files laid out as PoCL
writes them: `clmodes.bundle.poclbin`). A bundle is data only: nothing in it is
executed or unpickled here (its binaries are loaded, in a child process, only by
`clmodes.bundle.loading` on import).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from clmodes.arginfo import rows_problem
from clmodes.bundle.container import depth
from clmodes.bundle.errors import BundleError
from clmodes.bundle.manifest import describe_devices, entry_counts
from clmodes.bundle.poclbin import path_problem
from clmodes.source_records import MAGIC as RECORD_MAGIC
from clmodes.device import FIELD_NAMES, MODEL_FIELDS
from clmodes.store import BinaryRow, KernelRow, StoreEntries, TuneRow
from clmodes.records.tune import MalformedRecord, TuneRecord

MAX_JSON_DEPTH = 16  # a tune record nests 4 levels, argument info 3
MAX_NAME = 256
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def validate(path: Path, manifest: dict[str, Any], entries: StoreEntries) -> None:
    """Every entry must parse and the manifest must describe them exactly (checked last,
    so that a bad entry is named as such rather than as a manifest that disagrees)."""
    for tune in entries.tune:
        validate_tune(path, tune)
    for binary in entries.binaries:
        validate_binary(path, binary)
    batches = {(row.exact, row.batch) for row in entries.binaries}
    for kernel in entries.kernels:
        validate_kernel(path, kernel, batches)
    validate_manifest(path, manifest, entries)


def validate_manifest(path: Path, manifest: dict[str, Any], entries: StoreEntries) -> None:
    kinds: tuple[tuple[str, type], ...] = (("clmodes", str), ("created", str), ("format", int),
                                           ("counts", dict))
    for field, expected_type in kinds:
        if type(manifest.get(field)) is not expected_type:
            raise BundleError(f"{path}: damaged bundle manifest ({field})")
    counts, expected = manifest["counts"], entry_counts(entries)
    for kind, number in expected.items():
        # A table a later clmodes added is absent from an older bundle's counts.
        if counts.get(kind, 0 if number == 0 else None) != number:
            raise BundleError(f"{path}: manifest says {counts.get(kind)} {kind} entries, "
                              f"the bundle holds {number}")
    if set(counts) - set(expected):
        raise BundleError(f"{path}: damaged bundle manifest (unknown counts)")
    try:
        described = describe_devices(entries)
    except (ValueError, KeyError, TypeError) as error:
        raise BundleError(f"{path}: bundle entries name malformed devices") from error
    if manifest.get("devices") != described:
        raise BundleError(f"{path}: bundle manifest's devices do not match its entries")


def validate_tune(path: Path | str, row: TuneRow) -> None:
    what = f"tune entry {row.tunable[:60]!r} {row.tune_key[:60]}"
    fingerprint(path, row.model, what, exact=False)
    try:
        TuneRecord.from_json(parse_json(path, row.value, what), strict=True)
    except MalformedRecord as error:
        raise BundleError(f"{path}: {what}: {error}") from error


def validate_binary(path: Path | str, row: BinaryRow) -> None:
    batch = row.batch[:12]
    fingerprint(path, row.exact, f"binary {batch}", exact=True)
    if not row.binary or hashlib.sha256(row.binary).hexdigest() != row.sha256:
        raise BundleError(f"{path}: program binary {batch} fails its checksum")
    if row.binary.startswith(RECORD_MAGIC):
        raise BundleError(f"{path}: program binary {batch} is a source record, which only "
                          "a local store keeps (a bundle carries binaries)")
    problem = path_problem(row.binary)
    if problem is not None:
        raise BundleError(f"{path}: program binary {batch} is not laid out as PoCL writes "
                          f"one, so its files could land outside PoCL's cache ({problem})")
    units = parse_json(path, row.units, f"binary {batch} units")
    if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
        raise BundleError(f"{path}: binary {batch} has malformed units")


def validate_kernel(path: Path | str, row: KernelRow, batches: set[tuple[str, str]]) -> None:
    if len(row.name) > MAX_NAME or not IDENTIFIER.fullmatch(row.name):
        raise BundleError(f"{path}: kernel name {row.name[:60]!r} is not an OpenCL identifier")
    args = parse_json(path, row.args, f"kernel {row.name!r} argument info")
    problem = rows_problem(args)
    if problem is not None:
        raise BundleError(f"{path}: kernel {row.name!r} has malformed argument info ({problem})")
    if (row.exact, row.batch) not in batches:
        raise BundleError(f"{path}: kernel {row.name!r} refers to a binary the bundle lacks")


def fingerprint(path: Path | str, text: str, what: str, exact: bool) -> None:
    fields = text.split(" | ")
    if len(text) > 4 * MAX_NAME or len(fields) != (len(FIELD_NAMES) if exact else MODEL_FIELDS):
        kind = "exact device" if exact else "device model"
        raise BundleError(f"{path}: {what} names a malformed {kind} fingerprint {text[:80]!r}")


def parse_json(path: Path | str, text: str, what: str) -> Any:
    """Parsed JSON of finite numbers, nested at most MAX_JSON_DEPTH levels, or a
    `BundleError` naming `what`."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError as error:
        raise BundleError(f"{path}: {what} is nested too deeply") from error
    except ValueError as error:
        raise BundleError(f"{path}: {what} does not parse ({error})") from error
    if depth(value) > MAX_JSON_DEPTH:
        raise BundleError(f"{path}: {what} is nested too deeply")
    if not all_finite(value):
        raise BundleError(f"{path}: {what} holds a number that is not finite")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def all_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True
