"""Checking what a bundle's rows mean, before anything from it is used.

Everything is checked (magic, sizes, checksum, schema, integrity, counts, every entry's
JSON and every binary's hash) before the first write, and the import is one
transaction: a bad bundle leaves the store exactly as it was. A bundle is data only:
nothing in it is executed or unpickled."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from clmodes.bundle.errors import BundleError
from clmodes.store import BinaryRow, KernelRow, StoreEntries, TuneRow


def validate(path: Path, manifest: dict[str, Any], entries: StoreEntries) -> None:
    """Every entry must parse and every count must match before anything is used."""
    counts = manifest.get("counts", {})
    for kind, rows in entries.tables().items():
        if counts.get(kind) != len(rows):
            raise BundleError(f"{path}: manifest says {counts.get(kind)} {kind} entries, "
                              f"the bundle holds {len(rows)}")
    for tune in entries.tune:
        validate_tune(path, tune)
    for binary in entries.binaries:
        validate_binary(path, binary)
    batches = {(row.exact, row.batch) for row in entries.binaries}
    for kernel in entries.kernels:
        validate_kernel(path, kernel, batches)


def validate_tune(path: Path, row: TuneRow) -> None:
    record = parse_json(path, row.value, f"tune entry {row.tunable!r} {row.tune_key}")
    if not isinstance(record, dict) or not isinstance(record.get("winner"), str):
        raise BundleError(f"{path}: tune entry {row.tunable!r} {row.tune_key} has no winner")
    key_fields = (row.model, row.tunable, row.tune_key, row.candidates)
    if not all(isinstance(v, str) for v in key_fields) or not isinstance(row.format, int):
        raise BundleError(f"{path}: tune entry {row.tunable!r} has malformed key fields")


def validate_binary(path: Path, row: BinaryRow) -> None:
    batch = str(row.batch)[:12]
    if not row.binary or hashlib.sha256(row.binary).hexdigest() != row.sha256:
        raise BundleError(f"{path}: program binary {batch} fails its checksum")
    if not isinstance(parse_json(path, row.units, f"binary {batch} units"), list):
        raise BundleError(f"{path}: binary {batch} has malformed units")


def validate_kernel(path: Path, row: KernelRow, batches: set[tuple[str, str]]) -> None:
    parse_json(path, row.args, f"kernel {row.name!r} argument info")
    if (row.exact, row.batch) not in batches:
        raise BundleError(f"{path}: kernel {row.name!r} refers to a binary the bundle lacks")


def parse_json(path: Path, text: object, what: str) -> Any:
    """Parsed JSON (None for a value that is not text), or a `BundleError` naming `what`."""
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError as error:
        raise BundleError(f"{path}: {what} does not parse ({error})") from error
