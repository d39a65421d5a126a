"""`merge`: bundles made on different machines combined into one.

Every entry is kept once: rows are the same entry when their table's key (`Row.key`)
is; the first bundle that holds an entry wins."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clmodes.bundle.errors import BundleError
from clmodes.bundle.files import SigningKey, private_key, read, write
from clmodes.store import StoreEntries


def merge(out: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]],
          *, force: bool = False, sign: SigningKey | None = None) -> dict[str, Any]:
    """Combine bundles (made on different machines) into one new file; every entry kept
    once. Every input is read and verified before `out` is written; `out` is never one of
    the inputs, and an existing `out` is replaced only with `force`. (A first version took
    its first argument as the output and overwrote a user's bundle with the merge.)
    `sign`: a private key to sign the merge with; signing vouches for every input, so
    merge only bundles you made."""
    inputs = list(inputs)
    _check_output(Path(out), [Path(p) for p in inputs], force)
    signer = private_key(sign)
    combined = StoreEntries.empty()
    seen: set[tuple[str, ...]] = set()
    for path in inputs:
        for kind, rows in read(path).entries.tables().items():
            kept = combined.tables()[kind]
            for row in rows:
                key = (kind, *map(str, row.key))
                if key not in seen:
                    seen.add(key)
                    kept.append(row)
    return write(Path(out), combined, signer)


def _check_output(out: Path, inputs: list[Path], force: bool) -> None:
    if not inputs:
        raise BundleError("merge needs at least one input bundle")
    for path in inputs:
        if out.resolve() == path.resolve() or (out.exists() and path.exists() and out.samefile(path)):
            raise BundleError(f"{out}: is also an input; merge writes a new file (-o OUT)")
    if out.exists() and not force:
        raise BundleError(f"{out}: exists; pass --force (force=True) to replace it")
