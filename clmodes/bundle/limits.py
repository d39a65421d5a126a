"""How large a bundle this machine reads: `$CLMODES_BUNDLE_MAX_SIZE`.

A bundle is refused by its size before a byte of it is read, so that what a refusal costs
is bounded by the limit, never by what someone hands over. The value is a number of
bytes, or one with a binary unit (`512M`, `8G`, `8GiB`; the grammar is
`clmodes.store.sizes`); the default is far above what a real application's binaries take.
"""

from __future__ import annotations

import os
from pathlib import Path

from clmodes.bundle.errors import BundleError
from clmodes.store.sizes import SizeError, parse_size, shown

SIZE_ENV = "CLMODES_BUNDLE_MAX_SIZE"
DEFAULT_MAX_SIZE = 4 << 30


def max_size(path: Path | None = None) -> int:
    """The limit; a value that is not a size is refused (naming `path`, the bundle that
    was to be read, if given)."""
    text = os.environ.get(SIZE_ENV, "")
    if not text:
        return DEFAULT_MAX_SIZE
    try:
        return parse_size(text)
    except SizeError:
        where = f"{path}: " if path is not None else ""
        raise BundleError(f"{where}${SIZE_ENV}={text[:40]!r}: not a size "
                          "(bytes, or with K, M, G, T)") from None


def check_size(path: Path, size: int) -> None:
    """Refuse a bundle above the limit, saying the limit and how to raise it."""
    limit = max_size(path)
    if size > limit:
        raise BundleError(f"{path}: {size} bytes, over the bundle size limit of {shown(limit)}; "
                          f"set ${SIZE_ENV} higher to read it")
