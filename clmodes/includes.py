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
the same, and a source's resolution is remembered with every path it probed; each later
`Kernel` of that source pays one `stat` per probed path (a header created earlier in the
search is seen), and a launch pays nothing (the key is made with the kernel). The
trade-off: an edit that restores a file's size and mtime to the nanosecond is not seen;
hashing every file for every `Kernel` would see it, at a price paid by every variant of a
tunable. A file modified within the last seconds is not cached at all (a second edit
within the file system's timestamp granularity would otherwise keep its stamp).
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
    return list(_pyopencl_dirs(os.environ.get("PYOPENCL_BUILD_OPTIONS", "")))


@functools.lru_cache(maxsize=16)
def _pyopencl_dirs(forced: str) -> tuple[str, ...]:
    found = include_dirs([*getattr(cl, "_DEFAULT_INCLUDE_OPTIONS", []), *forced.split()])
    # pyopencl quotes a path with a space in it for the compiler's command line.
    return tuple(d[1:-1] if len(d) > 1 and d[0] == d[-1] == '"' else d for d in found)


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


Stamp = tuple[int, int, int, int]  # size, mtime, device, inode


@dataclasses.dataclass(frozen=True)
class _File:
    stamp: Stamp
    digest: str
    directives: tuple[Directive, ...]


@dataclasses.dataclass(frozen=True)
class _Walk:
    """One source's digest, and every path looked at to make it with the stamp it had
    (None: no regular file there): while all stamps hold, the digest holds."""

    digest: str
    probes: tuple[tuple[str, Stamp | None], ...]


_files: dict[str, _File] = {}
_walks: dict[tuple[str, tuple[str, ...]], _Walk] = {}
_lock = threading.Lock()


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):  # a FIFO named like a header would block a read
        return None
    return (info.st_size, info.st_mtime_ns, info.st_dev, info.st_ino)


def _settled(stamp: Stamp) -> bool:
    return time.time() - stamp[1] / 1e9 > _RACY_S


def _read(path: str, stamp: Stamp) -> _File | None:
    """A regular file's digest and includes, read once per stamp."""
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
    if _settled(stamp):
        with _lock:
            _files[path] = found
    return found


def _name(directive: Directive, defines: Mapping[str, str | None]) -> Directive:
    """A `#include MACRO` through the kernel's defines (`-D HEADER='"val.h"'`)."""
    form, name = directive
    if form != "macro" or not defines.get(name):
        return directive
    expanded = directives(f"#include {defines[name]}")
    return expanded[0] if expanded and expanded[0][0] != "macro" else directive


class _Walker:
    """Resolves a source's include graph, recording every path it probes."""

    def __init__(self, dirs: list[str], defines: Mapping[str, str | None]) -> None:
        self.dirs, self.defines = dirs, defines
        self.probes: list[tuple[str, Stamp | None]] = []
        self.reads_defines = False  # a `#include MACRO`: the walk depends on the defines

    def find(self, directive: Directive, here: str | None) -> tuple[str, _File] | None:
        if directive[0] == "macro":
            self.reads_defines = True
            directive = _name(directive, self.defines)
        form, name = directive
        if form == "macro" or not name:
            return None
        for folder in ([here] if form == '"' and here is not None else []) + self.dirs:
            path = os.path.join(folder, name)
            stamp = _stamp(path)
            self.probes.append((path, stamp))
            found = _read(path, stamp) if stamp is not None else None
            if found is not None:
                return path, found
        return None

    def digest(self, top: tuple[Directive, ...]) -> str:
        parts: list[list[str | None]] = []
        seen: set[tuple[int, int]] = set()
        pending: list[tuple[str | None, tuple[Directive, ...]]] = [(None, top)]
        while pending and len(seen) < _MAX_FILES:
            here, found_in = pending.pop()
            for directive in found_in:
                hit = self.find(directive, here)
                parts.append([*directive, hit[1].digest if hit else None])
                if hit is not None and hit[1].stamp[2:] not in seen:
                    seen.add(hit[1].stamp[2:])
                    pending.append((os.path.dirname(hit[0]), hit[1].directives))
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def included_digest(source: str, options: Iterable[str],
                    defines: Mapping[str, str | None]) -> str | None:
    """A digest of every file `source` may include (recursively), by content; None when
    it has no `#include` at all (its key is then what it always was)."""
    top = directives(source)
    if not top:
        return None
    dirs = [*include_dirs(options), *pyopencl_include_dirs()]
    memo = (source, tuple(dirs))
    known = _walks.get(memo)
    if known is not None and all(_stamp(path) == stamp for path, stamp in known.probes):
        return known.digest
    walker = _Walker(dirs, defines)
    digest = walker.digest(top)
    if not walker.reads_defines and all(s is None or _settled(s) for _, s in walker.probes):
        with _lock:
            if len(_walks) > _MAX_FILES:
                _walks.clear()
            _walks[memo] = _Walk(digest, tuple(walker.probes))
    return digest
