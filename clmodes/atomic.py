"""Writing a user's file whole or not at all: a temporary file beside it, then a rename.

The temporary file is made beside the target (so `os.replace` never crosses file
systems), synced before it replaces the target, and removed on every error path: a
directory as the target once left a 160 KB temporary file in its parent. Readers never
see half a file, and a failed write leaves an existing file as it was. The file gets the
mode a plain `open()` would give it (an existing file's own, else what the umask allows):
`mkstemp` makes its file 0600, which left every bundle and plot private. Private keys
are written elsewhere, 0600 on purpose (`bundle.signing`)."""

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
        os.fchmod(handle, _mode_for(path))
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode_for(path: Path) -> int:
    """The permissions `open(path, "w")` would leave: an existing file keeps its own."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (setting it to
    read it back would race with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
