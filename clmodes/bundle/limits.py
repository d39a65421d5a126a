"""What this machine reads of a file a user hands over: a bundle up to
`$CLMODES_BUNDLE_MAX_SIZE`, any other file (a key) up to the size no such file has.

A bundle is refused by its size before a byte of it is read, so that what a refusal costs
is bounded by the limit, never by what someone hands over. The value is a number of
bytes, or one with a binary unit (`512M`, `8G`, `8GiB`; the grammar is
`clmodes.sizes`); the default is far above what a real application's binaries take.
"""

from __future__ import annotations

from pathlib import Path

from clmodes import settings
from clmodes.bundle.errors import BundleError
from clmodes.sizes import shown

SIZE_ENV = settings.BUNDLE_MAX_SIZE.name
DEFAULT_MAX_SIZE = settings.BUNDLE_MAX_SIZE.default


def max_size(path: Path | None = None) -> int:
    """The limit; a value that is not a size is refused (naming `path`, the bundle that
    was to be read, if given)."""
    try:
        return settings.BUNDLE_MAX_SIZE.get()
    except settings.SettingError as error:
        where = f"{path}: " if path is not None else ""
        raise BundleError(f"{where}{error}") from None


def check_size(path: Path, size: int) -> None:
    """Refuse a bundle above the limit, saying the limit and how to raise it."""
    limit = max_size(path)
    if size > limit:
        raise BundleError(f"{path}: {size} bytes, over the bundle size limit of {shown(limit)}; "
                          f"set ${SIZE_ENV} higher to read it")


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """A file a user hands us (a bundle, a key), whole, but never past `limit`, a size no
    such file has; any failure is one `BundleError` line naming the file."""
    try:
        if path.stat().st_size > limit:
            raise BundleError(f"{path}: too large to be a {what}")
        return path.read_bytes()
    except OSError as error:
        raise BundleError(f"{path}: cannot read {what} ({error.strerror or error})") from error
