"""Where the process's store lives: `$CLMODES_CACHE_DIR`, else the user cache dir
(`platformdirs`), unless `set_cache_dir()` moved it (`clmodes.runtime` holds the store
itself and opens it on first use, so importing clmodes touches no file)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def default_location() -> Path:
    """`$CLMODES_CACHE_DIR`, else the user cache dir (`platformdirs`)."""
    configured = os.environ.get("CLMODES_CACHE_DIR")
    return Path(configured) if configured else Path(platformdirs.user_cache_dir("clmodes"))
