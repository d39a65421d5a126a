"""`merge`: bundles made on different machines combined into one.

Every entry is kept once: rows are the same entry when their table's key (`Row.key`)
is; the first bundle that holds an entry wins."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clmodes.bundle.files import read, write
from clmodes.store import StoreEntries


def merge(out: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]) -> dict[str, Any]:
    """Combine bundles (made on different machines) into one; every entry kept once.
    Every input is read and verified before `out` is written."""
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
    return write(Path(out), combined)
