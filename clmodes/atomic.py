"""Writing a user's file whole or not at all: a temporary file beside it, then a rename.

The temporary file is made beside the target (so `os.replace` never crosses file
systems), synced before it replaces the target, and removed on every error path: a
directory as the target once left a 160 KB temporary file in its parent. Readers never
see half a file, and a failed write leaves an existing file as it was."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_replacing(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically; an `OSError` (the caller words it) leaves no
    temporary file and the target unchanged."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
