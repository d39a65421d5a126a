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
`#include NAME` counts every header NAME may name (the kernel's define of it, any
`#define NAME "x.h"` the walk meets), else counts as its text.

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

from clmodes import settings

_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include\b[ \t]*(?:"([^"\n]*)"|<([^>\n]*)>|([A-Za-z_]\w*))', re.M)
# `#define HEADER "val.h"`: what a `#include HEADER` may name.
_NAMED = re.compile(
    r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+("[^"\n]*"|<[^>\n]*>)[ \t]*$', re.M)
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
    return list(_pyopencl_dirs(settings.PYOPENCL_BUILD_OPTIONS.get()))


@functools.lru_cache(maxsize=16)
def _pyopencl_dirs(forced: tuple[str, ...]) -> tuple[str, ...]:
    found = include_dirs([*getattr(cl, "_DEFAULT_INCLUDE_OPTIONS", []), *forced])
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


@functools.lru_cache(maxsize=1024)
def header_names(text: str) -> tuple[tuple[str, Directive], ...]:
    """The object-like defines of a text whose value is a header name, as directives."""
    return tuple((name, directives(f"#include {value}")[0]) for name, value in _NAMED.findall(text))


Stamp = tuple[int, int, int, int]  # size, mtime, device, inode


@dataclasses.dataclass(frozen=True)
class _File:
    stamp: Stamp
    digest: str
    directives: tuple[Directive, ...]
    names: tuple[tuple[str, Directive], ...]  # `header_names`


@dataclasses.dataclass(frozen=True)
class _Walk:
    """One source's digest, and every path looked at to make it with the stamp it had
    (None: no regular file there): while all stamps hold, the digest holds."""

    digest: str
    probes: tuple[tuple[str, Stamp | None], ...]
    files: tuple[str, ...] = ()  # every file found, once each, in the order met
    size: int = 0  # their bytes together
    whole: bool = False  # every include found here by name, and every file found visited


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
    text = data.decode("utf-8", "replace")
    found = _File(stamp, hashlib.sha256(data).hexdigest(), directives(text), header_names(text))
    if _settled(stamp):
        with _lock:
            _files[path] = found
    return found


class _Walker:
    """Resolves a source's include graph, recording every path it probes.

    `#include NAME` counts every header NAME may name: the kernel's define of it and any
    `#define NAME "x.h"` in a text of the walk, wherever it is (a superset, like the
    scan), so those are resolved once everything else has been."""

    def __init__(self, dirs: list[str], defines: Mapping[str, str | None]) -> None:
        self.dirs = dirs
        self.probes: list[tuple[str, Stamp | None]] = []
        self.parts: list[list[str | None]] = []
        self.seen: set[tuple[int, int]] = set()
        self.pending: list[tuple[str | None, tuple[Directive, ...]]] = []
        self.macros: list[tuple[str | None, str]] = []  # (including folder, NAME)
        self.named: dict[str, set[Directive]] = {}
        self.files: list[str] = []
        self.size = 0
        self.capped = False  # a file found was left unvisited (`_MAX_FILES`)
        for name, value in defines.items():
            expanded = directives(f"#include {value}") if value else ()
            if expanded and expanded[0][0] != "macro":
                self.named.setdefault(name, set()).add(expanded[0])

    @property
    def whole(self) -> bool:
        """Was every include found by name, and every file found read? (A `#include NAME`
        or a header not found here may be what the compiler reads.)"""
        return not self.capped and all(part[2] is not None for part in self.parts)

    @property
    def reads_defines(self) -> bool:
        """Does the walk depend on the kernel's defines (a `#include NAME`)?"""
        return bool(self.macros)

    def find(self, directive: Directive, here: str | None) -> tuple[str, _File] | None:
        form, name = directive
        if not name:
            return None
        for folder in ([here] if form == '"' and here is not None else []) + self.dirs:
            path = os.path.join(folder, name)
            stamp = _stamp(path)
            self.probes.append((path, stamp))
            found = _read(path, stamp) if stamp is not None else None
            if found is not None:
                return path, found
        return None

    def visit(self, here: str | None, found_in: tuple[Directive, ...],
              names: tuple[tuple[str, Directive], ...]) -> None:
        self.pending.append((here, found_in))
        for name, directive in names:
            self.named.setdefault(name, set()).add(directive)

    def include(self, directive: Directive, here: str | None) -> None:
        if directive[0] == "macro":
            self.macros.append((here, directive[1]))
            self.parts.append([*directive, None])
            return
        hit = self.find(directive, here)
        self.parts.append([*directive, hit[1].digest if hit else None])
        if hit is not None and hit[1].stamp[2:] not in self.seen:
            if len(self.seen) >= _MAX_FILES:
                self.capped = True
                return
            self.seen.add(hit[1].stamp[2:])
            self.files.append(hit[0])
            self.size += hit[1].stamp[0]
            self.visit(os.path.dirname(hit[0]), hit[1].directives, hit[1].names)

    def digest(self, source: str) -> str:
        self.visit(None, directives(source), header_names(source))
        tried: set[tuple[str | None, Directive]] = set()
        while True:
            while self.pending:
                here, found_in = self.pending.pop()
                for directive in found_in:
                    self.include(directive, here)
            named = sorted({(here, d) for here, name in self.macros
                            for d in self.named.get(name, ())} - tried, key=repr)
            if not named:
                return hashlib.sha256(json.dumps(self.parts).encode()).hexdigest()
            for here, directive in named:
                tried.add((here, directive))
                self.include(directive, here)


def included_digest(source: str, options: Iterable[str],
                    defines: Mapping[str, str | None]) -> str | None:
    """A digest of every file `source` may include (recursively), by content; None when
    it has no `#include` at all (its key is then what it always was)."""
    walk = _walk(source, options, defines)
    return None if walk is None else walk.digest


def included_files(source: str, options: Iterable[str],
                   defines: Mapping[str, str | None]) -> tuple[tuple[str, ...], int]:
    """Every file `source` may include (the scan's superset, each once) and their bytes
    together: what preparing the source for a batch has to read (`batch.costs`)."""
    walk = _walk(source, options, defines)
    return ((), 0) if walk is None else (walk.files, walk.size)


def included_texts(source: str, options: Iterable[str],
                   defines: Mapping[str, str | None]) -> tuple[str, ...] | None:
    """The text of every file `source` may include (the scan's superset, recursively;
    empty without an `#include`), for a line scan of their directives
    (`batch.directives`); None when the walk cannot vouch for them: a header not found
    here (the compiler may find one elsewhere), a `#include NAME`, or a file that changed
    since it was walked."""
    walk = _walk(source, options, defines)
    if walk is None:
        return ()
    if not walk.whole:
        return None
    texts = []
    for path in walk.files:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if len(data) != _stamp_size(walk, path):
            return None
        texts.append(data.decode("utf-8", "replace"))
    return tuple(texts)


def _stamp_size(walk: _Walk, path: str) -> int | None:
    return next((stamp[0] for probed, stamp in walk.probes if probed == path and stamp), None)


def _walk(source: str, options: Iterable[str], defines: Mapping[str, str | None]) -> _Walk | None:
    if not directives(source):
        return None
    dirs = [*include_dirs(options), *pyopencl_include_dirs()]
    memo = (source, tuple(dirs))
    known = _walks.get(memo)
    if known is not None and all(_stamp(path) == stamp for path, stamp in known.probes):
        return known
    walker = _Walker(dirs, defines)
    walk = _Walk(walker.digest(source), tuple(walker.probes), tuple(walker.files), walker.size,
                 walker.whole)
    if not walker.reads_defines and all(s is None or _settled(s) for _, s in walker.probes):
        with _lock:
            if len(_walks) > _MAX_FILES:
                _walks.clear()
            _walks[memo] = walk
    return walk
