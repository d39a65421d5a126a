"""How large a bundle this machine reads: `$CLMODES_BUNDLE_MAX_SIZE`.

A bundle is refused by its size before a byte of it is read, so that what a refusal costs
is bounded by the limit, never by what someone hands over. The value is a number of
bytes, or one with a binary unit (`512M`, `8G`, `8GiB`); the default is far above what a
real application's binaries take.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from clmodes.bundle.errors import BundleError

SIZE_ENV = "CLMODES_BUNDLE_MAX_SIZE"
DEFAULT_MAX_SIZE = 4 << 30
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def max_size(path: Path | None = None) -> int:
    """The limit; a value that is not a size is refused (naming `path`, the bundle that
    was to be read, if given)."""
    text = os.environ.get(SIZE_ENV, "")
    if not text:
        return DEFAULT_MAX_SIZE
    found = SIZE.fullmatch(text)
    if not found:
        where = f"{path}: " if path is not None else ""
        raise BundleError(f"{where}${SIZE_ENV}={text[:40]!r}: not a size (bytes, or with K, M, G, T)")
    return int(found.group(1)) * UNITS[found.group(2).upper()]


def shown(size: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if size >= UNITS[unit] and size % UNITS[unit] == 0:
            return f"{size // UNITS[unit]} {unit}iB"
    return f"{size} bytes"


def check_size(path: Path, size: int) -> None:
    """Refuse a bundle above the limit, saying the limit and how to raise it."""
    limit = max_size(path)
    if size > limit:
        raise BundleError(f"{path}: {size} bytes, over the bundle size limit of {shown(limit)}; "
                          f"set ${SIZE_ENV} higher to read it")
