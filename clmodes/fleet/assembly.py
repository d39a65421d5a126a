"""The driver's side of a fleet warm: every target's bundle verified, then one merge.

A bundle that comes back from a node is data from another machine, handled as any file
a user hands us: written to a private temporary directory and read back through
`clmodes.bundle.read`, which verifies it whole (container, checksum, every row). A
damaged one is rejected with its one line and fails its target only. It must also hold
entries of the device the target asked for: a node that warmed another device (its
device list changed between discovery and warm) would otherwise ship a bundle that
silently lacks the target. The merge is `clmodes.bundle.merge`, which writes OUT once,
atomically (temporary file beside it, `os.replace`), so OUT is either the whole merged
bundle or untouched.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from clmodes import bundle
from clmodes.bundle import BundleError
from clmodes.device import model_of


def accept(directory: Path, name: str, data: bytes, fingerprint: str, per: str) -> Path:
    """Write `data` to `directory/name`, verify it and that it holds `fingerprint`;
    the verified file, or a one-line `BundleError` (the file removed)."""
    path = directory / name
    path.write_bytes(data)
    try:
        manifest = bundle.read(path).manifest
        _check_holds(path, manifest, fingerprint, per)
    except BundleError:
        path.unlink(missing_ok=True)
        raise
    return path


def _check_holds(path: Path, manifest: dict[str, Any], fingerprint: str, per: str) -> None:
    model = fingerprint if per == "model" else model_of(fingerprint)
    for device in manifest.get("devices", []):
        if device.get("model") != model:
            continue
        exacts = {driver.get("exact") for driver in device.get("drivers", [])}
        if per == "model" or fingerprint in exacts:
            return
    raise BundleError(f"{path}: holds no entries for the target {fingerprint}")


def write_merged(out: str | os.PathLike[str], parts: list[Path], force: bool,
                 sign: str | None = None) -> dict[str, Any]:
    """Merge the verified parts into OUT (atomically); its manifest."""
    return bundle.merge(out, parts, force=force, sign=sign)


def check_output(out: str | os.PathLike[str], force: bool) -> None:
    """Refuse before any work what the merge would refuse after it: an existing OUT
    (without `force`) or one in a directory that does not exist."""
    path = Path(out)
    if path.exists() and not force:
        raise BundleError(f"{path}: exists; pass --force (force=True) to replace it")
    if path.exists() and path.is_dir():
        raise BundleError(f"{path}: is a directory")
    if not path.parent.resolve().is_dir():
        raise BundleError(f"{path}: its directory {path.parent} does not exist")
