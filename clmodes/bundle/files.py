"""A bundle file as a whole: entries written to one, or read from one and verified."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
from pathlib import Path
from typing import Any

from clmodes.bundle import payload
from clmodes.bundle.container import split, write_container
from clmodes.bundle.errors import BundleError
from clmodes.bundle.manifest import build_manifest
from clmodes.bundle.validation import validate
from clmodes.store import StoreEntries


@dataclasses.dataclass
class Bundle:
    """A bundle read and verified in full."""

    path: Path
    manifest: dict[str, Any]
    entries: StoreEntries


def write(path: Path, entries: StoreEntries) -> dict[str, Any]:
    """Write `entries` to a bundle at `path`; return its manifest (with its checksum)."""
    data = payload.encode(entries)
    manifest = build_manifest(entries, data)
    digest = write_container(path, manifest, data)
    return {**manifest, "checksum": digest}


def read(path: str | os.PathLike[str]) -> Bundle:
    """Read and verify a bundle completely, or raise a one-line `BundleError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BundleError(f"{path}: cannot read ({error.strerror or error})") from error
    manifest, body = split(path, data)
    try:
        entries = payload.decode(body)
    except sqlite3.Error as error:
        raise BundleError(f"{path}: bundle payload is not readable ({error})") from error
    validate(path, manifest, entries)
    return Bundle(path, manifest, entries)
