"""Where the process's store lives: `$CLMODES_CACHE_DIR`, else the user cache dir
(`platformdirs`), unless `set_cache_dir()` moved it. The store is opened on first use,
so importing clmodes touches no file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import platformdirs

from clmodes.store.store import Store

_default: Store | None = None
_default_lock = threading.Lock()


def default_location() -> Path:
    """`$CLMODES_CACHE_DIR`, else the user cache dir (`platformdirs`)."""
    configured = os.environ.get("CLMODES_CACHE_DIR")
    return Path(configured) if configured else Path(platformdirs.user_cache_dir("clmodes"))


def default_store() -> Store:
    """The process's store, opened on first use at `default_location()`."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Store(default_location())
        return _default


def set_cache_dir(directory: Path | str | None) -> Store:
    """Relocate the process's store (None: in memory). Returns the new store."""
    global _default
    with _default_lock:
        if _default is not None:
            _default.close()
        _default = Store(directory)
        return _default
