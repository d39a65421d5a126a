"""Where the process's store lives: `$CLMODES_CACHE_DIR`, else the user cache dir
(`platformdirs`), unless `set_cache_dir()` moved it (`clmodes.runtime` holds the store
itself and opens it on first use, so importing clmodes touches no file)."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from clmodes import settings


def default_location() -> Path:
    """`$CLMODES_CACHE_DIR`, else the user cache dir (`platformdirs`)."""
    return settings.CACHE_DIR.get() or Path(platformdirs.user_cache_dir("clmodes"))
