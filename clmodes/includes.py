"""What a kernel's source includes, by content: part of the kernel's identity.

A kernel's binary and its tune measurements are stored under its key. A key made of the
source text alone kept serving the old binary after a header the source includes was
edited, so the key also covers the content of every file the source may include: the
user's `-I` headers and pyopencl's own (pyopencl adds its include folder to every build,
and those headers change with pyopencl).

Includes are found by scanning text, not by preprocessing: the key is needed before any
device is chosen, for units that build alone as well as those that batch, and
preprocessing is per device. The scan is a superset: every `#include` line counts,
whether a conditional takes it or not (editing a header that these defines skip
recompiles once; it never serves stale code). A name resolves as the compiler resolves
it: a quoted name next to the including header first, then each `-I` folder in order,
then pyopencl's. A name found nowhere counts as that name (the build reports it);
`#include MACRO` resolves through the kernel's own defines, else counts as its text.

Cost: a file is read and hashed once per process while its size, mtime and inode stay
the same; each later `Kernel` pays one `stat` per file it includes, and a launch pays
nothing (the key is made with the kernel). The trade-off: an edit that restores a file's
size and mtime to the nanosecond is not seen; hashing every file for every `Kernel`
would see it, at a price paid by every variant of a tunable. A file modified within the
last seconds is not cached at all (a second edit within the file system's timestamp
granularity would otherwise keep its stamp).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Iterable, Mapping

import pyopencl as cl

_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]*)"|<([^>\n]*)>|([A-Za-z_]\w*))', re.M)
_RACY_S = 2.0  # files modified this recently are read again next time
_MAX_FILES = 4096  # a bound on one source's include graph (hostile or generated trees)

Directive = tuple[str, str]
"""(form, name): form `"` (quoted), `<` (angled) or `macro` (`#include NAME`)."""


def include_dirs(options: Iterable[str]) -> list[str]:
    """The `-I DIR` / `-IDIR` directories of a list of build options, in order."""
    found, tokens = [], list(options)
    for i, token in enumerate(tokens):
        if token == "-I" and i + 1 < len(tokens):
            found.append(tokens[i + 1])
        elif token.startswith("-I") and len(token) > 2:
            found.append(token[2:])
    return found


def pyopencl_include_dirs() -> list[str]:
    """The include path pyopencl adds to every build (its own headers, e.g.
    `pyopencl-complex.h`, and any `-I` in `$PYOPENCL_BUILD_OPTIONS`)."""
    forced = os.environ.get("PYOPENCL_BUILD_OPTIONS", "").split()
    found = include_dirs([*getattr(cl, "_DEFAULT_INCLUDE_OPTIONS", []), *forced])
    # pyopencl quotes a path with a space in it for the compiler's command line.
    return [d[1:-1] if len(d) > 1 and d[0] == d[-1] == '"' else d for d in found]


@functools.lru_cache(maxsize=1024)
def directives(text: str) -> tuple[Directive, ...]:
    """The `#include` lines of a text, in order (cached: variants share a source)."""
    found: list[Directive] = []
    for quoted, angled, macro in _INCLUDE.findall(text):
        if macro:
            found.append(("macro", macro))
        else:
            found.append(('"', quoted) if quoted else ("<", angled))
    return tuple(found)


@dataclasses.dataclass(frozen=True)
class _File:
    stamp: tuple[int, int, int, int]  # size, mtime, device, inode
    digest: str
    directives: tuple[Directive, ...]


_files: dict[str, _File] = {}
_files_lock = threading.Lock()


def _read(path: str) -> _File | None:
    """A regular file's digest and includes; None if it is not one (nothing else is
    opened: a FIFO named like a header would block)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    stamp = (info.st_size, info.st_mtime_ns, info.st_dev, info.st_ino)
    cached = _files.get(path)
    if cached is not None and cached.stamp == stamp:
        return cached
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    found = _File(stamp, hashlib.sha256(data).hexdigest(),
                  directives(data.decode("utf-8", "replace")))
    if time.time() - info.st_mtime_ns / 1e9 > _RACY_S:
        with _files_lock:
            _files[path] = found
    return found


def _name(directive: Directive, defines: Mapping[str, str | None]) -> Directive:
    """A `#include MACRO` through the kernel's defines (`-D HEADER='"val.h"'`)."""
    form, name = directive
    if form != "macro" or not defines.get(name):
        return directive
    expanded = directives(f"#include {defines[name]}")
    return expanded[0] if expanded and expanded[0][0] != "macro" else directive


def _find(directive: Directive, here: str | None, dirs: list[str]) -> tuple[str, _File] | None:
    form, name = directive
    if form == "macro" or not name:
        return None
    search = ([here] if form == '"' and here is not None else []) + dirs
    for folder in search:
        path = os.path.join(folder, name)
        found = _read(path)
        if found is not None:
            return path, found
    return None


def included_digest(source: str, options: Iterable[str],
                    defines: Mapping[str, str | None]) -> str | None:
    """A digest of every file `source` may include (recursively), by content; None when
    it has no `#include` at all (its key is then what it always was)."""
    top = directives(source)
    if not top:
        return None
    dirs = [*include_dirs(options), *pyopencl_include_dirs()]
    parts: list[list[str | None]] = []
    seen: set[tuple[int, int]] = set()
    pending: list[tuple[str | None, tuple[Directive, ...]]] = [(None, top)]
    while pending and len(seen) < _MAX_FILES:
        here, found_in = pending.pop()
        for directive in found_in:
            directive = _name(directive, defines)
            hit = _find(directive, here, dirs)
            if hit is None:
                parts.append([*directive, None])
                continue
            path, file = hit
            parts.append([*directive, file.digest])
            identity = (file.stamp[2], file.stamp[3])
            if identity not in seen:
                seen.add(identity)
                pending.append((os.path.dirname(path), file.directives))
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()
