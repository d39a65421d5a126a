"""Reading a file a user hands us (a bundle, a key): whole, but never past a size that
no such file has, and any failure as one `BundleError` line naming the file."""

from __future__ import annotations

from pathlib import Path

from clmodes.bundle.errors import BundleError


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    try:
        if path.stat().st_size > limit:
            raise BundleError(f"{path}: too large to be a {what}")
        return path.read_bytes()
    except OSError as error:
        raise BundleError(f"{path}: cannot read {what} ({error.strerror or error})") from error
